"""The fast counting against the reference it replaced, result for result.

``reference_surrogates`` is the counting as it was before its fast path (kept in the
tests, unchanged). Every fixture, a generated corpus of press releases, mutated copies
of them and a hypothesis-driven stream of segment lists must give identical
:class:`~hwpscan.models.TextStats`, locations and all.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_surrogates import analyze as reference_analyze
from reference_surrogates import escape_snippet as reference_escape
from reference_surrogates import merge_pairs as reference_merge
from reference_surrogates import utf8_error as reference_utf8_error

from hwpscan.forensics.surrogates import (
    _escape_context,
    analyze,
    escape_snippet,
    merge_pairs,
    utf8_error,
)
from hwpscan.formats import read_document
from hwpscan.models import Segment
from hwpscan.rehearsal.synth.hwp5 import build_hwp5
from hwpscan.scanning.inputs import collect_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HIGH, LOW = chr(0xDB80), chr(0xDEB1)
#: Units that matter to the counts: halves, BMP and astral private use, controls kept
#: as text, the replacement character, newlines, Hangul and ASCII.
ALPHABET = [HIGH, LOW, chr(0xD800), chr(0xDFFF), "\ue000", "\uf8ff", "\U000f02b1", "\ufffd"]
ALPHABET += ["\n", "\r", "\t", "\x00", "가", "한", "a", " "]


def _same(segments: list[Segment]) -> None:
    for limit in (20, 5, 1):
        assert analyze(segments, max_locations=limit) == reference_analyze(
            segments, max_locations=limit
        )


def _documents(data: bytes) -> list[list[Segment]]:
    try:
        doc = read_document(data)
    except Exception:  # a mutated file the reader rejects has nothing to count
        return []
    return [doc.body, doc.preview, doc.meta]


def test_every_fixture_counts_the_same() -> None:
    files = [p for p in collect_files([FIXTURES]) if p.suffix in {".hwp", ".hwpx", ".pdf"}]
    assert len(files) > 40
    for path in files:
        for segments in _documents(path.read_bytes()):
            _same(segments)


def _press_release(rng: random.Random) -> bytes:
    words = ["보도자료", "예산", "지원", HIGH + LOW, LOW, "\ue000", "\uf02b", "abc", "\t"]
    paras = [
        "".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        for _ in range(rng.randint(1, 40))
    ]
    return build_hwp5(paras)


@pytest.mark.slow
def test_generated_and_mutated_files_count_the_same() -> None:
    rng = random.Random(15)
    for _ in range(300):
        data = _press_release(rng)
        for segments in _documents(data):
            _same(segments)
        broken = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            broken[rng.randrange(len(broken))] = rng.randrange(256)
        for segments in _documents(bytes(broken[: rng.randrange(len(broken) + 1)])):
            _same(segments)
        for segments in _documents(bytes(broken)):
            _same(segments)


_text = st.text(alphabet=st.sampled_from(ALPHABET), max_size=40)
_segment = st.tuples(st.sampled_from(["BodyText/Section0", "BodyText/Section1"]), _text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_segment, st.booleans(), st.integers(0, 9)), max_size=40))
@pytest.mark.slow
def test_any_segment_list_counts_the_same(
    items: list[tuple[tuple[str, str], bool, int]],
) -> None:
    segments: list[Segment] = []
    para = offset = 0
    for (stream, text), new_paragraph, gap in items:
        if new_paragraph or not segments or segments[-1].stream != stream:
            para, offset = para + 1, 0
        segments.append(Segment(stream, para, offset, text))
        offset += len(text) + gap
    _same(segments)


@pytest.mark.parametrize("repeat", [1, 3])
def test_neighbouring_runs_of_one_paragraph_join_before_counting(repeat: int) -> None:
    # a pair split over two runs of one paragraph is one pair, in both implementations
    segments = [Segment("s", 0, 0, "x" + HIGH), Segment("s", 0, 9, LOW + "y")] * repeat
    _same(segments)
    assert analyze(segments).pairs == repeat
    # and so in paragraphs of two runs each, one after another
    paragraphs = [
        Segment("s", k, offset, text)
        for k in range(repeat)
        for offset, text in ((0, "x" + HIGH), (9, LOW + "y"))
    ]
    _same(paragraphs)
    assert analyze(paragraphs).pairs == repeat
    # a defect in a later run of a paragraph is located at its stored offset
    runs = [Segment("s", 0, 0, "ab"), Segment("s", 0, 10, "c"), Segment("s", 0, 19, "d" + LOW)]
    _same(runs)
    assert [loc.offset for loc in analyze(runs).locations] == [20]


#: Every kind of unit the fast path treats apart: both halves at the edges of their
#: ranges, BMP private use at both ends, halves that merge into supplementary private
#: use (U+F02B1) or into a noncharacter (U+FFFFE, U+10FFFF: astral but not private
#: use), astral characters given as such (private use and an emoji: a text that is not
#: BMP-only), controls and the C1 range, U+FFFD, line ends, Hangul, space.
UNITS = [HIGH, LOW, chr(0xD800), chr(0xDBFF), chr(0xDC00), chr(0xDFFF), chr(0xDBBF)]
UNITS += ["\ue000", "\uf8ff", "\uf900", "\U000f02b1", "\U0010fffd", "\U0001f600", "\ufffd"]
UNITS += ["\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\x9f", "\xa0", "가", "힣", "a", " "]
_run_text = st.text(alphabet=st.sampled_from(UNITS), max_size=30)
#: A run: its text, whether it starts a new paragraph, the stored units skipped before
#: it (a control code between two runs), and its stream.
_run = st.tuples(
    _run_text,
    st.sampled_from([True, False, False]),
    st.sampled_from([0, 0, 1, 8, 16]),
    st.sampled_from("aab"),
)


def _runs(items: list[tuple[str, bool, int, str]], *, restart: bool) -> list[Segment]:
    """Segments from drawn runs; with *restart* each stream numbers its paragraphs
    from 0, so neighbours of two streams can share a paragraph number."""
    segments: list[Segment] = []
    numbers = {"a": -1, "b": -1}
    offset = 0
    for text, new_paragraph, gap, stream in items:
        name = f"BodyText/Section{stream}"
        if new_paragraph or not segments or segments[-1].stream != name:
            if restart:
                numbers[stream] += 1
            else:
                numbers["a"] = numbers["b"] = max(numbers.values()) + 1
            offset = 0
        offset += gap
        segments.append(Segment(name, numbers[stream], offset, text))
        offset += len(text)
    return segments


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_run, max_size=60), st.booleans(), st.sampled_from([0, 1, 2, 5, 20, 100]))
@pytest.mark.slow
def test_any_runs_locate_and_count_the_same(
    items: list[tuple[str, bool, int, str]], restart: bool, limit: int
) -> None:
    segments = _runs(items, restart=restart)
    assert analyze(segments, max_locations=limit) == reference_analyze(
        segments, max_locations=limit
    )


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3), st.integers(1, 40), st.sampled_from([0, 1, 5, 20]))
def test_defects_past_the_cap_are_counted_not_located(
    kind: int, paragraphs: int, limit: int
) -> None:
    # many paragraphs, each with a defect of one kind (or all kinds), past any cap
    defect = [HIGH + LOW, LOW, "\ue000", HIGH + LOW + "\uf8ff" + HIGH][kind]
    segments = [
        Segment("PrvText", k, 0, f"줄 {k} " + defect * (k % 3 + 1)) for k in range(paragraphs)
    ]
    got = analyze(segments, max_locations=limit)
    assert got == reference_analyze(segments, max_locations=limit)
    assert len(got.locations) <= limit


def test_a_long_text_merges_pairs_as_before_even_across_its_slices() -> None:
    # over the slice length a text is merged a slice at a time; a pair across the
    # boundary stays two halves there, as it always did
    cut = 1 << 20
    text = "가" * (cut - 1) + HIGH + LOW + "나" + HIGH + LOW + chr(0xDC00)
    assert merge_pairs(text) == reference_merge(text)
    astral = "\U0001f600" + text
    assert merge_pairs(astral) == reference_merge(astral)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(UNITS), max_size=80))
def test_merging_and_escaping_match_the_reference(text: str) -> None:
    assert merge_pairs(text) == reference_merge(text)
    assert escape_snippet(text) == reference_escape(text)
    assert _escape_context(text) == reference_escape(text)


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet=st.sampled_from([*ALPHABET, "\udc00", "\udbff"]), max_size=30))
def test_the_utf8_error_is_the_codec_s_own(text: str) -> None:
    # written without encoding: the first run of surrogates, one or many, as the codec
    # names it (position, or first-last of the run)
    assert utf8_error(text) == reference_utf8_error(text)
