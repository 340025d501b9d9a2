"""Command-line interface: a thin adapter over the library.

Importing a command module registers its commands on :data:`hwpscan.cli.app.app`; this
package imports them all, in ``--help`` order. A command imports its work (readers, the
fetch engine, the store) inside its function, so ``--help`` and other commands do not
load it.
"""

from __future__ import annotations

import sys

from hwpscan.cli import stop
from hwpscan.cli.app import app, err_console
from hwpscan.errors import ApiError, HwpscanError
from hwpscan.models import ExitCode

# isort: off
# Importing a command module registers its commands; this order is the listing's.
from hwpscan.cli import checkjson_command  # noqa: F401
from hwpscan.cli import scan_command  # noqa: F401
from hwpscan.cli import repair_command  # noqa: F401
from hwpscan.cli import text_command  # noqa: F401
from hwpscan.cli import emulator_command  # noqa: F401
from hwpscan.cli import fetch_command  # noqa: F401
from hwpscan.cli import demo_command  # noqa: F401
from hwpscan.cli import verify_command  # noqa: F401
from hwpscan.cli import manifest_command  # noqa: F401
from hwpscan.cli import report_command  # noqa: F401

# isort: on

__all__ = ["app", "main", "run"]


def main() -> None:
    """Console-script entry point: the last line against tracebacks (a file system or
    input problem is one ``error:`` line), and SIGTERM handled as Ctrl-C (exit 143)."""
    for stream in (sys.stdout, sys.stderr):  # a cp949 console shows '?', not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    stop.install()
    try:
        code = app(standalone_mode=False, prog_name="hwpscan")
    except SystemExit as exc:
        if _pipe_closed(exc):  # the reader went away (| head): not findings, not an error
            raise SystemExit(BROKEN_PIPE) from None
        raise
    except KeyboardInterrupt:  # a stop that came outside a command (while loading)
        raise SystemExit(stop.exit_code(130)) from None
    except HwpscanError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False)
        raise SystemExit(ExitCode.API if isinstance(exc, ApiError) else ExitCode.USAGE) from None
    except OSError as exc:
        if _pipe_closed(exc):
            raise SystemExit(BROKEN_PIPE) from None
        where = f" ({exc.filename})" if exc.filename else ""
        err_console.print(f"error: {exc.strerror or exc}{where}", markup=False, highlight=False)
        raise SystemExit(ExitCode.USAGE) from None
    except Exception as exc:  # a bug (or memory exhausted outside any file)
        raise SystemExit(_unexpected(exc)) from None
    raise SystemExit(stop.exit_code(code if isinstance(code, int) else 0))


run = main  # the console script and ``python -m hwpscan``


#: The status of a command whose output pipe was closed by its reader (``| head``):
#: 128 + SIGPIPE, as a tool the signal ended gives; never 1, which means findings.
BROKEN_PIPE = 141


def _pipe_closed(exc: BaseException) -> bool:
    """Whether *exc* is, or came from (rich exits inside the failed write), a broken pipe."""
    return isinstance(exc, BrokenPipeError) or isinstance(exc.__context__, BrokenPipeError)


def _unexpected(exc: Exception) -> int:
    """A bug: one line naming it (no secret in it), exit 70."""
    import os
    import traceback

    if os.environ.get("HWPSCAN_DEBUG"):
        traceback.print_exc()
    detail = stop.without_secrets(f"{type(exc).__name__}: {exc}")[:500]
    err_console.print(
        f"internal error: {detail} (set HWPSCAN_DEBUG=1 for the traceback)",
        markup=False,
        highlight=False,
    )
    return ExitCode.INTERNAL  # exit 70, never 1 (findings)
