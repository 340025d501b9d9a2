"""The shortcuts of the HWP 5 readers against the readings they stand in for.

Each shortcut answers exactly as its reference: the budget a section walk spends as
the walk record by record; the preview's segments made in C as a list comprehension.
Checked on hypothesis input (damaged streams and budgets right at the edge included),
every fixture and generated documents.
"""

from __future__ import annotations

import io
import struct
from dataclasses import astuple
from pathlib import Path

import olefile
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats import hwp5_text
from hwpscan.formats.hwp5 import read_ole
from hwpscan.formats.hwp5_text import (
    Budget,
    codeunit_view,
    section_text,
    walk_paragraphs,
)
from hwpscan.models import Segment
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import Table, build_hwp5, hwp5_streams

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _record(tag: int, payload: bytes, level: int = 0, *, extended: bool = False) -> bytes:
    if extended or len(payload) >= 0xFFF:
        return struct.pack("<II", tag | level << 10 | 0xFFF << 20, len(payload)) + payload
    return struct.pack("<I", tag | level << 10 | len(payload) << 20) + payload


_records = st.lists(
    st.builds(
        _record,
        st.sampled_from([spec.PARA_HEADER, spec.PARA_TEXT, spec.PARA_CHAR_SHAPE, 71, 0, 1023]),
        st.binary(max_size=24),
        st.integers(0, 3),
        extended=st.booleans(),
    ),
    max_size=30,
)
#: A stream: whole records, then maybe a tail that breaks it (a header cut short, a
#: size running past the end).
_streams = st.tuples(_records, st.binary(max_size=9)).map(lambda t: b"".join(t[0]) + t[1])
_limits = st.one_of(st.just(-1), st.integers(0, 40))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_streams, records=st.integers(0, 40), paragraphs=st.integers(0, 40))
def test_walk_paragraphs_spends_the_budget_as_before(
    data: bytes, records: int, paragraphs: int
) -> None:
    fast, slow = Budget(records=records, paragraphs=paragraphs), Budget(records, paragraphs)
    fast_warnings: list[str] = []
    slow_warnings: list[str] = []
    got = walk_paragraphs(data, "s", fast_warnings, fast)
    # the reference: every record checked against the budget
    hits, count, lone, pos, walked = hwp5_text._scan(data, len(data), records, paragraphs)
    if pos > len(data):
        stop, note = hwp5_text._damage(data, "s")
        slow_warnings.append(note)
        hits, count, lone, pos, walked = hwp5_text._scan(data, stop, records, paragraphs)
    slow.records -= walked
    slow.paragraphs -= count
    if pos < 0:
        slow.spend("records" if slow.records <= 0 else "paragraphs", "s")
    if lone:
        slow_warnings.append(
            f"s: {len(lone)} PARA_TEXT record(s) without a PARA_HEADER "
            f"(first: paragraph {lone[0]}), each counted"
        )
    assert got == (hits, count)
    assert fast_warnings == slow_warnings
    assert astuple(fast) == astuple(slow)


def _preview_reference(raw: bytes) -> list[Segment]:
    if len(raw) & 1:
        raw = raw[:-1]
    text = codeunit_view(raw).rstrip("\x00")
    return [Segment("PrvText", n, 0, line) for n, line in enumerate(text.split("\r\n")) if line]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0x0D, 0x0A, 0x00, 0xAC00, 0x41, 0xDB80, 0xDEB1, 0xFFFD]),
            st.integers(0, 0xFFFF),
        ),
        max_size=40,
    ),
    st.booleans(),
)
@pytest.mark.slow
def test_preview_segments_are_the_lines_as_before(units: list[int], odd: bool) -> None:
    raw = struct.pack(f"<{len(units)}H", *units) + b"\x01" * odd
    streams = hwp5_streams(["본문"], compressed=False)
    streams["PrvText"] = raw
    got = read_ole(write_cfb(streams)).preview
    assert list(got) == _preview_reference(raw)
    assert all(type(seg) is Segment for seg in got)


def test_every_fixture_and_generated_document_reads_its_preview_as_before() -> None:
    docs = [p.read_bytes() for p in sorted(FIXTURES.rglob("*.hwp"))]
    docs += [
        build_hwp5(["첫 줄\t둘", Table([["칸"]]), "\U000f02b1 글머리"], compressed=c)
        for c in (True, False)
    ]
    assert len(docs) > 10
    checked = 0
    for data in docs:
        doc = read_ole(data)
        if not doc.preview:
            continue
        try:
            ole = olefile.OleFileIO(io.BytesIO(data))
        except OSError:
            continue
        with ole:
            path = next("/".join(p) for p in ole.listdir() if "/".join(p).lower() == "prvtext")
            raw = ole.openstream(path).read()
        want = [seg._replace(stream=path) for seg in _preview_reference(raw)]
        assert list(doc.preview) == want
        checked += 1
    assert checked > 5


def test_segments_made_without_the_named_tuple_constructor_are_segments() -> None:
    data = build_hwp5(["첫\t둘 \U000f02b1", Table([["칸 \U000f02b1"]])], compressed=True)
    doc = read_ole(data)
    assert doc.body and doc.meta
    for seg in (*doc.body, *doc.meta, *doc.preview):
        assert type(seg) is Segment
        assert seg == Segment(*seg) and seg.text == seg[3]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0xDB80, 0xDEB1, 0xD83D, 0xDE00, 0xDC00, 0xD800, 0xFFFD]),
            st.integers(0, 0xFFFF),
        ),
        max_size=80,
    )
)
@pytest.mark.slow
def test_the_codeunit_view_is_one_code_point_per_unit(units: list[int]) -> None:
    raw = struct.pack(f"<{len(units)}H", *units)
    want = "".join(map(chr, units))
    assert codeunit_view(raw) == want
    assert hwp5_text._widened(raw) == want
    saved = hwp5_text._WCHARS
    hwp5_text._WCHARS = None  # the 2-byte wchar_t path
    try:
        assert hwp5_text._widened(raw) == want
    finally:
        hwp5_text._WCHARS = saved


def test_the_codeunit_view_of_a_long_text_is_widened_a_chunk_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hwp5_text, "_VIEW_CHUNK", 4)
    units = [0xAC00, 0xDB80, 0xDEB1, 0x41, 0xDB80, 0xDEB1, 0xDC00, 0xD800, 0x20, 0xDEB1]
    assert codeunit_view(struct.pack("<10H", *units)) == "".join(map(chr, units))


def _segments_reference(data: bytes, limit: int) -> tuple[list[Segment], list[str], Budget]:
    """The section's segments read the simple way: each paragraph's payload decoded on
    its own and handed to text_runs, in order, until the segment budget runs out."""
    budget = Budget(segments=limit)
    warnings: list[str] = []
    text = section_text(data, "s", warnings, budget)
    out: list[Segment] = []
    at = 0
    big = codeunit_view(text.raw)
    for (_, _, para), n in zip(text.hits, text.sizes, strict=True):
        if not hwp5_text.text_runs(big[at : at + n], "s", para, out, warnings, limit):
            budget.spend("text segments", "s")
            break
        at += n
    else:
        if len(out) == limit and at < len(big):
            budget.spend("text segments", "s")
    budget.segments -= len(out)
    return out, warnings, budget


_units = st.one_of(
    st.sampled_from([0x0D, 0x0D, 0x0A, 0x09, 0x02, 0x1F, 0xAC00, 0x41, 0xDB80, 0xDEB1]),
    st.integers(0, 0xFFFF),
)
_paragraph_payloads = st.lists(
    st.tuples(st.lists(_units, max_size=20), st.booleans()).map(
        lambda t: struct.pack(f"<{len(t[0])}H", *t[0]) + (b"\x0d\x00" if t[1] else b"")
    ),
    max_size=10,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_paragraph_payloads, st.integers(0, 30))
@pytest.mark.slow
def test_the_paragraph_runs_are_each_paragraphs_text_runs(
    payloads: list[bytes], limit: int
) -> None:
    data = b"".join(_record(spec.PARA_HEADER, b"") + _record(spec.PARA_TEXT, p) for p in payloads)
    budget = Budget(segments=limit)
    warnings: list[str] = []
    out: list[Segment] = []
    hwp5_text.section_segments(data, "s", out, warnings, budget)
    want, want_warnings, want_budget = _segments_reference(data, limit)
    assert out == want
    assert warnings == want_warnings
    assert (budget.segments, budget.exceeded) == (want_budget.segments, want_budget.exceeded)


def test_the_segment_budget_holds_where_a_run_and_a_tab_come_together() -> None:
    """A run followed by a tab adds two segments at one check: the budget must still
    stop at its last segment and say so (it once overshot and never stopped)."""
    tab = [0x09, 0, 0, 0, 0, 0, 0, 0x09]  # a tab control: its code, 6 parameters, its code
    units = [0x41, *tab] * 20 + [0x0D]
    payload = struct.pack(f"<{len(units)}H", *units)
    data = _record(spec.PARA_HEADER, b"") + _record(spec.PARA_TEXT, payload)
    budget = Budget(segments=7)
    out: list[Segment] = []
    hwp5_text.section_segments(data, "s", out, [], budget)
    assert len(out) == 7
    assert budget.exceeded is not None and "7 text segments" in budget.exceeded
