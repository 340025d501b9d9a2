"""The README's main job, `hwpscan demo`, end to end over real loopback sockets."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.rehearsal.synth.catalogue import expected_contaminated_dates


@pytest.mark.slow
def test_demo_shows_the_incident_and_writes_every_report_file(tmp_path: Path) -> None:
    out, report = tmp_path / "downloads", tmp_path / "report"
    result = CliRunner().invoke(
        app, ["demo", "--out", str(out), "--report", str(report), "--jobs", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "Contamination by date and format" in result.output
    assert (out / "manifest.jsonl").is_file()
    names = {p.name for p in report.iterdir()}
    assert names >= {"report.html", "files.csv", "pivot.csv", "summary.md", "junit.xml"}
    with (report / "pivot.csv").open(encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    hwp_bad = {r["date"] for r in rows if r["format"] == "hwp5" and int(r["contaminated"])}
    assert hwp_bad == expected_contaminated_dates()
    assert {"2025-07-21", "2025-07-30"} <= hwp_bad
    assert not {"2025-07-23", "2025-07-26", "2025-07-27", "2025-07-28"} & hwp_bad
    others = [r for r in rows if r["format"] in ("hwpx", "pdf")]
    assert others and all(int(r["contaminated"]) == 0 for r in others)
