"""What runs on a worker: read one file where it lives, scan it, return its row.

:func:`scan_item` is the per-file function for a :class:`~hwpscan.sources.WorkItem`: a
local file goes through :func:`hwpscan.scanning.one_file.scan_file` (the local executor's own
function, so rows are identical), a URL is read through fsspec with the same size cap
and handed to :func:`hwpscan.scanning.one_file.scan_bytes`.

:func:`scan_batch` is the task a cluster runs. Each file is scanned in a guard process
(``python -m hwpscan.execution.guard_child``), so the per-file wall-time limit is enforced from
outside the reading code: a file that overruns has its process killed and replaced, and
a crash in native code or a ``MemoryError`` costs that one file, never the worker.
Nothing here imports Dask.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.models import FileResult, Format, Status
from hwpscan.redaction import redact_credentials
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT, MAX_FILE_BYTES, scan_bytes, scan_file
from hwpscan.sources import WorkItem, filesystem

__all__ = ["DEFAULT_FILE_TIMEOUT", "Guard", "error_row", "scan_batch", "scan_item"]

_HEADER = struct.Struct("<Q")
_DIED = object()


def error_row(item: WorkItem, reason: str, status: Status = Status.ERROR) -> FileResult:
    """The row for a file that could not be scanned (nothing read: never ``clean``)."""
    return FileResult(
        path=item.shown,
        sha256="",
        bytes=0,
        format=Format.UNKNOWN,
        status=status,
        reason=reason,
        date=item.date,
        body_read=False,
    )


def scan_item(item: WorkItem) -> FileResult:
    """Scan one work item in this process. Never raises for bad input."""
    if not item.remote:
        return scan_file(Path(item.location), item.date)
    try:
        fs, path = filesystem(item.location)
        size = fs.size(path)
        if size is not None and int(size) > MAX_FILE_BYTES:
            return FileResult(
                path=item.shown,
                sha256="",
                bytes=int(size),
                format=Format.UNKNOWN,
                status=Status.UNSUPPORTED,
                reason=f"file is {int(size):,} bytes, over the cap of {MAX_FILE_BYTES:,}",
                date=item.date,
                body_read=False,
            )
        with fs.open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except Exception as exc:  # any filesystem's failure (botocore, aiohttp, OSError...)
        return error_row(item, f"cannot read file: {_describe(exc)}")
    if len(data) > MAX_FILE_BYTES:
        return error_row(item, "file grew over the size cap while read", Status.UNSUPPORTED)
    return scan_bytes(data, path=item.shown, date=item.date)


def _describe(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return redact_credentials(str(text))


def scan_guarded(item: WorkItem) -> FileResult:
    """:func:`scan_item`, with every exception (``MemoryError`` included) as the row."""
    try:
        return scan_item(item)
    except MemoryError:  # no room to describe it: a fixed reason
        return error_row(item, "internal error: MemoryError")
    except Exception as exc:
        return error_row(item, f"internal error: {type(exc).__name__}: {_describe(exc)}")


class Guard:
    """A child process that scans items in order, replaced when one overruns or kills it.

    A batch goes to the child in one message and the rows come back one by one, each
    within *timeout* seconds of the one before, so the child works through the batch
    without waiting on the parent while every file still has its own limit.
    """

    def __init__(self, timeout: float | None, memory_mb: int | None = DEFAULT_MEMORY_MB) -> None:
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._proc: subprocess.Popen[bytes] | None = None

    def scan(self, item: WorkItem) -> FileResult:
        return self.scan_many([item])[0]

    def scan_many(self, items: Sequence[WorkItem]) -> list[FileResult]:
        out: list[FileResult] = []
        rest = list(items)
        while rest:
            proc = self._proc if self._proc is not None and self._proc.poll() is None else None
            if proc is None:
                proc = self._proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                _write(proc.stdin, rest)
            except OSError:
                self._lost(rest[0], out)
                rest = rest[1:]
                continue
            for n, item in enumerate(rest):
                try:
                    answer = _read(proc.stdout, self.timeout)
                except (OSError, EOFError, pickle.UnpicklingError):
                    answer = _DIED
                if not isinstance(answer, FileResult):  # overran, died or spoke nonsense
                    self._lost(item, out, timed_out=answer is None)
                    rest = rest[n + 1 :]
                    break
                out.append(answer)
            else:
                rest = []
        return out

    def _lost(self, item: WorkItem, out: list[FileResult], *, timed_out: bool = False) -> None:
        """Replace the child; *item*'s row says why."""
        self.close()
        if timed_out:
            limit = f"{self.timeout:g}" if self.timeout is not None else "?"
            out.append(error_row(item, f"not finished within the per-file limit of {limit} s"))
        else:
            out.append(error_row(item, "the worker process died while reading this file"))

    def _start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hwpscan.execution.guard_child",
                str(os.getpid()),
                str(self.memory_mb or 0),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def _write(stream: IO[bytes], obj: object) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read(stream: IO[bytes], timeout: float | None) -> object | None:
    """One framed pickle from a child's stdout; None when *timeout* passes first."""
    fd = stream.fileno()
    deadline = None if timeout is None else time.monotonic() + timeout
    header = _read_exactly(fd, _HEADER.size, deadline)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
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


_local = threading.local()
_guards: list[Guard] = []
_guards_lock = threading.Lock()


def _guard(timeout: float | None, memory_mb: int | None) -> Guard:
    """This thread's guard (worker threads each scan one file at a time)."""
    guard: Guard | None = getattr(_local, "guard", None)
    if guard is None:
        guard = Guard(timeout, memory_mb)
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
    whose data segment is capped at *memory_mb* megabytes (see
    :mod:`hwpscan.execution.child_limits`)."""
    if os.name != "posix":  # no select() on pipes: scan in this process, without a limit
        return [(item.index, scan_guarded(item)) for item in items]
    rows = _guard(file_timeout, memory_mb).scan_many(items)
    return [(item.index, row) for item, row in zip(items, rows, strict=True)]
