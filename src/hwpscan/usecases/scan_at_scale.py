"""Scanning at scale (URL sources, Dask, ``--resume``): :func:`run_scaled` lists the sources
lazily, skips what the resumed run holds, hands the rest to the executor, passes each row on
as it arrives and returns the rows in input order.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

from hwpscan.errors import (
    HwpscanError,
    RunNotFoundError,
    SchedulerLostError,
    StateDirError,
    StoreError,
    UsageError,
)
from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.history import default_store
from hwpscan.models import ExitCode, FileResult
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT
from hwpscan.scanning.sources import WorkItem, iter_items
from hwpscan.usecases.scale_settings import Executor, ScaleSettings, url_from_argument

__all__ = [
    "Resumed",
    "ScaledRun",
    "ScaledStop",
    "check_scaled_options",
    "load_resume",
    "run_scaled",
]


def check_scaled_options(
    paths: Sequence[Path], executor: Executor, *, repair: bool, parser: bool
) -> None:
    """Refuse combinations the scaled path does not do (:class:`UsageError`, saying why)."""
    where = "--executor dask" if executor is Executor.dask else "a URL source"
    if executor is Executor.dask or any(url_from_argument(p) is not None for p in paths):
        if repair:
            raise UsageError(f"--emit-repaired writes local files: it cannot be used with {where}")
        if parser:
            raise UsageError(f"--parser runs extractors locally: it cannot be used with {where}")
    if executor is Executor.dask:
        from hwpscan.scanning.on_dask import require_dask  # dask: only when chosen

        require_dask()


def run_scaled(
    paths: Sequence[Path],
    settings: ScaleSettings,
    *,
    resumed: Resumed | None,
    take: Callable[[FileResult], None],
    jobs: int,
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
) -> ScaledRun:
    """Scan *paths*, each row to *take* as it arrives: the rows in input order, and the
    early stop (``API``: no scheduler; ``USAGE``: a listing failed part-way), if any."""
    sources = [url_from_argument(p) or p for p in paths]
    previous = resumed.rows if resumed is not None else {}
    rows: dict[int, FileResult] = {}

    def keep(index: int, result: FileResult) -> None:
        if result.index != index:  # rows carry their input place, as the local pool's do
            result = replace(result, index=index)
        rows[index] = result
        take(result)

    carried = 0

    def todo() -> Iterator[WorkItem]:
        """The items to scan: a file the resumed run holds with the same size is taken."""
        nonlocal carried
        for item in iter_items(sources):
            done = previous.get(item.shown)
            if done is not None and item.size is not None and done.bytes == item.size:
                carried += 1
                keep(item.index, done)
            else:
                yield item

    if settings.executor is Executor.dask:
        scan = _scan_on_dask(todo(), settings, jobs, file_timeout, memory_mb)
    else:
        scan = _scan_locally(todo(), jobs, file_timeout, memory_mb)
    stop: ScaledStop | None = None
    try:
        with closing(scan) as scanned:
            for index, result in scanned:
                keep(index, result)
    except SchedulerLostError as exc:
        stop = ScaledStop(ExitCode.API, f"{exc} ({len(rows)} files received and kept)")
    except HwpscanError as exc:  # a listing that failed part-way: keep what was scanned
        if not rows:
            raise
        stop = ScaledStop(ExitCode.USAGE, str(exc))
    return ScaledRun([rows[i] for i in sorted(rows)], stop, carried=carried)


@dataclass(frozen=True, slots=True)
class ScaledStop:
    """Why a scaled scan ended early: the exit code to force and the reason."""

    code: ExitCode
    reason: str


@dataclass(frozen=True, slots=True)
class ScaledRun:
    """What a scaled scan gave: rows in input order, the early stop, rows carried over."""

    rows: list[FileResult]
    stop: ScaledStop | None
    carried: int = 0


def _scan_on_dask(
    items: Iterable[WorkItem],
    settings: ScaleSettings,
    jobs: int,
    file_timeout: float | None,
    memory_mb: int | None,
) -> Generator[tuple[int, FileResult], None, None]:
    """The Dask executor (:class:`SchedulerLostError` when its scheduler goes away)."""
    from hwpscan.scanning.on_dask import dask_client, scan_on_dask  # dask: when chosen

    with dask_client(settings.scheduler, workers=jobs or None) as client:
        yield from scan_on_dask(
            items,
            client,
            batch_size=settings.batch_size,
            file_timeout=file_timeout,
            memory_mb=memory_mb,
            worker_wait=settings.worker_wait,
        )


@dataclass(frozen=True, slots=True)
class Resumed:
    """The run ``--resume`` names: its id and the rows that need no new scan, by path."""

    run_id: str
    rows: dict[str, FileResult]


def load_resume(ref: str) -> Resumed:
    """The run to resume, loaded before the new run is opened (so ``latest`` is the old
    one); rows never read (a failure, a timeout) are left out, worth another try."""
    try:
        with default_store() as store:
            run = store.load_run(ref)
    except (RunNotFoundError, StoreError, StateDirError) as exc:
        raise UsageError(f"--resume: {exc}") from None
    if run.info.kind == "fetch":
        raise UsageError(f"--resume: run {run.id} is a fetch, not a scan")
    return Resumed(run.id, {r.path: r for r in run.results if r.sha256})


def _scan_locally(
    items: Iterable[WorkItem], jobs: int, file_timeout: float | None, memory_mb: int | None
) -> Generator[tuple[int, FileResult], None, None]:
    """The local executor for work items: threads, each driving a guard process."""
    from concurrent.futures import Future, ThreadPoolExecutor

    # the guard processes' driver: only for work items (a URL, --resume), not for a folder
    from hwpscan.scanning.work_items import scan_batch

    workers = max(1, jobs or os.cpu_count() or 1)
    source = iter(items)
    with ThreadPoolExecutor(max_workers=workers) as pool:

        def submit(item: WorkItem) -> Future[list[tuple[int, FileResult]]]:
            return pool.submit(scan_batch, [item], file_timeout, memory_mb)

        window = deque(map(submit, islice(source, 2 * workers)))  # two items a worker ahead
        while window:
            done = window.popleft().result()
            window.extend(map(submit, islice(source, 1)))
            yield from done
