"""The native counting (``hwpscan.forensics._counting``) against the Python counting.

:func:`~hwpscan.forensics.surrogates._notable_counts` (the strict view by the UTF-16
codec, private use by a regex substitution) is the reference: the C pass answers the
same for every text, and :func:`~hwpscan.forensics.surrogates.analyze` gives the same
:class:`~hwpscan.models.TextStats` (locations included) with the C counting as without.
Skipped where the package was installed without a compiler.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.forensics import surrogates
from hwpscan.models import Segment
from hwpscan.native import wanted as native_wanted

counting = pytest.importorskip("hwpscan.forensics._counting")

#: Every kind of code point the counting tells apart, and the edges of each range.
_CHARS = st.one_of(
    st.sampled_from(
        [0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xDB80, 0xDEB1, 0xE000, 0xF8FF, 0xF900, 0xD7FF]
    ).map(chr),
    st.sampled_from([0xF0000, 0xFFFFD, 0xFFFFE, 0xFFFFF, 0x100000, 0x10FFFD, 0x10FFFF]).map(chr),
    st.sampled_from(["\n", "\r", "\ufffd", "a", "가", "\U0001f600", "\xe9", "\x00"]),
)
_texts = st.lists(_CHARS, max_size=40).map("".join)


@settings(max_examples=1000, deadline=None)
@given(text=_texts)
@pytest.mark.slow
def test_the_native_counts_are_the_python_counts(text: str) -> None:
    assert counting.count_notable(text) == surrogates._notable_counts(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20), _texts), max_size=8),
    cap=st.integers(0, 25),
)
@pytest.mark.slow
def test_analyze_gives_the_same_stats_with_the_native_counts(
    runs: list[tuple[int, int, str]], cap: int
) -> None:
    segments = [Segment("s", para, offset, text) for para, offset, text in sorted(runs)]
    got = surrogates.analyze(segments, max_locations=cap)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(surrogates, "_NATIVE_COUNTS", None)
        m.setattr(surrogates, "_NATIVE_LOCATE", None)
        want = surrogates.analyze(segments, max_locations=cap)
    assert got == want


def test_long_and_wide_texts_count_alike() -> None:
    bullet = chr(0xDB80) + chr(0xDEB1)
    for text in (
        ("가" * 1000 + bullet + chr(0xDC00)) * 1100,  # past the big-text merge threshold
        "\U0001f600" + bullet * 5 + chr(0xE000) * 3 + "\udbff",
        "latin only: \xe9\xff",
        "",
    ):
        assert counting.count_notable(text) == surrogates._notable_counts(text)


def test_the_native_counting_takes_only_str() -> None:
    with pytest.raises(TypeError):
        counting.count_notable(b"bytes")


def test_analyze_uses_the_native_counts_when_built() -> None:
    on = native_wanted()  # HWPSCAN_PURE_PYTHON turns them off
    assert surrogates._NATIVE_COUNTS is (counting.count_notable if on else None)
    assert surrogates._NATIVE_LOCATE is (counting.locate if on else None)


_HELPERS = (
    surrogates._INFO,
    surrogates._info,
    surrogates._escape_context,
    surrogates._run_offset,
    surrogates.Location,
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 30), _texts.filter(bool)), max_size=10
    ),
    halves=st.booleans(),
    pua=st.booleans(),
    limit=st.integers(0, 30),
    stream=st.sampled_from(["BodyText/Section0", "PrvText", "본문"]),
)
@pytest.mark.slow
def test_the_native_locations_are_the_python_locations(
    runs: list[tuple[int, int, str]], halves: bool, pua: bool, limit: int, stream: str
) -> None:
    # runs of one paragraph at growing offsets, some with a gap (a control between them)
    segments = [Segment(stream, para, offset, text) for para, offset, text in sorted(runs)]
    texts, starts = surrogates._paragraph_groups(segments)
    blob = "\n".join(texts)
    got = counting.locate(segments, texts, starts, blob, halves, pua, limit, _HELPERS)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(surrogates, "_NATIVE_LOCATE", None)
        want = surrogates._locations(
            segments, texts, starts, blob, surrogates=halves, pua=pua, limit=limit
        )
    assert got == want
    assert all(type(loc) is surrogates.Location for loc in got or ())


def test_the_native_locations_refuse_what_python_would_not_take() -> None:
    seg = [Segment("s", 0, 0, "a\udc00")]
    texts, starts = surrogates._paragraph_groups(seg)
    assert counting.locate(seg, texts, starts, "a\udc00", True, False, 5, _HELPERS)
    for args in (
        (seg, texts, starts, "a\udc00b", True, False, 5, _HELPERS),  # not the joined texts
        (seg, texts, [0], "a\udc00", True, False, 5, _HELPERS),  # starts short
        (seg, texts, [1, 1], "a\udc00", True, False, 5, _HELPERS),  # a start past the runs
        (seg, texts, starts, "a\udc00", True, False, -1, _HELPERS),
        (seg, texts, starts, "a\udc00", True, False, 5, _HELPERS[:4]),
        ([("s", 0)], texts, starts, "a\udc00", True, False, 5, _HELPERS),
        (iter(seg), texts, starts, "a\udc00", True, False, 5, _HELPERS),
    ):
        assert counting.locate(*args) is None


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(st.integers(0, 39), max_size=120),
    paired=st.lists(st.booleans(), min_size=120, max_size=120),
)
@pytest.mark.slow
def test_many_distinct_private_use_characters_are_all_counted(
    picks: list[int], paired: list[bool]
) -> None:
    # more distinct characters than the C tally keeps in place (16): the rest go to the
    # dict at once, and the counts are the same either way
    chars = [chr(0xE000 + n) if n % 2 else chr(0xF0000 + n) for n in range(40)]

    def halves(ch: str) -> str:  # an astral character as its two surrogate code points
        high, low = divmod(ord(ch) - 0x10000, 0x400)
        return chr(0xD800 + high) + chr(0xDC00 + low)

    text = "".join(
        halves(chars[n]) if pair and ord(chars[n]) > 0xFFFF else chars[n]
        for n, pair in zip(picks, paired, strict=False)
    )
    got = counting.count_notable(text)
    assert got == surrogates._notable_counts(text)
    assert sum(got[2].values()) == len(picks)


#: Every class holds_any is asked about, with the regex that is its reference.
_CLASSES = [
    (surrogates._NOTABLE_RANGES, surrogates._NOTABLE_RE),
    (((0xA000, 0xA8FF),), re.compile("[\ua000-\ua8ff]")),
]


def _first(pattern: re.Pattern[str], text: str) -> int:
    found = pattern.search(text)
    return -1 if found is None else found.start()


@pytest.mark.parametrize(("ranges", "pattern"), _CLASSES)
def test_find_in_ranges_finds_what_the_class_finds_for_every_code_point(
    ranges: tuple[tuple[int, int], ...], pattern: re.Pattern[str]
) -> None:
    for start in range(0, 0x110000, 0x1000):  # each code point, in texts of 4,096
        text = "".join(map(chr, range(start, start + 0x1000)))
        assert counting.find_in_ranges(text, ranges) == _first(pattern, text), hex(start)
        for c in range(start, start + 0x1000, 97):  # and alone, behind text of each kind
            for lead in ("", "a", "\xe9", "가", "\U0001f600"):
                one = lead + chr(c)
                assert counting.find_in_ranges(one, ranges) == _first(pattern, one), hex(c)


@settings(max_examples=300, deadline=None)
@given(text=_texts.map(lambda t: t + "\ua000" * (len(t) % 3 == 0) + "\ua8ff\ua900"))
def test_find_in_ranges_on_mixed_texts(text: str) -> None:
    for ranges, pattern in _CLASSES:
        assert counting.find_in_ranges(text, ranges) == _first(pattern, text)
        assert surrogates.holds_any(text, ranges, pattern) == (_first(pattern, text) >= 0)


def test_find_in_ranges_refuses_what_is_not_a_range() -> None:
    with pytest.raises(TypeError):
        counting.find_in_ranges(b"x", ((1, 2),))
    with pytest.raises(TypeError):
        counting.find_in_ranges("x", ((1, 2, 3),))
    for bad in (((5, 4),), ((0, 0x110000),), ((-1, 3),)):
        with pytest.raises((ValueError, OverflowError)):
            counting.find_in_ranges("x", bad)
    with pytest.raises(ValueError):
        counting.find_in_ranges("x", ((1, 2),) * 9)
    assert counting.find_in_ranges("abc", ()) == -1
