"""A guard process: one child that runs a task on items in order, with a time limit
per item, replaced when an item overruns or kills it.

The pool (:mod:`hwpscan.execution.process_pool`) forks its workers, which is only safe
from a process that has no other threads. A Dask worker (and the thread pool of the
scaled path), and the parser matrix, run tasks in threads, so each of those threads
drives a guard instead: a fresh interpreter (``python -m
hwpscan.execution.guard_process``) that enters the same limits as a pool worker
(:func:`~hwpscan.execution.child_limits.enter_child`) and runs the same loop
(:func:`~hwpscan.execution.process_pool.serve`) over a socket, answering each item as it
is done. The task is ``module:function``; with a *setup* text, ``function(setup)`` is
called once as the child starts (the matrix loads an extractor so, its imports not
counted in any file's time) and what it returns runs on each item.

Starting has its own limit (*startup* seconds). A batch goes to the child in one
message and each answer must come within *timeout* seconds of the one before. An item
that overruns or whose child dies is answered by a
:class:`~hwpscan.execution.process_pool.Stopped` (with the child's exit status, and its
stderr when *keep_stderr* is set); the next items go to a new child.

For code we do not control (the matrix's extractors) the child can get an environment
of its own (*env*: the matrix passes one without secrets) and its own process group
(*own_group*), killed whole and known to
:func:`~hwpscan.execution.process_groups.kill_running` until it ends.
"""

from __future__ import annotations

import importlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from typing import IO, Any

from hwpscan.execution import process_groups
from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB, enter_child
from hwpscan.execution.process_pool import Stopped, serve

__all__ = ["STARTUP_GRACE", "Guard"]

#: Seconds a child may take to start and load its task, on top of the item timeout.
STARTUP_GRACE = 30.0


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
        self._conn: Connection | None = None
        self._errors: IO[bytes] | None = None

    def run(self, item: object) -> Any:
        return self.run_many([item])[0]

    def run_many(self, items: Sequence[object]) -> list[Any]:
        """Each item's answer, in order, or a :class:`Stopped` saying why it has none."""
        out: list[Any] = []
        rest = list(items)
        while rest:
            if self._conn is None or self._proc is None or self._proc.poll() is not None:
                failed = self._start()
                if failed is not None:  # it never got to the item
                    out.append(failed)
                    rest = rest[1:]
                    continue
            conn = self._conn
            assert conn is not None
            try:
                conn.send(list(enumerate(rest)))
            except OSError:
                out.append(self._lost("died"))
                rest = rest[1:]
                continue
            for n in range(len(rest)):
                answer = self._answer(conn, self.timeout)
                if isinstance(answer, Stopped):
                    out.append(answer)
                    rest = rest[n + 1 :]
                    break
                self.served += 1
                out.append(answer[0][1])
            else:
                rest = []
        return out

    def _answer(self, conn: Connection, timeout: float | None, starting: bool = False) -> Any:
        """The child's next message, or the :class:`Stopped` of a child that overran
        *timeout* or died."""
        try:
            if conn.poll(timeout):
                return conn.recv()
        except (OSError, EOFError):
            return self._lost("died", starting=starting)
        return self._lost("timeout", limit=timeout, starting=starting)

    def _start(self) -> Stopped | None:
        """Start a new child and wait until it says it is ready; None once it has, else
        why it did not start."""
        self.close()
        ours, theirs = socket.socketpair()
        argv = [
            sys.executable,
            "-m",
            "hwpscan.execution.guard_process",
            str(theirs.fileno()),
            str(os.getpid()),
            str(self.memory_mb or 0),
            # the kernel's signal follows the starting thread: only the main thread lives on
            "1" if threading.current_thread() is threading.main_thread() else "0",
            self.task,
            *([] if self.setup is None else [self.setup]),
        ]
        if self.keep_stderr:
            # a file, not a pipe: a chatty child cannot block on it
            self._errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        errors = 2 if self._errors is None else self._errors.fileno()
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=errors,  # stray prints land with its stderr, never in our output
                stderr=errors,
                env={**(os.environ if self.env is None else self.env), "PYTHONUNBUFFERED": "1"},
                pass_fds=(theirs.fileno(),),
                start_new_session=self.own_group and os.name == "posix",
            )
        finally:
            theirs.close()
        self._conn = conn = Connection(ours.detach())
        self.served = 0
        if self.own_group:
            process_groups.watch(self._proc)  # a Ctrl-C of ours kills its group
        startup = self.startup
        if startup is None and self.timeout is not None:
            startup = self.timeout + STARTUP_GRACE
        ready = self._answer(conn, startup, starting=True)
        return ready if isinstance(ready, Stopped) else None

    def _lost(self, why: str, *, limit: float | None = None, starting: bool = False) -> Stopped:
        """End the child; the :class:`Stopped` that says how it ended."""
        code, stderr = self.close()
        if why == "timeout":
            return Stopped("timeout", limit, code, stderr, starting)
        return Stopped("died", None, code, stderr, starting)

    def close(self) -> tuple[int | None, bytes]:
        """End the child (killed, with its group when it has one); its exit status
        (None: it was still running) and what it wrote to stderr, when kept."""
        proc, self._proc = self._proc, None
        conn, self._conn = self._conn, None
        errors, self._errors = self._errors, None
        code: int | None = None
        stderr = b""
        if conn is not None:
            conn.close()
        if proc is not None:
            try:  # a child whose output ended is on its way out: give it a moment
                code = proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                if self.own_group:
                    process_groups.kill_group(proc)
                else:
                    proc.kill()
            proc.wait()
            if self.own_group:
                process_groups.forget(proc)
        if errors is not None:
            errors.seek(0)
            stderr = errors.read()
            errors.close()
        return code, stderr


def _child(argv: list[str]) -> None:
    """The child: ``SOCKET PARENT MEMORY_MB KERNEL_SIGNAL MODULE:FUNCTION [SETUP]``."""
    enter_child(int(argv[1]), int(argv[2]) or None, kernel_signal=argv[3] == "1")
    module, _, name = argv[4].partition(":")
    task = getattr(importlib.import_module(module), name)
    if len(argv) == 6:
        task = task(argv[5])
    serve(Connection(int(argv[0])), lambda _index, item: task(item), None, batch=1)


if __name__ == "__main__":
    _child(sys.argv[1:])
