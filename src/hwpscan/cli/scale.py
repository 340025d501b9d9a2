"""``hwpscan scan`` at scale: URL sources, the Dask executor and ``--resume``.

:func:`run_scaled` is what ``scan`` calls instead of ``run_scan`` when a source is a
URL, ``--executor dask`` is chosen or ``--resume`` names a run. It lists the sources
lazily (:mod:`hwpscan.sources`), skips what the resumed run already holds, hands the
rest to the chosen executor and passes every row to the sink the moment it arrives.
The rows it returns are in input order, so tables read as the local executor's.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from hwpscan.cli.app import err_console, fail
from hwpscan.errors import HwpscanError, StateDirError, StoreError, UsageError
from hwpscan.executors.dask_cluster import DEFAULT_BATCH
from hwpscan.executors.worker import DEFAULT_FILE_TIMEOUT, scan_batch
from hwpscan.models import ExitCode, FileResult
from hwpscan.sources import WorkItem, iter_items, shown_url, url_from_argument

__all__ = [
    "DEFAULT_BATCH",
    "Executor",
    "Resumed",
    "check_scaled_options",
    "display_root",
    "load_resume",
    "local_paths",
    "needs_scaled",
    "run_scaled",
    "url_from_argument",
]


class Executor(str, enum.Enum):
    local = "local"
    dask = "dask"


def needs_scaled(paths: Sequence[Path], executor: Executor, resume: str | None) -> bool:
    """True when the plain local scan cannot do what was asked."""
    return (
        executor is Executor.dask
        or resume is not None
        or any(url_from_argument(p) is not None for p in paths)
    )


def local_paths(paths: Sequence[Path]) -> list[Path]:
    """The arguments that are local paths (URLs are checked when listed)."""
    return [p for p in paths if url_from_argument(p) is None]


def display_root(paths: Sequence[Path]) -> str | None:
    """The one URL scanned, to show keys relative to it (None: not a single URL)."""
    if len(paths) == 1 and (url := url_from_argument(paths[0])) is not None:
        return shown_url(url).rstrip("/")
    return None


def check_scaled_options(
    paths: Sequence[Path], executor: Executor, *, repair: bool, parser: bool
) -> None:
    """Refuse combinations the scaled path does not do (exit 2, saying why)."""
    urls = any(url_from_argument(p) is not None for p in paths)
    where = "--executor dask" if executor is Executor.dask else "a URL source"
    if repair and (urls or executor is Executor.dask):
        raise fail(f"--emit-repaired writes local files: it cannot be used with {where}", 2)
    if parser and (urls or executor is Executor.dask):
        raise fail(f"--parser runs extractors locally: it cannot be used with {where}", 2)
    if executor is Executor.dask:
        from hwpscan.executors.dask_cluster import require_dask

        try:
            require_dask()
        except UsageError as exc:
            raise fail(str(exc), ExitCode.USAGE) from None


def run_scaled(
    paths: Sequence[Path],
    *,
    executor: Executor,
    scheduler: str | None,
    batch_size: int,
    jobs: int,
    progress: bool,
    resume: Resumed | None,
    sink: Callable[[FileResult], None],
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
) -> tuple[list[FileResult], ExitCode | None]:
    """Scan *paths* (folders, files, URLs); rows in input order and an exit code to force.

    The code is :attr:`ExitCode.API` when the scheduler went away (what arrived before
    is kept, recorded and returned), else None.
    """
    sources = [url_from_argument(p) or p for p in paths]
    previous = resume.rows if resume is not None else {}
    rows: dict[int, FileResult] = {}
    stop: ExitCode | None = None
    shown = _Ticker(enabled=progress)

    def take(index: int, result: FileResult) -> None:
        if result.index != index:  # rows carry their input place, as the local pool's do
            result = replace(result, index=index)
        rows[index] = result
        sink(result)
        shown.tick()

    carried: list[int] = []
    todo = _skip_recorded(iter_items(sources), previous, take, carried)
    try:
        if executor is Executor.dask:
            from hwpscan.errors import SchedulerLostError
            from hwpscan.executors.dask_cluster import dask_client, scan_on_dask

            try:
                with dask_client(scheduler, workers=jobs or None) as client:
                    for index, result in scan_on_dask(
                        todo, client, batch_size=batch_size, file_timeout=file_timeout
                    ):
                        take(index, result)
            except SchedulerLostError as exc:
                err_console.print(
                    f"error: {exc} ({len(rows)} files received and kept)",
                    markup=False,
                    highlight=False,
                )
                stop = ExitCode.API
        else:
            for index, result in _scan_locally(todo, jobs=jobs, file_timeout=file_timeout):
                take(index, result)
    except HwpscanError as exc:  # a listing that failed part-way: keep what was scanned
        if not rows:
            raise
        err_console.print(f"error: {exc}", markup=False, highlight=False)
        stop = ExitCode.USAGE
    finally:
        shown.close()
    if resume is not None:
        err_console.print(
            f"resumed: {len(carried):,} files carried over from run {resume.run_id}, "
            f"{len(rows) - len(carried):,} scanned",
            highlight=False,
        )
    return [rows[i] for i in sorted(rows)], stop


@dataclass(frozen=True, slots=True)
class Resumed:
    """The run ``--resume`` names: its id and the rows that need no new scan, by path."""

    run_id: str
    rows: dict[str, FileResult]


def load_resume(ref: str) -> Resumed:
    """The run to resume, loaded before the new run is opened (so ``latest`` is the old one).

    Rows that were never read (a failure, a timeout, a dead worker) are left out: those
    files are worth another try.
    """
    from hwpscan.errors import RunNotFoundError
    from hwpscan.runs import default_store

    try:
        with default_store() as store:
            run = store.load_run(ref)
    except (RunNotFoundError, StoreError, StateDirError) as exc:
        raise fail(f"--resume: {exc}", ExitCode.USAGE) from None
    if run.info.kind == "fetch":
        raise fail(f"--resume: run {run.id} is a fetch, not a scan", ExitCode.USAGE)
    return Resumed(run.id, {r.path: r for r in run.results if r.sha256})


def _skip_recorded(
    items: Iterable[WorkItem],
    previous: dict[str, FileResult],
    take: Callable[[int, FileResult], None],
    carried: list[int],
) -> Iterator[WorkItem]:
    """Items not in *previous* with the same size; the others' recorded rows are taken."""
    for item in items:
        done = previous.get(item.shown)
        if done is not None and item.size is not None and done.bytes == item.size:
            carried.append(item.index)
            take(item.index, done)
        else:
            yield item


def _scan_locally(
    items: Iterable[WorkItem], *, jobs: int, file_timeout: float | None
) -> Iterator[tuple[int, FileResult]]:
    """The local executor for work items: threads, each driving a guard process."""
    workers = max(1, jobs or os.cpu_count() or 1)
    source = iter(items)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        window = [
            pool.submit(scan_batch, [item], file_timeout) for item in _take(source, 2 * workers)
        ]
        while window:
            done = window.pop(0).result()
            window.extend(
                pool.submit(scan_batch, [item], file_timeout) for item in _take(source, 1)
            )
            yield from done


def _take(source: Iterator[WorkItem], n: int) -> list[WorkItem]:
    out: list[WorkItem] = []
    for item in source:
        out.append(item)
        if len(out) >= n:
            break
    return out


class _Ticker:
    """A count of rows on stderr for long scans whose total is not known up front."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled and err_console.is_terminal
        self.count = 0
        self.started = time.monotonic()
        self._last = 0.0
        self._status = err_console.status("scanning") if self.enabled else None
        if self._status is not None:
            self._status.start()

    def tick(self) -> None:
        self.count += 1
        now = time.monotonic()
        if self._status is not None and now - self._last > 0.2:
            self._last = now
            rate = self.count / max(now - self.started, 1e-9)
            self._status.update(f"scanning: {self.count:,} files ({rate:,.0f}/s)")

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
