"""Command-line interface: a thin adapter over the library.

Each command module registers its commands on :data:`hwpscan.cli.app.app`.
:data:`COMMAND_TABLE` names every command, its module and its one-line help, so
:func:`main` starts with no command module loaded: ``hwpscan --help`` is made from the
table, ``hwpscan scan ...`` (or ``scan --help``) imports the scan module only, and
``hwpscan --version`` answers before the framework is imported at all. That is what shell
completion and scripts asking for the version pay. ``hwpscan.cli.app`` (the attribute,
``from hwpscan.cli import app``) is the application with every command loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import types
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from typer import Typer

    app: Typer
else:
    Typer = Any  # only for the annotations below; typer loads lazily

__all__ = ["app", "load_app", "main"]

#: Every command: (name, module, --help panel, first paragraph of its help), in the order
#: the top-level --help lists them. The top-level --help, "did you mean" and the command
#: listing are made from this table alone; a command's module is imported when the command
#: runs or its own --help is shown (a test holds the table to the commands' own text).
COMMAND_TABLE: tuple[tuple[str, str, str, str], ...] = (
    (
        "check-json",
        "checkjson",
        "Scan files",
        "Report every JSON string (value or key) that would fail UTF-8 encoding.",
    ),
    (
        "scan",
        "scan",
        "Scan files",
        "Scan attachments for surrogate code points, private-use characters and UTF-8 failures.",
    ),
    (
        "repair",
        "repair",
        "Scan files",
        "Write each file's body text as UTF-8 with surrogate pairs restored and orphans removed.",
    ),
    (
        "text",
        "text",
        "Scan files",
        "Print each file's text as UTF-8: pairs joined, folded symbols restored, halves boxed.",
    ),
    (
        "emulator",
        "emulator",
        "Testing",
        "Run the local press-release API emulator (for [bold]--api-url[/]) until Ctrl-C.",
    ),
    (
        "plan",
        "fetch",
        "Fetch from the API",
        "Show the calls a fetch of the range needs, without any network access.",
    ),
    (
        "fetch",
        "fetch",
        "Fetch from the API",
        "Fetch press releases and their attachments for a date range (cache first).",
    ),
    (
        "demo",
        "demo",
        "Fetch from the API",
        "Run the whole job on a local API emulator: fetch 2025-07-21..2025-08-11, scan, tabulate.",
    ),
    (
        "verify",
        "verify",
        "Fetch from the API",
        "Ask the API again for chosen dates, run the deployed code on them, and give each date "
        "PASS, FAIL or INCONCLUSIVE.",
    ),
    (
        "manifest",
        "manifest",
        "Runs and reports",
        "Show the current entry of each attachment in a download folder's manifest.",
    ),
    (
        "report",
        "report",
        "Runs and reports",
        "Write report.html, files.csv, pivot.csv, summary.md and junit.xml for a stored run.",
    ),
    (
        "history",
        "report",
        "Runs and reports",
        "List recorded runs: scans, fetches and verifications.",
    ),
    (
        "diff",
        "report",
        "Runs and reports",
        "Files and dates that became clean, became contaminated, appeared or vanished.",
    ),
)

#: The module that defines each command.
COMMAND_MODULE = {name: module for name, module, _, _ in COMMAND_TABLE}

#: Command modules, in the order :func:`load_app` imports them.
COMMAND_MODULES = tuple(sorted(set(COMMAND_MODULE.values())))


def load_app() -> Typer:
    """The Typer application with every command registered (what the tests use).

    The console script does not call this: it runs the application bare, and
    :class:`hwpscan.cli.app.HwpscanGroup` imports a command's module when it is named.
    """
    for name in COMMAND_MODULES:
        __import__(f"hwpscan.cli.{name}")  # the import statement's path: -X importtime sees it
    from hwpscan.cli.app import app  # typer and rich: not for --version

    return app


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
        from hwpscan import __version__  # --version needs nothing else

        print(f"hwpscan {__version__}")
        return
    from hwpscan.cli.collect import pause_collector, resume_collector  # not for --version

    pause_collector()  # while the framework and the command's modules load
    try:
        _main()
    finally:
        resume_collector()


def _main() -> None:
    import typer

    from hwpscan.cli import stop  # not for --version
    from hwpscan.cli.app import app, err_console  # bare: a command's module loads when named
    from hwpscan.errors import ApiError, HwpscanError  # not for --version
    from hwpscan.models import ExitCode  # not for --version

    _replace_unencodable()
    stop.install()
    try:
        code = app(standalone_mode=False, prog_name="hwpscan")
    except SystemExit as exc:
        if _pipe_closed(exc):  # the reader went away (| head): not findings, not an error
            raise SystemExit(BROKEN_PIPE) from None
        raise
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
        raise SystemExit(_unexpected(exc, err_console)) from None
    raise SystemExit(stop.exit_code(code if isinstance(code, int) else 0))


def run() -> NoReturn:
    """The console script and ``python -m hwpscan``: :func:`main`, then the process ends
    at once.

    Ending the usual way, Python tears every module and object down one by one: about
    60 ms after a scan here, a sixth of a one-file scan, for memory the process is about
    to give back whole. So once :func:`main` is done, the exit handlers run as they would
    (the pool's workers joined, temporary folders removed, logs flushed), the standard
    streams are flushed and the process ends with main's exit status. Every file and
    database of ours is closed before :func:`main` returns. While another thread is
    still alive (none of ours outlives its command), or a profiler, tracer, debugger or
    coverage tool watches the process (it writes what it found at that exit), it exits
    the usual way. :func:`main` itself raises ``SystemExit`` as before, for callers in
    Python.
    """
    try:
        main()
        status: object = 0
    except SystemExit as exc:
        status = exc.code
    if threading.active_count() > 1 or _watched():
        raise SystemExit(status)
    code = _exit_status(status)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a reader that went away: nothing to add
            stream.flush()
    os._exit(code)


def _watched() -> bool:
    """Whether a profiler, tracer, debugger or coverage tool watches this process."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12 and later
    return monitoring is not None and any(monitoring.get_tool(i) is not None for i in range(6))


def _exit_status(code: object) -> int:
    """The status Python gives ``SystemExit(code)``: 0 for None, a number as it is,
    anything else printed to stderr and 1. A number out of a C int's range gives 1, on
    purpose: Python would give its low byte, which may read as success (0).

    >>> _exit_status(None), _exit_status(3), _exit_status(2**31)
    (0, 3, 1)
    """
    if code is None:
        return 0
    if isinstance(code, int):
        return code if -(2**31) <= code < 2**31 else 1
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


#: The status of a command whose output pipe was closed by its reader (``| head``):
#: 128 + SIGPIPE, as a tool the signal ended gives; never 1, which means findings.
BROKEN_PIPE = 141


def _pipe_closed(exc: SystemExit) -> bool:
    """Whether *exc* is how click or rich ended a command whose output pipe was closed:
    both exit 1, click after wrapping the standard streams so nothing more is written,
    rich from within the write that failed."""
    if isinstance(exc.__context__, BrokenPipeError):
        return True
    return any(type(s).__name__ == "PacifyFlushWrapper" for s in (sys.stdout, sys.stderr))


def _replace_unencodable() -> None:
    """A cp949 console must not kill a table: what it cannot show becomes '?'."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def _unexpected(exc: Exception, err_console: Any) -> int:
    """A bad option (its usage message, exit 2) or a bug (one line, exit 70): the exit code."""
    from hwpscan.models import ExitCode  # only on an error

    if _is_click_error(exc):
        _show_click_error(exc, boxed=err_console.is_terminal)
        return int(getattr(exc, "exit_code", ExitCode.USAGE))
    import os
    import traceback

    if os.environ.get("HWPSCAN_DEBUG"):
        traceback.print_exc()
    detail = _without_secrets(f"{type(exc).__name__}: {exc}")[:500]
    err_console.print(
        f"internal error: {detail} (set HWPSCAN_DEBUG=1 for the traceback)",
        markup=False,
        highlight=False,
    )
    return ExitCode.INTERNAL  # exit 70, never 1 (findings)


def _without_secrets(text: str, argv: list[str] | None = None) -> str:
    """An error message with the API key, the cloud credentials and the user names and
    passwords of the command line's URLs (``s3://KEY:SECRET@bucket``; *argv* ``None``
    is ``sys.argv``) redacted: a library may repeat any of them in its message.

    >>> argv = ["hwpscan", "scan", "s3://user:hunter2@bucket/x"]
    >>> _without_secrets('Invalid bucket name "user:hunter2@bucket"', argv)
    'Invalid bucket name "REDACTED:REDACTED@bucket"'
    """
    import os

    from hwpscan.redaction import (  # only on an error
        API_KEY_ENV,
        redact_credentials,
        redact_text,
        userinfo_secrets,
    )

    secrets = userinfo_secrets(sys.argv if argv is None else argv)
    key = os.environ.get(API_KEY_ENV)
    return redact_text(redact_credentials(text), [*secrets, key] if key else secrets)


def _is_click_error(exc: Exception) -> bool:
    """A bad option or argument, as click (vendored by typer or not) raises it."""
    return callable(getattr(exc, "show", None)) and isinstance(getattr(exc, "exit_code", None), int)


def _show_click_error(exc: Exception, *, boxed: bool) -> None:
    """A boxed message on a terminal; off one, click's plain lines, never wrapped."""
    if boxed:
        from hwpscan.cli.helpview import print_error  # the help renderer: only for an error's box

        print_error(exc)
    else:
        exc.show()  # type: ignore[attr-defined]
