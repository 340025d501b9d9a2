"""What CI relies on: gates that cannot pass on nothing, and one JSON document per command.

``scan --fail-on`` over no document, a Git LFS pointer checked out instead of a file,
``--fail-on unreadable`` (and its older name ``error``), and ``--format json`` for
``plan``, ``history`` and ``diff`` with ``diff --fail-on became-contaminated``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from report_corpus import build_corpus, clean_hwp, contaminated_hwp, scan_folder
from typer.testing import CliRunner

import hwpscan.cli.report_command  # noqa: F401  (registers history and diff)
from hwpscan.cli import app
from hwpscan.cli.runs_view import record_and_report
from hwpscan.formats import LFS_POINTER_REASON
from hwpscan.history.records import RunArgs

runner = CliRunner()
POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a21\nsize 52311\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_gate_over_no_document_exits_2_and_junit_says_so(home: Path) -> None:
    (home / "empty").mkdir()
    (home / "empty" / "manifest.jsonl").write_text("")  # a sidecar is no document
    for gate in ("contaminated", "unreadable", "error"):
        result = runner.invoke(app, ["scan", "empty", "--fail-on", gate, "-j", "1"])
        assert result.exit_code == 2, result.output
        assert "no documents under empty" in result.output
    junit = home / "junit.xml"
    result = runner.invoke(
        app, ["scan", "empty", "--fail-on", "contaminated", "--format", "junit", "-o", str(junit)]
    )
    assert result.exit_code == 2
    root = ET.parse(junit).getroot()
    assert root.get("errors") == "1"
    assert root.find(".//error").get("message") == "no documents under empty"
    # without a gate, an empty scan is no claim: it exits 0 as before
    assert runner.invoke(app, ["scan", "empty", "-j", "1"]).exit_code == 0


@pytest.mark.slow
def test_a_git_lfs_pointer_is_unreadable_with_its_own_reason(home: Path) -> None:
    day = home / "docs" / "2025-07-21"
    day.mkdir(parents=True)
    (day / "보도자료.hwp").write_bytes(POINTER)
    (day / "clean.hwp").write_bytes(clean_hwp("본문"))
    result = runner.invoke(app, ["scan", "docs", "--format", "jsonl", "-j", "1"])
    rows = {Path(r["path"]).name: r for r in map(json.loads, result.stdout.splitlines())}
    pointer = rows["보도자료.hwp"]
    assert pointer["status"] == "unsupported" and pointer["reason"] == LFS_POINTER_REASON
    assert "git lfs pull" in LFS_POINTER_REASON and "lfs: true" in LFS_POINTER_REASON
    gated = runner.invoke(app, ["scan", "docs", "--fail-on", "unreadable", "-j", "1"])
    assert gated.exit_code == 1
    alias = runner.invoke(app, ["scan", "docs", "--fail-on", "error", "-j", "1"])
    assert alias.exit_code == 1
    only_contaminated = runner.invoke(app, ["scan", "docs", "--fail-on", "contaminated", "-j", "1"])
    assert only_contaminated.exit_code == 0
    for gate, tag in (("unreadable", "error"), ("contaminated", "skipped")):
        xml = runner.invoke(
            app, ["scan", "docs", "--fail-on", gate, "--format", "junit", "-j", "1"]
        ).stdout_bytes
        root = ET.fromstring(xml)
        (marked,) = root.findall(f".//{tag}")
        assert LFS_POINTER_REASON in marked.get("message", "")
        assert not root.findall(".//failure")
    bad = runner.invoke(app, ["scan", "docs", "--fail-on", "nonsense"])
    assert bad.exit_code == 2 and "unreadable" in bad.output


def test_plan_history_and_diff_speak_json(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HWPSCAN_API_KEY", raising=False)
    plan = runner.invoke(app, ["plan", "--from", "2025-07-01", "--to", "2025-08-11", "-f", "json"])
    assert plan.exit_code == 0, plan.output
    doc = json.loads(plan.stdout)
    assert [w["days"] for w in doc["windows"]] == [21, 21]
    assert doc["calls_needed"] == 2 and doc["calls_cached"] == 0 and doc["quota"] is None

    root = build_corpus(home / "corpus")
    first = record_and_report(
        scan_folder(root), kind="scan", args=RunArgs(options={"paths": [str(root)]})
    )
    (root / "2025-07-23" / "c.hwp").write_bytes(contaminated_hwp("broke"))  # a regression
    second = record_and_report(
        scan_folder(root), kind="scan", args=RunArgs(options={"paths": [str(root)]})
    )
    assert first and second
    history = json.loads(runner.invoke(app, ["history", "--format", "json"]).stdout)
    assert [r["id"] for r in history["runs"]] == [second, first]
    assert history["runs"][0]["contaminated"] == history["runs"][1]["contaminated"] + 1

    shown = runner.invoke(app, ["diff", first, second, "--format", "json"])
    assert shown.exit_code == 0
    diff = json.loads(shown.stdout)
    assert diff["a"] == first and diff["b"] == second and diff["regressed"] is True
    (change,) = diff["files"]
    assert change["kind"] == "became_contaminated" and change["path"].endswith("c.hwp")
    assert diff["counts"]["became_contaminated"] == 1
    gate = runner.invoke(app, ["diff", first, second, "--fail-on", "became-contaminated"])
    assert gate.exit_code == 1
    back = runner.invoke(app, ["diff", second, first, "--fail-on", "became-contaminated"])
    assert back.exit_code == 0  # became clean: no regression
    assert runner.invoke(app, ["diff", first, second, "--fail-on", "x"]).exit_code == 2
