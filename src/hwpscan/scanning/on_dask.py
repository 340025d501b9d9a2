"""The Dask executor: work items to a ``dask.distributed`` cluster, rows back as they finish.

Batches of :class:`~hwpscan.scanning.sources.WorkItem` go out as tasks running
:func:`hwpscan.scanning.work_items.scan_batch`; workers read the bytes themselves, and
only a bounded window of batches is in flight while the listing is consumed.

Faults: a worker that dies takes its in-flight batches with it; each of their files is
submitted again on its own, and a file whose retry dies too is an ``error`` row. A
scheduler that goes away, or a cluster left without any worker for *worker_wait*
seconds, raises :class:`SchedulerLostError` after every row received has been yielded.
Leaving the iterator early (Ctrl-C included) cancels every outstanding task. The local
cluster started here sets the scheduler's ``allowed-failures`` to 0 so that this retry
policy is the whole policy (set ``DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0`` on a
scheduler you start).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hwpscan.errors import SchedulerLostError, UsageError
from hwpscan.execution import DEFAULT_BATCH, DEFAULT_WORKER_WAIT
from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.locations import shown_url
from hwpscan.models import FileResult
from hwpscan.redaction import redact_credentials
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT
from hwpscan.scanning.sources import WorkItem
from hwpscan.scanning.work_items import item_error_row, scan_batch

if TYPE_CHECKING:
    from distributed import Client

__all__ = [
    "DEFAULT_BATCH",
    "DEFAULT_WORKER_WAIT",
    "INSTALL_HINT",
    "SCHEDULER_ENV",
    "dask_client",
    "require_dask",
    "scan_on_dask",
]

SCHEDULER_ENV = "HWPSCAN_DASK_SCHEDULER"
INSTALL_HINT = "the dask executor needs dask.distributed: pip install 'hwpscan[dask]'"
_RETRIED_REASON = "the Dask worker died while reading this file, and again on the retry"


def require_dask() -> None:
    """Raise :class:`UsageError` with the install command when dask is missing."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL_HINT) from None


@contextmanager
def dask_client(
    scheduler: str | None = None, *, workers: int | None = None, timeout: float = 10.0
) -> Iterator[Client]:
    """A client on *scheduler* (or ``HWPSCAN_DASK_SCHEDULER``), else on a local cluster.

    The local cluster listens on 127.0.0.1 only, one thread per worker process,
    *workers* processes (default: one per core), no dashboard.
    """
    require_dask()
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    # distributed (and tornado, asyncio under it) log a lost connection with tracebacks:
    # our own message says it once
    families = ("distributed", "tornado", "asyncio")
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in families]
    chatty = [logging.getLogger(name) for name in {*families, *names}]
    levels = [log.level for log in chatty]
    for log in chatty:
        log.setLevel(logging.CRITICAL + 1)
    try:
        with _connected(address, workers, timeout) as client:
            yield client
    finally:
        for log, level in zip(chatty, levels, strict=True):
            log.setLevel(level)


@contextmanager
def _connected(address: str | None, workers: int | None, timeout: float) -> Iterator[Client]:
    import dask
    from distributed import Client, LocalCluster

    settings = {
        "distributed.scheduler.allowed-failures": 0,
        "distributed.worker.daemon": False,
        "distributed.comm.timeouts.connect": f"{timeout}s",
    }
    cluster = None
    with dask.config.set(settings):
        if address is not None:
            try:
                client = Client(address, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                where = shown_url(address)
                raise SchedulerLostError(
                    f"cannot reach the Dask scheduler at {where}: {redact_credentials(str(exc))}"
                ) from None
        else:
            cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                scheduler_port=0,
                dashboard_address=None,
                # its small HTTP server (health, metrics) on a free loopback port, not 8787
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                silence_logs=logging.ERROR,
            )
            client = Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            with contextlib.suppress(Exception):  # a client whose scheduler is gone
                client.close(timeout=5)
            if cluster is not None:
                cluster.close()


class _Workers:
    """What the client last heard of the cluster's workers: their threads (the window
    is sized on them) and since when the scheduler has been saying it has none. The
    scheduler is asked at most every *every* seconds. Only its answer "no worker"
    counts towards the wait: an answer that does not come (a connection the client is
    re-making) says nothing, and a lost scheduler is seen by the futures."""

    def __init__(self, client: Client, wait: float | None) -> None:
        self.client = client
        self.wait = wait if wait and wait > 0 else None
        self.threads = 1
        self.asked = time.monotonic()
        self.empty_since: float | None = None  # the first of the answers "none" in a row
        self._ask()

    def refresh(self, every: float) -> None:
        if time.monotonic() - self.asked >= every:
            self._ask()

    def _ask(self) -> None:
        self.asked = time.monotonic()
        try:
            threads = sum(int(n) for n in self.client.nthreads().values())
        except Exception:
            self.empty_since = None
            return
        if threads > 0:
            self.threads, self.empty_since = threads, None
        elif self.empty_since is None:
            self.empty_since = self.asked

    def gone(self) -> bool:
        """True when the scheduler has said it has no worker for the *wait* seconds allowed."""
        since = self.empty_since
        return self.wait is not None and since is not None and time.monotonic() - since > self.wait


def _next_done(queue: Any, workers: _Workers) -> tuple[Any, Any]:
    """The next finished future and its answer. With a wait, while none is finished the
    cluster is watched for having no worker at all (asked every second), which raises
    after the wait; a finished task wakes the loop at once."""
    if workers.wait is not None:
        # as_completed's own wake-up (its __next__ waits on it); a short sleep without it
        condition = getattr(queue, "thread_condition", None)
        while not queue.has_ready():
            if queue.is_empty():
                raise StopIteration
            workers.refresh(every=1.0)
            if workers.gone():
                raise SchedulerLostError(
                    f"the Dask cluster has had no worker for {workers.wait:g} seconds (its "
                    "workers died and were not replaced, or none joined); the run stopped "
                    "(--worker-wait)"
                )
            if condition is None:
                time.sleep(0.01)
                continue
            with condition:
                condition.wait(timeout=0.1)
    answer: tuple[Any, Any] = next(queue)
    return answer


def scan_on_dask(
    items: Iterable[WorkItem],
    client: Client,
    *,
    batch_size: int = DEFAULT_BATCH,
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    window: int | None = None,
    worker_wait: float | None = DEFAULT_WORKER_WAIT,
) -> Iterator[tuple[int, FileResult]]:
    """Rows with their input index, in the order they complete.

    At most *window* batches (default: three per thread of the cluster, at least four)
    are in flight; the next batches are taken from *items* as earlier ones finish. When
    the cluster has had no worker for *worker_wait* seconds while rows are awaited,
    :class:`SchedulerLostError` says so (None or 0: wait for ever).
    """
    from distributed import KilledWorker, as_completed

    source = iter(items)
    run = uuid.uuid4().hex[:12]
    counter = itertools.count()
    pending: dict[str, tuple[list[WorkItem], int, Any]] = {}
    # results are gathered on the client's event loop as tasks finish, not one by one here
    queue = as_completed(loop=client.loop, with_results=True, raise_errors=False)
    workers = _Workers(client, worker_wait)

    def submit(batch: list[WorkItem], attempt: int) -> None:
        key = f"hwpscan-scan-{run}-{next(counter)}"
        future = client.submit(scan_batch, batch, file_timeout, memory_mb, key=key, pure=False)
        pending[key] = (batch, attempt, future)
        queue.add(future)

    def fill() -> None:
        if window is None:
            workers.refresh(every=5.0)
        limit = window or max(4, 3 * workers.threads)
        while len(pending) < limit:
            batch = list(itertools.islice(source, max(1, batch_size)))
            if not batch:
                return
            submit(batch, 0)

    try:
        fill()
        while pending:
            future, answer = _next_done(queue, workers)
            batch, attempt, _ = pending.pop(future.key)
            if future.status == "finished" and isinstance(answer, list):
                rows: list[tuple[int, FileResult]] = answer
                yield from rows
            elif future.status == "finished":  # the gather itself failed
                raise _lost(answer if isinstance(answer, BaseException) else None)
            elif future.status == "error":
                failure = future.exception()  # (the answer is an exc_info tuple)
                if isinstance(failure, KilledWorker):
                    if attempt == 0:  # each in-flight file once more, on its own
                        for item in batch:
                            submit([item], 1)
                    else:
                        for item in batch:
                            yield item.index, item_error_row(item, _RETRIED_REASON)
                else:  # scan_batch turns every per-file failure into a row: this is the cluster
                    detail = redact_credentials(f"{type(failure).__name__}: {failure}".strip())
                    raise SchedulerLostError(
                        "the Dask cluster could not run the scan (is hwpscan installed, at the "
                        f"same version, on the scheduler and every worker?): {detail}"
                    )
            else:  # cancelled, and not by us: the scheduler is gone
                raise _lost(None)
            fill()
    except StopIteration:  # the queue emptied under us: the client closed
        raise _lost(None) from None
    finally:
        outstanding = [f for _, _, f in pending.values()]
        if outstanding:
            with contextlib.suppress(Exception):
                client.cancel(outstanding)


def _lost(exc: BaseException | None) -> SchedulerLostError:
    detail = f": {redact_credentials(str(exc))}" if exc is not None and str(exc) else ""
    return SchedulerLostError(f"the Dask scheduler went away; the run stopped{detail}")
