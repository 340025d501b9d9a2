"""Running a command we do not control: its own process group, killed whole.

The parser matrix's extractor commands and ``verify``'s deployed tool run through
:func:`run_captured`, in a new session, so a timeout, a Ctrl-C or a SIGTERM kills all
they started (a terminal's Ctrl-C reaches only the foreground group, which they left).
Worker threads never see ``KeyboardInterrupt``: every process started here or handed to
:func:`watch` is known until it ends, and the main thread's :func:`kill_running` kills
the groups still running.

>>> done = run_captured(["true"], timeout=10)
>>> done.returncode, done.stdout
(0, b'')
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Seconds to collect a killed command's output before giving up on its pipes.
KILL_GRACE = 5.0


@dataclass(frozen=True, slots=True)
class Finished:
    """What a command did: its exit status (``None``: timed out and killed) and output."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    seconds: float


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill *proc* and its process group (a tool's children die with it)."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            pass
    proc.kill()


_running: set[subprocess.Popen[bytes]] = set()
_lock = threading.Lock()


def watch(proc: subprocess.Popen[bytes]) -> None:
    """Know *proc* until :func:`forget`, so :func:`kill_running` can reach it."""
    with _lock:
        _running.add(proc)


def forget(proc: subprocess.Popen[bytes]) -> None:
    """*proc* has ended (or is being closed): :func:`kill_running` leaves it alone."""
    with _lock:
        _running.discard(proc)


def kill_running() -> int:
    """Kill the process group of every tracked process still running; how many.

    >>> kill_running()
    0
    """
    with _lock:
        alive = [p for p in _running if p.poll() is None]
    for proc in alive:
        kill_group(proc)
    return len(alive)


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """The output of a killed command, waiting at most :data:`KILL_GRACE` seconds."""
    try:
        out, err = proc.communicate(timeout=KILL_GRACE)
    except subprocess.TimeoutExpired:  # a grandchild left its own group, holding a pipe
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        return b"", b""
    return out or b"", err or b""


def run_captured(
    argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> Finished:
    """Run *argv* (no shell, no stdin) in a new process group and capture its output.

    On timeout the whole group is killed and ``returncode`` is ``None``. On any
    exception while waiting (``KeyboardInterrupt`` from Ctrl-C or SIGTERM included) the
    group is killed before the exception goes on. ``OSError`` (command not found, not
    executable) is raised before anything ran. *env* ``None`` is this process's
    environment.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=None if env is None else dict(env),
        start_new_session=os.name == "posix",
    )
    code: int | None
    watch(proc)
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = _drain(proc)
        code = None
    except BaseException:
        kill_group(proc)
        _drain(proc)
        raise
    finally:
        forget(proc)
    return Finished(code, out or b"", err or b"", time.perf_counter() - started)
