"""Record walking and PARA_TEXT decoding on hand-built records (spec §4.1, 표 6)."""

from __future__ import annotations

import struct
import zlib

import pytest

from hwpscan.errors import CorruptFileError
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5_text import (
    codeunit_view,
    inflate,
    section_segments,
    text_runs,
    walk_paragraphs,
)
from hwpscan.models import Segment


def record(tag: int, payload: bytes, level: int = 0, *, extended: bool = False) -> bytes:
    if extended or len(payload) >= 0xFFF:
        return struct.pack("<II", tag | level << 10 | 0xFFF << 20, len(payload)) + payload
    return struct.pack("<I", tag | level << 10 | len(payload) << 20) + payload


def units(*parts: str | int) -> bytes:
    """Text and control codes as PARA_TEXT bytes."""
    out = b""
    for part in parts:
        out += struct.pack("<H", part) if isinstance(part, int) else part.encode("utf-16-le")
    return out


def wide(code: int, *params: int) -> tuple[int, ...]:
    """An 8-unit control: the code, six parameter units, the code again."""
    return (code, *params, *([0] * (6 - len(params))), code)


def test_walk_finds_records_at_every_level_and_extended_sizes() -> None:
    big = units("가" * 3000)
    data = (
        record(spec.PARA_HEADER, bytes(24))
        + record(spec.PARA_TEXT, units("a", 13), 1)
        + record(spec.PARA_HEADER, bytes(24), 2)
        + record(spec.PARA_TEXT, b"", 3)
        + record(spec.PARA_HEADER, bytes(24), 1)
        + record(spec.PARA_TEXT, big, 2)
        + record(spec.PARA_HEADER, bytes(24), 5, extended=True)
        + record(spec.PARA_TEXT, units("b"), 1, extended=True)  # 0xFFF form for a small one
    )
    warnings: list[str] = []
    hits, count = walk_paragraphs(data, "s", warnings)
    assert warnings == [] and count == 4
    assert [(data[a:b], para) for a, b, para in hits] == [
        (units("a", 13), 0),
        (b"", 1),
        (big, 2),
        (units("b"), 3),
    ]


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        (b"\x43\x00", "s: record header cut short at byte 40"),
        (struct.pack("<I", spec.PARA_TEXT | 0xFFF << 20), "s: record header cut short at byte 40"),
        (
            struct.pack("<I", spec.PARA_TEXT | 8 << 20) + b"ab",
            "s: record at byte 40 (tag 67) claims 8",
        ),
        (
            struct.pack("<II", 67 | 0xFFF << 20, 2**31) + b"x",
            "s: record at byte 40 (tag 67) claims 2147483648",
        ),
    ],
)
def test_walk_stops_at_damage_and_says_where(tail: bytes, message: str) -> None:
    data = (
        record(spec.PARA_HEADER, bytes(24))
        + record(spec.PARA_TEXT, units("ok"))
        + record(spec.PARA_HEADER, bytes(0))
        + tail
    )
    warnings: list[str] = []
    hits, count = walk_paragraphs(data, "s", warnings)
    assert [data[a:b] for a, b, _ in hits] == [units("ok")] and count == 2
    (warning,) = warnings
    assert warning.startswith(message)


def runs(*parts: str | int) -> list[tuple[int, str]]:
    out: list[Segment] = []
    warnings: list[str] = []
    text_runs(codeunit_view(units(*parts)), "s", 0, out, warnings)
    assert warnings == []
    return [(s.offset, s.text) for s in out]


def test_char_controls_keep_offsets_and_map_to_characters() -> None:
    assert runs("a", 10, "b", 24, "c", 30, "d", 31, "e", 13) == [(0, "a\nb-c\u00a0d e")]


def test_dropped_char_controls_split_runs() -> None:
    assert runs("a", 0, "b", 25, "c", 13) == [(0, "a"), (2, "b"), (4, "c")]


def test_wide_controls_are_skipped_with_their_parameters() -> None:
    """Parameter units that look like controls (10, 13) or surrogates must not leak."""
    text = ("앞", *wide(11, 0x6C20, 0x7462, 10, 13, 0xDB80, 0xDEB1), "뒤", *wide(9, 0xDC00), 13)
    assert runs(*text) == [(0, "앞"), (9, "뒤"), (10, "\t")]


def test_section_segments_mixes_simple_and_control_paragraphs() -> None:
    pair = "\U000f02b1"
    paragraphs = [
        units("하나 " + pair, 13),
        units(*wide(2, 0xD800), "둘", 13),
        units("셋"),  # no paragraph end at all
        b"",
        units(13),
        units("넷 ", 0xDC00, 13),
    ]
    data = b"".join(
        record(spec.PARA_HEADER, bytes(24)) + record(spec.PARA_TEXT, p, 1) for p in paragraphs
    )
    out: list[Segment] = []
    warnings: list[str] = []
    assert section_segments(data, "s", out, warnings) == 6
    high, low = chr(0xDB80), chr(0xDEB1)
    assert [(s.paragraph, s.offset, s.text) for s in out] == [
        (0, 0, "하나 " + high + low),
        (1, 8, "둘"),
        (2, 0, "셋"),
        (5, 0, "넷 " + chr(0xDC00)),
    ]
    assert warnings == []


def para(text: bytes | None, level: int = 0) -> bytes:
    """A paragraph's PARA_HEADER, then its PARA_TEXT (none when *text* is None)."""
    out = record(spec.PARA_HEADER, bytes(24), level)
    return out if text is None else out + record(spec.PARA_TEXT, text, level + 1)


def test_paragraph_numbers_count_every_para_header_at_every_level() -> None:
    """Empty paragraphs (no PARA_TEXT) and nested paragraphs keep their place."""
    data = (
        para(None)  # 0: only its end mark, so no PARA_TEXT (as Hancom writes it)
        + para(units(13))  # 1: a PARA_TEXT holding just the end mark
        + para(units("표 앞", *wide(11, 0x6C20, 0x7462), 13))  # 2: holds a table
        + para(units("셀", 13), 2)  # 3: the table's first cell
        + para(None, 2)  # 4: an empty cell
        + para(units("셀 둘", 13), 2)  # 5
        + para(units("끝", 13))  # 6
    )
    out: list[Segment] = []
    warnings: list[str] = []
    assert section_segments(data, "s", out, warnings) == 7
    assert [(s.paragraph, s.text) for s in out] == [
        (2, "표 앞"),
        (3, "셀"),
        (5, "셀 둘"),
        (6, "끝"),
    ]
    assert warnings == []


def test_para_text_without_its_own_header_is_a_paragraph_and_a_warning() -> None:
    data = (
        record(spec.PARA_TEXT, units("머리 없음", 13))
        + para(units("하나", 13))
        + record(spec.PARA_TEXT, units("둘째 기록", 13))
        + para(None)
    )
    out: list[Segment] = []
    warnings: list[str] = []
    assert section_segments(data, "s", out, warnings) == 4
    assert [(s.paragraph, s.text) for s in out] == [(0, "머리 없음"), (1, "하나"), (2, "둘째 기록")]
    assert warnings == [
        "s: 2 PARA_TEXT record(s) without a PARA_HEADER (first: paragraph 0), each counted"
    ]


def test_odd_payload_and_cut_control_are_warnings() -> None:
    data = para(units("가") + b"\x41") + para(units("나", 9, 0, 0))
    out: list[Segment] = []
    warnings: list[str] = []
    section_segments(data, "s", out, warnings)
    assert [s.text for s in out] == ["가", "나"]
    assert warnings == [
        "s: paragraph 0 has an odd byte count; last byte ignored",
        "s: paragraph 1 ends inside an 8-unit control at unit 1",
    ]


def test_inflate_caps_output_and_reports_early_end() -> None:
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = comp.compress(b"x" * 10_000) + comp.flush()
    assert inflate(packed, "s", 10_000) == (b"x" * 10_000, None)
    with pytest.raises(CorruptFileError, match="inflates past the 9999-byte cap"):
        inflate(packed, "s", 9_999)
    data, note = inflate(packed[: len(packed) // 2], "s", 10_000)
    assert note is not None and "ends early" in note and len(data) < 10_000
