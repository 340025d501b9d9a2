"""The counted plain body against the segments it stands for.

A scan reads an HWP 5 document with ``count_plain_body``: the native reader counts a
body, preview or set of DocInfo names whose text holds no surrogate, private-use unit,
folded symbol or U+FFFD instead of making its segments. Its counts must be what
segmenting the text (the Python reader) and counting it
(:func:`~hwpscan.forensics.surrogates.analyze`) gives, and a scan row must be the same
byte for byte either way. Checked on hand-made sections from hypothesis (every control
code, 8-unit controls whose parameters look like surrogates, odd byte counts, PARA_TEXT
without a header), every fixture, a generated corpus, mutated copies of it and
documents whose first sections are plain and a later one is not.
"""

from __future__ import annotations

import random
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.forensics.surrogates import analyze as reference_analyze
from hwpscan.formats import fast_readers, read_document
from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import Document, FileResult, PlainCounts, TextStats
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import Footnote, Table, build_hwp5, hwp5_streams
from hwpscan.rowcodec import encode_row
from hwpscan.scanning import one_file as scan_module
from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.one_file import scan_bytes

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HIGH, LOW = chr(0xDB80), chr(0xDEB1)
WIDE = sorted(spec.INLINE_CONTROLS | spec.EXTENDED_CONTROLS)
#: A paragraph: pieces of code units, then: ends with the paragraph end, has its
#: PARA_HEADER, how many odd bytes follow its units.
_Paragraph = tuple[list[list[int]], bool, bool, int]


def _record(tag: int, payload: bytes) -> bytes:
    if len(payload) >= 0xFFF:
        return struct.pack("<II", tag | 0xFFF << 20, len(payload)) + payload
    return struct.pack("<I", tag | len(payload) << 20) + payload


#: One code unit of text, or an 8-unit control with parameters that may look like
#: surrogates or private use (real ones hold ids and pointers: any bytes at all).
_plain_unit = st.sampled_from([0xAC00, 0xD55C, 0x41, 0x20, 0x4E00, 0xFF01, 0xD7A3])
_notable_unit = st.sampled_from([0xD800, 0xDB80, 0xDEB1, 0xDFFF, 0xE000, 0xF02B, 0xF8FF, 0xFFFD])
_control_unit = st.integers(0, 31)
_param = st.one_of(st.integers(0, 0xFFFF), _notable_unit)
_wide = st.tuples(st.sampled_from(WIDE), st.lists(_param, min_size=6, max_size=6))
_clean_piece = st.one_of(
    _plain_unit.map(lambda u: [u]),
    _plain_unit.map(lambda u: [u]),
    _control_unit.map(lambda u: [u]),
    _wide.map(lambda w: [w[0], *w[1], w[0]]),
    _wide.map(lambda w: [w[0], *w[1][:3]]),  # an 8-unit control cut short
)
_piece = st.one_of(_clean_piece, _notable_unit.map(lambda u: [u]))


def _paragraph(piece: st.SearchStrategy[list[int]]) -> st.SearchStrategy[_Paragraph]:
    return st.tuples(
        st.lists(piece, max_size=12),
        st.booleans(),  # ends with the paragraph end
        st.booleans(),  # has its PARA_HEADER
        st.sampled_from([0, 0, 0, 1]),  # an odd byte after it
    )


def _section(paragraphs: list[_Paragraph]) -> bytes:
    out = b""
    for pieces, end, header, odd in paragraphs:
        units = [u for piece in pieces for u in piece] + ([spec.PARA_BREAK] if end else [])
        payload = struct.pack(f"<{len(units)}H", *units) + b"\x07" * odd
        if header:
            out += _record(spec.PARA_HEADER, b"")
        out += _record(spec.PARA_TEXT, payload)
    return out


def _document_of(section: bytes) -> bytes:
    """An HWP 5 document (uncompressed) whose one section is *section*."""
    streams = hwp5_streams(["x"], compressed=False)
    streams["BodyText/Section0"] = section
    return write_cfb(streams)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_paragraph(_clean_piece), max_size=12))
@pytest.mark.slow
def test_any_plain_section_counts_as_its_segments(paragraphs: list[_Paragraph]) -> None:
    with pytest.MonkeyPatch.context() as m:
        _check(_document_of(_section(paragraphs)), m)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_paragraph(_piece), max_size=12))
@pytest.mark.slow
def test_any_section_counts_as_its_segments_or_is_segmented(paragraphs: list[_Paragraph]) -> None:
    with pytest.MonkeyPatch.context() as m:
        _check(_document_of(_section(paragraphs)), m)


def test_a_plain_section_with_surrogate_like_control_parameters_is_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the section definition control's parameters hold a valid-looking pair: no text
    secd = [spec.SECTION_COLUMN_DEF, 0x6364, 0x7365, 0xD83D, 0xDE00, 0xDC07, 0, 2]
    data = _document_of(_section([([secd, [0xAC00, 0x41]], True, True, 0)]))
    if fast_readers.ACTIVE:
        assert read_document(data, count_plain_body=True).info.plain_body == PlainCounts(2, 2)
    _check(data, monkeypatch)


def test_a_text_surrogate_is_never_counted_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _document_of(_section([([[0xAC00], [0xDB80], [0xDEB1]], True, True, 0)]))
    assert read_document(data, count_plain_body=True).info.plain_body is None
    _check(data, monkeypatch)


def _read(data: bytes, *, count_plain_body: bool = False) -> Document | None:
    try:
        return read_document(data, count_plain_body=count_plain_body)
    except Exception:  # a file the reader rejects: the scan rows still must agree
        return None


def _same_document(data: bytes) -> None:
    full = _read(data)
    counted = _read(data, count_plain_body=True)
    if full is None or counted is None:
        assert full is counted
        return
    fields = _fields(full)
    plain = counted.info.plain_body
    if plain is not None:
        assert reference_analyze(full.body) == TextStats(chars=plain.chars)
        assert plain.units == sum(len(seg.text) for seg in full.body)
        fields["body"] = ()
    names = counted.info.plain_meta
    if names is not None:
        assert reference_analyze(full.meta, max_locations=5) == TextStats(chars=names.chars)
        assert names.units == sum(len(seg.text) for seg in full.meta) > 0
        fields["meta"] = ()
    preview = counted.info.plain_preview
    if preview is not None:
        assert reference_analyze(full.preview, max_locations=5) == TextStats(chars=preview.chars)
        assert preview.units == sum(len(seg.text) for seg in full.preview) > 0
        fields["preview"] = ()
    fields["info"] = replace(full.info, plain_body=plain, plain_meta=names, plain_preview=preview)
    assert counted == Document(**fields)


def _fields(doc: Document) -> dict[str, object]:
    return {name: getattr(doc, name) for name in Document.__slots__}


def _rows(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[FileResult, FileResult]:
    fast = scan_bytes(data, path="f.hwp", date="2025-07-21")
    with monkeypatch.context() as m:
        m.setattr(scan_module, "read_document", lambda raw, **_: read_document(raw))
        slow = scan_bytes(data, path="f.hwp", date="2025-07-21")
    return replace(fast, seconds=0.0), replace(slow, seconds=0.0)


def _check(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    _same_document(data)
    fast, slow = _rows(data, monkeypatch)
    assert fast == slow
    assert encode_row(fast) == encode_row(slow)


def test_every_fixture_scans_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    files = [p for p in collect_files([FIXTURES]) if p.suffix in {".hwp", ".hwpx", ".pdf"}]
    assert len(files) > 40
    counted = previews = 0
    for path in files:
        data = path.read_bytes()
        _check(data, monkeypatch)
        doc = _read(data, count_plain_body=True)
        counted += doc is not None and doc.info.plain_body is not None
        previews += doc is not None and doc.info.plain_preview is not None
    if fast_readers.ACTIVE:  # the native reader counts: the plain path is taken
        assert counted >= 5 and previews >= 5, (counted, previews)


#: Preview text: every unit the counting tells apart, line breaks of every kind, NULs.
_preview_chars = st.sampled_from(
    [
        "가",
        "a",
        " ",
        "\r",
        "\n",
        "\r\n",
        "\x00",
        "\t",
        "\ufffd",
        "\ue000",
        HIGH,
        LOW,
        "\ufd41",
        "\xff",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(_preview_chars, max_size=30))
@pytest.mark.slow
def test_a_preview_counted_plain_scans_as_its_segments(pieces: list[str]) -> None:
    data = build_hwp5(["본문"], preview="".join(pieces))
    with pytest.MonkeyPatch.context() as m:
        _check(data, m)


def _document(rng: random.Random, dirty: float) -> bytes:
    words = ["보도자료", "예산", "지원", "abc", "\t", "\n", "\u00a0", "-", " "]
    bad = [HIGH + LOW, LOW, "\ue000", "\ufffd"]

    def para() -> str:
        pool = words + (bad if rng.random() < dirty else [])
        return "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))

    blocks: list[object] = [para() for _ in range(rng.randint(1, 30))]
    if rng.random() < 0.5:
        blocks.insert(rng.randrange(len(blocks) + 1), Table([[para(), para()], [para(), ""]]))
    if rng.random() < 0.5:
        blocks.insert(rng.randrange(len(blocks) + 1), Footnote(para(), anchor="주"))
    return build_hwp5(blocks, sections=rng.randint(1, 3))  # type: ignore[arg-type]


@pytest.mark.slow
def test_generated_and_mutated_documents_scan_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1515)
    for _ in range(80):
        data = _document(rng, rng.choice([0.0, 0.1, 0.5]))
        _check(data, monkeypatch)
        broken = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            broken[rng.randrange(len(broken))] = rng.randrange(256)
        _check(bytes(broken), monkeypatch)
        _check(bytes(broken[: rng.randrange(len(broken) + 1)]), monkeypatch)


def test_plain_sections_before_a_contaminated_one_keep_their_segments_and_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cut = "\t".join(["가"] * 3)
    blocks = ["첫 구역", cut, "둘째 구역", "셋째 " + HIGH + LOW, "넷째"]
    data = build_hwp5(blocks, sections=4)
    doc = read_document(data, count_plain_body=True)
    assert doc.info.plain_body is None
    full = read_document(data)
    assert doc.body == full.body and doc.warnings == full.warnings
    assert doc.body[0].stream == "BodyText/Section0"
    _check(data, monkeypatch)
    clean = build_hwp5(blocks[:3] + blocks[4:], sections=4)
    assert read_document(clean, count_plain_body=True).info.plain_body is not None
    _check(clean, monkeypatch)
