"""Stopping a command: SIGTERM raises :class:`KeyboardInterrupt` as Ctrl-C does, so
one code path flushes what was done, says what it kept and how to go on, and exits
``128 + signal`` (130, 143) without a traceback."""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType

import typer

from hwpscan.whole_steps import hold_stop, stop_held

_received: list[int] = []
#: Seconds after which a signal that landed in a finalizer is sent again.
_AGAIN = 0.05
#: Seconds a stop waits for a step under way (a batch of rows handed over) to end; a
#: step stuck longer (a pipe nobody reads) is stopped where it is.
_HOLD = 1.0


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if _in_finalizer(frame):
        # Python prints an exception raised in a __del__ and drops it (a library's
        # object collected as the signal came): the stop would be lost, and the command
        # run on. The signal is sent again once the finalizer is done.
        _send_again(signum, _AGAIN)
        return
    if hold_stop():  # a step is handing rows over: it stops the command when it ends
        _send_again(signum, _HOLD, only_if=stop_held)
        return
    raise KeyboardInterrupt


def _send_again(signum: int, after: float, only_if: Callable[[], bool] | None = None) -> None:
    """Send this process *signum* in *after* seconds (when *only_if* still says so)."""

    def send() -> None:
        if only_if is None or only_if():
            os.kill(os.getpid(), signum)

    again = threading.Timer(after, send)
    again.daemon = True
    again.start()


def _in_finalizer(frame: FrameType | None) -> bool:
    """Whether *frame* runs inside an object's ``__del__``."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def install() -> None:
    """Route SIGINT and SIGTERM to :class:`KeyboardInterrupt` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is not signal.SIG_IGN:  # else the parent asked us to
            signal.signal(number, _on_signal)


def exit_code(code: int) -> int:
    """*code*, or ``128 + signal`` when a signal stopped the command (130, 143).

    >>> exit_code(0)
    0
    """
    return 128 + _received[0] if _received else code


def command_line(*, drop: Sequence[str] = (), add: Sequence[str] = ()) -> str:
    """This command as a person would type it again: ``hwpscan`` and its arguments,
    without the options *drop* (each with its value), then *add*; quoted for a POSIX
    shell, with the user names and passwords of URLs and the API key redacted.

    >>> import sys
    >>> sys.argv = ["/x/bin/hwpscan", "scan", "a b", "--resume", "old", "-o", "r.jsonl"]
    >>> command_line(drop=["--resume"], add=["--resume", "20250101-000000-ab12"])
    "hwpscan scan 'a b' -o r.jsonl --resume 20250101-000000-ab12"
    """
    args: list[str] = []
    given = iter(sys.argv[1:])
    for arg in given:
        if arg.split("=", 1)[0] not in drop:
            args.append(arg)
        elif "=" not in arg:
            next(given, None)  # the dropped option's value
    return without_secrets(shlex.join(["hwpscan", *args, *add]))


def without_secrets(message: str, argv: list[str] | None = None) -> str:
    """*message* with the API key, the cloud credentials and the user names and
    passwords of the command line's URLs (``s3://KEY:SECRET@bucket``; *argv* ``None``
    is ``sys.argv``) redacted: a library may repeat any of them in its message.

    >>> argv = ["hwpscan", "scan", "s3://user:hunter2@bucket/x"]
    >>> without_secrets('Invalid bucket name "user:hunter2@bucket"', argv)
    'Invalid bucket name "REDACTED:REDACTED@bucket"'
    """
    from hwpscan.redaction import (  # only when a message needs it
        API_KEY_ENV,
        redact_credentials,
        redact_text,
        userinfo_secrets,
    )

    secrets = userinfo_secrets(sys.argv if argv is None else argv)
    key = os.environ.get(API_KEY_ENV)
    return redact_text(redact_credentials(message), [*secrets, key] if key else secrets)


def interrupted(kept: Sequence[str], go_on: str | None, report: str | None = None) -> typer.Exit:
    """Say on stderr what a stopped command kept, the command that goes on and the one
    that reports what was kept; the exit to raise (130, made 143 after SIGTERM)."""
    from hwpscan.cli.app import err_console  # the console: the CLI's, set up by then

    lines = ["interrupted: " + (kept[0] if kept else "nothing was kept")]
    lines += [f"  {line}" for line in kept[1:]]
    if go_on is not None:
        lines.append(f"to go on: {go_on}")
    if report is not None:
        lines.append(f"to report what was kept: {report}")
    for line in lines:
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(130)  # main makes it 143 after SIGTERM
