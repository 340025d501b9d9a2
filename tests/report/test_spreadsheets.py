"""CSV for spreadsheets (a UTF-8 BOM, true/false) and check-json on a bare terminal."""

from __future__ import annotations

import csv
import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from report_corpus import bundle, results  # noqa: F401  (module fixtures)
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.models import FileResult
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx

runner = CliRunner()
BOM = "\ufeff".encode()


def test_bundle_csvs_start_with_a_bom_and_spell_booleans_lowercase(
    bundle: Path, results: list[FileResult]
) -> None:
    for name in ("files.csv", "pivot.csv"):
        data = (bundle / name).read_bytes()
        assert data.startswith(BOM) and not data.startswith(BOM * 2), name
    text = (bundle / "files.csv").read_text(encoding="utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["path"] for r in rows] == [r.path for r in results]  # the BOM is not in a header
    assert {r["utf8_ok"] for r in rows} == {"true", "false", ""}
    by_path = {r["path"]: r for r in rows}
    for r in results:
        expected = "" if not r.body_read else ("true" if r.body.utf8_ok else "false")
        assert by_path[r.path]["utf8_ok"] == expected


def _folder(tmp_path: Path) -> Path:
    day = tmp_path / "in" / "2025-07-21"
    day.mkdir(parents=True)
    (day / "보도자료.hwpx").write_bytes(build_hwpx(["본문"]))
    return tmp_path / "in"


@pytest.mark.slow
def test_scan_csv_has_a_bom_unless_told_not_to(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with_bom, without = tmp_path / "a.csv", tmp_path / "b.csv"
    for out, extra in ((with_bom, []), (without, ["--no-bom"])):
        result = runner.invoke(
            app, ["scan", str(folder), "-f", "csv", "-o", str(out), "-j", "1", *extra]
        )
        assert result.exit_code == 0, result.output
    assert with_bom.read_bytes().startswith(BOM + b"path,")
    assert without.read_bytes().startswith(b"path,")
    assert with_bom.read_bytes()[len(BOM) :] == without.read_bytes()
    row = next(csv.DictReader(io.StringIO(without.read_text(encoding="utf-8"))))
    assert row["path"].endswith("보도자료.hwpx") and row["utf8_ok"] == "true"
    stdout = runner.invoke(app, ["scan", str(folder), "-f", "csv", "-j", "1"]).stdout
    assert stdout.startswith("\ufeffpath,")


def test_check_json_on_a_terminal_without_input_prints_its_usage(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "hwpscan", "check-json"],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,  # it used to wait for input forever
            env={**os.environ, "COLUMNS": "100"},
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert "Usage: " in proc.stderr and "check-json" in proc.stderr
    assert "pipe one in" in proc.stderr
    assert proc.stdout == ""
