"""The Typer application object every command module registers on.

:class:`HwpscanGroup` finishes each command's help when the command is looked up:
readable placeholders instead of Python types, docstrings unwrapped so the terminal
wraps them, and the Examples / Environment / Exit codes sections of
:mod:`hwpscan.cli.helptext`. It also strips the validation library's phrasing from
option errors.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from difflib import get_close_matches
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_command_name

from hwpscan import __version__
from hwpscan.cli.coerce import install as install_plain
from hwpscan.cli.collect import resume_collector
from hwpscan.cli.helptext import COMMANDS, clean_error, epilog, metavar, unwrap
from hwpscan.models import ExitCode


def _polish(command: Any, name: str | None) -> None:
    """Readable placeholders, unwrapped help and, for a subcommand, its epilog (once)."""
    if getattr(command, "_hwpscan_polished", False):
        return
    command._hwpscan_polished = True
    if command.help:
        command.help = unwrap(command.help)
    if name in COMMANDS and not command.epilog:
        command.epilog = epilog(name)
    for param in command.params:
        _placeholder(param)
        install_plain(param)  # plain values converted without the validation library


def _placeholder(param: Any) -> None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        return
    if param.param_type_name == "argument":
        # the name column says it (PATH, RUN, [FILE|-]); no Python type beside it
        param.display_type_rich = _no_type
        if param.metavar is None:
            param.metavar = param.name.upper().removesuffix("S") if param.nargs != 1 else None
        return
    if param.metavar is None:
        choices = tuple(descriptor.choices or ()) if descriptor.is_choice else ()
        long = next((o for o in param.opts if o.startswith("--")), "")
        param.metavar = metavar(long, descriptor.annotation, is_flag=param.is_flag, choices=choices)


def _no_type(ctx: Any) -> None:
    return None


def _summary(command: Any) -> str:
    """The first paragraph of a command's help: its line in the group's listing."""
    text = command.short_help or command.help or ""
    return unwrap(text.partition("\f")[0].split("\n\n")[0]) if text else ""


def _load_command(name: str) -> Any:
    """Import the module of command *name* and build its click command (None: unknown)."""
    from hwpscan.cli import COMMAND_MODULE  # the package imports this module: a cycle

    module = COMMAND_MODULE.get(name)
    if module is None:
        return None
    __import__(f"hwpscan.cli.{module}")  # the import statement's path: -X importtime sees it
    for info in app.registered_commands:
        callback = info.callback
        if callback is not None and (info.name or get_command_name(callback.__name__)) == name:
            return get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    return None


class HwpscanCommand(TyperCommand):
    """A command whose ``--help`` is drawn by :mod:`hwpscan.cli.helpview`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from hwpscan.cli.helpview import help_text  # the help renderer: only for --help

        formatter.write(help_text(self, ctx))


class HwpscanGroup(TyperGroup):
    """The ``hwpscan`` group: commands loaded when named, finished help, clean errors.

    The group starts with the commands whose modules are already imported (all of them in
    the tests, none in the console script); any other command in
    :data:`hwpscan.cli.COMMAND_TABLE` is imported and built on first look-up.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        from hwpscan.cli import COMMAND_TABLE  # the package imports this module: a cycle

        names = [name for name, _, _, _ in COMMAND_TABLE]
        return names + [name for name in self.commands if name not in names]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            command = _load_command(cmd_name)
            if command is not None:
                self.commands[cmd_name] = command
        if command is not None:
            _polish(command, cmd_name)
            help_option = command.get_help_option(ctx)
            if help_option is not None:
                help_option.metavar = ""
                install_plain(help_option)  # its flag, as every option
        return command

    def listing(self) -> list[tuple[str, str, str]]:
        """(name, panel, one-line help) of every command, without importing any."""
        from hwpscan.cli import COMMAND_TABLE  # the package imports this module: a cycle

        rows = []
        for name, _, panel, summary in COMMAND_TABLE:
            loaded = self.commands.get(name)
            if loaded is None:
                rows.append((name, panel, summary))
            elif not loaded.hidden:
                shown = getattr(loaded, "rich_help_panel", None) or ""
                rows.append((name, shown, _summary(loaded)))
        return rows

    def shell_complete(self, ctx: Any, incomplete: str) -> list[Any]:
        """Command names from the table (completing one imports no command module), then
        the group's own options."""
        from rich.text import Text
        from typer._click.shell_completion import CompletionItem

        names = [
            CompletionItem(name, help=Text.from_markup(summary, emoji=False).plain)
            for name, _, summary in self.listing()
            if name.startswith(incomplete)
        ]
        # the framework's group would look every command up; its base lists the options
        return names + super(TyperGroup, self).shell_complete(ctx, incomplete)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """As the framework's, with "did you mean" over every command, loaded or not."""
        suggest, self.suggest_commands = self.suggest_commands, False
        try:
            return super().resolve_command(ctx, args)
        except Exception as exc:
            matches = get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if suggest and matches and isinstance(getattr(exc, "message", None), str):
                listed = ", ".join(repr(m) for m in matches)
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {listed}?"  # type: ignore[attr-defined]
            raise
        finally:
            self.suggest_commands = suggest
            resume_collector()  # the command's modules are loaded: see hwpscan.cli.collect

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(ExitCode.USAGE)
        return list(super().parse_args(ctx, args))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from hwpscan.cli.helpview import help_text  # the help renderer: only for --help

        _polish(self, "hwpscan")
        formatter.write(help_text(self, ctx, self.listing()))

    def get_help_option(self, ctx: Any) -> Any:
        _polish(self, "hwpscan")
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
            install_plain(option)
        return option

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.BadParameter as exc:
            exc.message = clean_error(exc.message)
            raise


_Function = TypeVar("_Function", bound=Callable[..., Any])


class _Typer(typer.Typer):
    """Commands registered here are :class:`HwpscanCommand` unless they name a class."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[_Function], _Function]:
        kwargs["cls"] = kwargs.get("cls") or HwpscanCommand
        return super().command(*args, **kwargs)


app = _Typer(
    cls=HwpscanGroup,
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
#: ``error: ... /a/long/path/file.hwp`` on one line, whatever its length. No emoji codes:
#: a path such as ``a:warning:b.hwp`` is printed as it is, not with a sign in it.
console = Console(highlight=False, emoji=False, width=_pipe_width(_OUT_TTY), soft_wrap=not _OUT_TTY)
err_console = Console(
    stderr=True,
    highlight=False,
    emoji=False,
    width=_pipe_width(_ERR_TTY),
    soft_wrap=not _ERR_TTY,
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
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version."),
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
