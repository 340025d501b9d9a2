"""The JSON Lines record written field by field equals ``json.dumps`` of ``to_json()``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.models import FileResult, Format, Location, RepairSummary, Status, TextStats
from hwpscan.report.export import jsonl_line, record_line

# every code point, lone surrogates, quotes, backslashes and control characters included
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
COUNT = st.integers(min_value=-(2**70), max_value=2**70)
TALLY = st.dictionaries(TEXT, COUNT, max_size=4)

LOCATIONS = st.lists(
    st.builds(Location, TEXT, COUNT, COUNT, TEXT, TEXT, TEXT, TEXT), max_size=4
).map(tuple)

STATS = st.builds(
    TextStats,
    chars=COUNT,
    surrogates=COUNT,
    pairs=COUNT,
    orphans=COUNT,
    utf8_ok=st.booleans(),
    utf8_error=st.none() | TEXT,
    pua=TALLY,
    replacement_chars=COUNT,
    locations=LOCATIONS,
)

RESULTS = st.builds(
    FileResult,
    path=TEXT,
    sha256=TEXT,
    bytes=COUNT,
    format=st.sampled_from(Format),
    status=st.sampled_from(Status),
    reason=st.none() | TEXT,
    date=st.none() | TEXT,
    body=STATS,
    preview=st.none() | STATS,
    meta=st.none() | STATS,
    warnings=st.lists(TEXT, max_size=3).map(tuple),
    seconds=st.floats(allow_nan=True),
    body_read=st.booleans(),
    repair=st.none() | st.builds(RepairSummary, COUNT, COUNT, TALLY, TALLY),
    index=st.none() | COUNT,
)


@settings(max_examples=400, deadline=None)
@given(RESULTS)
@pytest.mark.slow
def test_record_line_is_the_dump_of_to_json(result: FileResult) -> None:
    assert record_line(result) == json.dumps(result.to_json(), ensure_ascii=False)


def test_the_cached_line_is_the_record_line() -> None:
    body = TextStats(
        chars=5,
        surrogates=2,
        pairs=1,
        utf8_ok=False,
        utf8_error="'utf-8' codec can't encode",
        pua={"U+F02B1": 1},
        locations=(
            Location("BodyText/Section0", 0, 1, "U+F02B1", "pair", "DB80 DEB1", "a\\udb80"),
        ),
    )
    row = FileResult("보도.hwp", "ab", 3, Format.HWP5, Status.CONTAMINATED, body=body, index=2)
    line = jsonl_line(row)
    assert line == json.dumps(row.to_json(), ensure_ascii=False)
    assert json.loads(line)["locations"][0]["units"] == "DB80 DEB1"
