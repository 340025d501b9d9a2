"""HWP 5 records for the fixture writer: record headers, PARA_TEXT units, paragraphs and
the record subtrees of controls (tables, footnotes, headers/footers, text boxes).

Layouts follow Hancom's HWP 5.0 specification, revision 1.3 (table numbers as in
:mod:`hwpscan.formats.hwp5_spec`), with the sizes of Hancom's own files where they differ
(each place says so: pyhwp and hwplib read those and misalign on the spec's).

>>> record(67, 1, b"ab").hex(" ", -4)  # tag 67, level 1, size 2; then the payload
'43042000 6162'
>>> len(record(67, 1, bytes(5000)))  # 0xFFF size marker, then the real size
5008
>>> text_units("a\\tb").hex(" ", 2)  # TAB: 8 units, surrogate-range parameters
'6100 0900 00da 0000 0101 ffdf 0000 0000 0900 6200'
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator, Sequence

from hwpscan.formats import hwp5_spec as spec

# Parameter units of our 8-unit controls: binary values in the surrogate range on
# purpose (a high+low pair and a lone low half), as real files can hold.
_EXTENDED_PARAMS = struct.pack("<4H", 0xD83D, 0xDE00, 0xDC07, 0x0000)
_TAB_PARAMS = "".join(map(chr, (0xDA00, 0x0000, 0x0101, 0xDFFF, 0x0000, 0x0000)))
#: The text characters written as controls: TAB (8 units), line break, NBSP.
_CONTROLS = {
    "\t": chr(spec.TAB) + _TAB_PARAMS + chr(spec.TAB),
    "\n": chr(spec.LINE_BREAK),
    "\u00a0": chr(spec.NBSP),
}
_TEXT_CONTROLS_RE = re.compile("[\t\n\u00a0]")

# PARA_HEADER (spec 표 58): character count (bit 31: last paragraph of its list), control
# mask, paragraph shape, style, break type, char shape count, range tag count, line
# segment count, instance id, change-tracking merge flag.
_PARA_HEADER = struct.Struct("<IIHBBHHHIH")
_LAST_IN_LIST = 0x80000000
# PARA_LINE_SEG (spec 표 62): one line: start, vertical position, height, text height,
# baseline, spacing, column start, width, flags.
_LINE_SEG = struct.pack("<9i", 0, 0, 1000, 1000, 850, 600, 0, 42520, 0x60000)
# LIST_HEADER (spec 표 65): paragraph count, list flags. The spec's count is an INT16,
# but Hancom's files hold a 4-byte count (pyhwp and hwplib read 8 bytes before what
# follows), so every list header here starts with this.
_LIST_HEADER = struct.Struct("<iI")
# A table cell's list header goes on (spec 표 80): column, row, column span, row span,
# width, height, four margins, border fill id; Hancom's files then hold the text width.
_CELL = struct.Struct("<HHHHII4hHI")
_MARGINS = (510, 510, 141, 141)
_id = spec.ctrl_id_word
_BAD_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f]")


def record(tag: int, level: int, payload: bytes) -> bytes:
    size = len(payload)
    head = tag | level << spec.LEVEL_SHIFT | min(size, spec.EXTENDED_SIZE) << spec.SIZE_SHIFT
    extended = struct.pack("<I", size) if size >= spec.EXTENDED_SIZE else b""
    return struct.pack("<I", head) + extended + payload


def control(code: int, ctrl_id: str) -> bytes:
    """An extended control in PARA_TEXT: code, control id, parameters, code."""
    return struct.pack("<HI", code, _id(ctrl_id)) + _EXTENDED_PARAMS + struct.pack("<H", code)


def text_units(text: str) -> bytes:
    """Paragraph text as PARA_TEXT units: TAB, line break and NBSP become controls."""
    bad = _BAD_CONTROL_RE.search(text)
    if bad:
        raise ValueError(f"U+{ord(bad.group()):04X} is a control code, not text")
    units = _TEXT_CONTROLS_RE.sub(lambda m: _CONTROLS[m.group()], text)
    return units.encode("utf-16-le", "surrogatepass")


class SectionWriter:
    """Records of one BodyText section, written in stream order."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.instance = 0x1000
        self.paragraphs = 0  # written by this writer (nested lists use their own)
        #: (code-unit offset of the text in PARA_TEXT, text) of every paragraph of the
        #: section in stream order, nested ones included (shared with nested writers).
        self.placed: list[tuple[int, str]] = []

    def paragraph(
        self,
        level: int,
        text: str = "",
        controls: Sequence[tuple[int, str, Iterator[bytes] | None]] = (),
        *,
        last: bool = True,
        head: bool = False,
    ) -> None:
        """One paragraph: PARA_HEADER, PARA_TEXT, char shape, line seg, then *controls*
        (code, control id, subtree records), before the text with *head*, else after."""
        marks = b"".join(control(code, cid) for code, cid, _ in controls)
        units = (marks + text_units(text) if head else text_units(text) + marks) + struct.pack(
            "<H", spec.PARA_BREAK
        )
        count = len(units) // 2
        codes = {code for code, _, _ in controls} | ({spec.TAB} if "\t" in text else set())
        mask = sum(1 << code for code in codes)
        self.instance += 1
        self.paragraphs += 1
        self.placed.append((len(marks) // 2 if head else 0, text))
        flags = count | (_LAST_IN_LIST if last else 0)
        header = _PARA_HEADER.pack(flags, mask, 0, 0, 0, 1, 0, 1, self.instance, 0)
        self.out += record(spec.PARA_HEADER, level, header)
        if count > 1:  # Hancom writes no PARA_TEXT for a paragraph holding only its end mark
            self.out += record(spec.PARA_TEXT, level + 1, units)
        self.out += record(spec.PARA_CHAR_SHAPE, level + 1, struct.pack("<II", 0, 0))
        self.out += record(spec.PARA_LINE_SEG, level + 1, _LINE_SEG)
        self.out += b"".join(rec for _, _, subtree in controls for rec in subtree or ())

    # Control subtrees: CTRL_HEADER one level below the paragraph, the rest nested.

    def section_def(self, level: int) -> Iterator[bytes]:
        # spec 표 129: attributes, column gap, vertical and horizontal grid, default tab
        # stop, numbering shape, then page, figure, table and equation start numbers;
        # files of version 5.0.1.7 and later hold 8 more bytes (the spec names a language
        # word among them), which pyhwp requires.
        secd = struct.pack("<IIHHHIH4H", _id("secd"), 0, 1134, 0, 0, 8000, *[0] * 5)
        yield record(spec.CTRL_HEADER, level + 1, secd + bytes(8))
        page = struct.pack("<9I", 59528, 84188, 8504, 8504, 5668, 4252, 4252, 4252, 0)
        yield record(spec.PAGE_DEF, level + 2, page + bytes(4))
        # FOOTNOTE_SHAPE (spec 표 133): 28 bytes in Hancom's files (the separator length
        # is 4 bytes, not the spec's HWPUNIT16).
        yield record(spec.FOOTNOTE_SHAPE, level + 2, bytes(28))
        # PAGE_BORDER_FILL (spec 표 135): attributes, four gaps, border fill id.
        yield record(spec.PAGE_BORDER_FILL, level + 2, struct.pack("<I4hH", 1, *[1417] * 4, 1))

    def column_def(self, level: int) -> Iterator[bytes]:
        # spec 표 138: attributes (one column, equal widths), gap, attributes 2, then the
        # separator line: type, width, colour.
        cold = struct.pack("<IHhHBBI", _id("cold"), 0x1004, 0, 0, 0, 0, 0)
        yield record(spec.CTRL_HEADER, level + 1, cold)

    def table(self, level: int, rows: list[list[str]]) -> Iterator[bytes]:
        ncols = max((len(r) for r in rows), default=0)
        yield record(spec.CTRL_HEADER, level + 1, object_common("tbl ", self.instance))
        table = struct.pack("<IHHh4h", 0x04000006, len(rows), ncols, 0, *_MARGINS)
        row_sizes = struct.pack(f"<{len(rows)}HHH", *[ncols] * len(rows), 1, 0)
        yield record(spec.TABLE, level + 2, table + row_sizes)
        width = 8000 - _MARGINS[0] - _MARGINS[1]
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                cell_list = _CELL.pack(c, r, 1, 1, 8000, 1000, *_MARGINS, 1, width)
                yield record(spec.LIST_HEADER, level + 2, _LIST_HEADER.pack(1, 0x20) + cell_list)
                yield from self._nested(level + 2, cell)

    def footnote(self, level: int, text: str) -> Iterator[bytes]:
        # spec 표 136 and Hancom's files: number, prefix and suffix characters, number
        # shape, instance id.
        note = struct.pack("<IIHHII", _id("fn  "), 1, 0, 0, 0, 0)
        yield record(spec.CTRL_HEADER, level + 1, note)
        yield record(spec.LIST_HEADER, level + 2, _LIST_HEADER.pack(1, 0) + bytes(8))
        yield from self._nested(level + 2, text)

    def header_footer(self, level: int, text: str, footer: bool) -> Iterator[bytes]:
        yield record(
            spec.CTRL_HEADER, level + 1, struct.pack("<II", _id("foot" if footer else "head"), 0)
        )
        area = _LIST_HEADER.pack(1, 0) + struct.pack("<II", 42520, 4252) + bytes(4)
        yield record(spec.LIST_HEADER, level + 2, area)
        yield from self._nested(level + 2, text)

    def text_box(self, level: int, text: str) -> Iterator[bytes]:
        yield record(spec.CTRL_HEADER, level + 1, object_common("gso ", self.instance))
        yield record(spec.SHAPE_COMPONENT, level + 2, _shape_component("$rec", 12000, 3000))
        margins = struct.pack("<4hI", 283, 283, 283, 283, 12000) + bytes(13)
        yield record(spec.LIST_HEADER, level + 3, _LIST_HEADER.pack(1, 0) + margins)
        yield from self._nested(level + 3, text)
        corners = struct.pack("<8i", 0, 0, 12000, 0, 12000, 3000, 0, 3000)
        yield record(spec.SHAPE_COMPONENT_RECTANGLE, level + 3, bytes(1) + corners)

    def _nested(self, level: int, text: str) -> Iterator[bytes]:
        nested = SectionWriter()
        nested.instance = self.instance
        nested.placed = self.placed
        nested.paragraph(level, text)
        self.instance = nested.instance
        yield bytes(nested.out)


_IDENTITY = struct.pack("<6d", 1, 0, 0, 0, 1, 0)


def _shape_component(ctrl_id: str, width: int, height: int) -> bytes:
    """SHAPE_COMPONENT of a drawing object at the top of its control: spec 표 83 (the
    control id twice, offset in group, group level, version, initial and current size,
    flags, rotation angle and centre), 표 84 (one scale/rotation pair, identity matrices),
    표 86-87 (no line, no fill), then the 21 bytes pyhwp reads for 5.0.2.4 and later."""
    cid = _id(ctrl_id)
    size = (width, height)
    element = struct.pack(
        "<IIiiHH4IIhiiH", cid, cid, 0, 0, 0, 1, *size, *size, 0, 0, width // 2, height // 2, 1
    )
    line = struct.pack("<IiIB", 0, 0, 0, 0)  # colour, width, attributes, outline style
    fill = struct.pack("<II", 0, 0)  # fill type none, no extra fill bytes
    return element + _IDENTITY * 3 + line + fill + bytes(21)


def object_common(ctrl_id: str, instance: int) -> bytes:
    """CTRL_HEADER payload of a table or drawing object (spec §4.3.9.1 개체 공통 속성)."""
    fields = (0x082A2210, 0, 0, 42520, 3000, 0, *[141] * 4, instance, 0, 0)
    return struct.pack("<IIiiIIi4hIiH", _id(ctrl_id), *fields)


def docinfo_shapes() -> bytes:
    """The DocInfo records every reference in our files points at, in spec order: one
    border fill (id 1), character shape, tab definition and paragraph shape (id 0 each).

    >>> len(docinfo_shapes())
    192
    """
    # BORDER_FILL (spec 표 23): attributes, then left, right, top, bottom and diagonal
    # lines as (type, width, colour) each, fill type 0 (none) and no extra fill bytes.
    border_fill = struct.pack("<H", 0) + struct.pack("<BBI", 0, 1, 0) * 5 + struct.pack("<II", 0, 0)
    # CHAR_SHAPE (spec 표 33): per language (7) face id, width ratio, spacing, relative
    # size and offset; base size 10 pt, attributes, shadow gaps; text, underline, shade
    # and shadow colours; border fill id, strike-out colour.
    char_shape = (
        struct.pack("<7H", *[0] * 7)
        + bytes([100] * 7 + [0] * 7 + [100] * 7 + [0] * 7)
        + struct.pack("<iIbbIIIIHI", 1000, 0, 10, 10, 0, 0, 0xFFFFFFFF, 0xB2B2B2, 1, 0)
    )
    # TAB_DEF (spec 표 36): attributes, then the tab count as 4 bytes in Hancom's files
    # (pyhwp and hwplib read 4; the spec says INT16): no tabs.
    tab_def = struct.pack("<II", 0, 0)
    # PARA_SHAPE (spec 표 43): attributes 1, left and right margins, indent, spacing above
    # and below, line spacing (160 %), tab def, numbering and border fill ids, four
    # border gaps, attributes 2 and 3, line spacing again (5.0.2.5 and later).
    para_shape = struct.pack("<I6iHHH4hIII", 0, 0, 0, 0, 0, 0, 160, 0, 0, 1, 0, 0, 0, 0, 0, 0, 160)
    tags = (spec.BORDER_FILL, spec.CHAR_SHAPE, spec.TAB_DEF, spec.PARA_SHAPE)
    payloads = (border_fill, char_shape, tab_def, para_shape)
    return b"".join(record(tag, 1, p) for tag, p in zip(tags, payloads, strict=True))
