"""Property: for any text, the reader's codeunit view is exactly the UTF-16 code units
the writer stored, and analyze() counts pairs and orphans as the units say."""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.forensics.surrogates import analyze, join_segments
from hwpscan.formats.hwp5 import read_ole
from hwpscan.rehearsal.synth.hwp5_writer import Footnote, Table, build_hwp5

CHARS = st.one_of(
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),  # Hangul syllables
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.sampled_from([chr(0xF02B1), chr(0xF0854), chr(0xF0855), chr(0x1F600), chr(0x10FFFD)]),
    st.characters(min_codepoint=0xE000, max_codepoint=0xF8FF),  # BMP PUA
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # lone halves (may pair up)
    st.sampled_from(["\t", "\n", "\u00a0"]),
)
TEXT = st.text(CHARS, max_size=40)


def units(text: str) -> list[int]:
    raw = text.encode("utf-16-le", "surrogatepass")
    return list(struct.unpack(f"<{len(raw) // 2}H", raw))


def expected_counts(texts: list[str]) -> tuple[int, int]:
    """(pairs, orphans) from the code units, paragraph by paragraph."""
    pairs = orphans = 0
    for text in texts:
        us = units(text)
        i = 0
        while i < len(us):
            if 0xD800 <= us[i] <= 0xDBFF and i + 1 < len(us) and 0xDC00 <= us[i + 1] <= 0xDFFF:
                pairs += 1
                i += 2
                continue
            orphans += 0xD800 <= us[i] <= 0xDFFF
            i += 1
    return pairs, orphans


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TEXT, min_size=1, max_size=5), compressed=st.booleans())
def test_codeunit_view_equals_the_units_written(texts: list[str], compressed: bool) -> None:
    doc = read_ole(build_hwp5(texts, compressed=compressed))
    assert doc.status is None and doc.warnings == ()
    got: dict[int, str] = {}
    for seg in doc.body:
        got[seg.paragraph] = got.get(seg.paragraph, "") + seg.text
    want = ["".join(map(chr, units(t))) for t in texts]
    assert [t for t in got.values() if t] == [t for t in want if t]
    stats = analyze(doc.body)
    # a TAB is an 8-unit control between runs: halves on either side are not adjacent
    pairs, orphans = expected_counts([t.replace("\t", "\x00") for t in texts])
    assert (stats.pairs, stats.orphans) == (pairs, orphans)
    assert stats.surrogates == sum(0xD800 <= u <= 0xDFFF for t in texts for u in units(t))
    assert stats.utf8_ok == (stats.surrogates == 0)


@settings(max_examples=30, deadline=None)
@given(cells=st.lists(TEXT, min_size=1, max_size=4), note=TEXT)
def test_nested_paragraphs_keep_their_units(cells: list[str], note: str) -> None:
    doc = read_ole(build_hwp5([Table([cells]), Footnote(note)]))
    joined = join_segments(doc.body)
    want = [t for t in ("".join(map(chr, units(x))) for x in [*cells, note]) if t]
    assert joined == "\n".join(want)
