"""The isolation engine's pool: items run in forked worker processes, each with a time
and a memory limit (:func:`~hwpscan.execution.child_limits.enter_child`); a crash or an
overrun costs that item only.

:func:`pooled_batches` hands chunks of items to workers, which run ``task(index, item)``
on each (:func:`serve`), and yields their answers a worker's message (a batch) at a
time. An item whose worker died or overran is answered by a :class:`Stopped`; the worker
is replaced, and its other items go back to the front of the queue.

Time is measured from outside: before each item a worker stamps its index and start in
a shared progress word (:func:`_progress_word`), which the supervisor reads.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, Literal, TypeVar

from hwpscan.execution.child_limits import enter_child

Item = TypeVar("Item")
Answer = TypeVar("Answer")

#: Items handed to a worker at a time: enough to amortise the messages and wake-ups, few
#: enough that the last chunks spread over every worker (see :func:`_chunk_size`).
MAX_CHUNK = 32
#: What a worker holds before it sends it: at most this many answers, the oldest for at
#: most :data:`MAX_HOLD` seconds, and nothing once it has no more items at hand. One
#: message (one wake-up of the supervisor, which every worker waits on) carries a batch.
MAX_BATCH = 32
MAX_HOLD = 0.05

#: The low bits of an item's index a worker writes in its progress word (see
#: :func:`_progress_word`); a worker never holds two items these bits cannot tell apart.
_INDEX_MASK = 0x7FFFFFFF
_MS_WRAP = 2**32


@dataclass(frozen=True, slots=True)
class Stopped:
    """Why an item has no answer: its worker ``died`` on it, or it ran past the ``timeout``
    of *limit* seconds (its worker was killed); a guard's child also tells its
    *returncode*, its *stderr* (when kept), and whether it was still *starting*."""

    why: Literal["died", "timeout"]
    limit: float | None = None
    returncode: int | None = None
    stderr: bytes = b""
    starting: bool = False


def _chunk_size(left: int, jobs: int) -> int:
    """Items for the next chunk: about an eighth of each worker's share of what is left.

    >>> _chunk_size(5000, 2), _chunk_size(40, 2), _chunk_size(3, 2)
    (32, 2, 1)
    """
    return max(1, min(MAX_CHUNK, left // (8 * jobs)))


def _progress_word(index: int, clock: float) -> int:
    """Which item a worker is on and since when, as one 64-bit word (one store, so the
    supervisor never reads half of it): the index's low 31 bits plus one in the high
    half (0: on no item yet), the millisecond it began (modulo 2**32) in the low half.

    >>> _read_word(_progress_word(7, 12.5), 13.0)
    (7, 0.5)
    >>> _read_word(0, 13.0) is None
    True
    """
    return ((index & _INDEX_MASK) + 1) << 32 | int(clock * 1000) % _MS_WRAP


def _read_word(word: int, clock: float) -> tuple[int, float] | None:
    """The index bits and the seconds since the item began, of a progress word read
    before *clock* was (so the difference is never negative).

    >>> _read_word(_progress_word(3, 5.0), 5.0)
    (3, 0.0)
    """
    if word >> 32 == 0:
        return None
    return (word >> 32) - 1, (int(clock * 1000) - word) % _MS_WRAP / 1000


@dataclass(frozen=True, slots=True)
class _Setup(Generic[Item, Answer]):
    """What a worker runs, and how it is bounded."""

    task: Callable[[int, Item], Answer]
    failed: Callable[[int, Item, BaseException], Answer]
    memory_mb: int | None
    parent: int
    kernel_signal: bool


class _Worker(Generic[Item]):
    """One worker process and the connection to it: given chunks of items, it answers in
    batches, in order. A forked worker stamps each item in its progress word, so the
    supervisor knows which item it is on and since when; one without (a guard's child,
    answering item by item) is on its first unanswered item since its last message.
    Start-up is limited by *startup* seconds (None: the item time limit).
    """

    progress: Any = None
    startup: float | None = None

    def __init__(self, setup: _Setup[Item, Any]) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.progress = multiprocessing.RawValue("Q", 0)  # unsigned: 63 bits are used
        self.proc = multiprocessing.Process(
            target=_worker_main, args=(child, self.progress, setup), daemon=True
        )
        self.proc.start()
        child.close()
        self._begin()

    def _begin(self) -> None:
        self.tasks: dict[int, Item] = {}  # given and not answered, in the order given
        self.started = time.monotonic()  # the last sign of life: start, hand-over, batch
        self.starting = True  # it has sent nothing yet
        self.served = 0  # items answered

    def give(self, chunk: list[tuple[int, Item]]) -> None:
        if not self.tasks:  # idle: its next item starts now
            self.started = time.monotonic()
        self.tasks.update(chunk)
        # a worker that died since its last message (a crash in native code right after
        # it sent a batch) cannot be given more; its end of the connection is then at
        # EOF, which the next wait sees: receive() blames the item it died on, if any
        # (died_on), and hands out the others again. A death costs one item, no more.
        with contextlib.suppress(OSError):
            self.conn.send(chunk)

    def limit(self, timeout: float | None) -> float | None:
        """Seconds it may spend on its current item, or on starting."""
        return self.startup if self.starting and self.startup is not None else timeout

    def current(self) -> tuple[int, float]:
        """The item it is on (one of its tasks) and when that began (monotonic clock).

        Before it has begun any of them (it is starting, or its next chunk is on the
        way), the first one, since its last sign of life.
        """
        if self.progress is not None:
            word = self.progress.value  # the stamp first, then the clock: never later
            now = time.monotonic()
            read = _read_word(word, now)
            if read is not None and (index := self._task(read[0])) is not None:
                return index, now - read[1]
        return next(iter(self.tasks)), self.started

    def died_on(self) -> int | None:
        """The item a worker that died was on: the one of its tasks its progress word
        names (None: it had finished them all, and died between items)."""
        if self.progress is None:
            return next(iter(self.tasks))
        read = _read_word(self.progress.value, time.monotonic())
        return next(iter(self.tasks)) if read is None else self._task(read[0])

    def _task(self, bits: int) -> int | None:
        """The task whose index has these low bits (a couple of chunks to look through)."""
        return next((i for i in self.tasks if i & _INDEX_MASK == bits), None)

    def end(self) -> tuple[int | None, bytes]:
        """Kill it; how it had ended (its exit status, None when it was running) and its
        stderr, where kept (a forked worker keeps neither)."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()
        return None, b""

    def stop(self) -> None:
        """End an idle worker politely (it finishes nothing more), else kill it."""
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        self.proc.join(2)
        self.end()


def _worker_main(conn: Connection, progress: Any, setup: _Setup[Any, Any]) -> None:
    enter_child(setup.parent, setup.memory_mb, kernel_signal=setup.kernel_signal)
    serve(conn, setup.task, setup.failed, progress)


def serve(
    conn: Connection,
    task: Callable[[int, Any], Any],
    failed: Callable[[int, Any, BaseException], Any] | None,
    progress: Any = None,
    batch: int | None = None,
) -> None:
    """A child's loop, a pool worker's or a guard's: chunks of (index, item) in, batches
    of (index, answer) out, in order, until ``None`` or EOF. Its first message is an empty
    batch: started and imported, the clock of its first item runs. Without *failed*, a
    task that raises ends the child. *progress* is the pool's progress word; *batch* the
    most answers held (default :data:`MAX_BATCH`)."""
    out = _Outbox(conn, failed, MAX_BATCH if batch is None else batch)
    if not out.send():
        return
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index, item in chunk:
            if progress is not None:
                progress.value = _progress_word(index, time.monotonic())
            try:
                answer = task(index, item)
            except Exception as exc:  # a task answers for itself; this is the last guard
                if failed is None:
                    raise
                answer = failed(index, item, exc)
            out.add(index, item, answer)
            if out.full() and not out.send():
                return
        if out.held and not conn.poll() and not out.send():  # no more work at hand
            return


class _Outbox:
    """The answers a worker has made and not sent yet (see :data:`MAX_BATCH`)."""

    def __init__(
        self,
        conn: Connection,
        failed: Callable[[int, Any, BaseException], Any] | None,
        batch: int,
    ) -> None:
        self.conn = conn
        self.failed = failed
        self.batch = batch
        self.held: list[tuple[int, Any]] = []
        self.items: list[Any] = []
        self.since = 0.0  # when the oldest answer held was made

    def add(self, index: int, item: Any, answer: Any) -> None:
        if not self.held:
            self.since = time.monotonic()
        self.held.append((index, answer))
        self.items.append(item)

    def full(self) -> bool:
        return len(self.held) >= self.batch or time.monotonic() - self.since >= MAX_HOLD

    def send(self) -> bool:
        """Send what is held as one message; False when the supervisor is gone. An answer
        too big to send (MemoryError) is sent as its ``failed`` answer instead."""
        held, items = self.held, self.items
        self.held, self.items = [], []
        try:
            self.conn.send(held)
            return True
        except (OSError, EOFError):
            return False
        except Exception:
            if self.failed is None:
                raise
        for (index, answer), item in zip(held, items, strict=True):  # one by one
            try:
                self.conn.send([(index, answer)])
            except (OSError, EOFError):
                return False
            except Exception as exc:  # this answer alone is too big: one saying so instead
                try:
                    self.conn.send([(index, self.failed(index, item, exc))])
                except (OSError, EOFError):
                    return False
        return True


class _Pool(Generic[Item, Answer]):
    """The supervisor: the queue of items not yet handed out, the workers (started by
    *start*, at most *jobs*) and what each one holds."""

    def __init__(
        self, work: list[Item], jobs: int, timeout: float | None, start: Callable[[], _Worker[Item]]
    ) -> None:
        self.queue = deque(enumerate(work))
        self.jobs = jobs
        self.timeout = timeout
        self.start = start
        self.workers: list[_Worker[Item]] = []

    def chunk(self) -> list[tuple[int, Item]]:
        n = _chunk_size(len(self.queue), self.jobs)
        return [self.queue.popleft() for _ in range(min(n, len(self.queue)))]

    def feed(self) -> list[_Worker[Item]]:
        """Give work to every worker down to its last chunk (so it never waits for the next
        one), start workers up to *jobs*; the workers that hold items."""
        queue = self.queue
        for worker in self.workers:
            if queue and len(worker.tasks) <= _chunk_size(len(queue), self.jobs):
                worker.give(self.chunk())
        while queue and len(self.workers) < self.jobs:
            worker = self.start()
            self.workers.append(worker)
            worker.give(self.chunk())
        return [w for w in self.workers if w.tasks]

    def lose(
        self, worker: _Worker[Item], index: int | None, why: Literal["died", "timeout"]
    ) -> list[tuple[int, Answer | Stopped]]:
        """Kill a worker; the item *index* it was on (None: none) is answered by a
        :class:`Stopped`, its other items re-queued (the ones it had done and not sent
        too: they run again)."""
        starting, limit = worker.starting, worker.limit(self.timeout)
        code, stderr = worker.end()
        self.workers.remove(worker)
        if index is not None:
            del worker.tasks[index]
        self.queue.extendleft(reversed(worker.tasks.items()))
        if index is None:
            return []
        limit = limit if why == "timeout" else None
        return [(index, Stopped(why, limit, code, stderr, starting))]

    def wait(self, busy: list[_Worker[Item]]) -> set[object]:
        """The connections with a message, waiting no longer than the nearest deadline."""
        deadlines = [
            w.current()[1] + limit for w in busy if (limit := w.limit(self.timeout)) is not None
        ]
        wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        return set(wait([w.conn for w in busy], wait_for))

    def receive(self, worker: _Worker[Item]) -> list[tuple[int, Answer | Stopped]]:
        """The answers a worker sent (none in its start-up message), as they came."""
        try:
            batch: list[tuple[int, Answer]] = worker.conn.recv()
        except Exception:  # EOF: the process died, or its message was cut
            return self.lose(worker, worker.died_on(), "died")
        worker.started = time.monotonic()
        worker.starting = False
        worker.served += len(batch)
        tasks = worker.tasks
        for index, _ in batch:
            del tasks[index]
        return list(batch)

    def overdue(self, worker: _Worker[Item]) -> list[tuple[int, Answer | Stopped]]:
        """The item a worker has been on past its limit (the worker is killed)."""
        limit = worker.limit(self.timeout)
        if limit is None:
            return []
        index, since = worker.current()
        if time.monotonic() - since < limit:
            return []
        return self.lose(worker, index, "timeout")

    def batches(self) -> Iterator[list[tuple[int, Answer | Stopped]]]:
        """Answers as they come, a worker's message at a time (never an empty batch)."""
        while busy := self.feed():
            ready = self.wait(busy)
            # every waiting message is taken before any answer is handed on: a worker whose
            # message sits unread while another's answers are stored is blocked in its send
            got = [self.receive(w) if w.conn in ready else self.overdue(w) for w in busy]
            for answers in got:
                if answers:
                    yield answers


def pooled_batches(
    work: list[Item],
    *,
    task: Callable[[int, Item], Answer],
    failed: Callable[[int, Item, BaseException], Answer],
    jobs: int,
    timeout: float | None,
    memory_mb: int | None = None,
) -> Iterator[list[tuple[int, Answer | Stopped]]]:
    """Answers as they complete, a worker's message at a time, each with its item's index,
    from *jobs* forked workers fed in chunks. ``task(index, item)`` makes an answer in a
    worker; ``failed(index, item, exc)`` that of an item whose task raised or whose answer
    could not be sent (both module-level functions). A worker that dies or overruns
    *timeout* seconds costs only that item, answered by a :class:`Stopped`.
    """
    setup = _Setup(
        task,
        failed,
        memory_mb,
        os.getpid(),
        # the kernel's signal follows the starting thread: only the main thread lives on
        threading.current_thread() is threading.main_thread(),
    )
    pool: _Pool[Item, Answer] = _Pool(work, jobs, timeout, lambda: _Worker(setup))
    clean = False
    try:
        yield from pool.batches()
        clean = True
    finally:
        for worker in pool.workers:
            worker.stop() if clean else worker.end()
