"""Build HWP 5 documents for fixtures, tests and the emulator's catalogue.

Hancom's HWP 5.0 specification (revision 1.3) with the record sizes of Hancom's own files,
so pyhwp parses every record. Characters outside the BMP are written as surrogate pairs,
a lone surrogate as a lone unit. The same arguments give the same bytes.

>>> from hwpscan.formats.hwp5 import read_ole
>>> doc = read_ole(build_hwp5(["가" + chr(0xF02B1) + "나"]))
>>> [s.text for s in doc.body] == ["가" + chr(0xDB80) + chr(0xDEB1) + "나"]
True
"""

from __future__ import annotations

import hashlib
import struct
import uuid
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from hwpscan.formats import hwp5_spec as spec
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_records import SectionWriter, docinfo_shapes, record

VERSION = 0x05010001  # 5.1.0.1
ZLIB_LEVEL = 6  # fixed so compressed output is stable
PREVIEW_UNITS = 1024
FONT_NAMES = ("함초롬바탕",)
# FACE_NAME font type information (spec 표 20, PANOSE 1.0 order): a serif text face.
# Hancom writes it for its fonts; pyhwp's ODT export needs it to classify the face.
_PANOSE = bytes([2, 2, 6, 3, 0, 0, 0, 0, 0, 0])
_LANGUAGES = 7  # FACE_NAME lists repeat per language (spec §4.2.2, 표 15)

# \x05HwpSummaryInformation (spec §3.2.4): an OLE property set ([MS-OLEPS] §2.21).
SUMMARY_FMTID = uuid.UUID(spec.SUMMARY_FMTID)
_OS_VERSION = 0x00020105
_VT_I4, _VT_LPWSTR = 0x0003, 0x001F  # [MS-OLEPS] §2.15
# Property ids (PIDSI_* of [MS-OLEPS] §2.25.2; 0x15 is Hancom's paragraph count).
_PID_DICTIONARY, _PID_TITLE, _PID_AUTHOR, _PID_PAGECOUNT, _PID_PARACOUNT = 0, 2, 4, 0x0E, 0x15
AUTHOR = "hwpscan"


@dataclass(frozen=True)
class Table:
    """A table; each cell holds one paragraph."""

    rows: list[list[str]]


@dataclass(frozen=True)
class Footnote:
    """A footnote: its mark follows *anchor* in a body paragraph, its text is nested."""

    text: str
    anchor: str = ""


@dataclass(frozen=True)
class TextBox:
    """A drawing object (rectangle) holding one paragraph of text."""

    text: str
    anchor: str = ""


@dataclass(frozen=True)
class HeaderFooter:
    """A page header (or footer) holding one paragraph."""

    text: str
    footer: bool = False


Block = str | Table | Footnote | TextBox | HeaderFooter


def _section(blocks: Sequence[Block], *, controls: bool = True) -> SectionWriter:
    sec = SectionWriter()
    first_text = blocks[0] if blocks and isinstance(blocks[0], str) else None
    rest = list(blocks[1:] if first_text is not None else blocks)
    head = [
        (spec.SECTION_COLUMN_DEF, "secd", sec.section_def(0)),
        (spec.SECTION_COLUMN_DEF, "cold", sec.column_def(0)),
    ]
    if controls or first_text is not None or not rest:
        sec.paragraph(0, first_text or "", head if controls else (), head=True, last=not rest)
    for i, block in enumerate(rest):
        text = block if isinstance(block, str) else getattr(block, "anchor", "")
        marks = []
        if isinstance(block, Table):
            marks = [(spec.DRAWING_TABLE, "tbl ", sec.table(0, block.rows))]
        elif isinstance(block, Footnote):
            marks = [(spec.FOOTNOTE_ENDNOTE, "fn  ", sec.footnote(0, block.text))]
        elif isinstance(block, TextBox):
            marks = [(spec.DRAWING_TABLE, "gso ", sec.text_box(0, block.text))]
        elif isinstance(block, HeaderFooter):
            cid = "foot" if block.footer else "head"
            marks = [(spec.HEADER_FOOTER, cid, sec.header_footer(0, block.text, block.footer))]
        sec.paragraph(0, text, marks, last=i == len(rest) - 1)
    return sec


class Placed(NamedTuple):
    """Where the writer put one paragraph's text: stream, paragraph index (nested ones
    counted in document order), code-unit offset in its PARA_TEXT record."""

    stream: str
    paragraph: int
    offset: int
    text: str


def _split(blocks: Sequence[Block], sections: int) -> list[Sequence[Block]]:
    """The blocks of each section: *blocks* cut into *sections* runs of equal length."""
    if sections < 1:
        raise ValueError("a document has at least one section")
    per = -(-len(blocks) // sections) if blocks else 0
    return [blocks[n * per : (n + 1) * per] for n in range(sections)]


def hwp5_layout(blocks: Sequence[Block], *, sections: int = 1) -> list[Placed]:
    """Every paragraph :func:`build_hwp5` writes for *blocks*, in stream order.

    >>> [(p.paragraph, p.offset, p.text) for p in hwp5_layout(["첫", Table([["셀"]])])]
    [(0, 16, '첫'), (1, 0, ''), (2, 0, '셀')]
    """
    out: list[Placed] = []
    for n, part in enumerate(_split(blocks, sections)):
        stream = f"{spec.BODYTEXT_STORAGE}/Section{n}"
        placed = _section(part).placed
        out += [Placed(stream, i, offset, text) for i, (offset, text) in enumerate(placed)]
    return out


def _wchars(text: str) -> bytes:
    raw = text.encode("utf-16-le", "surrogatepass")
    return struct.pack("<H", len(raw) // 2) + raw


# STYLE after its names: attributes, next style, language (Korean), shape ids, lock
_STYLE_REST = struct.pack("<BBhHHH", 0, 0, 0x412, 0, 0, 0)


def _docinfo(sections: int, style_names: Sequence[str]) -> bytes:
    styles = list(style_names) or ["바탕글"]
    properties = struct.pack("<7H3I", sections, 1, 1, 1, 1, 1, 1, 0, 0, 0)
    out = record(spec.DOCUMENT_PROPERTIES, 0, properties)
    counts = [0] + [len(FONT_NAMES)] * _LANGUAGES + [1, 1, 1, 0, 0, 1, len(styles), 0, 0, 0]
    out += record(spec.ID_MAPPINGS, 0, struct.pack(f"<{len(counts)}i", *counts))
    for _ in range(_LANGUAGES):
        for name in FONT_NAMES:
            face = bytes([spec.FACE_HAS_TYPE_INFO]) + _wchars(name) + _PANOSE
            out += record(spec.FACE_NAME, 1, face)
    out += docinfo_shapes()
    for i, name in enumerate(styles):
        english = _wchars("Normal" if i == 0 else "")
        out += record(spec.STYLE, 1, _wchars(name) + english + _STYLE_REST)
    return out


def _preview_text(blocks: Sequence[Block]) -> str:
    """Body paragraphs joined by CRLF, capped at PREVIEW_UNITS code units (no pair split)."""
    raw = "\r\n".join(b for b in blocks if isinstance(b, str)).encode("utf-16-le", "surrogatepass")
    cut = PREVIEW_UNITS * 2
    if len(raw) > cut:
        last, nxt = struct.unpack_from("<HH", raw, cut - 2)
        if 0xD800 <= last <= 0xDBFF and 0xDC00 <= nxt <= 0xDFFF:
            cut -= 2
        raw = raw[:cut]
    return raw.decode("utf-16-le", "surrogatepass")


def _pad4(data: bytes) -> bytes:
    return data + bytes(-len(data) % 4)


def _lpwstr(text: str) -> bytes:
    """A VT_LPWSTR value: type, length in characters counting the NUL, UTF-16LE, padded."""
    raw = text.encode("utf-16-le", "surrogatepass") + b"\0\0"
    return _pad4(struct.pack("<II", _VT_LPWSTR, len(raw) // 2) + raw)


def summary_information(*, title: str = "", paragraphs: int = 1) -> bytes:
    """The ``\\x05HwpSummaryInformation`` stream: title, author, page and paragraph
    counts, no timestamps (four 64-byte mini sectors with a short title).

    >>> data = summary_information(title="보도자료")
    >>> data[:4].hex(), uuid.UUID(bytes_le=data[8:24]) == SUMMARY_FMTID, len(data) % 4
    ('feff0000', True, 0)
    """
    props = [
        # Hancom writes a dictionary with one empty name; pyhwp fails without one.
        (_PID_DICTIONARY, _pad4(struct.pack("<III", 1, 0, 1) + b"\0")),
        (_PID_TITLE, _lpwstr(title)),
        (_PID_AUTHOR, _lpwstr(AUTHOR)),
        (_PID_PAGECOUNT, struct.pack("<Ii", _VT_I4, 1)),
        (_PID_PARACOUNT, struct.pack("<Ii", _VT_I4, paragraphs)),
    ]
    offset = 8 + 8 * len(props)  # section size and count, then (id, offset) pairs
    index = bytearray()
    for pid, value in props:
        index += struct.pack("<II", pid, offset)
        offset += len(value)
    section = struct.pack("<II", offset, len(props)) + index + b"".join(v for _, v in props)
    header = struct.pack("<HHI", 0xFFFE, 0, _OS_VERSION) + SUMMARY_FMTID.bytes_le
    header += struct.pack("<I", 1) + SUMMARY_FMTID.bytes_le
    return header + struct.pack("<I", len(header) + 4) + section


def noise(seed: bytes, size: int) -> bytes:
    """Random-looking, reproducible bytes (what an encrypted stream looks like)."""
    return hashlib.shake_256(seed).digest(size)


def _deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(ZLIB_LEVEL, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY)
    return comp.compress(data) + comp.flush()


@dataclass(frozen=True, slots=True)
class Hwp5Options:
    """How :func:`build_hwp5` writes a document (``\\t``, ``\\n`` and U+00A0 are controls)."""

    compressed: bool = True  # DocInfo and sections as raw deflate (FileHeader bit 0)
    preview: str | None = None  # PrvText; default the body paragraphs, CRLF-joined, capped
    #: FileHeader bit 1 / bit 2, streams as reproducible noise (distribution: in ViewText)
    password: bool = False
    distribution: bool = False
    style_names: Sequence[str] = ()  # DocInfo STYLE names (lone surrogates allowed)
    sections: int = 1  # blocks split into this many BodyText/SectionN streams
    #: each section starts with the section and column definition controls, as Hancom's
    tabs_and_controls: bool = True
    title: str = ""  # in the summary information (:func:`summary_information`)


def hwp5_streams(blocks: Sequence[Block], **options: Any) -> dict[str, bytes]:
    """The streams of an HWP 5 document (see :func:`build_hwp5`), as stored.

    >>> hwp5_streams([], section=2)
    Traceback (most recent call last):
    ...
    TypeError: Hwp5Options.__init__() got an unexpected keyword argument 'section'
    """
    o = Hwp5Options(**options)
    pack = _deflate if o.compressed else bytes
    streams = {
        spec.FILE_HEADER_STREAM: _file_header(o),
        spec.DOCINFO_STREAM: pack(_docinfo(o.sections, o.style_names)),
    }
    paragraphs = 0
    for n, part in enumerate(_split(blocks, o.sections)):
        sec = _section(part, controls=o.tabs_and_controls)
        paragraphs += sec.paragraphs
        name, data = _body_stream(n, pack(bytes(sec.out)), o)
        streams[name] = data
    if o.password:
        docinfo = streams[spec.DOCINFO_STREAM]
        streams[spec.DOCINFO_STREAM] = noise(b"pw-docinfo" + docinfo, len(docinfo))
    text = _preview_text(blocks) if o.preview is None else o.preview
    streams[spec.PRVTEXT_STREAM] = text.encode("utf-16-le", "surrogatepass") + b"\0\0"
    streams[spec.SUMMARY_STREAM] = summary_information(title=o.title, paragraphs=paragraphs)
    return streams


def _file_header(o: Hwp5Options) -> bytes:
    """The FileHeader stream: signature, version, flags, encryption version."""
    flags = spec.FLAG_COMPRESSED if o.compressed else 0
    flags |= spec.FLAG_PASSWORD if o.password else 0
    flags |= spec.FLAG_DISTRIBUTION if o.distribution else 0
    header = spec.SIGNATURE + struct.pack("<IIIIB", VERSION, flags, 0, 4 if o.password else 0, 0)
    return header.ljust(spec.FILE_HEADER_SIZE, b"\0")


def _body_stream(n: int, body: bytes, o: Hwp5Options) -> tuple[str, bytes]:
    """Section *n*'s stream name and bytes: the body, or (encrypted) noise of its size."""
    if o.distribution:
        seed = b"view%d" % n + body
        data = noise(seed + b"+", len(body))
        return f"{spec.VIEWTEXT_STORAGE}/Section{n}", record(
            spec.DISTRIBUTE_DOC_DATA, 0, noise(seed, 256)
        ) + data
    if o.password:
        return f"{spec.BODYTEXT_STORAGE}/Section{n}", noise(b"pw%d" % n + body, len(body))
    return f"{spec.BODYTEXT_STORAGE}/Section{n}", body


def build_hwp5(blocks: Sequence[Block], **options: Any) -> bytes:
    """An HWP 5 file of *blocks* (a ``str`` is a paragraph); keywords: :class:`Hwp5Options`."""
    return write_cfb(hwp5_streams(blocks, **options))


def truncate(data: bytes, size: int) -> bytes:
    """The first *size* bytes of *data* (a download cut short)."""
    return data[:size]


def office_encrypted() -> bytes:
    """An encrypted Office document's container (ECMA-376 agile encryption layout)."""
    return write_cfb(
        {
            "\x06DataSpaces/Version": b"\x3c\x00\x00\x00"
            + "Microsoft.Container.DataSpaces".encode("utf-16-le")
            + bytes(12),
            "EncryptionInfo": struct.pack("<HHI", 4, 4, 0x40)
            + b'<?xml version="1.0"?><encryption/>',
            "EncryptedPackage": struct.pack("<Q", 6000) + noise(b"office", 6000),
        }
    )


def foreign_ole() -> bytes:
    """A compound file that is not HWP (a Word 97 document's stream names)."""
    return write_cfb(
        {
            "WordDocument": noise(b"word", 5000),
            "1Table": noise(b"table", 700),
            "\x05SummaryInformation": bytes(200),
        }
    )


def record_overrun(
    blocks: Sequence[Block] = ("본문",), *, compressed: bool = True, claimed: int = 1000
) -> bytes:
    """Section0 ends with a PARA_TEXT record claiming *claimed* bytes; 10 follow."""
    streams = hwp5_streams(blocks, compressed=compressed)
    head = spec.PARA_TEXT | 1 << spec.LEVEL_SHIFT | min(claimed, 0xFFE) << spec.SIZE_SHIFT
    raw = bytes(_section(blocks).out) + struct.pack("<I", head)
    raw += "잘린문단\0".encode("utf-16-le")
    streams["BodyText/Section0"] = _deflate(raw) if compressed else raw
    return write_cfb(streams)


def bad_deflate(blocks: Sequence[Block] = ("본문",), *, cut: int | None = None) -> bytes:
    """Section0 is garbage, not raw deflate, or with *cut* stops after *cut* bytes."""
    streams = hwp5_streams(blocks, compressed=True)
    sec = streams["BodyText/Section0"]
    streams["BodyText/Section0"] = b"\xff\xff" + noise(b"deflate", 64) if cut is None else sec[:cut]
    return write_cfb(streams)
