"""What a scan's report files and verdicts promise a reader: files others can read,
no clean headline over a file that was not read, and a date by format table that fits
the terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rich.console import Console

from hwpscan.atomic import SHARED_MODE
from hwpscan.models import Status
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.report.bundle import write_report
from hwpscan.report.tables import pivot_table, verdict_line
from hwpscan.scanning.inputs import collect_dated, collect_files
from hwpscan.scanning.many_files import scan_paths

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_reports_and_repaired_text_are_readable_by_others(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        # SHARED_MODE was read at import, under the usual umask of a test run
        assert 0o666 & ~old == SHARED_MODE
        rows = list(scan_paths(collect_files([FIXTURES / "2025-07-21"]), jobs=1))
        assert rows and all(r.status.scanned for r in rows)
        written = write_report(rows, tmp_path / "report")
    finally:
        os.umask(old)
    for path in written:
        assert path.stat().st_mode & 0o777 == SHARED_MODE, path.name


def test_no_clean_headline_when_a_file_was_not_read(tmp_path: Path) -> None:
    (tmp_path / "ok.hwp").write_bytes(build_hwp5(["본문"]))
    (tmp_path / "cut.hwp").write_bytes(build_hwp5(["본문"])[:700])
    rows = list(scan_paths(collect_files([tmp_path]), jobs=1))
    assert {r.status for r in rows} == {Status.CLEAN, Status.CORRUPT}
    line = verdict_line(rows).plain
    assert line.startswith("INCOMPLETE: 2 files: 0 contaminated, 1 clean, 1 unreadable")
    assert "CLEAN" not in line.split(":")[0]


@pytest.mark.parametrize("width", [100, 110, 120, 129])
def test_the_date_by_format_table_fits_from_100_to_129_columns(width: int) -> None:
    files, dates = collect_dated([FIXTURES])
    rows = list(scan_paths(files, jobs=1, dates=dates))
    console = Console(width=width, record=True, force_terminal=False)
    console.print(pivot_table(rows, width=width))
    lines = console.export_text().splitlines()
    assert len(rows) > 50 and len(lines) > 10  # the whole corpus, a row per date
    assert max(map(len, lines)) <= width
