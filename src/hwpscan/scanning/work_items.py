"""Scanning work items (a local path or an fsspec URL), each in a guard process: what
the scaled path (``--resume``, URLs) and a Dask cluster's tasks run.

A local file is scanned as the local pool scans it, so rows are identical; a URL is
read through fsspec under the same size cap. In a guard the time limit and the memory
budget are enforced from outside: an overrun, a crash or a ``MemoryError`` costs that
one file. Nothing here imports Dask.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.execution.guard_process import Guard
from hwpscan.execution.process_pool import Stopped
from hwpscan.models import FileResult, Status
from hwpscan.redaction import redact_credentials
from hwpscan.scanning.one_file import (
    DEFAULT_FILE_TIMEOUT,
    MAX_FILE_BYTES,
    error_row,
    oversize,
    scan_bytes,
    scan_file,
)
from hwpscan.scanning.sources import WorkItem, filesystem

#: What a guard process runs on each item.
SCAN_TASK = "hwpscan.scanning.work_items:scan_guarded"


def item_error_row(item: WorkItem, reason: str, status: Status = Status.ERROR) -> FileResult:
    """The row for a file that could not be scanned (nothing read: never ``clean``)."""
    return error_row(item.shown, item.date, status, reason)


def scan_item(item: WorkItem) -> FileResult:
    """Scan one work item in this process. Never raises for bad input."""
    if not item.remote:
        return scan_file(Path(item.location), item.date)
    try:
        fs, path = filesystem(item.location)
        size = fs.size(path)
        if size is not None and int(size) > MAX_FILE_BYTES:
            return error_row(item.shown, item.date, *oversize(int(size)), size=int(size))
        with fs.open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except Exception as exc:  # any filesystem's failure (botocore, aiohttp, OSError...)
        return item_error_row(item, f"cannot read file: {_describe(exc)}")
    if len(data) > MAX_FILE_BYTES:
        return item_error_row(item, "file grew over the size cap while read", Status.UNSUPPORTED)
    return scan_bytes(data, path=item.shown, date=item.date)


def _describe(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return redact_credentials(str(text))


def scan_guarded(item: WorkItem) -> FileResult:
    """:func:`scan_item`, with every exception (``MemoryError`` included) as the row."""
    try:
        return scan_item(item)
    except MemoryError:  # no room to describe it: a fixed reason
        return item_error_row(item, "internal error: MemoryError")
    except Exception as exc:
        return item_error_row(item, f"internal error: {type(exc).__name__}: {_describe(exc)}")


def item_row(item: WorkItem, answer: FileResult | Stopped) -> FileResult:
    """A guard's answer for *item* as its row (a :class:`Stopped` says why it has none)."""
    if not isinstance(answer, Stopped):
        return answer
    if answer.why == "timeout":
        limit = f"{answer.limit:g}" if answer.limit is not None else "?"
        return item_error_row(item, f"not finished within the per-file limit of {limit} s")
    return item_error_row(item, "the worker process died while reading this file")


_local = threading.local()
_guards: list[Guard] = []
_guards_lock = threading.Lock()


def _guard(timeout: float | None, memory_mb: int | None) -> Guard:
    """This thread's guard (worker threads each scan one file at a time)."""
    guard: Guard | None = getattr(_local, "guard", None)
    if guard is None:
        guard = Guard(SCAN_TASK, timeout, memory_mb)
        _local.guard = guard
        with _guards_lock:
            _guards.append(guard)
    if guard.memory_mb != memory_mb:  # a new budget takes a new child
        guard.close()
        guard.memory_mb = memory_mb
    guard.timeout = timeout
    return guard


@atexit.register
def _close_guards() -> None:
    with _guards_lock:
        for guard in _guards:
            guard.close()


def scan_batch(
    items: Sequence[WorkItem],
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
) -> list[tuple[int, FileResult]]:
    """The cluster task: each item's row with its input index, each in a guard process
    whose data segment is capped at *memory_mb* megabytes."""
    if os.name != "posix":  # no select() on pipes: scan in this process, without a limit
        return [(item.index, scan_guarded(item)) for item in items]
    answers = _guard(file_timeout, memory_mb).run_many(items)
    return [(item.index, item_row(item, a)) for item, a in zip(items, answers, strict=True)]
