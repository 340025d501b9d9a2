"""Option defaults from files: the user's config file and a project's pyproject.toml.

The user file is ``config.toml`` in the platform's config folder (``HWPSCAN_CONFIG``
names another); the ``[tool.hwpscan]`` table of the nearest ``pyproject.toml`` wins over
it. Top-level keys are shared settings (:data:`SHARED`); a table named after a command
gives its option defaults by long name (``fail-on`` or ``fail_on``)::

    [tool.hwpscan.scan]
    format = "jsonl"
    fail_on = ["contaminated", "unreadable"]

The files become Click's ``default_map``. An API key in pyproject.toml is refused (a
project file gets committed); an unknown key is a warning; bad TOML or a value of the
wrong type is an error naming the file (exit 2).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwpscan.errors import HwpscanError, UsageError

#: The variable that names the user config file.
CONFIG_ENV = "HWPSCAN_CONFIG"
#: The settings every command that takes them shares, the types they may have, and
#: those types as a message names them.
SHARED: dict[str, tuple[tuple[type, ...], str]] = {
    "api_url": ((str,), "a string"),
    "jobs": ((int,), "a whole number"),
    "file_timeout": ((int, float), "a number"),
}
#: Keys that hold a secret: never read from a project file.
_SECRETS = ("api_key", "api-key", "key")


def user_config_path() -> Path:
    """``HWPSCAN_CONFIG``, else ``config.toml`` in the platform's config folder."""
    named = os.environ.get(CONFIG_ENV)
    if named:
        return Path(named).expanduser()
    import platformdirs  # only when HWPSCAN_CONFIG does not say

    return Path(platformdirs.user_config_dir("hwpscan", False)) / "config.toml"


def nearest_pyproject(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` in *start* (the current folder) or above it."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror or exc})") from None


@dataclass(frozen=True)
class ConfigFiles:
    """The settings of the two files, and where each was found (None: no settings)."""

    user: Mapping[str, Any] = field(default_factory=dict)
    project: Mapping[str, Any] = field(default_factory=dict)
    user_path: Path | None = None
    project_path: Path | None = None

    @classmethod
    def load(cls, cwd: Path | None = None) -> ConfigFiles:
        """Read the user file (if it exists) and the nearest pyproject.toml's table."""
        user_path = user_config_path()
        user: dict[str, Any] = {}
        if user_path.is_file():
            user = _read(user_path)
            if _is_key_file(user_path):  # macOS: the config folder is the state folder
                user.pop("api_key", None)  # the key's own reader takes it from there
        project_path = nearest_pyproject(cwd)
        project: dict[str, Any] = {}
        if project_path is not None:
            tool = _read(project_path).get("tool", {})
            table = tool.get("hwpscan", {}) if isinstance(tool, dict) else {}
            if not isinstance(table, dict):
                raise UsageError(f"{project_path}: [tool.hwpscan] must be a table")
            _refuse_secrets(project_path, table)
            project = table
        return cls(user, project, user_path if user else None, project_path if project else None)


def _is_key_file(path: Path) -> bool:
    """Whether *path* is the state folder's config.toml, where the API key is kept."""
    from hwpscan.api.keys import config_path  # only when a user config file exists
    from hwpscan.home import state_dir  # only when a user config file exists

    try:
        return path.resolve() == config_path(state_dir()).resolve()
    except (HwpscanError, OSError):
        return False


def _refuse_secrets(path: Path, table: Mapping[str, Any], where: str = "tool.hwpscan") -> None:
    for key, value in table.items():
        if key in _SECRETS:
            raise UsageError(
                f"{path}: {where}.{key}: the API key is never read from pyproject.toml "
                f"(it would be committed); set HWPSCAN_API_KEY instead"
            )
        if isinstance(value, dict):
            _refuse_secrets(path, value, f"{where}.{key}")


def default_map(
    files: ConfigFiles,
    commands: Mapping[str, Iterable[tuple[str, tuple[str, ...]]]],
    warn: Any,
) -> dict[str, dict[str, Any]]:
    """Click's ``default_map`` from *files*: for each command (its name and its
    options, as ``(parameter name, option strings)``), the defaults the files give,
    pyproject.toml over the user file. *warn* is called with each unknown key's line.

    >>> files = ConfigFiles(user={"jobs": 2, "scan": {"format": "csv"}},
    ...                     project={"jobs": 4, "scan": {"fail-on": ["contaminated"]}},
    ...                     user_path=Path("config.toml"), project_path=Path("pyproject.toml"))
    >>> options = {"scan": [("jobs", ("--jobs", "-j")), ("fmt", ("--format", "-f")),
    ...                     ("fail_on", ("--fail-on",))], "fetch": [("fmt", ("--format",))]}
    >>> default_map(files, options, print)
    {'scan': {'jobs': 4, 'fmt': 'csv', 'fail_on': ['contaminated']}}
    """
    names = {cmd: _option_names(params) for cmd, params in commands.items()}
    result: dict[str, dict[str, Any]] = {}
    for settings, path in ((files.user, files.user_path), (files.project, files.project_path)):
        if path is not None:
            _file_defaults(path, settings, names, result, warn)
    return {cmd: values for cmd, values in result.items() if values}


def _file_defaults(
    path: Path,
    settings: Mapping[str, Any],
    names: Mapping[str, Mapping[str, str]],
    result: dict[str, dict[str, Any]],
    warn: Any,
) -> None:
    """One file's settings into *result* (over what an earlier file gave)."""
    where = "tool.hwpscan." if path.name == "pyproject.toml" else ""
    for key, value in settings.items():
        if key == "api_key":  # only the user file gets here (pyproject's is refused)
            warn(
                f"{path}: api_key is not read from here: set HWPSCAN_API_KEY or put it "
                "in config.toml in the state folder (HWPSCAN_HOME)"
            )
        elif isinstance(value, dict):
            if key not in names:
                warn(f"{path}: unknown key {where}{key} (no such command)")
                continue
            into = result.setdefault(key, {})
            _command_table(path, f"{where}{key}", value, names[key], into, warn)
        elif key.replace("-", "_") in SHARED:
            shared = key.replace("-", "_")
            _check_type(path, f"{where}{key}", value, shared)
            for cmd, options in names.items():
                if shared in options.values():
                    result.setdefault(cmd, {})[shared] = value
        else:
            warn(f"{path}: unknown key {where}{key}")


def _option_names(params: Iterable[tuple[str, tuple[str, ...]]]) -> dict[str, str]:
    """Each long option's name, dashes as underscores, to its parameter's name."""
    names: dict[str, str] = {}
    for param, opts in params:
        for opt in opts:
            if opt.startswith("--"):
                names[opt[2:].replace("-", "_")] = param
        names.setdefault(param, param)
    return names


def _command_table(
    path: Path,
    where: str,
    table: Mapping[str, Any],
    options: Mapping[str, str],
    into: dict[str, Any],
    warn: Any,
) -> None:
    for key, value in table.items():
        param = options.get(key.replace("-", "_"))
        if param is None or isinstance(value, dict):
            warn(f"{path}: unknown key {where}.{key}")
            continue
        if param in SHARED:
            _check_type(path, f"{where}.{key}", value, param)
        into[param] = value


def _check_type(path: Path, where: str, value: Any, setting: str) -> None:
    types, wanted = SHARED[setting]
    if isinstance(value, bool) or not isinstance(value, types):
        raise UsageError(f"{path}: {where} must be {wanted}, not {value!r}")
