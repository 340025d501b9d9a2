"""Every committed fixture scans to what ``fixtures/expected.jsonl`` says.

For HWP 5 bodies that includes ``chars`` and the first locations (stream, paragraph,
code-unit offset, code point), which the generator derives from where it wrote each
paragraph.

``expected.jsonl`` comes from the generator's knowledge of what it wrote (see
``hwpscan.rehearsal.synth.corpus``), not from a scan: this is the scanner held to an oracle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.forensics.surrogates import join_segments, merge_pairs
from hwpscan.formats import read_document
from hwpscan.models import Status
from hwpscan.rehearsal.synth.press import PUA_MARKS
from hwpscan.rowcodec import CONTRACT_KEYS, encode_row
from hwpscan.scanning.one_file import scan_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
EXPECTED = [
    json.loads(line)
    for line in (FIXTURES / "expected.jsonl").read_text(encoding="utf-8").splitlines()
]
COUNT_KEYS = ("surrogates", "pairs", "orphans", "utf8_ok", "pua")


def _date_of(rel: str) -> str | None:
    folder = rel.split("/")[0]
    return None if folder in {"broken", "quirks"} else folder


def _mismatches(expected: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    """Differences on the keys the oracle asserts (``None`` counts are not asserted)."""
    diff: dict[str, Any] = {}
    for key in ("format", "status", "bytes"):
        if got[key] != expected[key]:
            diff[key] = (expected[key], got[key])
    if expected.get("body_read") is False:  # an unread body: counts are null, not zero
        for key in ("chars", "surrogates", "pairs", "orphans", "utf8_ok"):
            if got[key] is not None:
                diff[key] = (None, got[key])
        return diff
    for key in COUNT_KEYS:
        if expected[key] is not None and got[key] != expected[key]:
            diff[key] = (expected[key], got[key])
    if "chars" in expected and got["chars"] != expected["chars"]:
        diff["chars"] = (expected["chars"], got["chars"])
    if "locations" in expected:  # where the generator put them, in code units
        want = expected["locations"]
        seen = [
            [loc["stream"], loc["paragraph"], loc["offset"], loc["codepoint"]]
            for loc in got["locations"][: len(want)]
        ]
        if seen != want or (not want and got["locations"]):
            diff["locations"] = (want, seen or got["locations"])
    for channel in ("preview", "meta"):
        if channel in expected:
            seen = got.get(channel) or {}
            for key in COUNT_KEYS:
                if seen.get(key) != expected[channel][key]:
                    diff[f"{channel}.{key}"] = (expected[channel][key], seen.get(key))
    if expected.get("warnings") and not got.get("warnings"):
        diff["warnings"] = "damage not reported"
    return diff


@pytest.mark.parametrize("expected", EXPECTED, ids=[e["path"] for e in EXPECTED])
def test_scan_file_matches_expected(expected: dict[str, Any]) -> None:
    result = scan_file(FIXTURES / expected["path"])
    got = json.loads(encode_row(result))
    assert _mismatches(expected, got) == {}
    if not result.status.scanned:
        assert result.reason, "a file that could not be judged needs a reason"
    if expected["surrogates"]:
        assert got["utf8_error"] and "surrogates not allowed" in got["utf8_error"]
        assert got["locations"], "a contaminated file must point at its first defects"
    elif expected["surrogates"] == 0:
        assert got["utf8_error"] is None


def test_expected_covers_every_file_in_the_corpus() -> None:
    on_disk = {
        p.relative_to(FIXTURES).as_posix()
        for p in FIXTURES.rglob("*")
        if p.is_file() and p.name not in {"expected.jsonl", "README.md"}
    }
    assert on_disk == {e["path"] for e in EXPECTED}


@pytest.fixture(scope="module")
def cli_records() -> dict[str, dict[str, Any]]:
    result = CliRunner().invoke(
        app, ["scan", str(FIXTURES), "--format", "jsonl", "--jobs", "2", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    records: dict[str, dict[str, Any]] = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        rel = Path(record["path"]).resolve().relative_to(FIXTURES).as_posix()
        records[rel] = record
    return records


def test_cli_jsonl_has_one_contract_record_per_fixture(
    cli_records: dict[str, dict[str, Any]],
) -> None:
    assert set(cli_records) == {e["path"] for e in EXPECTED}
    for rel, record in cli_records.items():
        missing = [k for k in CONTRACT_KEYS if k not in record]
        assert missing == [], rel
        assert len(record["sha256"]) == 64


@pytest.mark.parametrize("expected", EXPECTED, ids=[e["path"] for e in EXPECTED])
def test_cli_jsonl_matches_expected(
    expected: dict[str, Any], cli_records: dict[str, dict[str, Any]]
) -> None:
    record = cli_records[expected["path"]]
    assert _mismatches(expected, record) == {}
    assert record["date"] == _date_of(expected["path"])


def test_cli_fail_on_contaminated_exits_1_on_the_corpus() -> None:
    result = CliRunner().invoke(
        app,
        [
            "scan",
            str(FIXTURES / "2025-07-21"),
            "--format",
            "jsonl",
            "--no-progress",
            "--fail-on",
            "contaminated",
        ],
    )
    assert result.exit_code == 1


def test_cli_fail_on_contaminated_exits_0_on_a_clean_day() -> None:
    result = CliRunner().invoke(
        app,
        [
            "scan",
            str(FIXTURES / "2025-07-23"),
            "--format",
            "jsonl",
            "--no-progress",
            "--fail-on",
            "contaminated",
        ],
    )
    assert result.exit_code == 0
    assert {json.loads(line)["status"] for line in result.stdout.splitlines()} == {
        Status.CLEAN.value
    }


READABLE = [e for e in EXPECTED if e["status"] in {"clean", "contaminated"}]


@pytest.mark.parametrize("expected", READABLE, ids=[e["path"] for e in READABLE])
def test_no_fixture_text_holds_an_unrendered_press_marker(expected: dict[str, Any]) -> None:
    """Every ``{B}``, ``{Q1}``... of the story text was rendered before it was written."""
    doc = read_document((FIXTURES / expected["path"]).read_bytes())
    text = merge_pairs(join_segments(doc.body + doc.preview + doc.meta))
    assert text, "a readable fixture has text"
    left = [mark for mark in (f"{{{name}}}" for name in PUA_MARKS) if mark in text]
    assert left == []


HWP5_WITH_LOCATIONS = [e for e in EXPECTED if "locations" in e]


def test_the_oracle_gives_chars_and_locations_for_every_readable_hwp5_body() -> None:
    readable = {
        e["path"]
        for e in EXPECTED
        if e["format"] == "hwp5"
        and e["status"] in {"clean", "contaminated"}
        and e["surrogates"] is not None  # a cut stream: what is salvaged is not asserted
    }
    assert readable <= {e["path"] for e in HWP5_WITH_LOCATIONS}
    assert any(len(e["locations"]) >= 3 for e in HWP5_WITH_LOCATIONS)
    nested = [loc for e in HWP5_WITH_LOCATIONS for loc in e["locations"] if loc[1] > 5]
    assert nested, "some expected locations sit in nested (table, footnote...) paragraphs"
