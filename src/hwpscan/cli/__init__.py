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
    line: a user never sees a traceback for a file system or input problem.
    """
    from hwpscan.cli.app import err_console
    from hwpscan.errors import ApiError, HwpscanError
    from hwpscan.models import ExitCode

    for stream in (sys.stdout, sys.stderr):  # a cp949 console must not kill a table
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    try:
        app()
    except HwpscanError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False)
        raise SystemExit(ExitCode.API if isinstance(exc, ApiError) else ExitCode.USAGE) from None
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        err_console.print(f"error: {exc.strerror or exc}{where}", markup=False, highlight=False)
        raise SystemExit(ExitCode.USAGE) from None
    except Exception as exc:  # a bug (or memory exhausted outside any file): exit 70, not 1
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
        raise SystemExit(ExitCode.INTERNAL) from None
