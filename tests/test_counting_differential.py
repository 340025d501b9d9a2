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

from hwpscan.forensics.surrogates import analyze
from hwpscan.formats import read_document
from hwpscan.models import Segment
from hwpscan.rehearsal.synth.hwp5 import build_hwp5
from hwpscan.scan import collect_files

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
