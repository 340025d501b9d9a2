"""One meaning per flag and one format vocabulary: ``-o/--output`` is the results file
of every command that has results, ``--format`` takes the same words everywhere, every
JSON document or JSON Lines object names its ``schema``; ``verify`` spells its verdicts
out, ``repair`` says where each file's text went."""

from __future__ import annotations

import csv
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import hwpscan.cli.verify_command as verify_cli
from hwpscan.cli import app
from hwpscan.manifest import MANIFEST_NAME
from hwpscan.models import ExitCode, FileResult, Format, RepairSummary, Status
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rowcodec import decode_row, encode_row
from hwpscan.verify import FAIL, INCONCLUSIVE, PASS, DateVerdict

runner = CliRunner()
DAY = ["--from", "2025-07-21", "--to", "2025-07-21"]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", "TESTKEY" + secrets.token_hex(13)[:25])
    return tmp_path / "home"


@pytest.fixture(scope="module")
def emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread() as emu:
        yield emu


def _doc(path: Path) -> dict[str, object]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


# -- -o/--output: the results file --------------------------------------------------


def test_scan_json_is_one_document_of_the_jsonl_rows(tmp_path: Path, home: Path) -> None:
    day = FIXTURES / "2025-07-21"
    out = tmp_path / "scan.json"
    done = runner.invoke(app, ["scan", str(day), "-f", "json", "-o", str(out), "--no-progress"])
    assert done.exit_code == ExitCode.OK, done.output  # no --fail-on: findings are rows
    doc = _doc(out)
    assert doc["schema"] == "hwpscan.scan/1"
    rows = doc["rows"]
    assert isinstance(rows, list) and len(rows) == doc["files"] == 3
    assert doc["counts"] == {"clean": 1, "contaminated": 2}
    lines = runner.invoke(app, ["scan", str(day), "-f", "jsonl", "--sort", "input"])
    jsonl = [json.loads(x) for x in lines.stdout.splitlines() if x.startswith("{")]
    assert [r["path"] for r in rows] == [r["path"] for r in jsonl]
    assert all(r["schema"] == "hwpscan.scan.row/1" for r in rows + jsonl)


def test_every_row_names_its_schema_first_and_older_rows_still_load() -> None:
    row = FileResult(
        "보도.hwp", "ab", 3, Format.HWP5, Status.CLEAN, repair=RepairSummary(target="o/a.txt")
    )
    line = encode_row(row)
    assert line.startswith('{"schema": "hwpscan.scan.row/1", "path": ')
    older = json.loads(line)
    del older["schema"], older["repair"]["target"]  # a row stored before either existed
    assert decode_row(json.dumps(older)).path == "보도.hwp"
    assert encode_row(decode_row(line)) == line


def test_plan_history_and_diff_write_their_documents_to_o(tmp_path: Path, home: Path) -> None:
    plan = tmp_path / "plan.json"
    done = runner.invoke(app, ["plan", *DAY, "-f", "json", "-o", str(plan)])
    assert done.exit_code == 0, done.output
    assert _doc(plan)["schema"] == "hwpscan.plan/1" and "{" not in done.stdout
    for _ in range(2):
        scan = runner.invoke(app, ["scan", str(FIXTURES / "2025-07-21"), "--no-progress"])
        assert scan.exit_code == ExitCode.OK, scan.output
    history = tmp_path / "history.json"
    done = runner.invoke(app, ["history", "-f", "json", "--output", str(history)])
    assert done.exit_code == 0, done.output
    runs = _doc(history)
    assert runs["schema"] == "hwpscan.history/1" and len(runs["runs"]) == 2  # type: ignore[arg-type]
    diff = tmp_path / "diff.json"
    done = runner.invoke(app, ["diff", "latest~1", "latest", "-f", "json", "-o", str(diff)])
    assert done.exit_code == 0, done.output
    assert _doc(diff)["schema"] == "hwpscan.diff/1"
    stdout = runner.invoke(app, ["diff", "latest~1", "latest", "-f", "json", "-o", "-"])
    assert json.loads(stdout.stdout)["schema"] == "hwpscan.diff/1"


@pytest.mark.parametrize(
    "argv",
    [["plan", *DAY], ["history"], ["diff", "latest~1"], ["check-json", "x.jsonl"], ["manifest"]],
)
def test_o_with_the_table_is_refused_before_any_work(argv: list[str], home: Path) -> None:
    done = runner.invoke(app, [*argv, "-o", "results.txt"])
    assert done.exit_code == ExitCode.USAGE
    assert "--output needs --format" in flat(done.output)


def test_check_json_writes_its_lines_to_o_and_table_replaces_text(tmp_path: Path) -> None:
    capture = tmp_path / "capture.jsonl"
    capture.write_bytes(b'{"text": "\\ud800 broken"}\n{"text": "fine"}\n')
    out = tmp_path / "found.jsonl"
    done = runner.invoke(app, ["check-json", str(capture), "-f", "jsonl", "-o", str(out)])
    assert done.exit_code == ExitCode.FINDINGS, done.output
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["type"] for x in lines] == ["bad-string", "summary"]
    assert {x["schema"] for x in lines} == {"hwpscan.check-json/1"}
    table = runner.invoke(app, ["check-json", str(capture), "-f", "table"])
    assert table.exit_code == ExitCode.FINDINGS and "1 bad string(s)" in flat(table.output)
    old = runner.invoke(app, ["check-json", str(capture), "-f", "text"])
    assert old.exit_code == ExitCode.FINDINGS and "1 bad string(s)" in flat(old.output)
    assert "--format text is deprecated: use table" in flat(old.output)
    shown = runner.invoke(app, ["check-json", "--help"], env={"COLUMNS": "200"}).output
    assert "table|json|jsonl" in shown and "text" not in shown.split("--format")[1].split("\n")[0]


def test_manifest_jsonl_goes_to_o_with_a_schema(
    emulator: RunningEmulator, home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "dl"
    argv = ["fetch", *DAY, "--api-url", emulator.api_url, "--no-progress", "--out", str(folder)]
    assert runner.invoke(app, argv).exit_code == 0
    out = tmp_path / "entries.jsonl"
    done = runner.invoke(app, ["manifest", str(folder), "-f", "jsonl", "-o", str(out)])
    assert done.exit_code == 0, done.output
    entries = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert entries and {e["schema"] for e in entries} == {"hwpscan.manifest.entry/1"}
    # the manifest file itself is untouched: its lines carry no schema
    assert '"schema"' not in (folder / MANIFEST_NAME).read_text(encoding="utf-8")


@pytest.mark.slow
def test_verify_writes_its_document_to_o(
    emulator: RunningEmulator, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "verdicts.json"
    argv = ["verify", "--date", "2025-07-21", "--expect", "contaminated", "-f", "json"]
    argv += ["--api-url", emulator.api_url, "--no-progress", "-j", "1", "-o", str(out)]
    done = runner.invoke(app, argv)
    assert done.exit_code == ExitCode.OK, done.output
    doc = _doc(out)
    assert doc["schema"] == "hwpscan.verify/1"
    assert [d["verdict"] for d in doc["dates"]] == [PASS]  # type: ignore[union-attr,index]


@pytest.mark.parametrize("command", ["fetch", "report", "demo", "verify", "repair"])
def test_o_is_never_a_folder(command: str) -> None:
    """The hidden ``-o FOLDER`` aliases are gone: where ``-o`` is known at all it is the
    results file, and its help says so."""
    import typer.main

    cmd = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    for param in cmd.params:
        if "-o" in param.opts:
            assert not param.hidden and "--output" in param.opts, command
            assert "results" in (param.help or "") and "folder" not in (param.help or "")


def test_report_o_is_no_longer_a_folder(home: Path, tmp_path: Path) -> None:
    # -o is the results file of --format json; the report's folder is --out
    done = runner.invoke(app, ["report", "latest", "-o", str(tmp_path / "r")])
    assert done.exit_code == ExitCode.USAGE and "--output needs --format json" in done.output
    assert not (tmp_path / "r").exists()


# -- verify: the verdict as a word ----------------------------------------------------


def test_verify_table_has_the_verdict_as_a_word_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown = Console(width=100, no_color=True, record=True, force_terminal=False)
    monkeypatch.setattr(verify_cli, "console", shown)
    verdicts = [
        DateVerdict("2025-07-21", PASS, "the fix holds on 3 contaminated files", "fixed", 5),
        DateVerdict("2025-07-22", FAIL, "2 files still broken after the deployed parser", "fixed"),
        DateVerdict("2025-07-23", INCONCLUSIVE, "no raw attachment is contaminated", "fixed"),
    ]
    verify_cli.render_verdicts(verdicts, show_before=False)
    text = shown.export_text()
    lines = text.splitlines()
    header = next(line for line in lines if "date" in line and "files" in line)
    assert [c.strip() for c in re.split("[│┃]", header)][-3:-1] == ["verdict", "why"]
    for v in verdicts:
        row = next(line for line in lines if v.date in line)
        cells = [c.strip() for c in row.split("│")]
        assert cells[-3] == v.verdict, cells  # the word alone, in its own cell
        assert v.reason.split()[0] in cells[-2]


# -- repair: where the text went ------------------------------------------------------


def test_repair_names_each_target_and_says_how_many_went_where(tmp_path: Path, home: Path) -> None:
    day = tmp_path / "in" / "2025-07-21"
    day.mkdir(parents=True)
    (day / "a.hwp").write_bytes(build_hwp5(["보도자료 " + chr(0xD83D) + chr(0xDE00)]))
    (day / "b.hwp").write_bytes(build_hwp5(["금융감독원"]))
    (day / "broken.hwp").write_bytes(b"not a document")
    out = tmp_path / "fixed"
    done = runner.invoke(
        app,
        ["repair", str(tmp_path / "in"), "--out", str(out), "-j", "1", "--no-progress"],
        env={"COLUMNS": "200"},
    )
    assert done.exit_code == 0, done.output
    text = flat(done.output)
    rows = [[c.strip() for c in re.split("[│┃]", x)] for x in done.output.splitlines()]
    rows = [r for r in rows if len(r) > 3]
    header = next(r for r in rows if "file" in r)
    col = header.index("written to")
    for name in ("a.hwp", "b.hwp"):
        assert (out / f"{name}.txt").is_file()  # below the inputs' common folder
        row = next(r for r in rows if r[1].endswith(name))
        assert row[col] == f"{name}.txt", row
    assert next(r for r in rows if r[1].endswith("broken.hwp"))[col] == ""
    assert f"2 files repaired, written below {out} (1 not: no text read)" in text


def test_repair_rows_go_to_o_in_each_format(tmp_path: Path, home: Path) -> None:
    day = tmp_path / "in"
    day.mkdir()
    (day / "a.hwp").write_bytes(build_hwp5(["보도자료 " + chr(0xD83D) + chr(0xDE00)]))
    (day / "broken.hwp").write_bytes(b"not a document")
    base = ["repair", str(day), "--out", str(tmp_path / "fixed"), "-j", "1", "--no-progress"]
    doc_file, lines_file, csv_file = tmp_path / "r.json", tmp_path / "r.jsonl", tmp_path / "r.csv"
    done = runner.invoke(app, [*base, "-f", "json", "-o", str(doc_file)])
    assert done.exit_code == 0, done.output
    doc = _doc(doc_file)
    assert doc["schema"] == "hwpscan.repair/1" and (doc["files"], doc["repaired"]) == (2, 1)
    rows = {Path(r["path"]).name: r for r in doc["rows"]}  # type: ignore[union-attr]
    assert rows["a.hwp"]["repair"]["target"] == str(tmp_path / "fixed" / "a.hwp.txt")
    assert rows["a.hwp"]["repair"]["restored_pairs"] == 1 and "repair" not in rows["broken.hwp"]
    assert "1 file repaired, written below" in flat(done.output)
    assert runner.invoke(app, [*base, "-f", "jsonl", "-o", str(lines_file)]).exit_code == 0
    lines = [json.loads(x) for x in lines_file.read_text(encoding="utf-8").splitlines()]
    assert [r["path"] for r in lines] == [r["path"] for r in doc["rows"]]  # type: ignore[union-attr]
    assert runner.invoke(app, [*base, "-f", "csv", "-o", str(csv_file)]).exit_code == 0
    table = list(csv.DictReader(csv_file.read_text(encoding="utf-8-sig").splitlines()))
    by_name = {Path(r["path"]).name: r for r in table}
    assert by_name["a.hwp"]["target"].endswith("a.hwp.txt")
    assert by_name["a.hwp"]["restored_pairs"] == "1" and by_name["broken.hwp"]["target"] == ""
    refused = runner.invoke(app, [*base, "-o", str(tmp_path / "t.txt")])
    assert refused.exit_code == ExitCode.USAGE and "--output needs --format" in flat(refused.output)


def test_fetch_json_and_jsonl_go_to_o(
    emulator: RunningEmulator, home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "dl"
    argv = ["fetch", *DAY, "--api-url", emulator.api_url, "--no-progress", "--out", str(folder)]
    doc_file, lines_file = tmp_path / "fetch.json", tmp_path / "fetch.jsonl"
    done = runner.invoke(app, [*argv, "-f", "json", "-o", str(doc_file)])
    assert done.exit_code == 0, done.output
    doc = _doc(doc_file)
    assert doc["schema"] == "hwpscan.api/1" and doc["start"] == doc["end"] == "2025-07-21"
    assert doc["manifest"] == str(folder / MANIFEST_NAME) and doc["error"] is None
    entries = doc["entries"]
    assert isinstance(entries, list) and entries
    assert doc["files_downloaded"] == len(entries)
    done = runner.invoke(app, [*argv, "-f", "jsonl", "-o", str(lines_file)])
    assert done.exit_code == 0, done.output
    lines = [json.loads(x) for x in lines_file.read_text(encoding="utf-8").splitlines()]
    assert {x["schema"] for x in lines} == {"hwpscan.manifest.entry/1"}
    assert [x["url"] for x in lines] == [e["url"] for e in entries]
    refused = runner.invoke(app, [*argv, "-o", str(tmp_path / "t.txt")])
    assert refused.exit_code == ExitCode.USAGE


@pytest.mark.slow
def test_verify_junit_has_one_case_per_date(
    emulator: RunningEmulator, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "verify.xml"
    argv = ["verify", "--date", "2025-07-21,2025-07-30", "--expect", "contaminated"]
    argv += ["-f", "junit", "--api-url", emulator.api_url, "--no-progress", "-j", "1"]
    done = runner.invoke(app, [*argv, "-o", str(out)])
    assert done.exit_code == ExitCode.OK, done.output
    cases = re.findall(r'<testcase [^>]*name="([^"]+)"', out.read_text(encoding="utf-8"))
    assert sorted(cases) == ["2025-07-21", "2025-07-30"], cases
