"""What every child process of the engine does first (:func:`enter_child`): bound its
memory, and never outlive the process that started it.

Its data segment is capped at the memory budget with ``RLIMIT_DATA``, so a memory bomb
ends as a ``MemoryError`` (a row naming the budget, :func:`memory_budget_reason`) or, in
native code, as the death of that child: one row, never the machine's memory. It dies
with its parent: by ``PR_SET_PDEATHSIG`` on Linux, and everywhere by a thread that sees
its parent id change. A ``kill -9`` of a scan (what the OOM killer does) then leaves no
worker holding the scan's output open.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

#: Megabytes of data segment a child may hold while reading one file (``0``: no limit).
#: The largest real attachments need under 500 MB; a file's bytes (up to the 512 MB size
#: cap) are held once while read.
DEFAULT_MEMORY_MB = 2048
#: The environment variable that sets every worker's memory budget (0: none).
MEMORY_ENV = "HWPSCAN_MEMORY_MB"
#: Seconds between a child's looks at its parent (where no kernel signal does it).
WATCH_INTERVAL = 0.25

_PR_SET_PDEATHSIG = 1
#: The budget this process runs under (None: none set, or a tighter address-space limit
#: binds first).
_budget_mb: int | None = None


def set_memory_budget(megabytes: int | None) -> None:
    """Cap this process's data segment at *megabytes* (``None`` or ``0``: no cap) where the
    system has such a limit. ``HWPSCAN_MEMORY_MB`` (a whole number) takes its place: ``0``
    turns the cap off where it cannot work (under AddressSanitizer)."""
    global _budget_mb  # noqa: PLW0603 - one budget per process, set once as it starts
    override = os.environ.get(MEMORY_ENV, "").strip()
    if override.isdigit():
        megabytes = int(override)
    if not megabytes or megabytes <= 0:
        _budget_mb = None
        return
    try:
        import resource

        which = resource.RLIMIT_DATA
        limit = int(megabytes) * 2**20
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(which, (limit, hard))
        space, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, AttributeError, OSError, ValueError):  # no such limit here
        return
    # a tighter address-space limit set by whoever started us binds first: a MemoryError
    # is then not ours to explain
    tighter = space != resource.RLIM_INFINITY and space <= limit
    _budget_mb = None if tighter else int(megabytes)


def memory_budget_reason() -> str | None:
    """A row's reason for a ``MemoryError`` under the budget (None: no budget is set).

    >>> memory_budget_reason() is None
    True
    """
    if _budget_mb is None:
        return None
    return (
        f"out of memory: over the {_budget_mb:,} MB per-file memory budget while reading this file"
    )


def watch_parent(parent: int, *, kernel_signal: bool = True) -> None:
    """End this process when *parent* (the process that started it) is gone.

    *kernel_signal* asks Linux to send SIGKILL at the parent's death too: only right when
    the thread that started this process lives as long as its parent needs it (the
    kernel signals when that thread ends)."""
    if kernel_signal and sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # no libc at hand: the thread still watches
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    thread = threading.Thread(target=_watch, args=(parent,), name="hwpscan-parent", daemon=True)
    thread.start()


def _watch(parent: int) -> None:
    """SIGKILL this process once *parent* is gone (at once if it already is), as the
    kernel does on Linux: ``sys.exit`` in this thread would end only the thread, while
    the main thread sits blocked in a read or in native code."""
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os.kill(os.getpid(), signal.SIGKILL)


def enter_child(parent: int, memory_mb: int | None = None, *, kernel_signal: bool = True) -> None:
    """A child's first step: leave Ctrl-C to the parent, :func:`watch_parent` and
    :func:`set_memory_budget`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(parent, kernel_signal=kernel_signal)
    set_memory_budget(memory_mb)
