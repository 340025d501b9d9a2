"""Command-line interface: a thin adapter over the library.

Each command module registers on :data:`hwpscan.cli.app.app`; :func:`load_app` imports
them, so the commands exist. ``hwpscan.cli.app`` (the attribute) and :func:`main` do
that on first use: ``hwpscan --version`` answers before any of it is imported, which is
what shell completion and scripts asking for the version pay.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typer import Typer

    app: Typer
else:
    from typing import Any as Typer  # only for the annotations below; typer loads lazily

__all__ = ["app", "load_app", "main"]

#: Command modules, in the order their commands are listed in --help (within each panel).
COMMAND_MODULES = (
    "checkjson",  # check-json
    "emulator",  # emulator
    "fetch",  # plan, fetch
    "demo",  # demo
    "manifest",  # manifest
    "report",  # report, history, diff
    "scan",  # scan, repair
    "verify",  # verify
)


#: The module that defines each command.
COMMAND_MODULE = {
    "check-json": "checkjson",
    "emulator": "emulator",
    "plan": "fetch",
    "fetch": "fetch",
    "demo": "demo",
    "manifest": "manifest",
    "report": "report",
    "history": "report",
    "diff": "report",
    "scan": "scan",
    "repair": "scan",
    "verify": "verify",
}


def load_app(command: str | None = None) -> Typer:
    """The Typer application with every command registered, or only *command*'s module.

    ``hwpscan scan --help`` needs the scan module only; the top-level help, an unknown
    command (for the "did you mean" hint) and the tests get them all.
    """
    wanted = COMMAND_MODULE.get(command or "")
    for name in (wanted,) if wanted else COMMAND_MODULES:
        importlib.import_module(f"hwpscan.cli.{name}")
    from hwpscan.cli.app import app

    return app


def _command_word(argv: list[str]) -> str | None:
    """The command named on the command line: the first word that is not an option.

    >>> _command_word(["scan", "-h"]), _command_word(["-h"]), _command_word([])
    ('scan', None, None)
    """
    return next((a for a in argv if not a.startswith("-")), None)


class _Package(types.ModuleType):
    """``hwpscan.cli.app`` is the application with its commands, loaded on first use.

    The import system binds each submodule on its package once it is loaded; for the
    submodule ``hwpscan.cli.app`` that binding is dropped here, so ``from hwpscan.cli
    import app`` always gives the Typer application, never the module.
    """

    @property
    def app(self) -> Typer:
        return load_app()

    @app.setter
    def app(self, value: object) -> None:
        pass


sys.modules[__name__].__class__ = _Package


def main() -> None:
    """Console-script entry point.

    Commands turn the errors they expect into messages themselves; this is the last
    line: a user never sees a traceback for a file system or input problem, and
    SIGTERM stops a command the way Ctrl-C does (exit 143 instead of 130; see
    :mod:`hwpscan.cli.stop`).
    """
    if sys.argv[1:] in (["--version"], ["-V"]):  # no framework needed to say this
        from hwpscan import __version__

        print(f"hwpscan {__version__}")
        return
    app = load_app(_command_word(sys.argv[1:]))
    import typer

    from hwpscan.cli import stop
    from hwpscan.cli.app import err_console
    from hwpscan.errors import ApiError, HwpscanError
    from hwpscan.models import ExitCode

    for stream in (sys.stdout, sys.stderr):  # a cp949 console must not kill a table
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    stop.install()
    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:  # a stop that came outside a command (while loading)
        raise SystemExit(stop.exit_code(130)) from None
    except typer.Abort:
        err_console.print("aborted", markup=False, highlight=False)
        raise SystemExit(stop.exit_code(1)) from None
    except HwpscanError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False)
        raise SystemExit(ExitCode.API if isinstance(exc, ApiError) else ExitCode.USAGE) from None
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        err_console.print(f"error: {exc.strerror or exc}{where}", markup=False, highlight=False)
        raise SystemExit(ExitCode.USAGE) from None
    except Exception as exc:  # a bad option, else a bug (or memory exhausted outside any file)
        if _is_click_error(exc):
            _show_click_error(exc, boxed=err_console.is_terminal)
            raise SystemExit(int(getattr(exc, "exit_code", ExitCode.USAGE))) from None
        import os
        import traceback

        if os.environ.get("HWPSCAN_DEBUG"):
            traceback.print_exc()
        detail = f"{type(exc).__name__}: {exc}"[:500]
        err_console.print(
            f"internal error: {detail} (set HWPSCAN_DEBUG=1 for the traceback)",
            markup=False,
            highlight=False,
        )
        raise SystemExit(ExitCode.INTERNAL) from None  # exit 70, never 1 (findings)
    raise SystemExit(stop.exit_code(code if isinstance(code, int) else 0))


def _is_click_error(exc: Exception) -> bool:
    """A bad option or argument, as click (vendored by typer or not) raises it."""
    return callable(getattr(exc, "show", None)) and isinstance(getattr(exc, "exit_code", None), int)


def _show_click_error(exc: Exception, *, boxed: bool) -> None:
    """Typer's boxed message on a terminal; off one, click's plain lines, never wrapped."""
    if boxed or type(exc).__name__ == "NoArgsIsHelpError":  # that one has printed help
        from typer import rich_utils

        rich_utils.rich_format_error(exc)  # type: ignore[arg-type]
    else:
        exc.show()  # type: ignore[attr-defined]
