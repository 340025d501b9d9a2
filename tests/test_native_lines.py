"""The native JSON of locations (``hwpscan.report._lines``) against the Python writer.

:func:`~hwpscan.report.export._python_locations` is the reference, and ``json.dumps`` of
the locations as dictionaries is the reference's own: the C writer answers the same
text for every list of locations it takes, and None (so the Python code writes them)
for every one it does not. Skipped where the package was installed without a compiler.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.models import Location
from hwpscan.native import wanted as native_wanted
from hwpscan.report import export

lines = pytest.importorskip("hwpscan.report._lines")

#: Every code point json escapes or keeps, of every width a str can have.
_CHARS = st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x7F),
    st.sampled_from(["\xe9", "\xff", "가", "\u2028", "\ufffd", "\U000f02b1", "\U0001f600"]),
    st.sampled_from([chr(0xDB80), chr(0xDEB1), chr(0xD800), chr(0xDFFF)]),
    st.characters(),
)
_strings = st.lists(_CHARS, max_size=12).map("".join)
_ints = st.one_of(st.integers(-5, 10**6), st.sampled_from([0, -1, 2**63 - 1, -(2**63)]))
_locations = st.builds(Location, _strings, _ints, _ints, _strings, _strings, _strings, _strings)


def _dumped(found: list[Location]) -> str:
    return json.dumps([loc._asdict() for loc in found], ensure_ascii=False)


@settings(max_examples=500, deadline=None)
@given(found=st.lists(_locations, max_size=6))
@pytest.mark.slow
def test_the_native_json_is_the_python_json(found: list[Location]) -> None:
    expected = export._python_locations(tuple(found))
    assert expected == _dumped(found)  # the reference is json's own text
    got = lines.locations(tuple(found))
    assert got == expected
    # a str of the width of what it holds (CPython compares strs of two widths unequal)
    assert got is not None and hash(got) == hash("".join(got))


def test_every_width_of_text_is_written_canonically() -> None:
    for text in ("plain", "caf\xe9", "한글", "\U000f02b1", chr(0xDB80)):
        found = (Location("s", 0, 1, "U+0041", "pua", "", text),)
        got = lines.locations(found)
        assert got == _dumped(list(found))
        assert len({got, _dumped(list(found))}) == 1  # equal strs of one kind hash alike


@pytest.mark.parametrize(
    ("found", "writable"),
    [
        ([Location("s", 2**64, 0, "c", "k", "u", "x")], True),  # past 64 bits
        ([Location("s", True, 0, "c", "k", "u", "x")], True),  # a bool is not exactly an int
        ([Location(type("Sub", (str,), {})("s\n"), 0, 0, "c", "k", "u", "x")], True),
        ([Location("s", 0, 1.5, "c", "k", "u", "x")], False),  # type: ignore[arg-type]
        ([Location("s", 0, 0, None, "k", "u", "x")], False),  # type: ignore[arg-type]
        ([("s", 0, 0, "c", "k", "u")], False),  # six fields
        (["not a location"], False),
    ],
)
def test_what_it_does_not_write_it_hands_back_and_the_python_code_writes(
    found: list[Location], writable: bool
) -> None:
    assert lines.locations(tuple(found)) is None
    if writable:  # the caller's answer is still the reference's
        assert export._locations(tuple(found)) == export._python_locations(tuple(found))


def test_nothing_is_an_empty_array_and_a_non_sequence_is_a_type_error() -> None:
    assert lines.locations(()) == "[]"
    with pytest.raises(TypeError):
        lines.locations(42)  # type: ignore[arg-type]


def test_a_scan_line_uses_the_native_writer_and_is_unchanged_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = tuple(
        Location("BodyText/Section0", n, 3 * n, "U+F02B1", "pair", "DB80 DEB1", "\\udb80 문단")
        for n in range(20)
    )
    assert export._NATIVE_LOCATIONS is (lines.locations if native_wanted() else None)
    native = export._locations(found)
    monkeypatch.setattr(export, "_NATIVE_LOCATIONS", None)
    assert export._locations(found) == native == _dumped(list(found))
