"""Where the API key comes from: the environment, then a config file. It is only held in
memory and sent; whatever hwpscan writes names it by :func:`hwpscan.redaction.key_hash`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from hwpscan.errors import UsageError

ENV_VAR = "HWPSCAN_API_KEY"
#: How long the keys the API issues are; any other length is a paste or typing mistake.
KEY_LENGTH = 32


def config_path(state: Path) -> Path:
    """The config file: ``api_key = "..."`` in TOML, inside the state folder."""
    return state / "config.toml"


def resolve_key(state: Path, env: Mapping[str, str] | None = None) -> str | None:
    """The key from ``HWPSCAN_API_KEY``, else from the config file, else ``None``.

    >>> resolve_key(Path("/nonexistent"), {"HWPSCAN_API_KEY": " abc "})
    'abc'
    >>> resolve_key(Path("/nonexistent"), {}) is None
    True
    """
    env = os.environ if env is None else env
    if value := (env.get(ENV_VAR) or "").strip():
        return value
    import tomllib  # only when no key is in the environment: most runs never read the file

    path = config_path(state)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read the config file {path}: {type(exc).__name__}") from None
    key = data.get("api_key")
    if key is not None and not isinstance(key, str):
        raise UsageError(f"api_key in {path} must be a string")
    return key.strip() if key and key.strip() else None


def check_key(key: str) -> str:
    """Reject keys that cannot be sent as a query value (no echo of the key itself).

    >>> check_key("ok-key")
    'ok-key'
    >>> check_key("two words")
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: the API key contains spaces or control characters
    """
    key = key.strip()
    if not key:
        raise UsageError(f"no API key: set {ENV_VAR} or put api_key in the config file")
    if any(c.isspace() or ord(c) < 0x20 for c in key):
        raise UsageError("the API key contains spaces or control characters")
    return key


def key_length_problem(key: str) -> str | None:
    """Why a key of this length is suspect (its length, never the key), or None."""
    if len(key) == KEY_LENGTH:
        return None
    return (
        f"the API key is {len(key)} characters long, but keys are {KEY_LENGTH}: check "
        f"{ENV_VAR} or api_key in the config file for a missing or extra character"
    )


def check_key_length(key: str, *, any_length: bool = False) -> str:
    """Refuse a key whose length is not :data:`KEY_LENGTH` before it costs a call, unless
    *any_length* (``--any-key-length``; the caller warns with :func:`key_length_problem`).

    >>> check_key_length("short", any_length=True)
    'short'
    >>> check_key_length("secret-but-short")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: the API key is 16 characters long, but keys are 32: ...
    """
    problem = key_length_problem(key)
    if problem is not None and not any_length:
        raise UsageError(
            f"{problem} (nothing was sent; if the key really is this long, pass --any-key-length)"
        )
    return key
