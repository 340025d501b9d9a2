"""A guard: the pool with one worker, a fresh interpreter kept between calls, for
threads (a Dask worker's, the scaled path's, the parser matrix's), from which forking is
not safe. The child (``python -m hwpscan.execution.guard_process``) enters the same
limits and runs the same loop as a pool worker, answering item by item over a socket:
each answer must come within *timeout* seconds of the one before, and starting has its
own limit (*startup*). The task is ``module:function``; with a *setup* text,
``function(setup)`` runs once as the child starts and what it returns runs on each item
(the matrix loads an extractor so). For code we do not control the child can get its
own environment (*env*) and process group (*own_group*, killed whole and known to
:func:`~hwpscan.execution.process_groups.kill_running`).
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
from typing import Any

from hwpscan.execution import process_groups
from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB, enter_child
from hwpscan.execution.process_pool import _Pool, _Worker, serve

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
        self._child: _Child | None = None

    @property
    def served(self) -> int:
        """Items the current child has answered (0 after a restart)."""
        return 0 if self._child is None else self._child.served

    def run(self, item: object) -> Any:
        return self.run_many([item])[0]

    def run_many(self, items: Sequence[object]) -> list[Any]:
        """Each item's answer, in order, or a :class:`Stopped` saying why it has none."""
        if self._child is not None and self._child.popen.poll() is not None:
            self.close()  # it ended between two calls
        pool: _Pool[object, Any] = _Pool(list(items), 1, self.timeout, self._start)
        pool.workers = [] if self._child is None else [self._child]
        out: list[Any] = [None] * len(items)
        try:
            for batch in pool.batches():
                for index, answer in batch:
                    out[index] = answer
        finally:
            self._child = pool.workers[0] if pool.workers else None  # type: ignore[assignment]
        return out

    def _start(self) -> _Child:
        self._child = _Child(self)
        return self._child

    def close(self) -> None:
        """End the child (killed, with its group when it has one)."""
        child, self._child = self._child, None
        if child is not None:
            child.end()


class _Child(_Worker[Any]):
    """A guard's child: a fresh interpreter on the other end of a socket."""

    def __init__(self, guard: Guard) -> None:
        self.own_group = guard.own_group
        self.startup = guard.startup
        if self.startup is None and guard.timeout is not None:
            self.startup = guard.timeout + STARTUP_GRACE
        ours, theirs = socket.socketpair()
        argv = [
            sys.executable,
            "-m",
            "hwpscan.execution.guard_process",
            str(theirs.fileno()),
            str(os.getpid()),
            str(guard.memory_mb or 0),
            # the kernel's signal follows the starting thread: only the main thread lives on
            "1" if threading.current_thread() is threading.main_thread() else "0",
            guard.task,
            *([] if guard.setup is None else [guard.setup]),
        ]
        # a file, not a pipe: a chatty child cannot block on it
        self.errors = tempfile.TemporaryFile() if guard.keep_stderr else None  # noqa: SIM115
        errors = 2 if self.errors is None else self.errors.fileno()
        try:
            self.popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=errors,  # stray prints land with its stderr, never in our output
                stderr=errors,
                env={**(os.environ if guard.env is None else guard.env), "PYTHONUNBUFFERED": "1"},
                pass_fds=(theirs.fileno(),),
                start_new_session=self.own_group and os.name == "posix",
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        if self.own_group:
            process_groups.watch(self.popen)  # a Ctrl-C of ours kills its group
        self._begin()

    def end(self) -> tuple[int | None, bytes]:
        self.conn.close()  # an idle child ends at once
        code: int | None = None
        try:  # a child whose output ended is on its way out: give it a moment
            code = self.popen.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            if not self.own_group:
                self.popen.kill()
        if self.own_group:  # what it started goes with it, whether it had ended or not
            process_groups.kill_group(self.popen)
        self.popen.wait()
        if self.own_group:
            process_groups.forget(self.popen)
        stderr = b""
        if self.errors is not None:
            self.errors.seek(0)
            stderr = self.errors.read()
            self.errors.close()
        return code, stderr

    def stop(self) -> None:
        self.end()


def _child(argv: list[str]) -> None:
    """The child: ``SOCKET PARENT MEMORY_MB KERNEL_SIGNAL MODULE:FUNCTION [SETUP]``."""
    answers = int(argv[0])
    # not passed on to what the task (or its import and setup) starts: a process left
    # behind would hold the socket open, and a crash would read as a timeout
    os.set_inheritable(answers, False)
    enter_child(int(argv[1]), int(argv[2]) or None, kernel_signal=argv[3] == "1")
    module, _, name = argv[4].partition(":")
    task = getattr(importlib.import_module(module), name)
    if len(argv) == 6:
        task = task(argv[5])
    serve(Connection(answers), lambda _index, item: task(item), None, batch=1)


if __name__ == "__main__":
    _child(sys.argv[1:])
