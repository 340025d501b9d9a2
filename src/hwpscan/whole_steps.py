"""Steps a stop does not split: a signal handler that would stop the program (Ctrl-C,
SIGTERM) asks :func:`hold_stop` first, and a stop that comes during a
:func:`whole_step` is raised as :class:`KeyboardInterrupt` when the step ends.

A step hands one batch of rows to everything that keeps it (the tallies, the results
file, the run store's queue): stopped halfway, the results file would lack rows the run
store holds, or the tallies count rows the store never got. Steps are short; a second
stop while one is held is not held (a handler may send one itself when a step is stuck:
:func:`stop_held` says whether the stop still waits).

>>> import signal
>>> def on_signal(signum, frame):
...     if not hold_stop():
...         raise KeyboardInterrupt
>>> old = signal.signal(signal.SIGINT, on_signal)
>>> done = []
>>> try:
...     with whole_step():
...         signal.raise_signal(signal.SIGINT)
...         done.append("the rest of the step")
... except KeyboardInterrupt:
...     done.append("stopped after it")
>>> _ = signal.signal(signal.SIGINT, old)
>>> done
['the rest of the step', 'stopped after it']

Only the main thread's steps hold a stop (Python runs handlers there); a step in
another thread is an ordinary block.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["hold_stop", "stop_held", "whole_step"]


class _Steps:
    depth = 0  # the main thread's steps under way (one inside another counts once)
    held = False  # a stop came during them: raised when the outermost ends


_steps = _Steps()


@contextmanager
def whole_step() -> Iterator[None]:
    """A block a stop does not split: one that comes during it is raised at its end."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if not _steps.depth:  # (a second stop may have ended the last step before it looked)
        _steps.held = False
    _steps.depth += 1
    try:
        yield
    finally:
        _steps.depth -= 1
        if _steps.held and not _steps.depth:
            _steps.held = False
            raise KeyboardInterrupt


def hold_stop() -> bool:
    """For a signal handler, before it stops the program: True when a step is under way
    and will stop it at its end; False (stop now) when none is, or a stop is held already."""
    if not _steps.depth or _steps.held:
        return False
    _steps.held = True
    return True


def stop_held() -> bool:
    """Whether a stop is held now, waiting for the step under way to end."""
    return _steps.held
