"""Scanning many files: paths in, rows out, each file in a worker of the isolation
engine's pool (:mod:`hwpscan.execution.process_pool`) with its time and memory budget; a
worker that dies or overruns costs only the file it was reading.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.execution.process_pool import Stopped, pooled_batches
from hwpscan.models import FileResult, Status
from hwpscan.scanning.inputs import display_path
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT, error_row, failed_row, scan_file
from hwpscan.scanning.repaired_text import Repair, RepairSettings, repair_targets
from hwpscan.scanning.row_handoff import Row, failed_row_of, sent_row

#: A file to scan: its path as text (a ``Path`` costs a worker a parse per file to
#: unpickle, and the supervisor one to pickle; the worker needs only the text), its
#: date, its repair.
Job = tuple[str, str | None, Repair | None]


def _scan_job(job: Job) -> FileResult:
    try:
        return scan_file(*job)
    except Exception as exc:  # scan_file does not raise; this is the last guard
        return failed_row(display_path(job[0]), job[1], None, exc, time.perf_counter())


def scan_paths(
    paths: Iterable[Path],
    *,
    jobs: int | None = None,
    dates: Mapping[Path, str] | None = None,
    repair: RepairSettings | None = None,
    on_result: Callable[[FileResult], None] | None = None,
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    ordered: bool = True,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
) -> Iterator[FileResult]:
    """Scan files across ``jobs`` worker processes (default: all cores).

    Each result carries its ``index`` in *paths*; they come in input order, or with
    ``ordered=False`` as they complete. A file past *file_timeout* seconds has its worker
    killed and replaced, and its row says so (``None`` or ``0``: no limit, and then
    ``jobs=1`` scans in this process). A worker's data segment is capped at *memory_mb*
    megabytes (``None`` or ``0``: no cap). With *repair*, each readable file's repaired
    text is written below ``repair.out`` (:func:`repair_targets`).
    """
    settings = PoolSettings(jobs, dates, repair, file_timeout, ordered, memory_mb)
    for row in scan_rows(paths, settings):
        result = row.result
        if on_result is not None:
            on_result(result)
        yield result


@dataclass(frozen=True, slots=True)
class PoolSettings:
    """How :func:`scan_rows` scans (as the keywords of :func:`scan_paths`)."""

    jobs: int | None = None
    dates: Mapping[Path, str] | Mapping[str, str] | None = None
    repair: RepairSettings | None = None
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT
    ordered: bool = True
    memory_mb: int | None = DEFAULT_MEMORY_MB


def scan_rows(paths: Iterable[Path | str], settings: PoolSettings | None = None) -> Iterator[Row]:
    """:func:`scan_paths` as :class:`Row` objects: a worker's row is handed on as it
    came (its result built only if someone asks for it). *paths* may be the texts of
    paths (:func:`collect_listed`), with ``settings.dates`` keyed by those texts."""
    for batch in scan_row_batches(paths, settings):
        yield from batch


def scan_row_batches(
    paths: Iterable[Path | str], settings: PoolSettings | None = None
) -> Iterator[list[Row]]:
    """:func:`scan_rows` a batch at a time: the rows a worker sent in one message (one
    row at a time when the files are scanned in this process), so that whoever takes
    them (the run record, the output) does its per-row steps once per batch. The rows
    are the same and come in the same order as :func:`scan_rows` gives them."""
    settings = settings or PoolSettings()
    dates: Mapping[Any, str] = settings.dates or {}
    repair = settings.repair
    paths = list(paths)
    targets = repair_targets([Path(p) for p in paths], repair.out) if repair else {}
    work: list[Job] = [
        (os.fspath(p), dates.get(p), repair.to(targets[Path(p)]) if repair else None) for p in paths
    ]
    # never more workers than files; never more than a few per core
    cores = os.cpu_count() or 1
    jobs = max(1, min(settings.jobs or cores, len(work), 4 * cores))
    file_timeout = settings.file_timeout
    timeout = file_timeout if file_timeout and file_timeout > 0 else None
    batches: Iterator[list[tuple[int, Row]]]
    if timeout is None and (jobs == 1 or len(work) < 4):
        batches = ([(i, Row.of(_scan_job(job), i))] for i, job in enumerate(work))
    else:
        batches = _pooled_rows(work, jobs, timeout, settings.memory_mb)
    if settings.ordered:
        batches = _in_input_order(batches)
    for batch in batches:
        if batch:
            yield [row for _, row in batch]


def _in_input_order(
    batches: Iterator[list[tuple[int, Row]]],
) -> Iterator[list[tuple[int, Row]]]:
    """The rows of *batches* in input order: after each batch, the rows now next in
    line (none, when an earlier file is still out), as one batch.

    >>> from hwpscan.models import Format
    >>> row = lambda i: (i, Row.of(FileResult(f"{i}.hwp", "", 0, Format.HWP5, Status.CLEAN), i))
    >>> batches = iter([[row(1)], [row(0), row(3)], [row(2)]])
    >>> [[i for i, _ in batch] for batch in _in_input_order(batches)]
    [[], [0, 1], [2, 3], []]
    """
    held: dict[int, Row] = {}
    wanted = 0
    for batch in batches:
        held.update(batch)
        ready = []
        while wanted in held:
            ready.append((wanted, held.pop(wanted)))
            wanted += 1
        yield ready
    yield sorted(held.items())


def _scan_task(index: int, job: Job) -> Row:
    """A worker's task: one file's row as it is sent."""
    return sent_row(_scan_job(job), index)


def _failed_task(index: int, job: Job, exc: BaseException) -> Row:
    return failed_row_of(display_path(job[0]), job[1], index, exc)


def _pooled_rows(
    work: list[Job], jobs: int, timeout: float | None, memory_mb: int | None
) -> Iterator[list[tuple[int, Row]]]:
    """The rows of *work* from the engine's pool, a worker's batch at a time; a file
    whose worker died or overran is a row that says so."""
    batches = pooled_batches(
        work,
        task=_scan_task,
        failed=_failed_task,
        jobs=jobs,
        timeout=timeout,
        memory_mb=memory_mb or None,
    )
    for batch in batches:
        yield [
            (i, Row.of(_stopped_row(work[i], a), i) if isinstance(a, Stopped) else a)
            for i, a in batch
        ]


def _stopped_row(job: Job, stopped: Stopped) -> FileResult:
    """The row of a file whose worker was lost: what the file system says, and why."""
    if stopped.why == "timeout":
        why = (
            f"not done after the {stopped.limit:g}-second per-file limit "
            "(--file-timeout): stopped, not judged"
        )
    else:
        why = "the worker process died"
    path, date, _ = job
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    reason = f"{why} while reading this file"
    return error_row(display_path(path), date, Status.ERROR, reason, size=size)
