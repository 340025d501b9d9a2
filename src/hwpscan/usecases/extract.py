"""One call from a file to its text, for a pipeline instead of a defective parser.

:func:`extract` reads a file, counts its defects as a scan does and repairs its body as
``hwpscan repair`` does (the same text for the same policy; it always encodes as UTF-8);
the :class:`Receipt` says what the file held and what was done. The default is lossless
and follows Hancom: pairs joined, folded symbols unfolded, private use kept, a true lone
half written as U+25A1 (as Hancom's HWPX export does).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, Literal, NamedTuple

from hwpscan.errors import CorruptFileError, EncryptedFileError, FormatError
from hwpscan.forensics.defects import count_defects
from hwpscan.forensics.guard import PUA_MODES, OrphanPolicy, PuaMode, RepairResult, repair_body
from hwpscan.forensics.surrogates import analyze, join_segments, merge_pairs
from hwpscan.formats import read_document
from hwpscan.models import NO_DEFECTS, Defects, Document, Format, Segment, Status

__all__ = [
    "DISTRIBUTION_PLACEHOLDER",
    "MAX_SOURCE_BYTES",
    "ORPHAN_CHOICES",
    "Extraction",
    "OrphanChoice",
    "Part",
    "Receipt",
    "extract",
]

#: What ``orphans`` may be: the repair policies, and ``raise`` (a lone half raises the
#: ``UnicodeEncodeError`` a pipeline would have met, naming where it is).
OrphanChoice = Literal["box", "replace", "drop", "escape", "raise"]
ORPHAN_CHOICES: tuple[str, ...] = ("box", "replace", "drop", "escape", "raise")
#: A file larger than this is refused, as a scan refuses it.
MAX_SOURCE_BYTES = 512 * 2**20
#: The start of the text a distribution document shows to a reader that cannot open it
#: (its PrvText): never to be handed on as the document's body.
DISTRIBUTION_PLACEHOLDER = "이 문서는 상위 버전의 배포용 문서입니다"


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a file held (``defects``, as a scan row's) and what :func:`extract` did: the
    repair's counts, private use by code point (``pua_*``), and ``partial`` with its
    ``reason`` when the body was read only in part."""

    format: str
    defects: Defects
    pua: str
    orphans: str
    pairs_joined: int = 0
    folds_undone: int = 0
    halves_handled: int = 0
    old_hangul_mapped: int = 0
    pua_kept: dict[str, int] = field(default_factory=dict)
    pua_mapped: dict[str, int] = field(default_factory=dict)
    pua_dropped: dict[str, int] = field(default_factory=dict)
    pua_placeheld: dict[str, int] = field(default_factory=dict)
    partial: bool = False
    reason: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def status(self) -> Status:
        """The file's verdict as a scan gives it: ``contaminated`` when the body held
        surrogates, ``corrupt`` when read in part without any, else ``clean``."""
        if self.defects.split_pairs or self.defects.lone_halves:
            return Status.CONTAMINATED
        return Status.CORRUPT if self.partial else Status.CLEAN

    def as_dict(self) -> dict[str, Any]:
        """The receipt as JSON-ready values (what ``hwpscan text --receipt`` writes)."""
        return {
            "format": self.format,
            "status": self.status.value,
            "defects": self.defects.as_dict(),
            "policy": {"pua": self.pua, "orphans": self.orphans},
            "done": {
                "pairs_joined": self.pairs_joined,
                "folds_undone": self.folds_undone,
                "halves_handled": self.halves_handled,
                "old_hangul_mapped": self.old_hangul_mapped,
                "pua_kept": dict(self.pua_kept),
                "pua_mapped": dict(self.pua_mapped),
                "pua_dropped": dict(self.pua_dropped),
                "pua_placeheld": dict(self.pua_placeheld),
            },
            "partial": self.partial,
            "reason": self.reason,
            "warnings": list(self.warnings),
        }


class Part(NamedTuple):
    """A piece of the repaired text and where it came from: the stream (HWP 5 section,
    HWPX part, PDF page as the reader names it) and, for a paragraph, its number."""

    stream: str
    paragraph: int | None
    text: str


@dataclass(frozen=True, slots=True)
class Extraction:
    """A file's repaired text (UTF-8 encodable) and :class:`Receipt`; :meth:`sections` and
    :meth:`paragraphs` cut the same text at streams or paragraphs, for loaders that split."""

    text: str
    receipt: Receipt
    _body: tuple[Segment, ...] = field(default=(), repr=False, compare=False)
    _pua: PuaMode = field(default="keep", repr=False, compare=False)
    _orphans: OrphanPolicy = field(default="box", repr=False, compare=False)

    def sections(self) -> list[Part]:
        """The text per stream (HWP 5 section, HWPX section part, PDF page)."""
        return list(self._parts(lambda s: s.stream, by_paragraph=False))

    def paragraphs(self) -> list[Part]:
        """The text per paragraph, each with its stream and paragraph number."""
        return list(self._parts(lambda s: (s.stream, s.paragraph), by_paragraph=True))

    def _parts(self, key: Callable[[Segment], object], *, by_paragraph: bool) -> Iterator[Part]:
        fmt = Format(self.receipt.format)
        for _, run in groupby(self._body, key=key):
            segments = list(run)
            head = segments[0]
            done = repair_body(fmt, segments, orphans=self._orphans, pua=self._pua)
            yield Part(head.stream, head.paragraph if by_paragraph else None, done.text)


def extract(
    source: str | os.PathLike[str] | bytes, *, pua: PuaMode = "keep", orphans: OrphanChoice = "box"
) -> Extraction:
    """The repaired text of *source* (a path, or a file's bytes) and its receipt.

    *pua* is ``keep`` (lossless), ``map`` (display equivalents, as ``repair --pua map``),
    ``placeholder`` or ``drop``; *orphans* is ``box`` (U+25A1), ``replace`` (U+FFFD),
    ``drop``, ``escape`` (the visible ``\\udc00``) or ``raise``.

    Raises :class:`~hwpscan.errors.EncryptedFileError` for a protected file (password,
    DRM, distribution), :class:`~hwpscan.errors.FormatError` for anything else that is
    not a readable document, ``OSError`` when the path cannot be read, and with
    ``orphans="raise"`` the ``UnicodeEncodeError`` of the first lone half.
    """
    if pua not in PUA_MODES:
        raise ValueError(f"pua must be one of {', '.join(PUA_MODES)}, not {pua!r}")
    if orphans not in ORPHAN_CHOICES:
        raise ValueError(f"orphans must be one of {', '.join(ORPHAN_CHOICES)}, not {orphans!r}")
    data = source if isinstance(source, bytes) else _read(source)
    try:
        doc = read_document(data, body_only=True)  # no preview, no DocInfo names: not handed on
    except RecursionError as exc:  # nesting deeper than the reader follows: damage
        raise CorruptFileError(f"structure nested too deep: {exc}") from exc
    partial = _check_readable(doc)
    body = doc.body
    policy: OrphanPolicy = "box" if orphans == "raise" else orphans
    done = repair_body(doc.format, body, orphans=policy, pua=pua)
    defects = _defects(doc) if _touched(done) else NO_DEFECTS
    if orphans == "raise" and done.removed_orphans:
        merge_pairs(join_segments(body)).encode("utf-8")  # raises, naming the first half
    _refuse_placeholder(done.text)
    receipt = Receipt(
        format=doc.format.value,
        defects=defects,
        pua=pua,
        orphans=orphans,
        pairs_joined=done.restored_pairs,
        folds_undone=done.folded_restored,
        halves_handled=done.removed_orphans,
        old_hangul_mapped=done.old_hangul_mapped,
        pua_kept=dict(done.pua_kept),
        pua_mapped=dict(done.pua_replaced),
        pua_dropped=dict(done.pua_dropped),
        pua_placeheld=dict(done.pua_placeheld),
        partial=partial,
        reason=doc.reason if partial else None,
        warnings=tuple(doc.warnings),
    )
    return Extraction(done.text, receipt, body, pua, policy)


def _read(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes in one read, refused over :data:`MAX_SOURCE_BYTES`; only a regular
    file is opened (a FIFO would block, a device never end)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise FormatError(f"{os.fspath(path)}: not a regular file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        if size > MAX_SOURCE_BYTES:
            shown = os.fspath(path)
            raise FormatError(f"{shown}: {size:,} bytes, over the cap of {MAX_SOURCE_BYTES:,}")
        parts = [os.read(fd, size + 1)]  # one byte more tells a file that grew
        got = len(parts[0])
        while size < got <= MAX_SOURCE_BYTES and (more := os.read(fd, 1 << 20)):
            parts.append(more)
            got += len(more)
        if got > MAX_SOURCE_BYTES:
            raise FormatError(f"{os.fspath(path)}: grew over the cap of {MAX_SOURCE_BYTES:,}")
        return b"".join(parts)  # one part: that very bytes object
    finally:
        os.close(fd)


def _check_readable(doc: Document) -> bool:
    """Raise the typed error for a document whose body cannot be had; True when it was
    read only in part (a reader said corrupt but kept text)."""
    status, reason = doc.status, doc.reason or (doc.status.value if doc.status else "")
    if status in (Status.ENCRYPTED, Status.DISTRIBUTION):
        raise EncryptedFileError(reason)
    if status is Status.CORRUPT:
        if not doc.body:
            raise CorruptFileError(reason)
        return True
    if status is not None and not status.scanned:  # unsupported, error
        raise FormatError(reason)
    return False


def _touched(done: RepairResult) -> bool:
    """Whether the repair met anything a defect class counts (a surrogate, a folded symbol,
    private use, a PDF fold); a body it met none of has no defect to count."""
    return bool(
        done.restored_pairs
        or done.removed_orphans
        or done.folded_restored
        or done.pua_kept
        or done.pua_replaced
        or done.pua_dropped
        or done.pua_placeheld
    )


def _defects(doc: Document) -> Defects:
    """The body's defect classes, counted as a scan counts them."""
    if not doc.body:
        return NO_DEFECTS
    # locations are a scan row's evidence: the counts alone are wanted here
    return count_defects(doc.format, doc.body, analyze(doc.body, max_locations=0)).defects


def _refuse_placeholder(text: str) -> None:
    head = text[: len(DISTRIBUTION_PLACEHOLDER) + 64].lstrip()  # no copy of the whole text
    if head.startswith(DISTRIBUTION_PLACEHOLDER):
        raise EncryptedFileError(
            "distribution document: its body is only the placeholder shown to readers "
            "that cannot open it"
        )
