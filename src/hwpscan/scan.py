"""Paths in, results out: the scanning core.

Every file is isolated: whatever goes wrong while reading it becomes that file's
status and reason, never the end of the batch. Files run in parallel across processes;
a worker process that dies takes down only the file it was reading.

>>> exit_code([], fail_on={"contaminated"})
<ExitCode.OK: 0>
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import multiprocessing
import os
import pickle
import re
import stat
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date as _date
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from hwpscan.atomic import atomic_write
from hwpscan.errors import EncryptedFileError, FormatError
from hwpscan.manifest import MANIFEST_NAME, dates_for

if TYPE_CHECKING:
    from hwpscan.forensics.guard import OrphanPolicy, PuaMode
from hwpscan.forensics.defects import count_defects
from hwpscan.forensics.guard import repair_body
from hwpscan.forensics.surrogates import analyze
from hwpscan.formats import read_document
from hwpscan.formats.sniff import SNIFF_BYTES, sniff
from hwpscan.models import (
    DEFECT_CLASSES,
    NO_DEFECTS,
    Defects,
    Document,
    ExitCode,
    FileResult,
    Format,
    Location,
    RepairSummary,
    Segment,
    Status,
    TextStats,
)
from hwpscan.report.export import jsonl_line, record_line, remember_line

#: Files larger than this are reported, not read.
MAX_FILE_BYTES = 512 * 2**20
#: Names that live beside attachments but are not attachments.
SIDECAR_NAMES = frozenset({"manifest.jsonl", "expected.jsonl", "README.md", "README.txt"})
_SIDECAR_SUFFIXES = (".part", ".tmp")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MORE_RE = re.compile(r"and [0-9,]+ more warnings?")

#: Locations kept for the side channels (PrvText, DocInfo names): they echo the body.
SIDE_LOCATIONS = 5
_FILEHEADER_NAME = "FileHeader".encode("utf-16-le")

#: ``--fail-on``: the two verdicts, each defect class, and ``defects`` for any class.
FAIL_ON_CHOICES = ("contaminated", "unreadable", "error", *DEFECT_CLASSES, "defects")
#: ``--fail-on error`` is the older name of ``--fail-on unreadable``.
FAIL_ON_ALIASES = {"error": "unreadable"}

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
    text = os.fspath(path)
    head, name = os.path.split(text)
    if not name or name in (".", ".."):  # pathlib reads these otherwise: ask it
        p = Path(text)
        return _named_date(p.stem) or _folder_date(os.fspath(p.parent))
    return _listed_date(head, name)


def _listed_date(folder: str, name: str) -> str | None:
    """:func:`date_from_path` of *name* (a plain name, as listed) in *folder*."""
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name  # as Path.stem
    # only a ten-character stem can be a date: most names are not asked the pattern
    return (len(stem) == 10 and _named_date(stem)) or _folder_date(folder)


def _named_date(part: str) -> str | None:
    """*part* when it is a whole, real ``YYYY-MM-DD`` date."""
    if _DATE_RE.fullmatch(part):
        try:
            _date.fromisoformat(part)
        except ValueError:
            return None
        return part
    return None


@functools.lru_cache(maxsize=4096)
def _folder_date(folder: str) -> str | None:
    """The innermost whole date among *folder*'s components, once per folder: the files
    of a folder share it. (Components pathlib would drop, empty or ``.``, are no date.)"""
    for part in reversed(folder.split(os.sep)):
        if (found := _named_date(part)) is not None:
            return found
    return None


def collect_files(inputs: Iterable[Path]) -> list[Path]:
    """Files named, and files below folders named (recursively, sorted, sidecars skipped).

    A file named twice (or reached twice) is scanned once. A path that does not exist
    is kept, and so is a folder that cannot be listed: scanning either gives a row with
    status ``error``.
    """
    return [Path(found.text) for found in _listed(inputs)]


def collect_dated(
    inputs: Iterable[Path], problems: list[str] | None = None
) -> tuple[list[Path], dict[Path, str]]:
    """:func:`collect_files` and :func:`resolve_dates` of the files, in one pass: what
    the listing learnt of each file (its real folder) is not asked of the disk again.
    Manifest lines that date nothing (a bad date...) are described in *problems*."""
    texts, dated = collect_listed(inputs, problems)
    paths = [Path(text) for text in texts]
    return paths, {p: dated[t] for p, t in zip(paths, texts, strict=True) if t in dated}


def collect_listed(
    inputs: Iterable[Path], problems: list[str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """:func:`collect_dated` with each file as the text of its path (``str`` of the
    ``Path`` :func:`collect_files` gives), the dates keyed by that text: what the pool
    of :func:`scan_rows` takes. A ``Path`` per file would cost the listing a parse, and
    the supervisor a hash and a formatting of it per file; a scan needs none of them."""
    found = _listed(inputs)
    return [f.text for f in found], _dates(found, problems)


class _Listed(NamedTuple):
    """A file the listing found (a tuple: made in C, many thousands per scan)."""

    text: str  # the path as a string: str() of its Path
    real: str  # its real path (os.path.realpath)
    # for a file found below a folder: that folder as walked, and the file's name in it
    # (so that its date and its manifest are asked per folder, not worked out per file)
    folder: str | None = None
    name: str = ""
    real_folder: str | None = None  # the folder's real path, when the file is no symlink


def _listed(inputs: Iterable[Path]) -> list[_Listed]:
    out: list[_Listed] = []
    seen: set[str] = set()
    real = _RealPaths()

    for item in inputs:
        if not item.is_dir():
            if (key := real(item)) not in seen:
                seen.add(key)
                out.append(_Listed(os.fspath(item), key))
            continue
        for root, files in _walk(os.fspath(item)):
            if files is None:  # a folder that cannot be listed: kept, its row says why
                if (key := real(root)) not in seen:
                    seen.add(key)
                    out.append(_Listed(root, key))
                continue
            # os.path.join(root, name) and (folder, name), for names that hold no separator
            real_root = real.folder(root)
            # "." is left out in front, as pathlib writes the paths below it
            within = "" if root == os.curdir else _joiner(root)
            real_within = _joiner(real_root)
            for name, link in files:
                if not _is_attachment_name(name):
                    continue
                text = within + name
                # a file that is no symlink is its folder's real path plus its name
                key = real(text) if link else real_within + name
                if key not in seen:
                    seen.add(key)
                    folder_real = None if link else real_root
                    out.append(_Listed(text, key, root, name, folder_real))
    return out


def _joiner(folder: str) -> str:
    """What :func:`os.path.join` puts before a plain name (no separator in it) below
    *folder*: one join per folder instead of one per file.

    >>> [_joiner(f) + "a.hwp" == os.path.join(f, "a.hwp") for f in ("x", "x/", "/", "")]
    [True, True, True, True]
    """
    if not folder or folder.endswith(os.sep) or (os.altsep and folder.endswith(os.altsep)):
        return folder
    return os.path.join(folder, "")


def _walk(top: str) -> Iterator[tuple[str, list[tuple[str, bool]] | None]]:
    """The folders below *top* as :func:`os.walk` goes (top down, folders in name order,
    hidden ones and symlinked ones not entered), each with its files in name order and
    whether each is a symlink (from the listing: no ``lstat`` per file); a folder that
    cannot be listed comes with ``None`` (what it holds is unknown: never a silent
    skip). Below ``.`` the folders are named without it, as pathlib names them."""
    try:
        with os.scandir(top) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        yield top, None
        return
    folders: list[os.DirEntry[str]] = []
    files: list[tuple[str, bool]] = []
    for entry in entries:
        if _entry_is(entry.is_dir):
            folders.append(entry)
        else:
            files.append((entry.name, _entry_is(entry.is_symlink)))
    yield top, files
    for entry in folders:
        if not entry.name.startswith(".") and not _entry_is(entry.is_symlink):
            yield from _walk(entry.name if top == os.curdir else os.path.join(top, entry.name))


def _entry_is(test: Callable[[], bool]) -> bool:
    """A directory entry's test, False when it cannot be answered (as os.walk takes it)."""
    try:
        return test()
    except OSError:
        return False


def _is_attachment_name(name: str) -> bool:
    return not (name.startswith(".") or name in SIDECAR_NAMES or name.endswith(_SIDECAR_SUFFIXES))


class _RealPaths:
    """``os.path.realpath`` for many files of few folders: a folder is resolved once,
    and a file that is no symlink is its resolved folder plus its name (one ``lstat``
    instead of one per path component).

    >>> real = _RealPaths()
    >>> [real(Path(p)) == os.path.realpath(p) for p in ("/", "no/such", "/tmp/x")]
    [True, True, True]
    """

    def __init__(self) -> None:
        self._folders: dict[str, str] = {}

    def __call__(self, path: str | os.PathLike[str]) -> str:
        text = os.fspath(path)
        head, name = os.path.split(text)
        if not name or name in (".", "..") or os.path.islink(text):
            return os.path.realpath(text)
        return os.path.join(self.folder(head), name)

    def folder(self, head: str) -> str:
        """``os.path.realpath`` of a folder (``""`` is the current one), once."""
        found = self._folders.get(head)
        if found is None:
            found = self._folders[head] = os.path.realpath(head or ".")
        return found


def resolve_dates(paths: Iterable[Path]) -> dict[Path, str]:
    """Dates for files: a fetch manifest when one knows the file, else the path.

    Only files with a manifest in their (resolved) folder or above it are looked up in
    manifests: a folder tree without one costs a few ``stat`` calls, not a resolve per
    file.
    """
    real = _RealPaths()
    given = [(p, os.fspath(p)) for p in paths]
    dated = _dates([_Listed(text, real(text)) for _, text in given])
    return {p: dated[text] for p, text in given if text in dated}


def _dates(files: list[_Listed], problems: list[str] | None = None) -> dict[str, str]:
    """The date of each listed file that has one, keyed by its text."""
    known: dict[str, bool] = {}

    def under_manifest(folder: str) -> bool:
        found = known.get(folder)
        if found is None:
            parent = os.path.dirname(folder)
            here = os.path.isfile(os.path.join(folder, MANIFEST_NAME))
            found = known[folder] = here or (parent != folder and under_manifest(parent))
        return found

    listed = {
        Path(f.text): f.text
        for f in files
        if under_manifest(f.real_folder if f.real_folder is not None else os.path.dirname(f.real))
    }
    named = {listed[p]: d for p, d in dates_for(listed, problems).items()} if listed else {}
    dates: dict[str, str] = {}  # the path names what the manifests do not
    for f in files:
        found = date_from_path(f.text) if f.folder is None else _listed_date(f.folder, f.name)
        if found is not None:
            dates[f.text] = found
    dates.update(named)
    return dates


def scan_bytes(
    data: bytes, *, path: str, date: str | None = None, repair: Repair | None = None
) -> FileResult:
    """Scan one file's bytes. Never raises for bad input: the status says what happened.

    Nothing raised while the file is handled ends the batch, a ``MemoryError`` (a small
    container's memory limit) included: it becomes this file's row.
    """
    started = time.perf_counter()
    try:
        return _scan_bytes(data, path=path, date=date, repair=repair, started=started)
    except Exception as exc:  # MemoryError is an Exception: the row says what happened
        return _failed_row(path, date, data, exc, started)


def _failed_row(
    path: str, date: str | None, data: bytes | None, exc: BaseException, started: float
) -> FileResult:
    """The row of a file whose handling raised (out of memory, or a bug)."""
    if isinstance(exc, MemoryError):
        reason = "out of memory while reading this file (MemoryError)"
    else:
        reason = f"internal error: {type(exc).__name__}: {_exception_text(exc)}"
    digest, size, fmt = "", 0, Format.UNKNOWN
    if data is not None:
        with contextlib.suppress(Exception):  # still out of memory: the reason is what matters
            digest, size, fmt = hashlib.sha256(data).hexdigest(), len(data), _fallback_format(data)
    return FileResult(
        path=path,
        sha256=digest,
        bytes=size,
        format=fmt,
        status=Status.ERROR,
        reason=cap_reason(reason),
        date=date,
        seconds=time.perf_counter() - started,
        body_read=False,
    )


def _exception_text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a __str__ that fails must not hide the error
        return "(the error could not be shown)"


def cap_reason(reason: str | None, limit: int = MAX_REASON_CHARS) -> str | None:
    """A reason cut to *limit* characters, saying how much was cut.

    >>> cap_reason("x" * 30, 10)
    'xxxxxxxxxx… (20 more characters)'
    """
    if reason is None or len(reason) <= limit:
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
    plain = doc.info.get("plain_body")
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
        preview=_side_stats(doc, "plain_preview", doc.preview),
        meta=_side_stats(doc, "plain_meta", doc.meta),
        warnings=warnings,
        seconds=time.perf_counter() - started,
        body_read=has_body or status.scanned,
        repair=repaired,
        defects=defects if has_body or status.scanned else None,
    )


def _body_counts(doc: Document) -> tuple[TextStats, Defects]:
    """The body's counts and defect classes (its folded symbols' locations added); a
    plain body, counted by the reader, has nothing in it to locate or to class."""
    plain = doc.info.get("plain_body")
    if plain is not None:
        return TextStats(chars=plain.chars), NO_DEFECTS
    if not doc.body:
        return TextStats(), NO_DEFECTS
    body = analyze(doc.body)
    found = count_defects(doc.format, doc.body, body)
    if found.locations:
        body = replace(body, locations=body.locations + found.locations)
    return body, found.defects


def _side_stats(doc: Document, plain_key: str, segments: tuple[Segment, ...]) -> TextStats | None:
    """The counts of the document's preview text or metadata strings (*segments*; None
    without any); a reader that counted plain ones (HWP 5 PrvText, DocInfo names) gave
    them in ``info[plain_key]`` instead (``plain_preview``, ``plain_meta``)."""
    plain = doc.info.get(plain_key)
    if plain is not None:
        return TextStats(chars=plain.chars)
    return analyze(segments, max_locations=SIDE_LOCATIONS) if segments else None


def _judge(doc: Document) -> tuple[Status | None, str | None]:
    """A reader's own verdict wins; otherwise the counts decide (None: decide later)."""
    if doc.status is not None:
        return doc.status, doc.reason
    return None, "; ".join(cap_warnings(doc.warnings, REASON_WARNINGS)) or None


def _partial(body: TextStats, reason: str | None) -> tuple[Status, str]:
    """The one rule for a body read only in part (a reader said ``corrupt`` but kept
    text): never clean; ``contaminated`` when what was read holds surrogates, else
    ``corrupt``; the reason gives the counts of what was read and names what was not.

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

    Only regular files are read (a FIFO would block, a device never end), and never
    more than :data:`MAX_FILE_BYTES`. With *repair*, the body text is also written as
    UTF-8 after repair (pairs restored, orphans handled per its policy).
    """
    shown = display_path(path)
    started = time.perf_counter()
    try:
        return _scan_file(path, shown, date, repair)
    except Exception as exc:  # out of memory reading it, or a bug: one row
        return _failed_row(shown, date, None, exc, started)


def _scan_file(
    path: str | os.PathLike[str], shown: str, date: str | None, repair: Repair | None
) -> FileResult:
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):  # one collect_files could not list
            return _error_row(shown, date, Status.ERROR, _unlisted_reason(path))
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
        # the size it has, plus one byte to see it grow (a read of n reserves n bytes)
        data = _read_at_most(path, min(info.st_size, MAX_FILE_BYTES) + 1)
    except OSError as exc:
        return _error_row(shown, date, Status.ERROR, f"cannot read file: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:  # it grew while we looked
        return _error_row(shown, date, Status.UNSUPPORTED, "file grew over the size cap while read")
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
    """The first *limit* bytes of a file (all of it, when shorter), read straight from
    its descriptor: no buffered file object is built for the one read a scan makes.

    >>> with open(__file__, "rb") as whole:
    ...     text = whole.read()
    >>> _read_at_most(__file__, 10) == text[:10], _read_at_most(__file__, 10**9) == text
    (True, True)
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        data = os.read(fd, limit)
        if not data or len(data) == limit:
            return data
        parts = [data]  # a read may return less than asked before the end: read on
        got = len(data)
        while got < limit and (more := os.read(fd, limit - got)):
            parts.append(more)
            got += len(more)
        return b"".join(parts)
    finally:
        os.close(fd)


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
class RepairSettings:
    """Write each readable body's repaired UTF-8 text below *out* (``--emit-repaired``,
    ``repair --out``): orphans dropped, replaced, escaped or boxed; private use kept,
    mapped, replaced by a placeholder or dropped as *pua* says (``pua_map`` is the
    older name of ``pua="map"``)."""

    out: Path
    orphans: OrphanPolicy = "drop"
    pua_map: bool = False
    pua: PuaMode = "keep"

    def to(self, target: Path) -> Repair:
        """This policy for one file whose text goes to *target*."""
        pua: PuaMode = "map" if self.pua_map and self.pua == "keep" else self.pua
        return Repair(target, self.orphans, pua=pua)


@dataclass(frozen=True, slots=True)
class Repair:
    """Where a file's repaired text goes and how orphans and PUA are treated."""

    target: Path
    orphans: OrphanPolicy = "drop"
    pua: PuaMode = "keep"


def write_repaired(doc: Document, repair: Repair) -> RepairSummary:
    """Write the document's body as UTF-8 after repair, atomically; say what was done.

    HWP 5 folded symbols are turned back into their plane-15 code points first (every
    mode starts from the lossless text), and in a PDF the folds U+F000/U+FFFF are
    private use for the mode to treat."""
    pua = repair.pua
    done = repair_body(doc.format, doc.body, orphans=repair.orphans, pua=pua)
    target = repair.target
    atomic_write(target, done.text, shared=True)  # for other tools: 0644, as open() makes
    return RepairSummary(
        restored_pairs=done.restored_pairs,
        removed_orphans=done.removed_orphans,
        pua_replaced=dict(done.pua_replaced),
        pua_kept=dict(done.pua_kept),
        pua=pua,
        folded_restored=done.folded_restored,
        old_hangul_mapped=done.old_hangul_mapped,
        pua_dropped=dict(done.pua_dropped),
        pua_placeheld=dict(done.pua_placeheld),
        target=str(target),
    )


def repair_targets(paths: Sequence[Path], repair_dir: Path) -> dict[Path, Path]:
    """Where each file's repaired text goes: its path below the files' common folder.

    Two inputs never share a target: a name already taken gets ``-2``, ``-3``... so a
    file repaired in one folder cannot overwrite another's text.

    >>> inputs = [Path("/in/a/x.hwp"), Path("/in/b/x.hwp"), Path("/in/b/y.pdf")]
    >>> t = repair_targets(inputs, Path("out"))
    >>> [p.as_posix() for p in t.values()]
    ['out/a/x.hwp.txt', 'out/b/x.hwp.txt', 'out/b/y.pdf.txt']
    >>> same = [Path("/in/x.hwp"), Path("/in/x.hwp")]
    >>> [p.as_posix() for p in repair_targets(same, Path("o")).values()]
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


#: A file to scan: its path (a ``Path``, or the text of one as :func:`collect_listed`
#: gives it), its date, its repair.
Job = tuple[Path | str, str | None, Repair | None]
#: A job as a worker is given it: the path as a string (a ``Path`` costs a worker a parse
#: per file to unpickle, and the supervisor one to pickle; the worker needs only the text).
_SentJob = tuple[str, str | None, Repair | None]


def _scan_job(job: Job | _SentJob) -> FileResult:
    try:
        return scan_file(*job)
    except Exception as exc:  # scan_file does not raise; this is the last guard
        return _failed_row(display_path(job[0]), job[1], None, exc, time.perf_counter())


def scan_paths(
    paths: Iterable[Path],
    *,
    jobs: int | None = None,
    dates: Mapping[Path, str] | None = None,
    repair: RepairSettings | None = None,
    on_result: Callable[[FileResult], None] | None = None,
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    ordered: bool = True,
) -> Iterator[FileResult]:
    """Scan files across ``jobs`` worker processes (default: all cores).

    Each result carries its ``index`` in *paths*. With ``ordered`` (the default) results
    come in input order; without it, as they complete, so one slow file holds back no
    other row. A file that takes more than *file_timeout* seconds is stopped from outside
    (its worker process is killed and replaced) and its row says so; ``None`` or ``0``
    turns the limit off, and then ``jobs=1`` scans in this process.

    With *repair*, each readable file's repaired body text is written below
    ``repair.out``, at the place :func:`repair_targets` gives.
    """
    settings = PoolSettings(jobs, dates, repair, file_timeout, ordered)
    for row in scan_rows(paths, settings):
        result = row.result
        if row.has_line:  # the worker's line, for whoever writes this result next
            remember_line(result, row.line)
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
    work: list[Job]
    if repair is None:
        work = [(p, dates.get(p), None) for p in paths]
    else:
        as_paths = [Path(p) for p in paths]
        targets = repair_targets(as_paths, repair.out)
        work = [
            (p, dates.get(p), repair.to(targets[q])) for p, q in zip(paths, as_paths, strict=True)
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
        batches = _pooled_batches(work, jobs, timeout)
    if settings.ordered:
        batches = _in_input_order(batches)
    for batch in batches:
        if batch:
            yield [row for _, row in batch]


class Row:
    """One file's row on its way from the pool to the run record and the output.

    Its index, path, date, format and status are at hand; the :class:`FileResult`, its
    pickled :func:`pack_result` and its JSON line (as text, and as the UTF-8 bytes the
    output file, the run store and the row spill take) are each made once, when first
    asked for. A worker sends the pickle and the line's bytes, so for a row that is
    only stored and written out the supervisor never builds the result, nor encodes or
    decodes the line.

    >>> row = Row.of(FileResult("a.hwp", "", 0, Format.HWP5, Status.CLEAN), 3)
    >>> again = Row(3, "a.hwp", None, Format.HWP5, Status.CLEAN, blob=row.blob)
    >>> again.result == row.result and again.line == row.line and again.index == 3
    True
    >>> sent = Row(3, "a.hwp", None, Format.HWP5, Status.CLEAN, blob=row.blob, data=row.data)
    >>> sent.line == row.line and sent.data == row.line.encode("utf-8")
    True
    """

    __slots__ = (
        "_blob",
        "_data",
        "_line",
        "_result",
        "date",
        "defects",
        "format",
        "index",
        "path",
        "status",
    )

    def __init__(
        self,
        index: int | None,
        path: str,
        date: str | None,
        fmt: Format,
        status: Status,
        *,
        blob: bytes | None = None,
        line: str | None = None,
        data: bytes | None = None,
    ) -> None:
        self.index = index
        self.path = path
        self.date = date
        self.format = fmt
        self.status = status
        self._blob = blob
        self._line = line
        self._data = data  # the line's UTF-8 bytes, when given (a worker sends them)
        self._result: FileResult | None = None
        self.defects = 0  # the defect classes present (Defects.mask), set by who knows them

    @classmethod
    def of(cls, result: FileResult, index: int | None = None) -> Row:
        """The row of a result already made (given *index*, when it has none)."""
        if index is not None and result.index != index:
            result = replace(result, index=index)
        found = result.defect_counts()
        mask = 0 if found is None else found.mask
        row = cls(result.index, result.path, result.date, result.format, result.status)
        row._result = result
        row.defects = mask
        return row

    @property
    def result(self) -> FileResult:
        if self._result is None:
            assert self._blob is not None  # one of the two is always given
            self._result = unpack_result(pickle.loads(self._blob))
        return self._result

    @property
    def blob(self) -> bytes:
        """The pickled :func:`pack_result` of the row (what the row spill keeps)."""
        if self._blob is None:
            self._blob = pickle.dumps(pack_result(self.result), protocol=pickle.HIGHEST_PROTOCOL)
        return self._blob

    @property
    def has_line(self) -> bool:
        return self._line is not None or self._data is not None

    @property
    def line(self) -> str:
        """:func:`~hwpscan.report.export.jsonl_line` of the result."""
        if self._line is None:
            if self._data is not None:
                self._line = self._data.decode("utf-8")
            else:
                self._line = jsonl_line(self.result)
        return self._line

    @property
    def data(self) -> bytes:
        """:attr:`line` in UTF-8 (a line is valid UTF-8: its strings' surrogates are
        escaped, see :func:`~hwpscan.report.export.record_line`)."""
        if self._data is None:
            self._data = self.line.encode("utf-8")
        return self._data


def _in_input_order(
    batches: Iterator[list[tuple[int, Row]]],
) -> Iterator[list[tuple[int, Row]]]:
    """The rows of *batches* in input order: after each batch, the rows now next in
    line (none, when an earlier file is still out), as one batch.

    >>> row = lambda i: (i, Row(i, f"{i}.hwp", None, Format.HWP5, Status.CLEAN, blob=b""))
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


#: Files handed to a worker at a time: enough to amortise the messages and wake-ups, few
#: enough that the last chunks spread over every worker (see :func:`_chunk_size`).
MAX_CHUNK = 32


def _chunk_size(left: int, jobs: int) -> int:
    """Files for the next chunk: about an eighth of each worker's share of what is left.

    >>> _chunk_size(5000, 2), _chunk_size(40, 2), _chunk_size(3, 2)
    (32, 2, 1)
    """
    return max(1, min(MAX_CHUNK, left // (8 * jobs)))


#: What a worker holds before it sends it: at most this many rows, the oldest for at most
#: :data:`MAX_HOLD` seconds, and nothing once it has no more files at hand. One message
#: (one wake-up of the supervisor, which every worker waits on) carries a batch of rows.
MAX_BATCH = 32
MAX_HOLD = 0.05

#: The low bits of a file's index a worker writes in its progress word (see
#: :func:`_progress_word`); a worker never holds two files these bits cannot tell apart.
_INDEX_MASK = 0x7FFFFFFF
_MS_WRAP = 2**32


def _progress_word(index: int, clock: float) -> int:
    """Which file a worker is on and since when, as one 64-bit word (one store, so the
    supervisor never reads half of it): the index's low 31 bits plus one in the high
    half (0: on no file yet), the millisecond it began (modulo 2**32) in the low half.

    >>> _read_word(_progress_word(7, 12.5), 13.0)
    (7, 0.5)
    >>> _read_word(0, 13.0) is None
    True
    """
    return ((index & _INDEX_MASK) + 1) << 32 | int(clock * 1000) % _MS_WRAP


def _read_word(word: int, clock: float) -> tuple[int, float] | None:
    """The index bits and the seconds since the file began, of a progress word."""
    if word >> 32 == 0:
        return None
    return (word >> 32) - 1, (int(clock * 1000) - word) % _MS_WRAP / 1000


class _Worker:
    """One worker process, the pipe to it and its progress word.

    It is given chunks of files and answers with batches of rows, in the order given.
    Before each file it writes the file's index and the time into its progress word (a
    shared 64-bit value), so the supervisor always knows which file it is reading and
    since when, though rows come in batches: start-up and imports never count against a
    file's time limit, and a worker that dies or overruns is blamed for that file only.
    """

    def __init__(self) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.progress: Any = multiprocessing.RawValue("Q", 0)  # unsigned: 63 bits are used
        self.proc = multiprocessing.Process(
            target=_worker_main, args=(child, self.progress), daemon=True
        )
        self.proc.start()
        child.close()
        self.tasks: dict[int, Job] = {}  # given and not answered, in the order given
        self.started = 0.0  # the last sign of life: hand-over when idle, start-up, a batch

    def give(self, chunk: list[tuple[int, Job]]) -> None:
        if not self.tasks:  # idle: its next file starts now
            self.started = time.monotonic()
        self.tasks.update(chunk)
        # a worker that died since its last message (a crash in native code right after
        # it sent a batch) cannot be given more; its pipe's end is then at EOF, which the
        # next wait sees: receive() blames the file it died on, if any (died_on), and
        # hands out the others, these included, again. A death costs a row, not the scan.
        with contextlib.suppress(OSError):
            self.conn.send([(i, (os.fspath(path), date, fix)) for i, (path, date, fix) in chunk])

    def current(self) -> tuple[int, float]:
        """The file it is on (one of its tasks) and when that began (monotonic clock).

        Before it has begun any of them (it is starting, or its next chunk is on the
        way), the first one, since its last sign of life.
        """
        now = time.monotonic()
        read = _read_word(self.progress.value, now)
        if read is not None and (index := self._task(read[0])) is not None:
            return index, now - read[1]
        return next(iter(self.tasks)), self.started

    def died_on(self) -> int | None:
        """The file a worker that died was on: the one of its tasks its progress word
        names; None when the word names a file it had already answered (it died between
        files, or idle: none of its tasks was begun); its first task when it died before
        it began any file (so a worker that cannot start still costs a file each time)."""
        read = _read_word(self.progress.value, time.monotonic())
        return next(iter(self.tasks)) if read is None else self._task(read[0])

    def _task(self, bits: int) -> int | None:
        """The task whose index has these low bits (a couple of chunks to look through)."""
        return next((i for i in self.tasks if i & _INDEX_MASK == bits), None)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()

    def stop(self) -> None:
        """End an idle worker politely (it finishes nothing more), else kill it."""
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        self.proc.join(2)
        self.kill()


def _worker_main(conn: Connection, progress: Any) -> None:
    """A worker's loop: chunks of (index, job) in, batches of (index, packed result, JSON
    line) out, in order, until ``None`` or EOF. Its first message is an empty batch:
    started and imported, the clock of its first file runs."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    out = _Outbox(conn)
    if not out.send():
        return
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index, job in chunk:
            progress.value = _progress_word(index, time.monotonic())
            out.add(index, job, _scan_job(job))
            if out.full() and not out.send():
                return
        if out.rows and not conn.poll() and not out.send():  # no more work at hand
            return


#: A row as a worker sends it: index, path, date, format and status values, its pickled
#: :func:`pack_result`, its JSON line in UTF-8 (None when it could not be made). The
#: worker encodes the line once (pickling it as text would too), and the supervisor
#: hands those bytes on as they came to the output, the run store and the row spill,
#: each of which took the text and encoded it again.
_WireRow = tuple[int, str, str | None, str, str, bytes, bytes | None, int]


class _Outbox:
    """The rows a worker has made and not sent yet (see :data:`MAX_BATCH`)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.rows: list[_WireRow] = []
        self.jobs: list[_SentJob] = []
        self.since = 0.0  # when the oldest row held was made

    def add(self, index: int, job: _SentJob, result: FileResult) -> None:
        """Hold one file's row: its plain values pickled, and its JSON line (made here,
        it spares the supervisor, which every worker waits on, its costliest step)."""
        try:
            row = _wire(result, index, record_line(result, index=index))  # no memo here
        except Exception as exc:  # a result too big to pack (MemoryError) is a row too
            row = _failed_wire(job, index, exc)
        if not self.rows:
            self.since = time.monotonic()
        self.rows.append(row)
        self.jobs.append(job)

    def full(self) -> bool:
        return len(self.rows) >= MAX_BATCH or time.monotonic() - self.since >= MAX_HOLD

    def send(self) -> bool:
        """Send what is held as one message; False when the supervisor is gone."""
        rows, jobs = self.rows, self.jobs
        self.rows, self.jobs = [], []
        try:
            self.conn.send(rows)
        except (OSError, EOFError):
            return False
        except Exception:  # too big to send at once (MemoryError): row by row
            return self._send_apart(rows, jobs)
        return True

    def _send_apart(self, rows: list[_WireRow], jobs: list[_SentJob]) -> bool:
        for row, job in zip(rows, jobs, strict=True):
            try:
                self.conn.send([row])
            except (OSError, EOFError):
                return False
            except Exception as exc:  # this row alone is too big: a row saying so instead
                try:
                    self.conn.send([_failed_wire(job, row[0], exc)])
                except (OSError, EOFError):
                    return False
        return True


def _wire(result: FileResult, index: int, line: str | None) -> _WireRow:
    r = result
    packed = pickle.dumps(pack_result(r, index), protocol=pickle.HIGHEST_PROTOCOL)
    data = None if line is None else line.encode("utf-8")
    found = r.defect_counts()
    mask = 0 if found is None else found.mask
    return (index, r.path, r.date, r.format.value, r.status.value, packed, data, mask)


def _failed_wire(job: _SentJob, index: int, exc: BaseException) -> _WireRow:
    """The row of a file whose row could not be packed or sent, saying why."""
    return _wire(_failed_row(display_path(job[0]), job[1], None, exc, 0.0), index, None)


#: A :class:`TextStats` as plain values, and a :class:`FileResult` likewise: what a
#: worker sends. Pickling the dataclasses themselves costs the supervisor a Python-level
#: ``__setstate__`` per object, an enum lookup per enum and a call per location; plain
#: tuples unpickle in C and are rebuilt with one constructor call each.
_PackedStats = tuple[
    int, int, int, int, bool, str | None, dict[str, int], int, list[tuple[Any, ...]]
]
_FORMATS = {f.value: f for f in Format}
_STATUSES = {s.value: s for s in Status}


def pack_result(result: FileResult, index: int | None = None) -> tuple[object, ...]:
    """*result* (with *index* when given) as plain values; :func:`unpack_result` makes
    it again.

    >>> row = FileResult("a.hwp", "ab", 3, Format.HWP5, Status.CLEAN, meta=TextStats(chars=2))
    >>> unpack_result(pack_result(row, 4)) == replace(row, index=4)
    True
    """
    r = result
    return (
        r.path,
        r.sha256,
        r.bytes,
        r.format.value,
        r.status.value,
        r.reason,
        r.date,
        _pack_stats(r.body),
        _pack_stats(r.preview) if r.preview is not None else None,
        _pack_stats(r.meta) if r.meta is not None else None,
        r.warnings,
        r.seconds,
        r.body_read,
        r.repair,
        r.index if index is None else index,
        None if r.defects is None else tuple(r.defects.as_dict().values()),
    )


def _pack_stats(s: TextStats) -> _PackedStats:
    locations = [tuple(loc) for loc in s.locations]
    return (s.chars, s.surrogates, s.pairs, s.orphans, s.utf8_ok, s.utf8_error, s.pua,
            s.replacement_chars, locations)  # fmt: skip


def unpack_result(packed: tuple[Any, ...]) -> FileResult:
    """The :class:`FileResult` of :func:`pack_result`."""
    (path, digest, size, fmt, status, reason, date, body, preview, meta, *rest) = packed
    warnings, seconds, body_read, repair, index, defects = rest
    return FileResult(
        path,
        digest,
        size,
        _FORMATS[fmt],
        _STATUSES[status],
        reason,
        date,
        _unpack_stats(body),
        _unpack_stats(preview) if preview is not None else None,
        _unpack_stats(meta) if meta is not None else None,
        warnings,
        seconds,
        body_read,
        repair,
        index,
        None if defects is None else Defects(*defects) if any(defects) else NO_DEFECTS,
    )


def _unpack_stats(packed: _PackedStats) -> TextStats:
    chars, surrogates, pairs, orphans, utf8_ok, utf8_error, pua, replacement, found = packed
    locations = tuple(map(Location._make, found))
    return TextStats(chars, surrogates, pairs, orphans, utf8_ok, utf8_error, pua, replacement,
                     locations)  # fmt: skip


class _Pool:
    """The supervisor's side of :func:`_pooled_batches`: the queue of files not yet handed out,
    the workers and what each one holds."""

    def __init__(self, work: list[Job], jobs: int, timeout: float | None) -> None:
        self.queue = deque(enumerate(work))
        self.jobs = jobs
        self.timeout = timeout
        self.workers: list[_Worker] = []

    def chunk(self) -> list[tuple[int, Job]]:
        n = _chunk_size(len(self.queue), self.jobs)
        return [self.queue.popleft() for _ in range(min(n, len(self.queue)))]

    def feed(self) -> list[_Worker]:
        """Give work to every worker down to its last chunk, start workers up to *jobs*;
        the workers that hold files. (A worker is a chunk ahead: it answers in batches,
        and its next chunk is there before it has sent the last one.)"""
        queue = self.queue
        for worker in self.workers:
            if queue and len(worker.tasks) <= _chunk_size(len(queue), self.jobs):
                worker.give(self.chunk())
        while queue and len(self.workers) < self.jobs:
            worker = _Worker()
            self.workers.append(worker)
            worker.give(self.chunk())
        return [w for w in self.workers if w.tasks]

    def lose(self, worker: _Worker, index: int | None) -> tuple[int, Job] | None:
        """Kill a worker; the file *index* it was on is returned (None: it was on none),
        its other files re-queued (the ones it had done and not sent too: they are read
        again)."""
        worker.kill()
        self.workers.remove(worker)
        lost = None if index is None else (index, worker.tasks.pop(index))
        self.queue.extendleft(reversed(worker.tasks.items()))
        return lost

    def wait(self, busy: list[_Worker]) -> set[object]:
        """The pipes with a message, waiting no longer than the nearest file deadline."""
        wait_for = None
        if self.timeout is not None:
            since = min(w.current()[1] for w in busy)
            wait_for = max(0.0, since + self.timeout - time.monotonic())
        return set(wait([w.conn for w in busy], wait_for))

    def receive(self, worker: _Worker) -> list[tuple[int, Row]]:
        """The rows a worker sent (none in its start-up message), as they came."""
        try:
            batch = worker.conn.recv()
        except Exception:  # EOF: the process died, or its message was cut
            lost = self.lose(worker, worker.died_on())
            if lost is None:  # between files: nothing was being read, all go out again
                return []
            index, job = lost
            return [(index, Row.of(_lost_row(job, "the worker process died"), index))]
        worker.started = time.monotonic()
        tasks = worker.tasks
        rows = []
        for index, path, date, fmt, status, packed, data, mask in batch:
            del tasks[index]
            row = Row(index, path, date, _FORMATS[fmt], _STATUSES[status], blob=packed, data=data)
            row.defects = mask
            rows.append((index, row))
        return rows

    def overdue(self, worker: _Worker) -> list[tuple[int, Row]]:
        """The row of the file a worker has been on past the limit (it is killed)."""
        if self.timeout is None:
            return []
        index, since = worker.current()
        if time.monotonic() - since < self.timeout:
            return []
        lost = self.lose(worker, index)
        assert lost is not None  # an index was given
        index, job = lost
        why = (
            f"not done after the {self.timeout:g}-second per-file limit "
            "(--file-timeout): stopped, not judged"
        )
        return [(index, Row.of(_lost_row(job, why), index))]


def _pooled_batches(
    work: list[Job], jobs: int, timeout: float | None
) -> Iterator[list[tuple[int, Row]]]:
    """Results as they complete, a worker's message at a time (never an empty batch),
    from *jobs* worker processes fed in chunks.

    A worker that dies (a crash in native code, the OOM killer) or overruns *timeout* on
    one file costs only the row of that file; a new worker takes its place and its other
    files go back to the front of the queue. A worker is given its next chunk ahead, so
    it never waits for the supervisor between chunks.
    """
    pool = _Pool(work, jobs, timeout)
    clean = False
    try:
        while busy := pool.feed():
            ready = pool.wait(busy)
            # every waiting message is taken before any row is handed on: a worker whose
            # message sits unread while the other's rows are stored is blocked in its send
            got = [pool.receive(w) if w.conn in ready else pool.overdue(w) for w in busy]
            for rows in got:
                if rows:
                    yield rows
        clean = True
    finally:
        for worker in pool.workers:
            worker.stop() if clean else worker.kill()


def _lost_row(job: Job, why: str) -> FileResult:
    """The row of a file whose worker was lost: what the file system says, and why."""
    path, date, _ = job
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    row = _error_row(display_path(path), date, Status.ERROR, f"{why} while reading this file")
    return replace(row, bytes=size)


def exit_code(results: Iterable[FileResult], fail_on: Iterable[str] = ()) -> ExitCode:
    """The scan's exit code: FINDINGS when a ``--fail-on`` condition matched.

    ``contaminated`` matches contaminated files; ``unreadable`` (or its older name
    ``error``) matches files that could not be judged (encrypted, distribution,
    unsupported, corrupt, error; a Git LFS pointer is unsupported); a defect class
    (``folded_symbols``...) matches a file whose body holds that class, and
    ``defects`` a file with any.
    """
    rows = list(results)
    masks: Counter[int] = Counter()
    for r in rows:
        found = r.defect_counts()
        if found is not None and found.mask:
            masks[found.mask] += 1
    return statuses_exit_code((r.status for r in rows), fail_on, masks)


def statuses_exit_code(
    statuses: Iterable[Status], fail_on: Iterable[str] = (), masks: Iterable[int] = ()
) -> ExitCode:
    """:func:`exit_code` from the rows' statuses and defect masks alone (each one
    present once is enough: a tally's keys), so rows kept on disk need not be read
    back to decide it.

    >>> statuses_exit_code([Status.CLEAN, Status.ENCRYPTED], ["unreadable"])
    <ExitCode.FINDINGS: 1>
    >>> statuses_exit_code([Status.CLEAN], ["folded_symbols"], [Defects(folded_symbols=2).mask])
    <ExitCode.FINDINGS: 1>
    >>> statuses_exit_code([Status.CLEAN], ["pdf_folded"], [Defects(folded_symbols=2).mask])
    <ExitCode.OK: 0>
    """
    wanted = {FAIL_ON_ALIASES.get(v, v) for v in fail_on}
    if not wanted:  # no gate: nothing to read
        return ExitCode.OK
    for status in statuses:
        if "contaminated" in wanted and status is Status.CONTAMINATED:
            return ExitCode.FINDINGS
        if "unreadable" in wanted and not status.scanned:
            return ExitCode.FINDINGS
    gated = 0
    for i, name in enumerate(DEFECT_CLASSES):
        if name in wanted or "defects" in wanted:
            gated |= 1 << i
    if gated and any(mask & gated for mask in masks):
        return ExitCode.FINDINGS
    return ExitCode.OK
