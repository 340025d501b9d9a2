"""Build HWP 5 documents for fixtures, tests and the emulator's catalogue.

The files follow the record layout of Hancom's HWP 5.0 specification (revision 1.3;
constants in :mod:`hwpscan.formats.hwp5_spec`) closely enough for independent readers:
paragraphs, tables, footnotes, text boxes and headers/footers as nested records; real
inline (TAB) and extended (section, column, table, footnote...) controls whose binary
parameter units include values in 0xD800-0xDFFF; DocInfo fonts and styles; a PrvText
preview. Characters outside the BMP (Hancom PUA-A such as U+F02B1) are written as
surrogate pairs, as Hancom does; a lone surrogate in the input is written as a lone unit.

Deterministic: the same arguments always give the same bytes.

>>> from hwpscan.formats.hwp5 import read_ole
>>> doc = read_ole(build_hwp5(["가" + chr(0xF02B1) + "나"]))
>>> [s.text for s in doc.body] == ["가" + chr(0xDB80) + chr(0xDEB1) + "나"]
True
"""

from __future__ import annotations

import hashlib
import re
import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hwpscan.formats import hwp5_spec as spec
from hwpscan.synth.cfb import write_cfb

__all__ = [
    "Block",
    "Footnote",
    "HeaderFooter",
    "Table",
    "TextBox",
    "bad_deflate",
    "build_hwp5",
    "foreign_ole",
    "hwp5_streams",
    "office_encrypted",
    "record_overrun",
    "truncate",
]

VERSION = 0x05010001  # 5.1.0.1
ZLIB_LEVEL = 6  # fixed so compressed output is stable
PREVIEW_UNITS = 1024
FONT_NAMES = ("함초롬바탕",)
_LANGUAGES = 7  # FACE_NAME lists repeat per language (spec §4.2.2, 표 15)


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

# Parameter units of our 8-unit controls: binary values in the surrogate range on
# purpose (a high+low pair and a lone low half), as real files can hold.
_EXTENDED_PARAMS = struct.pack("<4H", 0xD83D, 0xDE00, 0xDC07, 0x0000)
_TAB_PARAMS = struct.pack("<6H", 0xDA00, 0x0000, 0x0101, 0xDFFF, 0x0000, 0x0000)
_TEXT_CONTROLS_RE = re.compile("[\t\n\u00a0]")

# PARA_HEADER (spec 표 58): character count (bit 31: last paragraph of its list), control
# mask, paragraph shape, style, break type, char shape count, range tag count, line
# segment count, instance id, change-tracking merge flag.
_PARA_HEADER = struct.Struct("<IIHBBHHHIH")
_LAST_IN_LIST = 0x80000000
# PARA_LINE_SEG (spec 표 62): one line: start, vertical position, height, text height,
# baseline, spacing, column start, width, flags.
_LINE_SEG = struct.pack("<9i", 0, 0, 1000, 1000, 850, 600, 0, 42520, 0x60000)
# LIST_HEADER of a table cell (spec 표 65 and 표 80): paragraph count, list flags, then
# column, row, column span, row span, width, height, four margins, border fill id.
_CELL_LIST_HEADER = struct.Struct("<hIHHHHII4hH")
_MARGINS = (510, 510, 141, 141)
_BAD_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f]")


def _record(tag: int, level: int, payload: bytes) -> bytes:
    size = len(payload)
    if size >= spec.EXTENDED_SIZE:
        head = struct.pack(
            "<II", tag | level << spec.LEVEL_SHIFT | spec.EXTENDED_SIZE << spec.SIZE_SHIFT, size
        )
    else:
        head = struct.pack("<I", tag | level << spec.LEVEL_SHIFT | size << spec.SIZE_SHIFT)
    return head + payload


def _control(code: int, ctrl_id: str) -> bytes:
    """An extended control in PARA_TEXT: code, control id, parameters, code."""
    return (
        struct.pack("<HI", code, spec.ctrl_id_word(ctrl_id))
        + _EXTENDED_PARAMS
        + struct.pack("<H", code)
    )


def _text_units(text: str) -> bytes:
    """Paragraph text as PARA_TEXT units: TAB, line break and NBSP become controls."""
    bad = _BAD_CONTROL_RE.search(text)
    if bad:
        raise ValueError(f"U+{ord(bad.group()):04X} is a control code, not text")
    out = bytearray()
    pos = 0
    for m in _TEXT_CONTROLS_RE.finditer(text):
        out += text[pos : m.start()].encode("utf-16-le", "surrogatepass")
        ch = m.group()
        if ch == "\t":
            out += struct.pack("<H", spec.TAB) + _TAB_PARAMS + struct.pack("<H", spec.TAB)
        else:
            out += struct.pack("<H", spec.LINE_BREAK if ch == "\n" else spec.NBSP)
        pos = m.end()
    out += text[pos:].encode("utf-16-le", "surrogatepass")
    return bytes(out)


class _Section:
    """Records of one BodyText section, written in stream order."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.instance = 0x1000

    def paragraph(
        self,
        level: int,
        text: str = "",
        controls: Sequence[tuple[int, str, Iterator[bytes] | None]] = (),
        *,
        last: bool = True,
        head: bool = False,
    ) -> None:
        """One paragraph: PARA_HEADER, PARA_TEXT, char shape, line seg, then its controls.

        *controls* are (code, control id, records of the control's subtree); they sit
        before the text when *head* is true (section definitions), else after it.
        """
        marks = b"".join(_control(code, cid) for code, cid, _ in controls)
        units = (marks + _text_units(text) if head else _text_units(text) + marks) + struct.pack(
            "<H", spec.PARA_BREAK
        )
        count = len(units) // 2
        mask = 0
        for code, _, _ in controls:
            mask |= 1 << code
        if "\t" in text:
            mask |= 1 << spec.TAB
        self.instance += 1
        flags = count | (_LAST_IN_LIST if last else 0)
        header = _PARA_HEADER.pack(flags, mask, 0, 0, 0, 1, 0, 1, self.instance, 0)
        self.out += _record(spec.PARA_HEADER, level, header)
        if count > 1:  # Hancom writes no PARA_TEXT for a paragraph holding only its end mark
            self.out += _record(spec.PARA_TEXT, level + 1, units)
        self.out += _record(spec.PARA_CHAR_SHAPE, level + 1, struct.pack("<II", 0, 0))
        self.out += _record(spec.PARA_LINE_SEG, level + 1, _LINE_SEG)
        for _, _, subtree in controls:
            for rec in subtree or ():
                self.out += rec

    # Control subtrees: CTRL_HEADER one level below the paragraph, the rest nested.

    def section_def(self, level: int) -> Iterator[bytes]:
        yield _record(
            spec.CTRL_HEADER,
            level + 1,
            struct.pack("<IIHHHHHI", spec.ctrl_id_word("secd"), 0, 1134, 0, 0, 8000, 0, 0),
        )
        yield _record(
            spec.PAGE_DEF,
            level + 2,
            struct.pack("<9I", 59528, 84188, 8504, 8504, 5668, 4252, 4252, 4252, 0) + bytes(4),
        )
        yield _record(spec.FOOTNOTE_SHAPE, level + 2, bytes(30))
        yield _record(spec.PAGE_BORDER_FILL, level + 2, bytes(14))

    def column_def(self, level: int) -> Iterator[bytes]:
        yield _record(
            spec.CTRL_HEADER,
            level + 1,
            struct.pack("<IHhH", spec.ctrl_id_word("cold"), 0x1004, 0, 0),
        )

    def table(self, level: int, rows: list[list[str]]) -> Iterator[bytes]:
        ncols = max((len(r) for r in rows), default=0)
        yield _record(spec.CTRL_HEADER, level + 1, _object_common("tbl ", self.instance))
        yield _record(
            spec.TABLE,
            level + 2,
            struct.pack(
                f"<IHHh4h{len(rows)}HHH",
                0x04000006,
                len(rows),
                ncols,
                0,
                510,
                510,
                141,
                141,
                *([ncols] * len(rows)),
                1,
                0,
            ),
        )
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                cell_header = _CELL_LIST_HEADER.pack(1, 0x20, c, r, 1, 1, 8000, 1000, *_MARGINS, 1)
                yield _record(spec.LIST_HEADER, level + 2, cell_header)
                yield from self._nested(level + 2, cell)

    def footnote(self, level: int, text: str) -> Iterator[bytes]:
        yield _record(
            spec.CTRL_HEADER,
            level + 1,
            struct.pack("<IIHHI", spec.ctrl_id_word("fn  "), 1, 0, 0, 0),
        )
        yield _record(spec.LIST_HEADER, level + 2, struct.pack("<hI", 1, 0) + bytes(8))
        yield from self._nested(level + 2, text)

    def header_footer(self, level: int, text: str, footer: bool) -> Iterator[bytes]:
        yield _record(
            spec.CTRL_HEADER,
            level + 1,
            struct.pack("<II", spec.ctrl_id_word("foot" if footer else "head"), 0),
        )
        yield _record(
            spec.LIST_HEADER, level + 2, struct.pack("<hIII", 1, 0, 42520, 4252) + bytes(4)
        )
        yield from self._nested(level + 2, text)

    def text_box(self, level: int, text: str) -> Iterator[bytes]:
        yield _record(spec.CTRL_HEADER, level + 1, _object_common("gso ", self.instance))
        rect = spec.ctrl_id_word("$rec")
        yield _record(spec.SHAPE_COMPONENT, level + 2, struct.pack("<II", rect, rect) + bytes(188))
        yield _record(
            spec.LIST_HEADER,
            level + 3,
            struct.pack("<hI4hI", 1, 0, 283, 283, 283, 283, 12000) + bytes(13),
        )
        yield from self._nested(level + 3, text)
        yield _record(
            spec.SHAPE_COMPONENT_RECTANGLE,
            level + 3,
            bytes(9) + struct.pack("<8i", 0, 0, 12000, 0, 12000, 3000, 0, 3000),
        )

    def _nested(self, level: int, text: str) -> Iterator[bytes]:
        nested = _Section()
        nested.instance = self.instance
        nested.paragraph(level, text)
        self.instance = nested.instance
        yield bytes(nested.out)


def _object_common(ctrl_id: str, instance: int) -> bytes:
    """CTRL_HEADER payload of a table or drawing object (spec §4.3.9.1 개체 공통 속성)."""
    return struct.pack(
        "<IIiiIIi4hIiH",
        spec.ctrl_id_word(ctrl_id),
        0x082A2210,
        0,
        0,
        42520,
        3000,
        0,
        141,
        141,
        141,
        141,
        instance,
        0,
        0,
    )


def _section_stream(blocks: Sequence[Block], *, controls: bool) -> bytes:
    sec = _Section()
    first_text = blocks[0] if blocks and isinstance(blocks[0], str) else None
    rest = list(blocks[1:] if first_text is not None else blocks)
    head = [
        (spec.SECTION_COLUMN_DEF, "secd", sec.section_def(0)),
        (spec.SECTION_COLUMN_DEF, "cold", sec.column_def(0)),
    ]
    if controls or first_text is not None or not rest:
        sec.paragraph(0, first_text or "", head if controls else (), head=True, last=not rest)
    for i, block in enumerate(rest):
        last = i == len(rest) - 1
        if isinstance(block, str):
            sec.paragraph(0, block, last=last)
        elif isinstance(block, Table):
            sec.paragraph(
                0, "", [(spec.DRAWING_TABLE, "tbl ", sec.table(0, block.rows))], last=last
            )
        elif isinstance(block, Footnote):
            sec.paragraph(
                0,
                block.anchor,
                [(spec.FOOTNOTE_ENDNOTE, "fn  ", sec.footnote(0, block.text))],
                last=last,
            )
        elif isinstance(block, TextBox):
            sec.paragraph(
                0,
                block.anchor,
                [(spec.DRAWING_TABLE, "gso ", sec.text_box(0, block.text))],
                last=last,
            )
        elif isinstance(block, HeaderFooter):
            cid = "foot" if block.footer else "head"
            sec.paragraph(
                0,
                "",
                [(spec.HEADER_FOOTER, cid, sec.header_footer(0, block.text, block.footer))],
                last=last,
            )
        else:
            raise TypeError(f"not a block: {block!r}")
    return bytes(sec.out)


def _wchars(text: str) -> bytes:
    raw = text.encode("utf-16-le", "surrogatepass")
    return struct.pack("<H", len(raw) // 2) + raw


def _docinfo(sections: int, style_names: Sequence[str]) -> bytes:
    styles = list(style_names) or ["바탕글"]
    out = _record(
        spec.DOCUMENT_PROPERTIES, 0, struct.pack("<7H3I", sections, 1, 1, 1, 1, 1, 1, 0, 0, 0)
    )
    counts = [0] + [len(FONT_NAMES)] * _LANGUAGES + [1, 1, 1, 0, 0, 1, len(styles), 0, 0, 0]
    out += _record(spec.ID_MAPPINGS, 0, struct.pack(f"<{len(counts)}i", *counts))
    for _ in range(_LANGUAGES):
        for name in FONT_NAMES:
            out += _record(spec.FACE_NAME, 1, b"\x00" + _wchars(name))
    for i, name in enumerate(styles):
        english = "Normal" if i == 0 else ""
        out += _record(
            spec.STYLE,
            1,
            _wchars(name) + _wchars(english) + struct.pack("<BBhHH", 0, 0, 0x412, 0, 0),
        )
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


def _noise(seed: bytes, size: int) -> bytes:
    """Random-looking, reproducible bytes (what an encrypted stream looks like)."""
    return hashlib.shake_256(seed).digest(size)


def _deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(ZLIB_LEVEL, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY)
    return comp.compress(data) + comp.flush()


def hwp5_streams(
    blocks: Sequence[Block],
    *,
    compressed: bool = True,
    preview: str | None = None,
    password: bool = False,
    distribution: bool = False,
    style_names: Sequence[str] = (),
    sections: int = 1,
    tabs_and_controls: bool = True,
) -> dict[str, bytes]:
    """The streams of an HWP 5 document (see :func:`build_hwp5`), as stored."""
    if sections < 1:
        raise ValueError("a document has at least one section")
    flags = (spec.FLAG_COMPRESSED if compressed else 0) | (spec.FLAG_PASSWORD if password else 0)
    flags |= spec.FLAG_DISTRIBUTION if distribution else 0
    header = spec.SIGNATURE + struct.pack("<IIIIB", VERSION, flags, 0, 4 if password else 0, 0)
    pack = _deflate if compressed else bytes
    streams = {
        spec.FILE_HEADER_STREAM: header.ljust(spec.FILE_HEADER_SIZE, b"\0"),
        spec.DOCINFO_STREAM: pack(_docinfo(sections, style_names)),
    }
    per = -(-len(blocks) // sections) if blocks else 0
    for n in range(sections):
        body = pack(_section_stream(blocks[n * per : (n + 1) * per], controls=tabs_and_controls))
        if distribution:
            seed = b"view%d" % n + body
            streams[f"{spec.VIEWTEXT_STORAGE}/Section{n}"] = _record(
                spec.DISTRIBUTE_DOC_DATA, 0, _noise(seed, 256)
            ) + _noise(seed + b"+", len(body))
        elif password:
            streams[f"{spec.BODYTEXT_STORAGE}/Section{n}"] = _noise(b"pw%d" % n + body, len(body))
        else:
            streams[f"{spec.BODYTEXT_STORAGE}/Section{n}"] = body
    if password:
        streams[spec.DOCINFO_STREAM] = _noise(
            b"pw-docinfo" + streams[spec.DOCINFO_STREAM], len(streams[spec.DOCINFO_STREAM])
        )
    text = _preview_text(blocks) if preview is None else preview
    streams[spec.PRVTEXT_STREAM] = text.encode("utf-16-le", "surrogatepass") + b"\0\0"
    return streams


def build_hwp5(
    blocks: Sequence[Block],
    *,
    compressed: bool = True,
    preview: str | None = None,
    password: bool = False,
    distribution: bool = False,
    style_names: Sequence[str] = (),
    sections: int = 1,
    tabs_and_controls: bool = True,
) -> bytes:
    """An HWP 5 file holding *blocks* (``str`` is one body paragraph).

    - ``compressed``: DocInfo and sections stored as raw deflate (FileHeader bit 0).
    - ``preview``: PrvText content; default the body paragraphs, ``\\r\\n``-joined,
      capped at 1024 code units.
    - ``password`` / ``distribution``: set FileHeader bit 1 / bit 2 and store the
      streams as reproducible random bytes (distribution bodies under ViewText).
    - ``style_names``: DocInfo STYLE names (lone surrogates allowed).
    - ``sections``: blocks are split into this many BodyText/SectionN streams.
    - ``tabs_and_controls``: the first paragraph of each section starts with the
      section and column definition controls (extended, 8 units each), as Hancom writes.
      A ``\\t`` in any text is always written as the TAB inline control, ``\\n`` as a
      line break, U+00A0 as the non-breaking space control.
    """
    return write_cfb(
        hwp5_streams(
            blocks,
            compressed=compressed,
            preview=preview,
            password=password,
            distribution=distribution,
            style_names=style_names,
            sections=sections,
            tabs_and_controls=tabs_and_controls,
        )
    )


# --- Broken and foreign inputs for the corpus -----------------------------------------


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
            "EncryptedPackage": struct.pack("<Q", 6000) + _noise(b"office", 6000),
        }
    )


def foreign_ole() -> bytes:
    """A compound file that is not HWP (a Word 97 document's stream names)."""
    return write_cfb(
        {
            "WordDocument": _noise(b"word", 5000),
            "1Table": _noise(b"table", 700),
            "\x05SummaryInformation": bytes(200),
        }
    )


def record_overrun(
    blocks: Sequence[Block] = ("본문",), *, compressed: bool = True, claimed: int = 1000
) -> bytes:
    """An HWP 5 file whose Section0 ends with a PARA_TEXT record claiming *claimed* bytes
    while only 10 follow."""
    streams = hwp5_streams(blocks, compressed=compressed)
    raw = _section_stream(blocks, controls=True)
    raw += (
        struct.pack(
            "<I", spec.PARA_TEXT | 1 << spec.LEVEL_SHIFT | min(claimed, 0xFFE) << spec.SIZE_SHIFT
        )
        + "잘린문단".encode("utf-16-le")
        + b"\0\0"
    )
    streams["BodyText/Section0"] = _deflate(raw) if compressed else raw
    return write_cfb(streams)


def bad_deflate(blocks: Sequence[Block] = ("본문",), *, cut: int | None = None) -> bytes:
    """A compressed HWP 5 file whose Section0 is not valid raw deflate (garbage), or,
    with *cut*, whose deflate data stops after *cut* bytes."""
    streams = hwp5_streams(blocks, compressed=True)
    sec = streams["BodyText/Section0"]
    streams["BodyText/Section0"] = (
        sec[:cut] if cut is not None else b"\xff\xff" + _noise(b"deflate", 64)
    )
    return write_cfb(streams)
