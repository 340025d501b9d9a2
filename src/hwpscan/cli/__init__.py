"""Command-line interface: a thin adapter over the library.

Each command module registers on :data:`hwpscan.cli.app.app`; importing them here
makes the commands exist.
"""

from __future__ import annotations

import sys

# Registration order is the order in --help, within each panel.
from hwpscan.cli import scan as _scan  # noqa: F401, I001  (scan, repair)
from hwpscan.cli import checkjson as _checkjson  # noqa: F401  (check-json)
from hwpscan.cli import fetch as _fetch  # noqa: F401  (plan, fetch, demo)
from hwpscan.cli import verify as _verify  # noqa: F401  (verify)
from hwpscan.cli import report as _report  # noqa: F401  (report, history, diff)
from hwpscan.cli import emulator as _emulator  # noqa: F401  (emulator)
from hwpscan.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point.

    Commands turn the errors they expect into messages themselves; this is the last
    line: a user never sees a traceback for a file system or input problem, and
    SIGTERM stops a command the way Ctrl-C does (exit 143 instead of 130; see
    :mod:`hwpscan.cli.stop`).
    """
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
    except Exception as exc:
        if not _is_click_error(exc):
            raise
        _show_click_error(exc, boxed=err_console.is_terminal)
        raise SystemExit(int(getattr(exc, "exit_code", ExitCode.USAGE))) from None
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
