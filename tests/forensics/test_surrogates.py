"""The forensic counts of :func:`analyze` against their definitions, on generated
texts: the strict view is the UTF-16 codec's round trip, pairs are the characters it
merged, private use is counted in the strict view."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.forensics.surrogates import analyze, codepoint, join_segments
from hwpscan.models import Segment

#: What the random texts are made of: plain text, both halves, private use in the BMP
#: and in planes 15 and 16, U+FFFD, a control code.
ALPHABET = [
    *"a가 .",
    *map(chr, (0xD800, 0xDB80, 0xDBFF, 0xDC00, 0xDEB1, 0xDFFF)),
    *map(chr, (0xE000, 0xF02B, 0xF8FF, 0xF02B1, 0xFFFFD, 0x100000, 0x10FFFD)),
    "\ufffd",
    "\x01",
]


def _is_pua(ch: str) -> bool:
    n = ord(ch)
    return 0xE000 <= n <= 0xF8FF or 0xF0000 <= n <= 0xFFFFD or 0x100000 <= n <= 0x10FFFD


#: A paragraph's runs: one or more texts of the alphabet, each with the units a control
#: code between it and the next one takes (none or eight).
_PARAGRAPHS = st.lists(
    st.lists(
        st.tuples(st.text(st.sampled_from(ALPHABET), max_size=30), st.sampled_from((0, 8))),
        min_size=1,
        max_size=3,
    ),
    min_size=1,
    max_size=6,
)


def _segments(paragraphs: list[list[tuple[str, int]]]) -> list[Segment]:
    segments = []
    for paragraph, runs in enumerate(paragraphs):
        offset = 0
        for text, control in runs:
            segments.append(Segment("BodyText/Section0", paragraph, offset, text))
            offset += len(text) + control
    return segments


@settings(max_examples=400, deadline=None)
@given(_PARAGRAPHS)
def test_counts_match_their_definitions(paragraphs: list[list[tuple[str, int]]]) -> None:
    segments = _segments(paragraphs)
    blob = join_segments(segments)
    strict = blob.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    surrogates = sum("\ud800" <= ch <= "\udfff" for ch in blob)
    pairs = len(blob) - len(strict)

    stats = analyze(segments)

    orphans = surrogates - 2 * pairs
    assert (stats.surrogates, stats.pairs, stats.orphans) == (surrogates, pairs, orphans)
    assert stats.utf8_ok is (surrogates == 0)
    pua = Counter(filter(_is_pua, strict))
    assert stats.pua == {codepoint(ch): n for ch, n in sorted(pua.items())}
    assert stats.replacement_chars == blob.count("\ufffd")
    located = [loc for loc in stats.locations if loc.kind in ("pair", "orphan")]
    assert len(located) == min(20, surrogates - pairs)  # a pair is one location
    own_pua = sum(map(_is_pua, blob))  # private use made of pairs is located as the pair
    assert len(stats.locations) - len(located) == min(20 - len(located), own_pua)
