"""A guard process: one child that runs a task on items in order, with a time limit
per item, replaced when an item overruns or kills it.

The pool (:mod:`hwpscan.execution.process_pool`) forks its workers, which is only safe
from a process that has no other threads. A Dask worker (and the thread pool of the
scaled path), and the parser matrix, run tasks in threads, so each of those threads
drives a guard instead: a fresh interpreter (``python -m hwpscan.execution.guard_child``),
started with the same :func:`~hwpscan.execution.child_limits.enter_child` as a pool
worker (the memory cap and the parent watch), that runs ``module:function`` on each
item it is sent. With a *setup* text, the child calls ``function(setup)`` once as it
starts and runs what that returns on each item: the parser matrix loads an extractor
so, its imports paid once per child and not counted in any file's time.

The child says when it is ready (its task loaded): starting has its own limit
(*startup* seconds), so imports never count against an item. A batch goes to the child
in one message (framed pickles over its stdin) and the answers come back one by one on
its stdout, each within *timeout* seconds of the one before, so the child works through
the batch without waiting on the parent while every item still has its own limit. An
item that overruns or whose child dies is answered by a
:class:`~hwpscan.execution.process_pool.Stopped` instead (with the child's exit status,
and its stderr when *keep_stderr* is set); the next items go to a new child.

For code we do not control (the matrix's extractors) a guard can also give the child
an environment of its own (*env*: the matrix passes one without the API key or cloud
credentials) and its own process group (*own_group*), killed whole, so whatever the
child started dies with it; such a child is known to
:func:`~hwpscan.execution.process_groups.kill_running` until it ends, as a command
run by :func:`~hwpscan.execution.process_groups.run_captured` is.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from hwpscan.execution import process_groups
from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.execution.process_pool import Stopped

__all__ = ["FRAME", "STARTUP_GRACE", "Guard", "read_frame", "write_frame"]

#: The length before each framed pickle, both ways.
FRAME = struct.Struct("<Q")
#: Seconds a child may take to start and load its task, on top of the item timeout.
STARTUP_GRACE = 30.0
#: What a child sends once its task is loaded.
READY = "ready"
_DIED = object()


class Guard:
    """A child process that runs *task* (``"module:function"``, the function taking one
    item, or, given *setup*, returning what takes one) on items in order; see the
    module's description."""

    def __init__(
        self,
        task: str,
        timeout: float | None,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        *,
        setup: str | None = None,
        startup: float | None = None,
        env: Mapping[str, str] | None = None,
        own_group: bool = False,
        keep_stderr: bool = False,
    ) -> None:
        self.task = task
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.setup = setup
        #: seconds to start (None: the timeout plus :data:`STARTUP_GRACE`, or no limit)
        self.startup = startup
        self.env = env
        self.own_group = own_group
        self.keep_stderr = keep_stderr
        #: items the current child has answered (0 after a restart)
        self.served = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._errors: IO[bytes] | None = None

    def run(self, item: object) -> Any:
        return self.run_many([item])[0]

    def run_many(self, items: Sequence[object]) -> list[Any]:
        """Each item's answer, in order, or a :class:`Stopped` saying why it has none."""
        out: list[Any] = []
        rest = list(items)
        while rest:
            proc = self._proc if self._proc is not None and self._proc.poll() is None else None
            if proc is None:
                self.close()
                started = self._start()
                if isinstance(started, Stopped):  # it never got to the item
                    out.append(started)
                    rest = rest[1:]
                    continue
                proc = started
            assert proc.stdin is not None and proc.stdout is not None
            try:
                write_frame(proc.stdin, rest)
            except OSError:
                out.append(self._lost("died"))
                rest = rest[1:]
                continue
            for n, _item in enumerate(rest):
                try:
                    answer = _read(proc.stdout, self.timeout)
                except (OSError, EOFError, pickle.UnpicklingError):
                    answer = _DIED
                if answer is None or answer is _DIED:  # overran, or died
                    out.append(self._lost("timeout" if answer is None else "died"))
                    rest = rest[n + 1 :]
                    break
                self.served += 1
                out.append(answer)
            else:
                rest = []
        return out

    def _start(self) -> subprocess.Popen[bytes] | Stopped:
        """A new child, once it has said it is ready; else why it did not start."""
        argv = [
            sys.executable,
            "-m",
            "hwpscan.execution.guard_child",
            str(os.getpid()),
            str(self.memory_mb or 0),
            # the kernel's signal follows the starting thread: only the main thread lives on
            "1" if threading.current_thread() is threading.main_thread() else "0",
            self.task,
        ]
        if self.setup is not None:
            argv.append(self.setup)
        if self.keep_stderr:
            # a file, not a pipe: a chatty child cannot block on it
            self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        env = dict(os.environ if self.env is None else self.env)
        env["PYTHONUNBUFFERED"] = "1"
        proc = self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            env=env,
            start_new_session=self.own_group and os.name == "posix",
        )
        self.served = 0
        if self.own_group:
            process_groups.watch(proc)  # a Ctrl-C of ours kills its group (kill_running)
        startup = self.startup
        if startup is None and self.timeout is not None:
            startup = self.timeout + STARTUP_GRACE
        assert proc.stdout is not None
        try:
            ready = _read(proc.stdout, startup)
        except (OSError, EOFError, pickle.UnpicklingError):
            return self._lost("died", starting=True)
        if ready != READY:
            return self._lost("timeout", limit=startup, starting=True)
        return proc

    def _lost(self, why: str, *, limit: float | None = None, starting: bool = False) -> Stopped:
        """End the child; the :class:`Stopped` that says how it ended."""
        code, stderr = self.close()
        if why == "timeout":
            return Stopped(
                "timeout", self.timeout if limit is None else limit, code, stderr, starting
            )
        return Stopped("died", None, code, stderr, starting)

    def close(self) -> tuple[int | None, bytes]:
        """End the child (killed, with its group when it has one); its exit status
        (None: it was still running) and what it wrote to stderr, when kept."""
        proc, self._proc = self._proc, None
        errors, self._errors = self._errors, None
        code: int | None = None
        stderr = b""
        if proc is not None:
            code = _ended(proc)
            if code is None:
                if self.own_group:
                    process_groups.kill_group(proc)
                else:
                    proc.kill()
            proc.wait()
            if self.own_group:
                process_groups.forget(proc)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        if errors is not None:
            errors.seek(0)
            stderr = errors.read()
            errors.close()
        return code, stderr


def _ended(proc: subprocess.Popen[bytes]) -> int | None:
    """The exit status of a child whose output ended (it is on its way out: give it a
    moment), None when it is still running."""
    try:
        return proc.wait(timeout=0.5) if proc.poll() is None else proc.returncode
    except subprocess.TimeoutExpired:
        return None


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
