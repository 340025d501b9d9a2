"""``--format json`` of manifest, check-json, demo and report: one JSON document on
stdout with its ``schema``, read back by parsing it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.manifest import ManifestEntry, ManifestWriter
from hwpscan.models import ExitCode
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx

runner = CliRunner()


def _entry(name: str, status: str, path: str | None = None) -> ManifestEntry:
    url = f"https://example.invalid/{name}"
    return ManifestEntry("2025-07-21", "7", "보도", name, url, path, None, 0, None, status)


def test_manifest_json_is_the_current_entries(tmp_path: Path) -> None:
    writer = ManifestWriter(tmp_path)
    writer.write(_entry("a.hwp", "failed"))
    writer.write(_entry("a.hwp", "downloaded", "2025-07-21/a.hwp"))
    writer.write(_entry("b.pdf", "refused"))
    done = runner.invoke(app, ["manifest", str(tmp_path), "--format", "json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["schema"] == "hwpscan.manifest/1"
    assert (doc["attachments"], doc["superseded"]) == (2, 1)
    assert doc["counts"] == {"downloaded": 1, "refused": 1}
    assert [(e["name"], e["status"]) for e in doc["entries"]] == [
        ("a.hwp", "downloaded"),
        ("b.pdf", "refused"),
    ]
    out = tmp_path / "m.json"
    to_file = runner.invoke(app, ["manifest", str(tmp_path), "-f", "json", "-o", str(out)])
    assert to_file.exit_code == 0 and json.loads(out.read_text(encoding="utf-8")) == doc


def test_check_json_json_holds_findings_and_counts(tmp_path: Path) -> None:
    lines = [json.dumps({"text": "fine"}), '{"text": "bad \\ud800 half"}', "not json"]
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = runner.invoke(app, ["check-json", str(path), "--format", "json"])
    assert done.exit_code == ExitCode.FINDINGS, done.output
    doc = json.loads(done.stdout)
    assert doc["schema"] == "hwpscan.check-json.document/1"
    kinds = [(f["type"], f["line"]) for f in doc["findings"]]
    assert kinds == [("bad-string", 2), ("skipped", 3)]
    assert doc["summary"]["bad"] == 1 and doc["summary"]["documents"] == 2
    clean = tmp_path / "clean.jsonl"
    clean.write_text('{"a": "b"}\n', encoding="utf-8")
    ok = runner.invoke(app, ["check-json", str(clean), "-f", "json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["findings"] == []


def test_report_json_names_the_run_and_its_files(tmp_path: Path) -> None:
    (tmp_path / "a.hwpx").write_bytes(build_hwpx(["본문"]))
    scanned = runner.invoke(app, ["scan", str(tmp_path / "a.hwpx"), "--no-progress"])
    assert scanned.exit_code == 0, scanned.output
    out = tmp_path / "rep"
    done = runner.invoke(app, ["report", "latest", "--out", str(out), "--format", "json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["schema"] == "hwpscan.report/1"
    assert (doc["files"], doc["contaminated"], doc["partial"]) == (1, 0, False)
    assert {Path(p).name for p in doc["written"]} >= {"report.html", "files.csv"}
    assert all(Path(p).is_file() for p in doc["written"])
    table = runner.invoke(app, ["report", "latest", "--out", str(out), "-o", "x.json"])
    assert table.exit_code == 2  # a results file needs --format json


@pytest.mark.slow
def test_demo_json_is_the_scan_with_what_the_emulator_counted() -> None:
    done = runner.invoke(app, ["demo", "--format", "json", "-j", "2"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["schema"] == "hwpscan.demo/1"
    assert doc["files"] == len(doc["rows"]) == sum(doc["counts"].values()) > 0
    assert doc["counts"]["contaminated"] > 0 and doc["calls"] >= 1
    assert [r["index"] for r in doc["rows"]] == list(range(doc["files"]))
