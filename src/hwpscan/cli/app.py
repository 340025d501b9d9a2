"""The Typer application object every command module registers on."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer
from rich.console import Console

from hwpscan import __version__

app = typer.Typer(
    name="hwpscan",
    help="Find the lone UTF-16 surrogates that HWP parsers leak into text pipelines.",
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

#: Piped output is not squeezed to 80 columns: tables stay readable in logs and CI.
_PIPE_WIDTH = None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160
#: Tables go to stdout; messages and progress to stderr, so `--format jsonl` stays clean.
console = Console(highlight=False, width=_PIPE_WIDTH)
err_console = Console(stderr=True, highlight=False)


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
    err_console.print(f"[bold red]error:[/] {message}", markup=True, highlight=False)
    return typer.Exit(code=code)
