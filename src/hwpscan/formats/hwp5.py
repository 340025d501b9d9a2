"""Our own HWP 5 reader: compound file (``olefile``) -> records -> text with locations.

:func:`read_ole` takes any compound file. An HWP 5 document (a ``FileHeader`` stream
with the signature) is read section by section; every PARA_TEXT record at any level is
body text (tables, text boxes, headers/footers and footnotes included), in the
*codeunit view* of :mod:`hwpscan.formats.hwp5_text` (a character outside the BMP is two
surrogate halves, as the defective pipeline parser produced it). A segment's
``paragraph`` is its PARA_HEADER's index in the section (see there), its ``offset`` the
unit offset in the PARA_TEXT record; ``info.paragraphs`` counts PARA_HEADER records
over all sections. Controls (spec 表 6) go by width: 8-unit ones are skipped whole, TAB
becomes ``\\t``, line break ``\\n``, hyphen ``-``, the non-breaking and fixed-width
spaces U+00A0 and a space; others are dropped.

>>> from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
>>> doc = read_ole(build_hwp5(["첫\\t둘"]))
>>> [(s.paragraph, s.offset, s.text) for s in doc.body]
[(0, 16, '첫'), (0, 17, '\\t'), (0, 25, '둘')]
>>> doc.info.version, doc.info.compressed, doc.status is None
('5.1.0.1', True, True)
"""

from __future__ import annotations

import io
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hwpscan.errors import CorruptFileError
from hwpscan.formats import fast_readers
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5_text import (
    Budget,
    WarningList,
    codeunit_view,
    inflate,
    section_text,
    text_segments,
)
from hwpscan.models import Document, Format, ReadInfo, Segment, Status

if TYPE_CHECKING:  # olefile loads only for a file the native reader declines
    from hwpscan.formats.ole_streams import OleStreams

__all__ = ["MAX_DOCINFO_NAMES", "MAX_DOCUMENT_BYTES", "MAX_STREAM_BYTES", "read_ole"]

#: No single stream may inflate past this...
MAX_STREAM_BYTES = 64 * 2**20
#: ...and all the streams read from one document together no further than this: a small
#: file with many sections must not expand to gigabytes either.
MAX_DOCUMENT_BYTES = 128 * 2**20
#: What olefile raises on a damaged container (found by mutating fixtures): OSError
#: (its own errors), ValueError, OverflowError, struct.error and RecursionError (its
#: header unpacking and recursive directory walk). Nothing else is caught: a TypeError,
#: AttributeError or KeyError is a bug in hwpscan and reaches the scanner as an error.
_OLE_ERRORS = (OSError, ValueError, OverflowError, struct.error, RecursionError)
_U32 = struct.Struct("<I")
#: DocInfo font and style names kept per document. Hancom writes seven language lists
#: of the fonts a document uses plus a few dozen styles: some hundreds of names, a
#: few thousand in a template-heavy document; past this cap the stream is not a real
#: document's (a names bomb: millions of tiny records in a small deflate stream).
MAX_DOCINFO_NAMES = 50_000
_SHOWN_STREAMS = 8
#: The native reader of an ordinary document (see fast_readers.read_hwp5), or None.
_NATIVE_DOCUMENT = fast_readers.read_hwp5
_PRVTEXT = spec.PRVTEXT_STREAM.lower()
#: Section warnings that mean text was left unread (a stream cut, a record overrun, an
#: unreadable section), as opposed to damage read past (an odd byte, a lone PARA_TEXT).
_UNREAD_RE = re.compile(
    r"ends early|rest of the stream skipped|cut short|unreadable|not valid|inflates past|budget"
)


@dataclass
class _Reader:
    ole: OleStreams
    cap: int
    paths: list[str]
    budget: int = MAX_DOCUMENT_BYTES  # bytes still allowed across all streams
    warnings: WarningList = field(default_factory=WarningList)  # capped: see MAX_WARNINGS
    short: list[str] = field(default_factory=list)  # streams cut short: a truncated file
    over_budget: str | None = None  # the first stream refused for the document cap
    max_names: int = MAX_DOCINFO_NAMES
    names_cut: str | None = None  # why DocInfo names were not all read
    body_only: bool = False  # the body alone: no PrvText, no DocInfo names
    paragraphs: int | None = None  # PARA_HEADER records over the body, once it is read

    def named(self, lower: str) -> str | None:
        """The first stream path whose lower case is *lower* (streams are named without
        regard to case), None when there is none.

        >>> _Reader(None, 0, ["A/b", "FileHeader", "a/B"]).named("a/b")  # type: ignore[arg-type]
        'A/b'
        """
        return next((path for path in self.paths if path.lower() == lower), None)

    def raw(self, path: str) -> bytes:
        try:
            size = self.ole.size(path)
            if size > self.cap:
                raise CorruptFileError(f"{path}: {size} bytes, over the {self.cap}-byte cap")
            data = self.ole.read(path)
        except _OLE_ERRORS as exc:
            raise CorruptFileError(f"{path}: unreadable ({exc})") from exc
        if len(data) < size:
            note = f"{path}: {len(data)} of {size} bytes present"
            self.warnings.append(note)
            self.short.append(note)
        return data

    def records(self, path: str, compressed: bool) -> bytes:
        data = self.raw(path)
        if compressed:
            cap = min(self.cap, self.budget)
            try:
                data, note = inflate(data, path, cap)
            except CorruptFileError:
                if cap < self.cap and self.over_budget is None:
                    self.over_budget = (
                        f"{path}: the document inflates past the {MAX_DOCUMENT_BYTES:,}-byte "
                        "total cap (a decompression bomb?)"
                    )
                raise
            if note:
                self.warnings.append(note)
        self.budget -= len(data)
        return data


def read_ole(
    data: bytes,
    *,
    max_stream_bytes: int = MAX_STREAM_BYTES,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
    max_docinfo_names: int = MAX_DOCINFO_NAMES,
    fast: bool = True,
    count_plain_body: bool = False,
    body_only: bool = False,
) -> Document:
    """Read any compound file: an HWP 5 document's text, or a verdict on another OLE file.
    Never raises for a damaged file: the result carries ``status`` and ``reason``.

    With *count_plain_body* (a scan that needs counts, not text) the native reader
    counts a body with no surrogate, private-use unit, folded symbol or U+FFFD instead of
    segmenting it: ``body`` is empty and ``info.plain_body`` holds its
    :class:`~hwpscan.models.PlainCounts` (likewise ``plain_preview``, ``plain_meta``).
    With *body_only* (:func:`hwpscan.extract`) the preview and DocInfo names are not
    read. With either one (not both) an ordinary document is read in one native call
    where built and ``fast`` (:data:`~hwpscan.formats.fast_readers.read_hwp5`); what it
    declines is read below through olefile, the reference, which always segments.
    """
    limits = (max_stream_bytes, max_document_bytes, max_docinfo_names)
    if fast and _NATIVE_DOCUMENT is not None and count_plain_body != body_only:
        made = _NATIVE_DOCUMENT(data, *limits, body_only)
        if made is not None:  # an ordinary document: as read below, plain texts counted
            return made
    caps = (*limits, body_only)
    # olefile (and our walk of its directory) only for a file the native reader declines:
    # a scan of ordinary files with the native reader built never loads it
    import olefile

    from hwpscan.formats.ole_streams import OleStreams  # it loads olefile too

    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except _OLE_ERRORS as exc:
        return _unreadable(data, f"compound file unreadable: {exc}")
    with ole:
        try:
            streams = OleStreams(ole, data)
        except _OLE_ERRORS as exc:
            return _unreadable(data, f"compound file directory unreadable: {exc}")
        return _read_container(streams, data, *caps)


def _unreadable(data: bytes, reason: str) -> Document:
    """A compound file whose container cannot be read: HWP 5 if it holds the signature."""
    fmt = Format.HWP5 if spec.SIGNATURE_TEXT in data else Format.OLE
    return Document(format=fmt, status=Status.CORRUPT, reason=reason)


def _read_container(
    streams: OleStreams,
    data: bytes,
    max_stream_bytes: int,
    max_document_bytes: int,
    max_docinfo_names: int,
    body_only: bool,
) -> Document:
    paths = streams.paths
    reader = _Reader(
        streams, max_stream_bytes, paths, max_document_bytes, max_names=max_docinfo_names
    )
    reader.body_only = body_only
    if not paths:
        return _unreadable(data, "compound file lists no streams (directory missing or cut short)")
    if reader.named("fileheader") is None:
        return _foreign(paths, "without an HWP FileHeader")
    try:
        header = reader.raw(spec.FILE_HEADER_STREAM)
    except CorruptFileError as exc:
        return Document(format=Format.HWP5, status=Status.CORRUPT, reason=str(exc))
    if reader.warnings:  # a FileHeader stream cut short: a truncated HWP file
        return Document(format=Format.HWP5, status=Status.CORRUPT, reason=reader.warnings[0])
    if not header.startswith(spec.SIGNATURE_TEXT):
        return _foreign(paths, "whose FileHeader lacks the 'HWP Document File' signature")
    return _read_hwp5(reader, header)


def _foreign(paths: list[str], what: str) -> Document:
    shown = ", ".join(repr(p) if not p.isprintable() else p for p in sorted(paths)[:_SHOWN_STREAMS])
    more = f" and {len(paths) - _SHOWN_STREAMS} more" if len(paths) > _SHOWN_STREAMS else ""
    marks = [
        p for p in paths if p.split("/")[0] in spec.OFFICE_ENCRYPTION_STREAMS or "DRM" in p.upper()
    ]
    if marks:
        return Document(
            format=Format.OLE,
            status=Status.ENCRYPTED,
            reason=(
                "encrypted or DRM-wrapped OLE container, not HWP: saw "
                + ", ".join(repr(p) for p in sorted(marks))
            ),
        )
    return Document(
        format=Format.OLE,
        status=Status.UNSUPPORTED,
        reason=f"OLE compound file {what}: streams {shown}{more}",
        info=ReadInfo(streams=len(paths)),
    )


def _read_hwp5(reader: _Reader, header: bytes) -> Document:
    if len(header) < spec.PROPERTIES_OFFSET + 4:
        return Document(
            format=Format.HWP5,
            status=Status.CORRUPT,
            reason=f"FileHeader is {len(header)} bytes, too short",
        )
    word, flags = struct.unpack_from("<II", header, spec.VERSION_OFFSET)
    compressed = bool(flags & spec.FLAG_COMPRESSED)
    version = spec.version_text(word)
    if word >> 24 != 5:
        reader.warnings.append(f"FileHeader version {version} is not 5.x; read as HWP 5")
    preview = [] if reader.body_only else _preview(reader)
    body_paths, view_paths = _section_paths(reader.paths)
    status, reason = _protection(flags, body_paths, view_paths)
    meta: list[Segment] = []
    if status is not Status.ENCRYPTED and not reader.body_only:
        meta = _docinfo(reader, compressed)
    body: list[Segment] = []
    if status is None:
        body, status, reason = _body(reader, body_paths, compressed)
    if status is None and reader.names_cut is not None:  # read in part: never clean
        status, reason = Status.CORRUPT, reader.names_cut + " (body read)"
    info = ReadInfo(
        version=version,
        compressed=compressed,
        flags=spec.flag_names(flags),
        paragraphs=reader.paragraphs,
        sections=len(body_paths) or len(view_paths),
    )
    return Document(
        format=Format.HWP5,
        body=tuple(body),
        preview=tuple(preview),
        meta=tuple(meta),
        status=status,
        reason=reason,
        warnings=reader.warnings.final(),
        info=info,
    )


def _section_paths(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """The BodyText and the ViewText section streams, each in section order."""
    numbered = sorted(
        (int(m.group(2)), m.group(1).lower(), p) for p in paths if (m := spec.SECTION_RE.match(p))
    )
    body_paths = [p for _, kind, p in numbered if kind == "bodytext"]
    view_paths = [p for _, kind, p in numbered if kind == "viewtext"]
    return body_paths, view_paths


def _protection(
    flags: int, body_paths: list[str], view_paths: list[str]
) -> tuple[Status | None, str | None]:
    """(status, reason) of a document whose body cannot be read as it is: encrypted, or a
    distribution document; (None, None) for an ordinary one."""
    if flags & spec.ENCRYPTION_FLAGS:
        names = ", ".join(n for n in spec.flag_names(flags & spec.ENCRYPTION_FLAGS))
        return (
            Status.ENCRYPTED,
            f"HWP 5 document protected ({names} bit set in FileHeader); body not readable",
        )
    if flags & spec.FLAG_DISTRIBUTION or (view_paths and not body_paths):
        return Status.DISTRIBUTION, _distribution_reason(flags, view_paths, body_paths)
    return None, None


def _distribution_reason(flags: int, view_paths: list[str], body_paths: list[str]) -> str:
    """Why a distribution document's body is not read, from what the container holds.

    >>> _distribution_reason(spec.FLAG_DISTRIBUTION, ["ViewText/Section0"], [])
    'distribution document (FileHeader bit 2): body encrypted in 1 ViewText section(s)'
    >>> _distribution_reason(spec.FLAG_DISTRIBUTION, [], [])  # doctest: +ELLIPSIS
    'distribution document (FileHeader bit 2) with no ViewText or BodyText section: ...'
    """
    bit = "FileHeader bit 2" if flags & spec.FLAG_DISTRIBUTION else "ViewText without BodyText"
    if view_paths:
        return (
            f"distribution document ({bit}): body encrypted in {len(view_paths)} "
            "ViewText section(s)"
        )
    if body_paths:
        return (
            f"distribution document ({bit}) without ViewText sections; its "
            f"{len(body_paths)} BodyText section(s) are not read (a distribution body is encrypted)"
        )
    return f"distribution document ({bit}) with no ViewText or BodyText section: no body to read"


def _body(
    reader: _Reader,
    paths: list[str],
    compressed: bool,
) -> tuple[list[Segment], Status | None, str | None]:
    """The body's segments and, when the reading left it in doubt, its verdict.
    ``reader.paragraphs`` counts the paragraphs."""
    if not paths:
        return [], Status.CORRUPT, "HWP 5 document without BodyText/SectionN streams"
    body: list[Segment] = []
    readable = paragraphs = 0
    warnings = reader.warnings
    budget = Budget()
    first = len(warnings)
    for path in paths:
        try:
            data = reader.records(path, compressed)
        except CorruptFileError as exc:
            warnings.append(str(exc))
            continue
        before = warnings.total
        text = section_text(data, path, warnings, budget)
        del data  # a section's bytes go before the next one's are inflated
        if text.hits:
            text_segments(text, path, body, warnings, budget)
        readable += bool(text.paragraphs) or warnings.total == before
        paragraphs += text.paragraphs
        if budget.exceeded is not None:
            break
    reader.paragraphs = paragraphs
    return body, *_body_verdict(reader, paths, budget, readable, first)


def _body_verdict(
    reader: _Reader, paths: list[str], budget: Budget, readable: int, first: int
) -> tuple[Status | None, str | None]:
    """Why a body read (in part) is not clean, or (None, None)."""
    warnings = reader.warnings
    if budget.exceeded is not None:  # read in part: never clean; the scan decides
        return Status.CORRUPT, budget.exceeded + " (text before it kept)"
    if reader.over_budget is not None:
        return Status.CORRUPT, reader.over_budget + " (text before it kept)"
    if not readable:
        return Status.CORRUPT, "no readable body section: " + "; ".join(warnings[-3:])
    cut = [note for note in reader.short if note.split(":")[0] in paths]
    if cut:  # the container lost sectors: what was read is kept, the verdict is corrupt
        return Status.CORRUPT, f"file cut short: {cut[0]} (text before the cut kept)"
    unread = [w for w in warnings[first:] if w.split(":")[0] in paths and _UNREAD_RE.search(w)]
    if unread:  # a body read only in part is never clean: the scan decides from the counts
        more = f" and {len(unread) - 3} more" if len(unread) > 3 else ""
        return Status.CORRUPT, "unread: " + "; ".join(unread[:3]) + more
    return None, None


def _preview(reader: _Reader) -> list[Segment]:
    path = reader.named(_PRVTEXT)
    if path is None:
        return []
    try:
        raw = reader.raw(path)
    except CorruptFileError as exc:
        reader.warnings.append(str(exc))
        return []
    if len(raw) & 1:
        reader.warnings.append(f"{path}: odd byte count; last byte ignored")
        raw = raw[:-1]
    lines = codeunit_view(raw).rstrip("\x00").split("\r\n")
    return [Segment(path, i, 0, line) for i, line in enumerate(lines) if line]


def _docinfo(reader: _Reader, compressed: bool) -> list[Segment]:
    """FACE_NAME and STYLE names as segments: paragraph = record index, offset = code
    units before this name among the names of the same record.

    Only record headers are walked and only the name fields are touched
    (:func:`_name_spans`). At most :data:`MAX_DOCINFO_NAMES` names are kept (see
    :attr:`_Reader.names_cut`).
    """
    if reader.named("docinfo") is None:
        reader.warnings.append("DocInfo stream missing")
        return []
    try:
        data = reader.records(spec.DOCINFO_STREAM, compressed)
    except CorruptFileError as exc:
        reader.warnings.append(str(exc))
        return []
    spans, cut = _docinfo_spans(data, reader.warnings, reader.max_names)
    if cut is not None:
        reader.names_cut = (
            f"DocInfo holds more than {reader.max_names:,} font and style names (the cap); "
            f"names after record {cut} not read"
        )
    return _decode_names(data, spans)


def _docinfo_spans(
    data: bytes, warnings: list[str], cap: int
) -> tuple[list[tuple[int, int, int, int]], int | None]:
    """The name spans of a DocInfo stream (see :func:`_name_spans`), at most *cap* of
    them, and the index of the record where the cap cut them (``None``: all read)."""
    spans: list[tuple[int, int, int, int]] = []
    index = pos = 0
    end = len(data)
    while pos + 4 <= end:
        (head,) = _U32.unpack_from(data, pos)
        pos += 4
        size = head >> spec.SIZE_SHIFT
        if size == spec.EXTENDED_SIZE and pos + 4 <= end:
            (size,) = _U32.unpack_from(data, pos)
            pos += 4
        stop = pos + size
        if stop > end:
            warnings.append(f"DocInfo: record {index} runs past the end of the stream")
            break
        tag = head & spec.TAG_MASK
        if tag in (spec.STYLE, spec.FACE_NAME):
            _name_spans(data, pos, stop, tag, index, spans, warnings)
            if len(spans) > cap:
                del spans[cap:]
                return spans, index
        pos = stop
        index += 1
    return spans, None


def _name_spans(
    data: bytes,
    start: int,
    end: int,
    tag: int,
    index: int,
    spans: list[tuple[int, int, int, int]],
    warnings: list[str],
) -> None:
    """(record index, unit offset, first byte, end byte) of each non-empty WCHAR name
    of a FACE_NAME (표 19) or STYLE (표 47) record spanning ``data[start:end]``.

    FACE_NAME: property byte, name; alternative name after a type byte when bit 7 is
    set; default name when bit 5 is set (after 10 bytes of type info when bit 6 is).
    STYLE: local name, English name.
    """
    if tag == spec.STYLE:
        skips: tuple[int, ...] = (0, 0)
    elif end > start:
        prop = data[start]
        skips = (1,)  # the property byte
        if prop & spec.FACE_HAS_ALTERNATIVE:
            skips += (1,)  # the alternative font's type byte
        if prop & spec.FACE_HAS_DEFAULT:
            skips += (spec.FACE_TYPE_INFO_BYTES if prop & spec.FACE_HAS_TYPE_INFO else 0,)
    else:
        return
    pos = start
    units = 0
    for n, skip in enumerate(skips):
        pos += skip
        if pos + 2 > end:
            warnings.append(f"DocInfo: record {index} (tag {tag}) ends before name {n}")
            return
        length = data[pos] | data[pos + 1] << 8
        pos += 2
        if pos + 2 * length > end:
            warnings.append(f"DocInfo: record {index} (tag {tag}) name {n} runs past the record")
            return
        if length:
            spans.append((index, units, pos, pos + 2 * length))
        pos += 2 * length
        units += length


def _decode_names(data: bytes, spans: list[tuple[int, int, int, int]]) -> list[Segment]:
    """The names' segments.

    >>> names = "바탕".encode("utf-16-le") + b"ab"
    >>> _decode_names(names, [(3, 0, 0, 4), (3, 2, 4, 6)])  # doctest: +NORMALIZE_WHITESPACE
    [Segment(stream='DocInfo', paragraph=3, offset=0, text='바탕'),
     Segment(stream='DocInfo', paragraph=3, offset=2, text='扡')]
    """
    stream = spec.DOCINFO_STREAM
    return [Segment(stream, i, units, codeunit_view(data[a:b])) for i, units, a, b in spans]
