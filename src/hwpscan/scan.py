"""Paths in, results out: the scanning core.

Every file is isolated: whatever goes wrong while reading it becomes that file's
status and reason, never the end of the batch. Files run in parallel across processes;
a worker process that dies takes down only the file it was reading.

>>> exit_code([], fail_on={"contaminated"})
<ExitCode.OK: 0>
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import date as _date
from pathlib import Path

from hwpscan.errors import EncryptedFileError, FormatError
from hwpscan.forensics.surrogates import analyze, join_segments
from hwpscan.formats import read_document
from hwpscan.models import (
    Document,
    ExitCode,
    FileResult,
    Format,
    RepairSummary,
    Status,
    TextStats,
)

#: Files larger than this are reported, not read.
MAX_FILE_BYTES = 512 * 2**20
#: Names that live beside attachments but are not attachments.
SIDECAR_NAMES = frozenset({"manifest.jsonl", "expected.jsonl", "README.md", "README.txt"})
_SIDECAR_SUFFIXES = (".part", ".tmp")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")

#: Locations kept for the side channels (PrvText, DocInfo names): they echo the body.
SIDE_LOCATIONS = 5
_FILEHEADER_NAME = "FileHeader".encode("utf-16-le")

FAIL_ON_CHOICES = ("contaminated", "error")


def display_path(path: str | os.PathLike[str]) -> str:
    """A printable form of a path: undecodable bytes become escapes, not surrogates.

    >>> display_path(os.fsdecode(b"a\\xff.hwp"))
    'a\\\\xff.hwp'
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def date_from_path(path: str | os.PathLike[str]) -> str | None:
    """The date named by a whole ``YYYY-MM-DD`` folder (innermost first) or file stem.

    >>> date_from_path("downloads/2025-07-21/보도자료.hwp")
    '2025-07-21'
    >>> date_from_path("2025-07-21/a_2025-08-01.hwp"), date_from_path("x2025-07-21y/a.hwp")
    ('2025-07-21', None)
    >>> date_from_path("x/2025-13-40/a.pdf") is None
    True
    """
    p = Path(path)
    for part in (p.stem, *reversed(p.parent.parts)):
        if _DATE_RE.fullmatch(part):
            try:
                _date.fromisoformat(part)
            except ValueError:
                continue
            return part
    return None


def collect_files(inputs: Iterable[Path]) -> list[Path]:
    """Files named, and files below folders named (recursively, sorted, sidecars skipped).

    A file named twice (or reached twice) is scanned once. A path that does not exist
    is kept: scanning it gives a row with status ``error``.
    """
    out: list[Path] = []
    seen: set[str] = set()

    def add(path: Path) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)

    for item in inputs:
        if item.is_dir():
            for root, dirs, files in os.walk(item):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if _is_attachment_name(name):
                        add(Path(root) / name)
        else:
            add(item)
    return out


def _is_attachment_name(name: str) -> bool:
    return not (name.startswith(".") or name in SIDECAR_NAMES or name.endswith(_SIDECAR_SUFFIXES))


def resolve_dates(paths: Iterable[Path]) -> dict[Path, str]:
    """Dates for files: a fetch manifest when one knows the file, else the path."""
    from hwpscan.fetch.manifest import dates_for

    paths = list(paths)
    dates = dict(dates_for(paths))
    for path in paths:
        if path not in dates and (found := date_from_path(path)) is not None:
            dates[path] = found
    return dates


def scan_bytes(
    data: bytes, *, path: str, date: str | None = None, repair: Repair | None = None
) -> FileResult:
    """Scan one file's bytes. Never raises for bad input: the status says what happened."""
    started = time.perf_counter()
    digest = hashlib.sha256(data).hexdigest()
    try:
        doc = read_document(data)
        status, reason = _judge(doc)
    except EncryptedFileError as exc:
        doc, status, reason = Document(format=_fallback_format(data)), Status.ENCRYPTED, str(exc)
    except FormatError as exc:  # CorruptFileError and any other damage a reader names
        doc, status, reason = Document(format=_fallback_format(data)), Status.CORRUPT, str(exc)
    except RecursionError as exc:
        doc, status, reason = Document(format=_fallback_format(data)), Status.CORRUPT, repr(exc)
    except Exception as exc:  # a bug or an unforeseen library error: one row, not a crash
        doc = Document(format=_fallback_format(data))
        status, reason = Status.ERROR, f"internal error: {type(exc).__name__}: {exc}"
    body = analyze(doc.body) if doc.body else TextStats()
    if status is None:
        status = Status.CONTAMINATED if body.surrogates else Status.CLEAN
    warnings = doc.warnings
    repaired: RepairSummary | None = None
    if repair is not None and status.scanned:
        try:
            repaired = write_repaired(doc, repair)
        except OSError as exc:
            warnings += (f"repaired text not written to {display_path(repair.target)}: {exc}",)
    return FileResult(
        path=path,
        sha256=digest,
        bytes=len(data),
        format=doc.format,
        status=status,
        reason=reason,
        date=date,
        body=body,
        preview=analyze(doc.preview, max_locations=SIDE_LOCATIONS) if doc.preview else None,
        meta=analyze(doc.meta, max_locations=SIDE_LOCATIONS) if doc.meta else None,
        warnings=warnings,
        seconds=time.perf_counter() - started,
        body_read=bool(doc.body) or status.scanned,
        repair=repaired,
    )


def _judge(doc: Document) -> tuple[Status | None, str | None]:
    """A reader's own verdict wins; otherwise the counts decide (None: decide later)."""
    if doc.status is not None:
        return doc.status, doc.reason
    return None, "; ".join(doc.warnings) or None


def _fallback_format(data: bytes) -> Format:
    from hwpscan.formats.sniff import SNIFF_BYTES, sniff

    fmt = sniff(data[:SNIFF_BYTES])
    # a compound file with a FileHeader directory entry was meant to be HWP 5
    return Format.HWP5 if fmt is Format.OLE and _FILEHEADER_NAME in data else fmt


def scan_file(path: Path, date: str | None = None, repair: Repair | None = None) -> FileResult:
    """Scan one file on disk. Never raises: an unreadable file is a row with a status.

    Only regular files are read (a FIFO would block, a device never end), and never
    more than :data:`MAX_FILE_BYTES`. With *repair*, the body text is also written as
    UTF-8 after repair (pairs restored, orphans handled per its policy).
    """
    shown = display_path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            reason = "not a regular file (a FIFO, device or socket)"
            return _error_row(shown, date, Status.UNSUPPORTED, reason)
        if info.st_size > MAX_FILE_BYTES:
            return _error_row(
                shown,
                date,
                Status.UNSUPPORTED,
                f"file is {info.st_size:,} bytes, over the cap of {MAX_FILE_BYTES:,}",
                size=info.st_size,
            )
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return _error_row(shown, date, Status.ERROR, f"cannot read file: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:  # it grew while we looked
        return _error_row(shown, date, Status.UNSUPPORTED, "file grew over the size cap while read")
    return scan_bytes(data, path=shown, date=date, repair=repair)


def _error_row(
    path: str, date: str | None, status: Status, reason: str, *, size: int = 0
) -> FileResult:
    return FileResult(
        path=path,
        sha256="",
        bytes=size,
        format=Format.UNKNOWN,
        status=status,
        reason=reason,
        date=date,
        body_read=False,
    )


@dataclass(frozen=True, slots=True)
class Repair:
    """Where a file's repaired text goes and how orphans and PUA are treated."""

    target: Path
    orphans: str = "drop"  # drop | replace | escape
    pua_map: bool = False  # replace known Hancom PUA characters by standard ones


def write_repaired(doc: Document, repair: Repair) -> RepairSummary:
    """Write the document's body as UTF-8 after repair, atomically; say what was done."""
    from hwpscan.forensics.guard import repair_text

    done = repair_text(join_segments(doc.body), orphans=repair.orphans, pua_map=repair.pua_map)
    target = repair.target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.part")
    tmp.write_text(done.text, encoding="utf-8")
    os.replace(tmp, target)
    return RepairSummary(
        restored_pairs=done.restored_pairs,
        removed_orphans=done.removed_orphans,
        pua_replaced=dict(done.pua_replaced),
        pua_kept=dict(done.pua_kept),
    )


def repair_targets(paths: Sequence[Path], repair_dir: Path) -> dict[Path, Path]:
    """Where each file's repaired text goes: its path below the files' common folder.

    Two inputs never share a target: a name already taken gets ``-2``, ``-3``... so a
    file repaired in one folder cannot overwrite another's text.

    >>> t = repair_targets([Path("/in/a/x.hwp"), Path("/in/b/x.hwp"), Path("/in/b/y.pdf")], Path("out"))
    >>> [p.as_posix() for p in t.values()]
    ['out/a/x.hwp.txt', 'out/b/x.hwp.txt', 'out/b/y.pdf.txt']
    >>> [p.as_posix() for p in repair_targets([Path("/in/x.hwp"), Path("/in/x.hwp")], Path("o")).values()]
    ['o/x.hwp.txt']
    """
    resolved = {p: Path(os.path.abspath(p)) for p in paths}
    if not resolved:
        return {}
    root = Path(os.path.commonpath([r.parent for r in resolved.values()]))
    targets: dict[Path, Path] = {}
    taken: set[Path] = set()
    for path, full in resolved.items():
        rel = full.relative_to(root)
        target = repair_dir / rel.with_name(rel.name + ".txt")
        n = 1
        while target in taken:
            n += 1
            target = repair_dir / rel.with_name(f"{rel.name}-{n}.txt")
        taken.add(target)
        targets[path] = target
    return targets


Job = tuple[Path, str | None, Repair | None]


def _scan_job(job: Job) -> FileResult:
    return scan_file(*job)


def scan_paths(
    paths: Iterable[Path],
    *,
    jobs: int | None = None,
    dates: Mapping[Path, str] | None = None,
    repair_dir: Path | None = None,
    orphans: str = "drop",
    pua_map: bool = False,
    on_result: Callable[[FileResult], None] | None = None,
) -> Iterator[FileResult]:
    """Scan files in input order, across ``jobs`` processes (default: all cores).

    With *repair_dir*, each readable file's repaired body text is written below it, at
    the place :func:`repair_targets` gives.
    """
    dates = dates or {}
    paths = list(paths)
    targets = repair_targets(paths, repair_dir) if repair_dir is not None else {}
    work: list[Job] = [
        (p, dates.get(p), Repair(targets[p], orphans, pua_map) if p in targets else None)
        for p in paths
    ]
    # never more workers than files; never more than a few per core
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(work), 4 * (os.cpu_count() or 1)))
    if jobs == 1 or len(work) < 4:
        results: Iterator[FileResult] = map(_scan_job, work)
    else:
        results = _parallel(work, jobs)
    for result in results:
        if on_result is not None:
            on_result(result)
        yield result


def _parallel(work: list[Job], jobs: int) -> Iterator[FileResult]:
    chunk = max(1, min(64, len(work) // (jobs * 8)))
    done = 0
    try:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            try:
                for result in pool.map(_scan_job, work, chunksize=chunk):
                    done += 1
                    yield result
            except BaseException:  # Ctrl-C, SIGTERM, the caller stopped: drop the queue
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    except BrokenProcessPool:
        # A worker died (a crash in native code, the OOM killer). Finish the rest one
        # file per task so the death is pinned on the file that caused it.
        yield from _isolated(work[done:])


def _isolated(work: list[Job]) -> Iterator[FileResult]:
    pool = ProcessPoolExecutor(max_workers=1)
    try:
        for job in work:
            future: Future[FileResult] = pool.submit(_scan_job, job)
            try:
                yield future.result()
            except BrokenProcessPool:
                pool.shutdown(wait=False, cancel_futures=True)
                pool = ProcessPoolExecutor(max_workers=1)
                yield _error_row(
                    display_path(job[0]),
                    job[1],
                    Status.ERROR,
                    "the worker process died while reading this file",
                )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def exit_code(results: Iterable[FileResult], fail_on: Iterable[str] = ()) -> ExitCode:
    """The scan's exit code: FINDINGS when a ``--fail-on`` condition matched.

    ``contaminated`` matches contaminated files; ``error`` matches files that could not
    be judged (encrypted, distribution, unsupported, corrupt, error).
    """
    wanted = set(fail_on)
    for result in results:
        if "contaminated" in wanted and result.status is Status.CONTAMINATED:
            return ExitCode.FINDINGS
        if "error" in wanted and not result.status.scanned:
            return ExitCode.FINDINGS
    return ExitCode.OK
