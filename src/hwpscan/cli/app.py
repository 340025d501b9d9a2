"""The Typer application every command module registers on, and what they share.

Stock Typer with Rich help; each command gives its epilog (examples, environment, exit
codes) with :func:`epilog`. :class:`HwpscanGroup` prints a usage error as one
``error: ...`` line (exit 2), as every other hwpscan error, not as a usage block.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text
from typer.core import TyperGroup

from hwpscan import __version__
from hwpscan.cli.config_file import CONFIG_ENV, ConfigFiles, default_map
from hwpscan.errors import UsageError
from hwpscan.models import ExitCode


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):  # no stream, or a closed or detached one
        return False


#: Tables go to stdout; messages and progress to stderr, so `--format jsonl` stays clean.
#: Piped output is 160 columns wide, not 80 (``COLUMNS`` wins), and its messages are never
#: hard-wrapped, so a CI log keeps a long path on one line (the tables on stdout are wrapped
#: when ``COLUMNS`` is set). No emoji codes: ``a:warning:b.hwp`` is printed as it is.
_OUT_TTY, _ERR_TTY = _isatty(sys.stdout), _isatty(sys.stderr)
_SOFT = "COLUMNS" not in os.environ
console = Console(
    highlight=False,
    emoji=False,
    width=None if _OUT_TTY or not _SOFT else 160,
    soft_wrap=_SOFT and not _OUT_TTY,
)
err_console = Console(
    stderr=True,
    highlight=False,
    emoji=False,
    width=None if _ERR_TTY or not _SOFT else 160,
    soft_wrap=not _ERR_TTY,
)


#: The validation library's phrases, and ours.
_FRAMEWORK_PHRASES = (
    (r"\bValue error, ", ""),
    (r"Input should be greater than or equal to ", "must be at least "),
    (r"Input should be less than or equal to ", "must be at most "),
    (r"Input should be greater than ", "must be more than "),
    (r"Input should be less than ", "must be less than "),
    (r"Input should be ", "must be "),
)


def clean_error(message: str) -> str:
    """An option error's message without the validation library's phrasing.

    >>> clean_error("Input should be greater than or equal to 1")
    'must be at least 1'
    >>> clean_error("'x': Input should be a valid integer, unable to parse string as an integer")
    "'x': not a whole number"
    """
    message = re.sub(r"Input should be a valid integer[^.]*", "not a whole number", message)
    message = re.sub(r"Input should be a valid number[^.]*", "not a number", message)
    for pattern, replacement in _FRAMEWORK_PHRASES:
        message = re.sub(pattern, replacement, message)
    return message


def unwrap(text: str | None) -> str | None:
    """A docstring's paragraphs with their line breaks joined (Rich help keeps them).

    >>> print(unwrap('''First line
    ...     goes on.
    ...
    ...     Second paragraph.'''))
    First line goes on.
    <BLANKLINE>
    Second paragraph.
    """
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


#: Typer's type names, as the placeholders a user types in their place.
_PLACEHOLDERS = {
    "<bool>": "",  # a flag takes no value
    "<int>": "N",
    "<int range>": "N",
    "<float>": "NUMBER",
    "<float range>": "NUMBER",
    "<str>": "TEXT",
    "<list[str]>": "TEXT",
    "<path>": "PATH",
    "<list[Path]>": "PATH",
}
#: Widest list of choices shown as the placeholder; a longer one is named after its option.
_CHOICES_WIDTH = 18


def placeholder(shown: str | None, name: str) -> str | None:
    """A readable placeholder for what Typer would show as the value's type.

    >>> placeholder("<int range>", "--jobs"), placeholder("<bool>", "--bom")
    ('N', '')
    >>> placeholder("<float range>", "--read-timeout"), placeholder("<all|problems|none>", "--show")
    ('SECONDS', 'all|problems|none')
    >>> placeholder("<table|json|jsonl|csv|junit>", "--format")
    'FORMAT'
    """
    if shown is None or not shown.startswith("<"):
        return shown
    if shown in _PLACEHOLDERS:
        if _PLACEHOLDERS[shown] == "NUMBER" and ("timeout" in name or "wait" in name):
            return "SECONDS"
        return _PLACEHOLDERS[shown]
    choices = shown[1:-1]
    if "|" in choices and len(choices) <= _CHOICES_WIDTH:
        return choices
    return name.lstrip("-").upper().replace("-", "_")


def _finish(command: Any, ctx: typer.Context) -> None:
    """A command's help as hwpscan shows it: prose unwrapped, placeholders readable."""
    command.help = unwrap(command.help)
    for param in command.params:
        if param.metavar is None and param.param_type_name == "option":
            long = next((o for o in param.opts if o.startswith("--")), param.name or "")
            param.metavar = placeholder(param.display_type_rich(ctx), long)
        elif param.param_type_name == "argument" and param.metavar is None:
            param.metavar = (param.name or "").upper().removesuffix("S")
    help_option = command.get_help_option(ctx)
    if help_option is not None:
        help_option.metavar = ""  # a flag: no value to type


class HwpscanGroup(TyperGroup):
    """The ``hwpscan`` group: Typer's, with readable placeholders, and usage errors
    (raised, as it runs with ``standalone_mode=False``) printed as one ``error:`` line
    with the framework's exit code."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        ctx = typer.Context(self, **self.context_settings)
        for command in self.commands.values():
            _finish(command, typer.Context(command, parent=ctx))

    def get_params(self, ctx: Any) -> list[Any]:
        """The group's own options (Typer adds the completion ones after building it)."""
        _finish(self, ctx)
        return list(super().get_params(ctx))

    def defaults_from_files(self) -> dict[str, dict[str, Any]] | None:
        """Click's ``default_map`` from the config files (:mod:`hwpscan.cli.config_file`)."""
        files = ConfigFiles.load()
        if files.user_path is None and files.project_path is None:
            return None
        options = {
            name: [
                (p.name or "", tuple(p.opts))
                for p in command.params
                if p.param_type_name == "option"
            ]
            for name, command in self.commands.items()
        }

        def warn(message: str) -> None:
            err_console.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)

        return default_map(files, options, warn) or None

    def main(self, *args: Any, standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            if "default_map" not in extra:  # a caller's own map wins over the files
                extra["default_map"] = self.defaults_from_files()
            extra["standalone_mode"] = False  # errors raised, to be printed here
            code = super().main(*args, **extra)
        except typer.TyperException as exc:  # one line: error: <subject>: <what is wrong>
            line = "error: " + " ".join(clean_error(exc.format_message()).split())
            err_console.print(line, markup=False, highlight=False, soft_wrap=True)
            code = exc.exit_code
        except UsageError as exc:  # a config file that cannot be used
            err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
            code = ExitCode.USAGE
        except typer.Abort:  # a prompt answered with end-of-file or Ctrl-D
            err_console.print("aborted", markup=False, highlight=False)
            code = 1
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=HwpscanGroup,
    name="hwpscan",
    help="Find the lone UTF-16 surrogates that HWP parsers leak into text pipelines.",
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

#: Each environment variable a command may read, as its epilog lists it.
ENV = {
    "HWPSCAN_API_KEY": "the API key (else HWPSCAN_HOME/config.toml or a prompt)",
    "HWPSCAN_HOME": "state: answer cache, quota ledger, run history",
    "HWPSCAN_API_URL": "the listing endpoint, as --api-url",
    CONFIG_ENV: "option defaults file (else config.toml, config folder)",
    "COLUMNS": "table width; NO_COLOR=1 turns colour off",
    "HWPSCAN_KEEP_RUNS": "runs the history keeps (default 50; 0: all)",
}
#: Which variables matter to each kind of command.
ENV_FETCH = ("HWPSCAN_API_KEY", "HWPSCAN_HOME", "HWPSCAN_API_URL", CONFIG_ENV, "COLUMNS")
ENV_LOCAL = ("HWPSCAN_HOME", CONFIG_ENV, "COLUMNS")
#: Where an option's value comes from, first found wins (:mod:`hwpscan.cli.config_file`).
PRECEDENCE = (
    "Settings, first found wins: the command line, the environment,",
    "[tool.hwpscan] in the nearest pyproject.toml, the config file, defaults",
)
EXIT_USAGE = "2  bad arguments, dates or paths"
EXIT_API = "3  the API or its limits stopped the fetch (what came is kept)"

#: The widest an epilog line may be: it stays whole in an 80-column terminal (the help
#: is indented by one column on each side).
EPILOG_WIDTH = 76


def epilog(examples: Sequence[tuple[str, str]], env: Sequence[str], codes: Sequence[str]) -> str:
    """A command's Examples, Environment and Exit codes sections, as Rich markup.

    Each example is a comment saying what it does, then the command (its `` \\``
    line breaks kept). A line wider than :data:`EPILOG_WIDTH` is a ValueError.

    >>> text = epilog([("hwpscan demo", "the whole job")], ["COLUMNS"], ["0  done"])
    >>> from rich.text import Text
    >>> print(Text.from_markup(text).plain)
    Examples
      # the whole job
      hwpscan demo
    <BLANKLINE>
    Environment
      COLUMNS  table width; NO_COLOR=1 turns colour off
      Settings, first found wins: the command line, the environment,
      [tool.hwpscan] in the nearest pyproject.toml, the config file, defaults
    <BLANKLINE>
    Exit codes
      0  done
    """
    lines = ["[bold]Examples[/]"]
    for command, what in examples:
        lines.append(f"  [dim]# {escape(what)}[/]")
        for part in command.split("\n"):  # a continuation's backslash is kept as it is
            body = part.removesuffix("\\")
            lines.append(f"  {escape(body)}{part[len(body) :]}")
    lines += ["", "[bold]Environment[/]"]
    key_width = max(len(k) for k in env)
    lines += [f"  {k:<{key_width}}  {escape(ENV[k])}" for k in env]
    lines += [f"  {escape(line)}" for line in PRECEDENCE]
    lines += ["", "[bold]Exit codes[/]"]
    lines += [f"  {escape(code)}" for code in codes]
    text = "\n".join(lines)
    wide = [line for line in Text.from_markup(text).plain.split("\n") if len(line) > EPILOG_WIDTH]
    if wide:  # Rich would wrap it back to the margin on an 80-column terminal
        raise ValueError(f"epilog line wider than {EPILOG_WIDTH} columns: {wide[0]!r}")
    return text


#: ``--api-url``, shared by every command that talks to the press-release API.
ApiUrlOpt = Annotated[
    str,
    typer.Option(
        "--api-url",
        envvar="HWPSCAN_API_URL",
        metavar="URL",
        show_default=False,
        help="The listing endpoint (default: the real API).",
        rich_help_panel="API",
    ),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"hwpscan {__version__}")
        raise typer.Exit()


@app.callback(
    invoke_without_command=True,
    epilog=epilog(
        [
            ("hwpscan demo", "the whole job on a local emulator, nothing to set up"),
            ("hwpscan scan press/", "scan the attachments in a folder"),
        ],
        ENV_FETCH,
        [
            "0  done, nothing failed",
            "1  findings a command was told to fail on",
            EXIT_USAGE,
            EXIT_API,
        ],
    ),
)
def _main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Find the lone UTF-16 surrogates that HWP parsers leak into text pipelines."""
    if ctx.invoked_subcommand is None:  # no command: the help, and exit 2 as for a usage error
        typer.echo(ctx.get_help())
        raise typer.Exit(ExitCode.USAGE)


def warn(message: str) -> None:
    """A yellow ``warning:`` line on stderr; *message* is Rich markup (escape what is not)."""
    err_console.print(f"[yellow]warning:[/] {message}", highlight=False)


def fail(message: str, code: int) -> typer.Exit:
    """Print a user-facing error (no traceback) and return the Exit to raise."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)
    return typer.Exit(code=code)


def check_writable_folder(folder: Path, option: str) -> None:
    """Fail before any work when *folder* cannot be created or written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".hwpscan-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        message = f"{option} {folder}: cannot write there ({exc.strerror or exc})"
        raise fail(message, ExitCode.USAGE) from None
