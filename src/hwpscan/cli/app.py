"""The Typer application object every command module registers on."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from hwpscan import __version__
from hwpscan.models import ExitCode

app = typer.Typer(
    name="hwpscan",
    help="Find the lone UTF-16 surrogates that HWP parsers leak into text pipelines.",
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # a closed or detached stream
        return False


def _pipe_width(tty: bool) -> int | None:
    """Piped output is not squeezed to 80 columns: tables stay readable in logs and CI."""
    return None if tty or "COLUMNS" in os.environ else 160


_OUT_TTY, _ERR_TTY = _isatty(sys.stdout), _isatty(sys.stderr)
#: Tables go to stdout; messages and progress to stderr, so `--format jsonl` stays clean.
#: Off a terminal, lines are never hard-wrapped (soft_wrap): a CI log keeps
#: ``error: ... /a/long/path/file.hwp`` on one line, whatever its length.
console = Console(highlight=False, width=_pipe_width(_OUT_TTY), soft_wrap=not _OUT_TTY)
err_console = Console(
    stderr=True, highlight=False, width=_pipe_width(_ERR_TTY), soft_wrap=not _ERR_TTY
)


#: ``--api-url``, shared by every command that talks to the press-release API.
ApiUrlOpt = Annotated[
    str,
    typer.Option(
        "--api-url", envvar="HWPSCAN_API_URL", help="The listing endpoint (default: the real API)."
    ),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"hwpscan {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """hwpscan: attachment encoding forensics for Korean public documents."""


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
