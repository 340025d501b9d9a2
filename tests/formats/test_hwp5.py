"""The HWP 5 reader on real files from our writer, checked against independent readers.

Expected values are computed from the text put in (its UTF-16 code units), never from
the reader; python-hwpx's ``read_hwp5`` (its own CFB and record code) and olefile
confirm what the files hold.
"""

from __future__ import annotations

import io
import struct

import olefile
import pytest
from hwpx.hwp5.bodytext import iter_paragraphs
from hwpx.hwp5.reader import read_hwp5

from hwpscan.forensics.surrogates import analyze
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5 import read_ole
from hwpscan.models import Format, Segment
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import (
    Footnote,
    HeaderFooter,
    Table,
    TextBox,
    build_hwp5,
    hwp5_streams,
)

BULLET = chr(0xF02B1)  # Hancom PUA-A bullet, stored as DB80 DEB1
BRACKET = chr(0xF0854)  # stored as DB82 DC54
LONE_HIGH, LONE_LOW = chr(0xDB80), chr(0xDC00)


def units_view(text: str) -> str:
    """Reference codeunit view: one code point per UTF-16 unit, built unit by unit."""
    raw = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(u) for u in struct.unpack(f"<{len(raw) // 2}H", raw))


def unit_counts(texts: list[str]) -> tuple[int, int, int]:
    """(surrogate units, adjacent high+low pairs, orphans) counted over each text."""
    surrogates = pairs = 0
    for text in texts:
        units = [ord(c) for c in units_view(text)]
        surrogates += sum(0xD800 <= u <= 0xDFFF for u in units)
        i = 0
        while i < len(units) - 1:
            if 0xD800 <= units[i] <= 0xDBFF and 0xDC00 <= units[i + 1] <= 0xDFFF:
                pairs += 1
                i += 2
            else:
                i += 1
    return surrogates, pairs, surrogates - 2 * pairs


def paragraphs(segments: tuple[Segment, ...]) -> list[str]:
    out: dict[tuple[str, int], str] = {}
    for s in segments:
        out[(s.stream, s.paragraph)] = out.get((s.stream, s.paragraph), "") + s.text
    return list(out.values())


BLOCKS = [
    "머리 " + BULLET + " 본문\t탭 뒤\n줄바꿈" + "\u00a0끝",
    Table([["셀 " + BULLET, "평범"], ["괄호 " + BRACKET, "고아 " + LONE_LOW]]),
    Footnote("각주 " + BULLET, anchor="앵커"),
    TextBox("글상자 " + BRACKET),
    HeaderFooter("머리말 " + BULLET),
    HeaderFooter("꼬리말", footer=True),
    "끝 문단 " + LONE_HIGH,
]
TEXTS = [
    "머리 " + BULLET + " 본문\t탭 뒤\n줄바꿈\u00a0끝",
    "셀 " + BULLET,
    "평범",
    "괄호 " + BRACKET,
    "고아 " + LONE_LOW,
    "앵커",
    "각주 " + BULLET,
    "글상자 " + BRACKET,
    "머리말 " + BULLET,
    "꼬리말",
    "끝 문단 " + LONE_HIGH,
]


@pytest.mark.parametrize("compressed", [True, False])
def test_every_paragraph_kind_is_body_text_in_the_codeunit_view(compressed: bool) -> None:
    doc = read_ole(build_hwp5(BLOCKS, compressed=compressed))
    assert doc.format is Format.HWP5 and doc.status is None and doc.warnings == ()
    assert paragraphs(doc.body) == [units_view(t) for t in TEXTS]
    assert doc.info.compressed is compressed and doc.info.version == "5.1.0.1"


def test_counts_of_pairs_and_orphans_in_body_table_footnote_textbox_header() -> None:
    stats = analyze(read_ole(build_hwp5(BLOCKS)).body)
    surrogates, pairs, orphans = unit_counts(TEXTS)
    assert (
        (stats.surrogates, stats.pairs, stats.orphans) == (surrogates, pairs, orphans) == (14, 6, 2)
    )
    assert stats.pua == {"U+F02B1": 4, "U+F0854": 2}
    assert not stats.utf8_ok and "surrogates not allowed" in (stats.utf8_error or "")


def test_segment_offsets_point_at_the_code_units_in_the_record() -> None:
    """Every segment reproduces from its location, read with python-hwpx's record parser."""
    data = build_hwp5(BLOCKS)
    paras = [p for sec in read_hwp5(data).sections for p in iter_paragraphs(sec.roots)]
    doc = read_ole(data)
    replaced = {"\t": spec.TAB, "\n": spec.LINE_BREAK, "\u00a0": spec.NBSP}
    assert len(paras) == doc.info.paragraphs
    for seg in doc.body:
        record = paras[seg.paragraph].text_record
        assert record is not None, seg
        payload = record.payload
        units = struct.unpack_from(f"<{len(seg.text)}H", payload, seg.offset * 2)
        expected = "".join(chr(replaced[c]) if c in replaced else c for c in seg.text)
        assert "".join(map(chr, units)) == expected, seg
    first = doc.body[0]
    assert first.offset == 16  # after the section and column definition controls


@pytest.mark.parametrize("controls", [True, False])
def test_empty_paragraphs_keep_their_numbers(controls: bool) -> None:
    """Two empty paragraphs (with controls: the first holds the section definitions and
    so has a PARA_TEXT record; without: neither has one), then the bullet: paragraph 2."""
    doc = read_ole(build_hwp5(["", "", BULLET + "셋째 문단"], tabs_and_controls=controls))
    assert doc.info.paragraphs == 3 and doc.warnings == ()
    (loc,) = analyze(doc.body).locations
    assert (loc.paragraph, loc.offset, loc.codepoint) == (2, 0, "U+F02B1")


def test_nested_paragraphs_are_numbered_in_document_order() -> None:
    """A table's cells, a footnote's and a text box's text and a header's text come right
    after the paragraph holding the control, counted like any other paragraph."""
    doc = read_ole(build_hwp5(BLOCKS))
    numbers = {}
    for seg in doc.body:
        numbers.setdefault(seg.paragraph, "")
        numbers[seg.paragraph] += seg.text
    # 0 first text; 1 holds the table, 2-5 its cells; 6 the footnote anchor, 7 its text;
    # 8 holds the text box (no text of its own), 9 its text; 10 holds the header, 11 its
    # text; 12 the footer, 13 its text; 14 the last paragraph.
    assert list(numbers) == [0, 2, 3, 4, 5, 6, 7, 9, 11, 13, 14]
    assert list(numbers.values()) == [units_view(t) for t in TEXTS]
    assert doc.info.paragraphs == 15


def test_paragraph_count_spans_sections() -> None:
    doc = read_ole(build_hwp5(["하나", "", "셋", Table([["가", ""]])], sections=2))
    streams = {(s.stream, s.paragraph, s.text) for s in doc.body}
    # Section0: "하나", an empty paragraph; Section1: "셋", the table holder, two cells.
    assert streams == {
        ("BodyText/Section0", 0, "하나"),
        ("BodyText/Section1", 0, "셋"),
        ("BodyText/Section1", 2, "가"),
    }
    assert doc.info.paragraphs == 6


def test_independent_reader_sees_our_paragraphs() -> None:
    """python-hwpx merges pairs (strict view) and leaves out controls: compare to that."""
    data = build_hwp5(BLOCKS)
    hwp = read_hwp5(data)
    theirs = [
        "".join(c.text for c in p.chunks if c.kind == "text")
        for sec in hwp.sections
        for p in iter_paragraphs(sec.roots)
    ]
    ours = [t.replace("\t", "").replace("\n", "").replace("\u00a0", "") for t in TEXTS]
    assert [t for t in theirs if t] == ours
    assert hwp.header.compressed and not hwp.notes


def test_controls_are_skipped_whole_even_with_surrogate_parameters() -> None:
    """Clean text in paragraphs full of 8-unit controls whose parameter units hold
    values in 0xD800-0xDFFF: no surrogate leaks, TAB is one character."""
    clean = [
        "가\t나",
        Table([["다", "라"]]),
        Footnote("마", anchor="바"),
        TextBox("사"),
        HeaderFooter("아"),
    ]
    data = build_hwp5(clean)
    raw = zlib_section(data)
    assert struct.pack("<H", 0xD83D) in raw and struct.pack("<H", 0xDA00) in raw  # they are there
    doc = read_ole(data)
    stats = analyze(doc.body)
    assert stats.surrogates == 0 and stats.utf8_ok
    assert paragraphs(doc.body) == ["가\t나", "다", "라", "바", "마", "사", "아"]


def zlib_section(data: bytes, n: int = 0) -> bytes:
    import zlib

    ole = olefile.OleFileIO(io.BytesIO(data))
    return zlib.decompress(ole.openstream(f"BodyText/Section{n}").read(), -15)


def test_sections_are_read_in_numeric_order() -> None:
    blocks = [f"구역 {n}" for n in range(12)]
    data = build_hwp5(blocks, sections=12)
    ole = olefile.OleFileIO(io.BytesIO(data))
    names = [p[1] for p in ole.listdir() if p[0] == "BodyText"]
    assert names.index("Section10") < names.index("Section2")  # by name, 10 sorts first
    doc = read_ole(data)
    assert [s.stream for s in doc.body] == [f"BodyText/Section{n}" for n in range(12)]
    assert [s.text for s in doc.body] == blocks
    assert doc.info.sections == 12
    assert read_hwp5(data).sections[10].records  # python-hwpx accepts the numbering


def test_extended_size_records_over_4095_bytes() -> None:
    long = ("긴 문단 " + BULLET) * 400  # 2400 units: a 4802-byte PARA_TEXT
    data = build_hwp5([long], compressed=False)
    raw = olefile.OleFileIO(io.BytesIO(data)).openstream("BodyText/Section0").read()
    assert struct.pack("<I", spec.PARA_TEXT | 1 << 10 | 0xFFF << 20) in raw
    doc = read_ole(data)
    assert paragraphs(doc.body) == [units_view(long)]
    assert analyze(doc.body).pairs == 400


def test_preview_and_docinfo_strings_are_reported_apart() -> None:
    style = "스타일 " + LONE_HIGH
    data = build_hwp5(["본문 " + BULLET, "둘째"], style_names=[style, "제목"])
    doc = read_ole(data)
    assert [s.text for s in doc.preview] == [units_view("본문 " + BULLET), "둘째"]
    assert all(s.stream == "PrvText" for s in doc.preview)
    names = [s.text for s in doc.meta]
    assert names.count("함초롬바탕") == 7 and units_view(style) in names and "제목" in names
    meta = analyze(doc.meta)
    assert (meta.surrogates, meta.pairs, meta.orphans) == (1, 0, 1)
    assert analyze(doc.preview).pairs == 1


def test_explicit_preview_text() -> None:
    doc = read_ole(build_hwp5(["본문"], preview="미리 " + BRACKET + "\r\n둘째 줄"))
    assert [(s.paragraph, s.text) for s in doc.preview] == [
        (0, units_view("미리 " + BRACKET)),
        (1, "둘째 줄"),
    ]


def test_same_arguments_give_byte_identical_files() -> None:
    kwargs = {"style_names": ["바탕글"], "sections": 2, "preview": None}
    assert build_hwp5(BLOCKS, **kwargs) == build_hwp5(list(BLOCKS), **kwargs)
    assert build_hwp5(BLOCKS, password=True) == build_hwp5(BLOCKS, password=True)
    assert build_hwp5(BLOCKS, distribution=True) == build_hwp5(BLOCKS, distribution=True)
    assert build_hwp5(BLOCKS) != build_hwp5(BLOCKS, compressed=False)


def test_without_section_controls_the_text_starts_at_offset_zero() -> None:
    doc = read_ole(build_hwp5(["가나"], tabs_and_controls=False))
    assert [(s.offset, s.text) for s in doc.body] == [(0, "가나")]


def test_writer_refuses_control_codes_as_text() -> None:
    with pytest.raises(ValueError, match=r"U\+000D is a control code"):
        build_hwp5(["a\rb"])


def test_font_alternative_and_default_names_are_meta() -> None:
    """FACE_NAME with all optional parts (spec 표 19), one name holding a lone half."""

    def wchars(text: str) -> bytes:
        raw = text.encode("utf-16-le", "surrogatepass")
        return struct.pack("<H", len(raw) // 2) + raw

    face = (
        bytes([spec.FACE_HAS_ALTERNATIVE | spec.FACE_HAS_TYPE_INFO | spec.FACE_HAS_DEFAULT])
        + wchars("바탕")
        + b"\x01"
        + wchars("Batang" + LONE_LOW)
        + bytes(spec.FACE_TYPE_INFO_BYTES)
        + wchars("굴림")
    )
    cut = bytes([spec.FACE_HAS_ALTERNATIVE]) + wchars("돋움") + b"\x01" + struct.pack("<H", 50)
    docinfo = b"".join(
        struct.pack("<I", spec.FACE_NAME | 1 << 10 | len(p) << 20) + p for p in (face, cut)
    )
    streams = hwp5_streams(["본문"], compressed=False)
    streams["DocInfo"] = docinfo
    doc = read_ole(write_cfb(streams))
    assert [(s.paragraph, s.offset, s.text) for s in doc.meta] == [
        (0, 0, "바탕"),
        (0, 2, "Batang" + LONE_LOW),
        (0, 9, "굴림"),
        (1, 0, "돋움"),
    ]
    assert doc.warnings == ("DocInfo: record 1 (tag 19) name 1 runs past the record",)
    assert analyze(doc.meta).orphans == 1
