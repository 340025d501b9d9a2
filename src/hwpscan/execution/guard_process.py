"""A guard process: one child that runs a task on items in order, with a time limit
per item, replaced when an item overruns or kills it.

The pool (:mod:`hwpscan.execution.process_pool`) forks its workers, which is only safe
from a process that has no other threads. A Dask worker (and the thread pool of the
scaled path) runs tasks in threads, so each of its threads drives a guard instead: a
fresh interpreter (``python -m hwpscan.execution.guard_child``), started with the same
:func:`~hwpscan.execution.child_limits.enter_child` as a pool worker (the memory cap and
the parent watch), that runs ``module:function`` on each item it is sent.

A batch goes to the child in one message (framed pickles over its stdin) and the answers
come back one by one on its stdout, each within *timeout* seconds of the one before, so
the child works through the batch without waiting on the parent while every item still
has its own limit. An item that overruns or whose child dies is answered by a
:class:`~hwpscan.execution.process_pool.Stopped` instead; the next items go to a new child.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.execution.process_pool import Stopped

__all__ = ["FRAME", "Guard", "read_frame", "write_frame"]

#: The length before each framed pickle, both ways.
FRAME = struct.Struct("<Q")
_DIED = object()


class Guard:
    """A child process that runs *task* (``"module:function"``, the function taking one
    item) on items in order; see the module's description."""

    def __init__(
        self, task: str, timeout: float | None, memory_mb: int | None = DEFAULT_MEMORY_MB
    ) -> None:
        self.task = task
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._proc: subprocess.Popen[bytes] | None = None

    def run(self, item: object) -> Any:
        return self.run_many([item])[0]

    def run_many(self, items: Sequence[object]) -> list[Any]:
        """Each item's answer, in order, or a :class:`Stopped` saying why it has none."""
        out: list[Any] = []
        rest = list(items)
        while rest:
            proc = self._proc if self._proc is not None and self._proc.poll() is None else None
            if proc is None:
                proc = self._proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                write_frame(proc.stdin, rest)
            except OSError:
                self.close()
                out.append(Stopped("died"))
                rest = rest[1:]
                continue
            for n, _item in enumerate(rest):
                try:
                    answer = _read(proc.stdout, self.timeout)
                except (OSError, EOFError, pickle.UnpicklingError):
                    answer = _DIED
                if answer is None or answer is _DIED:  # overran, or died
                    self.close()
                    out.append(
                        Stopped("timeout", self.timeout) if answer is None else Stopped("died")
                    )
                    rest = rest[n + 1 :]
                    break
                out.append(answer)
            else:
                rest = []
        return out

    def _start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hwpscan.execution.guard_child",
                str(os.getpid()),
                str(self.memory_mb or 0),
                self.task,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def write_frame(stream: IO[bytes], obj: object) -> None:
    """One framed pickle of *obj*."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(FRAME.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> object | None:
    """One framed pickle from a blocking stream; None at its end."""
    header = stream.read(FRAME.size)
    if len(header) < FRAME.size:
        return None
    (size,) = FRAME.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    found: object = pickle.loads(body)
    return found


def _read(stream: IO[bytes], timeout: float | None) -> object | None:
    """One framed pickle from a child's stdout; None when *timeout* passes first."""
    fd = stream.fileno()
    deadline = None if timeout is None else time.monotonic() + timeout
    header = _read_exactly(fd, FRAME.size, deadline)
    if header is None:
        return None
    (size,) = FRAME.unpack(header)
    body = _read_exactly(fd, size, time.monotonic() + 60)  # it has started: let it finish
    if body is None:
        raise EOFError("the child stopped in the middle of an answer")
    answer: object = pickle.loads(body)
    return answer


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    chunks: list[bytes] = []
    missing = size
    while missing:
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and wait <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return None
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            raise EOFError("the child closed its output")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)
