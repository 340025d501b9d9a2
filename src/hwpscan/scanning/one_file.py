"""Scanning one file: its bytes in, its row out. Whatever goes wrong while reading it
becomes that file's status and reason, never an exception."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import replace

from hwpscan.errors import EncryptedFileError, FormatError
from hwpscan.execution.child_limits import memory_budget_reason
from hwpscan.forensics.defects import count_defects
from hwpscan.forensics.surrogates import analyze
from hwpscan.formats import read_document
from hwpscan.formats.sniff import SNIFF_BYTES, sniff
from hwpscan.formats.stable_text import stable
from hwpscan.models import (
    NO_DEFECTS,
    Defects,
    Document,
    FileResult,
    Format,
    PlainCounts,
    RepairSummary,
    Segment,
    Status,
    TextStats,
)
from hwpscan.scanning.inputs import display_path
from hwpscan.scanning.repaired_text import Repair, write_repaired

#: Files larger than this are reported, not read.
MAX_FILE_BYTES = 512 * 2**20
_MORE_RE = re.compile(r"and [0-9,]+ more warnings?")

#: Locations kept for the side channels (PrvText, DocInfo names): they echo the body.
SIDE_LOCATIONS = 5
_FILEHEADER_NAME = "FileHeader".encode("utf-16-le")

#: A row's ``reason`` and each warning are cut to these lengths, and a row keeps at most
#: :data:`MAX_WARNINGS` warnings (one more line counts the rest); a reason built from
#: warnings joins the first :data:`REASON_WARNINGS`. Real files give a few short ones.
MAX_REASON_CHARS = 2000
MAX_WARNING_CHARS = 500
MAX_WARNINGS = 50
REASON_WARNINGS = 5
#: Seconds one file may take (``--file-timeout``): its worker is stopped and replaced
#: after that, and the row says so. The slowest real attachment seen took 4 s.
DEFAULT_FILE_TIMEOUT = 120.0


def scan_bytes(
    data: bytes, *, path: str, date: str | None = None, repair: Repair | None = None
) -> FileResult:
    """Scan one file's bytes. Never raises, ``MemoryError`` included: the row says what
    happened."""
    started = time.perf_counter()
    try:
        return _scan_bytes(data, path=path, date=date, repair=repair, started=started)
    except Exception as exc:  # MemoryError is an Exception: the row says what happened
        return failed_row(path, date, data, exc, started)


def failed_row(
    path: str, date: str | None, data: bytes | None, exc: BaseException, started: float
) -> FileResult:
    """The row of a file whose handling raised (out of memory, or a bug)."""
    if isinstance(exc, MemoryError):  # the worker's budget, when one is set, or the machine's
        reason = (
            f"{memory_budget_reason() or 'out of memory while reading this file'} (MemoryError)"
        )
    else:
        try:
            text = str(exc)
        except Exception:  # a __str__ that fails must not hide the error
            text = "(the error could not be shown)"
        reason = f"internal error: {type(exc).__name__}: {text}"
    digest, size, fmt = "", 0, Format.UNKNOWN
    if data is not None:
        with contextlib.suppress(Exception):  # still out of memory: the reason is what matters
            digest, size, fmt = hashlib.sha256(data).hexdigest(), len(data), _fallback_format(data)
    row = error_row(path, date, Status.ERROR, cap_reason(reason), size=size)
    return replace(row, sha256=digest, format=fmt, seconds=time.perf_counter() - started)


def cap_reason(reason: str | None, limit: int = MAX_REASON_CHARS) -> str | None:
    """A reason cut to *limit* characters, saying how much was cut.

    >>> cap_reason("x" * 30, 10)
    'xxxxxxxxxx… (20 more characters)'
    """
    if reason is None:
        return None
    reason = stable(reason)  # no memory address in a row: see formats.stable_text
    if len(reason) <= limit:
        return reason
    return f"{reason[:limit]}… ({len(reason) - limit:,} more characters)"


def cap_warnings(warnings: Sequence[str], limit: int = MAX_WARNINGS) -> tuple[str, ...]:
    """At most *limit* warnings (each capped), then one line saying how many more.

    >>> cap_warnings(["a", "b", "c"], 2)
    ('a', 'b', 'and 1 more warning')
    """
    counted = bool(warnings) and _MORE_RE.fullmatch(warnings[-1]) is not None
    if len(warnings) <= limit + counted:  # a reader's own "and N more" line stays
        return tuple(cap_reason(w, MAX_WARNING_CHARS) or "" for w in warnings)
    kept = tuple(cap_reason(w, MAX_WARNING_CHARS) or "" for w in warnings[:limit])
    dropped = len(warnings) - limit
    return (*kept, f"and {dropped:,} more warning{'s' if dropped != 1 else ''}")


def _scan_bytes(
    data: bytes, *, path: str, date: str | None, repair: Repair | None, started: float
) -> FileResult:
    digest = hashlib.sha256(data).hexdigest()
    try:
        # Without a repair only the counts are wanted: a plain body is counted, not cut up.
        doc = read_document(data, count_plain_body=repair is None)
        status, reason = _judge(doc)
    except EncryptedFileError as exc:
        doc, status, reason = Document(format=_fallback_format(data)), Status.ENCRYPTED, str(exc)
    except FormatError as exc:  # CorruptFileError and any other damage a reader names
        doc, status, reason = Document(format=_fallback_format(data)), Status.CORRUPT, str(exc)
    except RecursionError as exc:
        doc, status, reason = Document(format=_fallback_format(data)), Status.CORRUPT, repr(exc)
    except MemoryError:
        raise  # scan_bytes words it, after this frame's memory is freed
    except Exception as exc:  # a bug or an unforeseen library error: one row, not a crash
        doc = Document(format=_fallback_format(data))
        status, reason = Status.ERROR, f"internal error: {type(exc).__name__}: {exc}"
    plain = doc.info.plain_body
    has_body = bool(doc.body) or (plain is not None and plain.units > 0)
    body, defects = _body_counts(doc)
    if status is None:
        status = Status.CONTAMINATED if body.surrogates else Status.CLEAN
    elif status is Status.CORRUPT and has_body:
        status, reason = _partial(body, reason)
    warnings = cap_warnings(doc.warnings)
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
        reason=cap_reason(reason),
        date=date,
        body=body,
        preview=_side_stats(doc.info.plain_preview, doc.preview),
        meta=_side_stats(doc.info.plain_meta, doc.meta),
        warnings=warnings,
        seconds=time.perf_counter() - started,
        body_read=has_body or status.scanned,
        repair=repaired,
        defects=defects if has_body or status.scanned else None,
    )


def _body_counts(doc: Document) -> tuple[TextStats, Defects]:
    """The body's counts and defect classes (its folded symbols' locations added); a
    plain body, counted by the reader, has nothing in it to locate or to class."""
    plain = doc.info.plain_body
    if plain is not None:
        return TextStats(chars=plain.chars), NO_DEFECTS
    if not doc.body:
        return TextStats(), NO_DEFECTS
    body = analyze(doc.body)
    found = count_defects(doc.format, doc.body, body)
    if found.locations:
        body = replace(body, locations=body.locations + found.locations)
    return body, found.defects


def _side_stats(plain: PlainCounts | None, segments: tuple[Segment, ...]) -> TextStats | None:
    """The counts of a document's preview text or metadata strings (*segments*; None
    without any); a reader that counted plain ones (HWP 5 PrvText, DocInfo names) gave
    their counts instead (*plain*: ``info.plain_preview``, ``info.plain_meta``)."""
    if plain is not None:
        return TextStats(chars=plain.chars)
    return analyze(segments, max_locations=SIDE_LOCATIONS) if segments else None


def _judge(doc: Document) -> tuple[Status | None, str | None]:
    """A reader's own verdict wins; otherwise the counts decide (None: decide later)."""
    if doc.status is not None:
        return doc.status, doc.reason
    return None, "; ".join(cap_warnings(doc.warnings, REASON_WARNINGS)) or None


def _partial(body: TextStats, reason: str | None) -> tuple[Status, str]:
    """A body read only in part is never clean: ``contaminated`` when what was read holds
    surrogates, else ``corrupt``, with the counts of what was read in the reason.

    >>> status, reason = _partial(TextStats(chars=12, surrogates=2), "page 3: unreadable")
    >>> status.value, reason
    ('contaminated', 'read in part (12 characters, 2 surrogates read): page 3: unreadable')
    """
    status = Status.CONTAMINATED if body.surrogates else Status.CORRUPT
    counts = f"{body.chars:,} characters, {body.surrogates:,} surrogates read"
    return status, f"read in part ({counts}): {reason or 'the rest of the body is unreadable'}"


def _fallback_format(data: bytes) -> Format:
    fmt = sniff(data[:SNIFF_BYTES])
    # a compound file with a FileHeader directory entry was meant to be HWP 5
    return Format.HWP5 if fmt is Format.OLE and _FILEHEADER_NAME in data else fmt


def scan_file(
    path: str | os.PathLike[str], date: str | None = None, repair: Repair | None = None
) -> FileResult:
    """Scan one file on disk. Never raises: an unreadable file is a row with a status.
    Only regular files are read, never more than :data:`MAX_FILE_BYTES`. With *repair*,
    the repaired body text is written too."""
    shown = display_path(path)
    started = time.perf_counter()
    try:
        return _scan_file(path, shown, date, repair)
    except Exception as exc:  # out of memory reading it, or a bug: one row
        return failed_row(shown, date, None, exc, started)


def _scan_file(
    path: str | os.PathLike[str], shown: str, date: str | None, repair: Repair | None
) -> FileResult:
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):  # one collect_files could not list
            return error_row(shown, date, Status.ERROR, _unlisted_reason(path))
        if not stat.S_ISREG(info.st_mode):
            reason = "not a regular file (a FIFO, device or socket)"
            return error_row(shown, date, Status.UNSUPPORTED, reason)
        if info.st_size > MAX_FILE_BYTES:
            return error_row(shown, date, *oversize(info.st_size), size=info.st_size)
        # the size it has, plus one byte to see it grow (a read of n reserves n bytes)
        data = _read_at_most(path, min(info.st_size, MAX_FILE_BYTES) + 1)
    except OSError as exc:
        return error_row(shown, date, Status.ERROR, f"cannot read file: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:  # it grew while we looked
        return error_row(shown, date, Status.UNSUPPORTED, "file grew over the size cap while read")
    return scan_bytes(data, path=shown, date=date, repair=repair)


def _unlisted_reason(path: str | os.PathLike[str]) -> str:
    """Why a folder among the files to scan is there: it could not be listed."""
    try:
        with os.scandir(path):
            pass
    except OSError as exc:
        return f"cannot list folder: {exc.strerror or exc}; the files in it were not scanned"
    return "a folder that could not be listed when the files were collected; not scanned"


def _read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """The first *limit* bytes of a file (a buffered read goes on until it has them all).

    >>> with open(__file__, "rb") as whole:
    ...     text = whole.read()
    >>> _read_at_most(__file__, 10) == text[:10], _read_at_most(__file__, 10**9) == text
    (True, True)
    """
    with open(path, "rb") as handle:
        return handle.read(limit)


def oversize(size: int) -> tuple[Status, str]:
    """The status and reason of a file over :data:`MAX_FILE_BYTES`."""
    return Status.UNSUPPORTED, f"file is {size:,} bytes, over the cap of {MAX_FILE_BYTES:,}"


def error_row(
    path: str, date: str | None, status: Status, reason: str | None, *, size: int = 0
) -> FileResult:
    """The row of a file that was not read."""
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
