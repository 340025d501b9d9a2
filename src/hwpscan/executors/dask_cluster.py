"""The Dask executor: work items to a ``dask.distributed`` cluster, rows back as they finish.

Files travel as :class:`~hwpscan.sources.WorkItem` (a path or URL and a date), grouped
into batches, one task per batch; workers read the bytes themselves and run
:func:`hwpscan.executors.worker.scan_batch`, so the client never holds the corpus and
only a bounded window of batches is in flight while the listing is consumed.

Faults:

- a worker that dies takes its in-flight batches with it: each of their files is
  submitted again on its own (so a second death is pinned on one file), and a file
  whose retry dies too is a row with status ``error`` and the reason;
- a scheduler that goes away raises :class:`SchedulerLostError` after every row
  already received has been yielded;
- leaving the iterator early (Ctrl-C included) cancels every outstanding task.

The scheduler's own ``allowed-failures`` decides when a batch counts as lost; the local
cluster started here sets it to 0 so that the retry policy above is the whole policy
(set ``DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0`` on a scheduler you start).
"""

from __future__ import annotations

import itertools
import logging
import os
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hwpscan.errors import SchedulerLostError, UsageError
from hwpscan.executors.worker import DEFAULT_FILE_TIMEOUT, error_row, scan_batch
from hwpscan.models import FileResult
from hwpscan.redaction import redact_credentials
from hwpscan.sources import WorkItem, shown_url

if TYPE_CHECKING:
    from distributed import Client

__all__ = [
    "DEFAULT_BATCH",
    "INSTALL_HINT",
    "SCHEDULER_ENV",
    "dask_client",
    "require_dask",
    "scan_on_dask",
]

#: Files per task: large enough that the scheduler's per-task cost stays under 5% of
#: the scanning (measured by benchmarks/scale_out.py: about 9 ms per task against about
#: 2 ms per file on a busy machine, so 128), small enough to spread a large folder.
DEFAULT_BATCH = 128
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
    with dask.config.set(settings):
        if address is not None:
            try:
                client = Client(address, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                where = shown_url(address)
                raise SchedulerLostError(
                    f"cannot reach the Dask scheduler at {where}: {redact_credentials(str(exc))}"
                ) from None
            try:
                yield client
            finally:
                _quiet_close(client)
            return
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
            _quiet_close(client)
            cluster.close()


def _quiet_close(client: Client) -> None:
    try:
        client.close(timeout=5)
    except Exception:  # closing a client whose scheduler is gone: nothing left to do
        logging.getLogger(__name__).debug("client close failed", exc_info=True)


def _threads(client: Client) -> int:
    try:
        workers = client.scheduler_info().get("workers", {})
        return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))
    except Exception:
        return 1


def scan_on_dask(
    items: Iterable[WorkItem],
    client: Client,
    *,
    batch_size: int = DEFAULT_BATCH,
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    window: int | None = None,
) -> Iterator[tuple[int, FileResult]]:
    """Rows with their input index, in the order they complete.

    At most *window* batches (default: twice the cluster's threads) are in flight;
    the next batches are taken from *items* as earlier ones finish.
    """
    from distributed import KilledWorker, as_completed

    source = iter(items)
    run = uuid.uuid4().hex[:12]
    counter = itertools.count()
    pending: dict[str, tuple[list[WorkItem], int, Any]] = {}
    # results are gathered on the client's event loop as tasks finish, not one by one here
    queue = as_completed(loop=client.loop, with_results=True, raise_errors=False)
    threads = [_threads(client), time.monotonic()]  # asked again at most every 5 s

    def submit(batch: list[WorkItem], attempt: int) -> None:
        key = f"hwpscan-scan-{run}-{next(counter)}"
        future = client.submit(scan_batch, batch, file_timeout, key=key, pure=False)
        pending[key] = (batch, attempt, future)
        queue.add(future)

    def fill() -> None:
        if window is None and time.monotonic() - threads[1] > 5:
            threads[:] = [_threads(client), time.monotonic()]
        limit = window or max(4, 3 * int(threads[0]))
        while len(pending) < limit:
            batch = list(itertools.islice(source, max(1, batch_size)))
            if not batch:
                return
            submit(batch, 0)

    try:
        fill()
        while pending:
            future, answer = next(queue)
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
                            yield item.index, error_row(item, _RETRIED_REASON)
                else:  # scan_batch turns every per-file failure into a row: this is the cluster
                    raise _unusable(failure)
            else:  # cancelled, and not by us: the scheduler is gone
                raise _lost(None)
            fill()
    except StopIteration:  # the queue emptied under us: the client closed
        raise _lost(None) from None
    finally:
        outstanding = [f for _, _, f in pending.values()]
        if outstanding:
            try:
                client.cancel(outstanding)
            except Exception:
                logging.getLogger(__name__).debug("cancel failed", exc_info=True)


def _unusable(exc: BaseException | None) -> SchedulerLostError:
    detail = f"{type(exc).__name__}: {exc}".strip() if exc is not None else "unknown failure"
    return SchedulerLostError(
        "the Dask cluster could not run the scan (is hwpscan installed, at the same version, "
        f"on the scheduler and every worker?): {redact_credentials(detail)}"
    )


def _lost(exc: BaseException | None) -> SchedulerLostError:
    detail = f": {redact_credentials(str(exc))}" if exc is not None and str(exc) else ""
    return SchedulerLostError(f"the Dask scheduler went away; the run stopped{detail}")
