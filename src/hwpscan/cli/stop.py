"""Stopping a command: SIGTERM is handled like Ctrl-C, and the exit code says which came.

A process manager, ``timeout`` or a CI runner stops a job with SIGTERM; a person with
Ctrl-C (SIGINT). Both raise :class:`KeyboardInterrupt` in the main thread, so the same
code path runs: queued work is cancelled, what was done is flushed to the run store
and the output folder, and the command exits ``128 + signal`` (130 for SIGINT, 143 for
SIGTERM) without a traceback. A signal the parent set to be ignored (``nohup``, a
background job of a script) stays ignored.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

__all__ = ["exit_code", "install", "received"]

_received: list[int] = []


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def install() -> None:
    """Route SIGINT and SIGTERM to :class:`KeyboardInterrupt` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGINT", "SIGTERM"):
        number = getattr(signal, name, None)
        if number is None:
            continue
        if signal.getsignal(number) is signal.SIG_IGN:  # the parent asked us to ignore it
            continue
        signal.signal(number, _on_signal)


def received() -> int | None:
    """The first stopping signal this process received, if any."""
    return _received[0] if _received else None


def exit_code(code: int) -> int:
    """*code*, or ``128 + signal`` when a signal stopped the command (130, 143).

    >>> exit_code(0)
    0
    """
    first = received()
    return 128 + first if first is not None else code
