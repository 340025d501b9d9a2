"""The scan and repair commands through Typer's CliRunner, checked back through files."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.history.records import RunArgs
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.rowcodec import CONTRACT_KEYS

runner = CliRunner()


@pytest.fixture
def corpus(broken_dir: Path) -> Path:
    day = broken_dir / "2025-07-21"
    (day / "clean.hwpx").write_bytes(
        build_hwpx(["금융감독원 " + chr(0xF0854) + "보도" + chr(0xF0855)])
    )
    (day / "clean.pdf").write_bytes(build_pdf([["보도자료 본문"]]))
    return broken_dir


def test_table_output_shows_both_tables(corpus: Path) -> None:
    result = runner.invoke(app, ["scan", str(corpus), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "Files" in result.output
    assert "Contamination by date and format" in result.output
    assert "0/1" in result.output  # the dated HWPX and PDF cells (compact below 100 columns)
    assert "files:" in result.output


def test_jsonl_contract(corpus: Path) -> None:
    result = runner.invoke(app, ["scan", str(corpus), "--format", "jsonl", "-j", "1"])
    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 7
    for rec in lines:
        assert set(CONTRACT_KEYS) <= rec.keys()
        # the contract's words, spelled out: renaming one breaks every reader
        assert rec["format"] in {
            "hwp5",
            "hwpx",
            "pdf",
            "hwp3",
            "html",
            "ole",
            "zip",
            "empty",
            "unknown",
        }
        assert rec["status"] in {
            "clean",
            "contaminated",
            "encrypted",
            "distribution",
            "unsupported",
            "corrupt",
            "error",
        }
    hwpx = next(r for r in lines if r["path"].endswith("clean.hwpx"))
    assert hwpx["date"] == "2025-07-21"
    assert hwpx["pua"] == {"U+F0854": 1, "U+F0855": 1}


def test_csv_to_file(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "files.csv"
    result = runner.invoke(app, ["scan", str(corpus), "-f", "csv", "-o", str(out), "-j", "1"])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert len(rows) == 7
    assert {r["status"] for r in rows} >= {"clean", "unsupported", "corrupt"}


def test_paths_with_brackets_are_named_whole(corpus: Path, tmp_path: Path) -> None:
    """A path is shown as it is: ``[draft]`` in it is not taken for terminal markup."""
    out = tmp_path / "[draft]" / "[bold]rows.jsonl"
    report = tmp_path / "[red]report"
    args = ["scan", str(corpus), "-f", "jsonl", "-o", str(out), "-j", "1", "--report", str(report)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"written to {out}" in result.output
    assert f"report written: {report}" in result.output


def test_fail_on_error_exits_1(corpus: Path) -> None:
    assert runner.invoke(app, ["scan", str(corpus), "--fail-on", "error", "-j", "1"]).exit_code == 1
    assert (
        runner.invoke(app, ["scan", str(corpus), "--fail-on", "contaminated", "-j", "1"]).exit_code
        == 0
    )


def test_usage_errors_exit_2_without_traceback(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["scan", str(tmp_path / "nope")])
    assert missing.exit_code == 2
    assert "no such file" in missing.output and "Traceback" not in missing.output
    bad = runner.invoke(app, ["scan", str(tmp_path), "--fail-on", "everything"])
    assert bad.exit_code == 2 and "--fail-on" in bad.output


def test_repair_writes_utf8_text(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "repaired"
    result = runner.invoke(app, ["repair", str(corpus), "--out", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    text = (out / "2025-07-21" / "clean.hwpx.txt").read_text(encoding="utf-8")
    assert text == "금융감독원 " + chr(0xF0854) + "보도" + chr(0xF0855) + "\n"
    assert not (out / "empty.hwp.txt").exists()


@pytest.mark.slow
def test_every_command_has_help() -> None:
    import typer.main

    group = typer.main.get_group(app)
    assert group.commands, "no commands registered"
    for name in group.commands:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, name
        assert "Usage" in result.output, name


def test_version() -> None:
    from hwpscan import __version__

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_repair_pua_map_and_orphan_policy(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.hwpx").write_bytes(build_hwpx(["항목 " + chr(0xF02B2) + " 끝"]))
    out = tmp_path / "out"
    result = runner.invoke(app, ["repair", str(src), "--out", str(out), "--pua-map", "-j", "1"])
    assert result.exit_code == 0, result.output
    text = (out / "a.hwpx.txt").read_text(encoding="utf-8")
    assert chr(0xF02B2) not in text  # a known Hancom character got its standard stand-in
    bad = runner.invoke(app, ["repair", str(src), "--out", str(out), "--orphans", "explode"])
    assert bad.exit_code == 2


def test_scan_date_range_fetches_then_scans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`scan --from/--to` over the emulator: the incident's dates come out contaminated."""
    from hwpscan.rehearsal.emulator import serve_in_thread

    key = "SCANKEY" + "0123456789abcdef0123456789"[:25]
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", key)
    with serve_in_thread() as emu:
        args = [
            "scan",
            "--from",
            "2025-07-28",
            "--to",
            "2025-07-30",
            "--api-url",
            emu.api_url,
            "--out",
            str(tmp_path / "dl"),
            "--format",
            "jsonl",
            "--no-progress",
            "-j",
            "1",
        ]
        result = runner.invoke(app, args)
        calls = emu.stats().calls_total
    assert result.exit_code == 0, result.output
    assert calls == 1
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert {r["date"] for r in rows} == {"2025-07-28", "2025-07-29", "2025-07-30"}
    by_date: dict[str, set[str]] = {}
    for row in rows:
        if row["format"] == "hwp5":
            by_date.setdefault(row["date"], set()).add(row["status"])
    assert by_date["2025-07-28"] == {"clean"}
    assert "contaminated" in by_date["2025-07-29"] and "contaminated" in by_date["2025-07-30"]
    assert key not in result.output
    # A second, narrower range into the same folder scans only its own day.
    with serve_in_thread() as emu:
        args[2:5] = ["2025-07-29", "--to", "2025-07-29"]
        args[args.index("--api-url") + 1] = emu.api_url
        again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    dates = {json.loads(line)["date"] for line in again.stdout.splitlines() if line.startswith("{")}
    assert dates == {"2025-07-29"}
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def test_scan_needs_paths_or_a_range() -> None:
    assert runner.invoke(app, ["scan"]).exit_code == 2
    half = runner.invoke(app, ["scan", "--from", "2025-07-21"])
    assert half.exit_code == 2 and "go together" in half.output
    bad = runner.invoke(app, ["scan", "--from", "20250721", "--to", "2025-07-22"])
    assert bad.exit_code == 2


def test_repair_keeps_same_named_files_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two x.hwpx in different folders, given as a relative path: two repaired texts."""
    for sub, word in (("a", "첫째"), ("b", "둘째")):
        (tmp_path / "dup" / sub).mkdir(parents=True)
        (tmp_path / "dup" / sub / "x.hwpx").write_bytes(build_hwpx([word]))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["repair", "dup", "--out", "rep", "-j", "2"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep/a/x.hwpx.txt").read_text(encoding="utf-8") == "첫째\n"
    assert (tmp_path / "rep/b/x.hwpx.txt").read_text(encoding="utf-8") == "둘째\n"


def test_repair_reports_what_it_did(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    unknown, known = chr(0xF0FFF), chr(0xF02B2)
    (src / "a.hwpx").write_bytes(build_hwpx([f"{known} 항목 {unknown}"]))
    result = runner.invoke(
        app, ["repair", str(src), "--out", str(tmp_path / "out"), "--pua-map", "-j", "1"]
    )
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "a.hwpx" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    # one PUA replaced, one unknown PUA kept and named
    assert cells[-1] == "1 mapped, 1 kept: U+F0FFF×1"


def test_special_files_are_rows_not_hangs(tmp_path: Path) -> None:
    """A FIFO would block a reader forever and /dev/zero never ends: both are rows."""
    import os

    folder = tmp_path / "in"
    folder.mkdir()
    os.mkfifo(folder / "pipe.hwp")
    (folder / "zero.hwp").symlink_to("/dev/zero")
    (folder / "loop.hwp").symlink_to(folder / "loop.hwp")
    result = runner.invoke(app, ["scan", str(folder), "-f", "jsonl", "-j", "1"])
    assert result.exit_code == 0, result.output
    rows = {Path(r["path"]).name: r for r in map(json.loads, result.stdout.splitlines())}
    assert rows["pipe.hwp"]["status"] == rows["zero.hwp"]["status"] == "unsupported"
    assert "not a regular file" in rows["pipe.hwp"]["reason"]
    assert rows["loop.hwp"]["status"] == "error"
    assert rows["pipe.hwp"]["chars"] is None  # nothing was read: null, not zero


def test_unwritable_outputs_are_usage_errors(tmp_path: Path, corpus: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases = [
        ["scan", str(corpus), "-f", "jsonl", "-o", str(tmp_path)],  # a folder, not a file
        ["scan", str(corpus), "-f", "jsonl", "-o", str(blocker / "out.jsonl")],
        ["scan", str(corpus), "--emit-repaired", str(blocker / "rep")],
        ["repair", str(corpus), "--out", str(blocker / "rep")],
        ["scan", str(corpus), "--report", str(blocker / "{run}")],
        ["scan", str(corpus), "-o", str(tmp_path / "table.txt")],  # tables are not written
    ]
    for args in cases:
        result = runner.invoke(app, [*args, "-j", "1"])
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "junit"])
def test_output_dash_is_standard_output(
    fmt: str, corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    to_file = runner.invoke(app, ["scan", str(corpus), "-f", fmt, "-o", "rows", "-j", "1"])
    result = runner.invoke(app, ["scan", str(corpus), "-f", fmt, "-o", "-", "-j", "1"])
    assert result.exit_code == to_file.exit_code == 0, result.output
    assert not (tmp_path / "-").exists()
    written = (tmp_path / "rows").read_text(encoding="utf-8")
    if fmt == "jsonl":  # rows come as files complete: the same rows, in any order
        key = lambda line: json.loads(line)["index"]  # noqa: E731
        assert sorted(result.stdout.splitlines(), key=key) == sorted(written.splitlines(), key=key)
    else:
        assert len(result.stdout.splitlines()) == len(written.splitlines()) > 7
    assert "written to" not in result.output


def test_jobs_beyond_the_file_count_start_no_idle_workers(corpus: Path) -> None:
    result = runner.invoke(app, ["scan", str(corpus), "-f", "jsonl", "--jobs", "1000"])
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 7


def test_a_damaged_run_store_is_a_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "runs.sqlite").write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("HWPSCAN_HOME", str(home))
    history = runner.invoke(app, ["history"])
    assert history.exit_code == 2 and "not a usable SQLite database" in history.output
    scan = runner.invoke(app, ["scan", str(corpus), "-f", "jsonl", "-j", "1"])
    assert scan.exit_code == 0  # the scan itself goes on; only the history is skipped
    assert "not recorded" in scan.output


@pytest.mark.slow
def test_a_cp949_console_gets_utf8_records_and_a_readable_table(tmp_path: Path) -> None:
    """Korean Windows pipes in cp949: machine output stays UTF-8, tables never crash."""
    import os
    import subprocess
    import sys

    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "2025-08-05"
    env = {**os.environ, "PYTHONIOENCODING": "cp949", "HWPSCAN_HOME": str(tmp_path)}
    for args in (["--format", "jsonl"], ["--format", "junit"], []):
        done = subprocess.run(
            [sys.executable, "-m", "hwpscan", "scan", str(fixtures), "-j", "1", *args],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in done.stderr
        if args and args[1] == "jsonl":
            rows = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
            assert len(rows) == 6


def test_report_and_diff_refuse_a_fetch_run(tmp_path: Path) -> None:
    from hwpscan.history.recording import recorded_run

    with recorded_run("fetch", RunArgs(start="2025-07-21")) as fetched:
        pass
    fetch_id = fetched.run_id
    assert fetch_id is not None
    for args in (["report", fetch_id, "--out", str(tmp_path / "r")], ["diff", fetch_id, fetch_id]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "is a fetch" in result.output
    assert not (tmp_path / "r").exists()


def test_plan_rejects_an_api_url_fetch_would_reject() -> None:
    result = runner.invoke(
        app, ["plan", "--from", "2025-07-21", "--to", "2025-07-22", "--api-url", "ftp://x/y"]
    )
    assert result.exit_code == 2 and "http or https" in result.output


def test_paths_in_messages_are_printed_as_they_are(tmp_path: Path) -> None:
    """A name holding an emoji code (``:warning:``) is shown as written, not with a
    sign put in its place: in an error, and in the files table."""
    day = tmp_path / "2025-07-21"
    day.mkdir()
    (day / "a:warning:b.hwpx").write_bytes(build_hwpx(["보도자료"]))
    missing = runner.invoke(app, ["scan", str(tmp_path / "gone:smile:"), "-j", "1"])
    assert missing.exit_code == 2
    assert (
        "gone:smile:" in missing.output and "\N{SMILING FACE WITH OPEN MOUTH}" not in missing.output
    )
    shown = runner.invoke(app, ["scan", str(tmp_path), "-j", "1", "--show", "all"])
    assert shown.exit_code == 0, shown.output
    assert "a:warning:b.hwpx" in shown.output and "\N{WARNING SIGN}" not in shown.output
