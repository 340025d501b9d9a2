"""The row codec: a row's JSON line reads back to a row that writes the same line, and its
CSV fields say what its line says."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.models import (
    DEFECT_CLASSES,
    FileResult,
    Format,
    Location,
    RepairSummary,
    Status,
    TextStats,
)
from hwpscan.rowcodec import (
    CONTRACT_KEYS,
    CSV_COLUMNS,
    ROW_SCHEMA,
    csv_fields,
    decode_row,
    encode_row,
)
from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.one_file import scan_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(scope="module")
def fixture_lines() -> list[str]:
    """Every fixture's line, as a scan writes it (with its input index)."""
    files = collect_files([FIXTURES])
    return [encode_row(replace(scan_file(p), index=i)) for i, p in enumerate(files)]


def test_every_fixture_line_reads_back_to_the_same_line(fixture_lines: list[str]) -> None:
    assert len(fixture_lines) > 50
    for line in fixture_lines:
        assert encode_row(decode_row(line)) == line
        assert encode_row(decode_row(line.encode("utf-8"))) == line  # as the store's bytes


def test_every_fixture_line_is_the_contract(fixture_lines: list[str]) -> None:
    for line in fixture_lines:
        record = json.loads(line)
        assert [k for k in record if k in CONTRACT_KEYS] == list(CONTRACT_KEYS)
        assert record["schema"] == ROW_SCHEMA
        assert "\n" not in line
        line.encode("utf-8")  # valid UTF-8: nothing unpaired is written raw


def test_the_csv_fields_say_what_the_line_says(fixture_lines: list[str]) -> None:
    for line in fixture_lines:
        record = json.loads(line)
        row = decode_row(line)
        fields = csv_fields(row)
        assert list(fields) == CSV_COLUMNS
        for key in ("bytes", "sha256", "format", "status", "chars", "surrogates", "pairs"):
            assert fields[key] == ("" if record[key] is None else record[key])
        assert fields["utf8_ok"] == {None: "", True: "true", False: "false"}[record["utf8_ok"]]
        assert fields["pua"] == ";".join(f"{k}:{n}" for k, n in record["pua"].items())
        for name in DEFECT_CLASSES:
            expected = "" if record["defects"] is None else record["defects"][name]
            assert fields[name] == expected
        assert fields["preview_surrogates"] == (
            record["preview"]["surrogates"] if record["preview"] else ""
        )


def test_a_row_stored_before_schema_defects_and_index_still_reads() -> None:
    older = {
        "path": "a.hwp",
        "sha256": "ab",
        "bytes": 3,
        "format": "hwp5",
        "status": "contaminated",
        "chars": 5,
        "surrogates": 2,
        "pairs": 1,
        "orphans": 0,
        "utf8_ok": False,
        "pua": {"U+F02B1": 1},
        "locations": [
            dict(zip(Location._fields, ("s", 0, 1, "U+F02B1", "pair", "", ""), strict=True))
        ],
        "preview": None,
        "meta": None,
        "index": "7",
    }
    row = decode_row(json.dumps(older))
    assert row.index is None and row.body.locations[0].kind == "pair"
    assert row.defect_counts() is not None and row.defect_counts().present() == ("split_pairs",)  # type: ignore[union-attr]
    with pytest.raises((KeyError, TypeError, ValueError)):
        decode_row("[1]")


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
    repair=st.none()
    | st.builds(RepairSummary, COUNT, COUNT, TALLY, TALLY, target=st.none() | TEXT),
    index=st.none() | COUNT,
)


@settings(max_examples=300, deadline=None)
@given(RESULTS)
@pytest.mark.slow
def test_any_row_reads_back_to_its_line(result: FileResult) -> None:
    line = encode_row(result)
    again = decode_row(line)
    assert encode_row(again) == line
    assert csv_fields(again) == csv_fields(result)
    assert (again.path, again.reason, again.date, again.warnings, again.index) == (
        result.path,
        result.reason,
        result.date,
        result.warnings,
        result.index,
    )
    assert again.body.locations == result.body.locations
    assert again.repair == result.repair
    assert again.defect_counts() == result.defect_counts()
    assert json.loads(line)["chars"] == (result.body.chars if result.body_read else None)
