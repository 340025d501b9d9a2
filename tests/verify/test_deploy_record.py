"""What ops record of a deploy must get right, against an emulator that sends no ETag.

A corrected attachment re-issued under a new URL with the same name, the history of
verify runs, the verify report and its JUnit, a tool that drops restored characters,
the window limit, a key of an unusual length and the report of an interrupted run.
Everything runs against the emulator on 127.0.0.1 with ``etags`` off, so no check can
lean on a conditional request.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

import hwpscan.cli.fetch_command
import hwpscan.cli.report_command
import hwpscan.cli.verify_command  # noqa: F401  (registers verify)
from hwpscan.cli import app
from hwpscan.history.recording import recorded_run
from hwpscan.history.records import RunArgs
from hwpscan.manifest import MANIFEST_NAME, read_entries
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.quirks import Quirks
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.scanning.many_files import scan_paths

KEY = "Dp" + "7" * 30
PY = sys.executable
FIXED = f"fixed={PY} -m hwpscan.examples.fixed_extractor {{path}}"
DAY = "2025-07-21"
NO_ETAGS = Quirks(etags=False)
pytestmark = pytest.mark.slow


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def emu() -> Iterator[RunningEmulator]:
    with serve_in_thread(quirks=NO_ETAGS) as running:
        yield running


def cli(emu: RunningEmulator, *args: str, api: bool = True):
    extra = ["--api-url", emu.api_url] if api else []
    extra += ["--no-progress"] if api and args[0] != "plan" else []
    result = CliRunner().invoke(app, [*args, *extra])
    assert KEY not in result.output
    assert "Traceback" not in result.output, result.output
    return result


def verify_json(emu: RunningEmulator, *args: str) -> tuple[int, dict]:
    result = cli(emu, "verify", *args, "-j", "1", "--format", "json")
    out = result.stdout
    return result.exit_code, json.loads(out[out.index("{") : out.rindex("}") + 1])


def reissue(emu: RunningEmulator, *, new_urls: bool) -> int:
    params = {"date": DAY, **({"new_urls": "1"} if new_urls else {})}
    answer = httpx.post(f"{emu.url}/_emulator/reissue", params=params, timeout=30)
    return int(answer.json()["reissued"])


def _flat(output: str) -> str:
    return " ".join(output.replace("│", " ").split())


# -- the emulator ------------------------------------------------------------------------


def test_the_emulator_can_send_no_etag_and_reissue_under_new_urls(emu: RunningEmulator) -> None:
    ask = {"authKey": KEY, "startDate": DAY, "endDate": DAY}
    with httpx.Client(timeout=30, trust_env=False) as http:
        before = http.get(emu.api_url, params=ask).content
        url = before.split(b'"atchfileUrl":"')[1].split(b"|")[0].split(b'"')[0].decode()
        first = http.get(url)
        assert first.status_code == 200 and "etag" not in first.headers
        assert http.get(url, headers={"If-None-Match": '"x"'}).status_code == 200
        assert reissue(emu, new_urls=True) == 2
        after = http.get(emu.api_url, params=ask).content
        names = [b.split(b'"atchfileNm":"')[1].split(b'"')[0] for b in (before, after)]
        assert names[0] == names[1]  # the same names
        assert url.encode() not in after  # under other URLs
        assert http.get(url).content == first.content  # the old URL keeps the old bytes


# -- identity follows the URL ------------------------------------------------------------


def test_a_file_reissued_under_a_new_url_with_the_same_name_is_judged(
    home: Path, emu: RunningEmulator
) -> None:
    out = str(home / "press")
    code, doc = verify_json(emu, "--date", DAY, "--expect", "contaminated", "--out", out)
    assert code == ExitCode.OK, doc
    reissue(emu, new_urls=True)
    code, doc = verify_json(emu, "--date", DAY, "--expect", "contaminated", "--out", out)
    assert code == ExitCode.FINDINGS, doc  # the corrected files are clean: no false PASS
    assert doc["fetch"]["files_fetched"] == 2, doc["fetch"]
    code, doc = verify_json(emu, "--date", DAY, "--expect", "clean", "--out", out)
    assert code == ExitCode.OK, doc
    assert doc["fetch"]["files_fetched"] == 0  # the same URLs, the same bytes: reused
    entries = read_entries(Path(out) / MANIFEST_NAME)
    retaken = [e for e in entries if "new download URL" in (e.reason or "")]
    assert len(retaken) == 2 and all(e.status == "downloaded" for e in retaken)
    assert len(list(Path(out).rglob(".superseded/*.hwp"))) == 2


def test_a_file_reissued_under_the_same_url_is_told_by_its_bytes(
    home: Path, emu: RunningEmulator
) -> None:
    out = str(home / "press")
    code, _ = verify_json(emu, "--date", DAY, "--expect", "contaminated", "--out", out)
    assert code == ExitCode.OK
    assert reissue(emu, new_urls=False) == 2
    base = emu.stats()
    code, doc = verify_json(emu, "--date", DAY, "--expect", "clean", "--out", out)
    assert code == ExitCode.OK, doc
    assert doc["fetch"]["files_fetched"] == 2 and doc["fetch"]["files_reused"] == 3
    assert emu.stats().not_modified == base.not_modified  # no ETag: every body sent again


def test_fetch_in_the_same_folder_downloads_a_reissue_under_a_new_url(
    home: Path, emu: RunningEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = str(home / "press")
    first = cli(emu, "fetch", "--from", DAY, "--to", DAY, "--out", out)
    assert first.exit_code == 0, first.output
    before = {e.path: e.sha256 for e in read_entries(Path(out) / MANIFEST_NAME)}
    reissue(emu, new_urls=True)
    # another state folder (another machine, a CI job) sharing the downloads: its
    # listing, not cached yet, names the new URLs
    monkeypatch.setenv("HWPSCAN_HOME", str(home / "home2"))
    again = cli(emu, "fetch", "--from", DAY, "--to", DAY, "--out", out)
    assert again.exit_code == 0, again.output
    entries = read_entries(Path(out) / MANIFEST_NAME)
    changed = {e.path for e in entries if e.path and e.sha256 != before.get(e.path)}
    assert len(changed) == 2  # the two corrected files, under their old names
    for path in changed:
        assert (Path(out) / path).read_bytes() != b""
    scanned = cli(emu, "scan", out, "--format", "jsonl", api=False)
    rows = [json.loads(line) for line in scanned.stdout.splitlines() if line.startswith("{")]
    assert rows and not any(r["status"] == "contaminated" for r in rows if r.get("date") == DAY)


# -- the window and the key are checked before any call ---------------------------------


@pytest.mark.parametrize("command", ["fetch", "verify", "plan", "scan"])
def test_a_window_over_21_days_is_refused_before_any_call(
    home: Path, emu: RunningEmulator, command: str
) -> None:
    argv = {
        "fetch": ["fetch", "--from", "2025-07-01", "--to", "2025-08-11"],
        "verify": ["verify", "--date", DAY, "--expect", "contaminated"],
        "plan": ["plan", "--from", "2025-07-01", "--to", "2025-08-11"],
        "scan": ["scan", "--from", "2025-07-01", "--to", "2025-08-11"],
    }[command]
    result = cli(emu, *argv, "--window-days", "22")
    assert result.exit_code == ExitCode.USAGE, result.output
    assert "21 days per call" in _flat(result.output)
    assert emu.stats().calls_total == 0 and emu.stats().requests == 0


def test_a_key_of_another_length_needs_the_override_and_is_warned_about(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long_key = "LongKey" + "9" * 33  # 40 characters
    monkeypatch.setenv("HWPSCAN_API_KEY", long_key)
    with serve_in_thread(quirks=Quirks(etags=False, check_key=False)) as emu:
        refused = cli(emu, "fetch", "--from", DAY, "--to", DAY)
        assert refused.exit_code == ExitCode.USAGE
        assert "40 characters" in refused.output and "--any-key-length" in _flat(refused.output)
        assert emu.stats().calls_total == 0
        sent = cli(emu, "fetch", "--from", DAY, "--to", DAY, "--any-key-length")
        assert sent.exit_code == 0, sent.output
        assert "40 characters long" in _flat(sent.output) and "sent anyway" in sent.output
        assert emu.stats().calls_total == 1
        code, doc = verify_json(emu, "--date", DAY, "--expect", "contaminated", "--any-key-length")
        assert code == ExitCode.OK, doc
    for output in (refused.output, sent.output):
        assert long_key not in output


# -- history -------------------------------------------------------------------------------


def test_history_shows_passing_verify_runs_as_passed(home: Path, emu: RunningEmulator) -> None:
    code, _ = verify_json(emu, "--date", DAY, "--date", "2025-07-22", "--expect", "contaminated")
    assert code == ExitCode.OK
    shown = CliRunner().invoke(app, ["history"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    line = next(row for row in shown.output.splitlines() if " verify " in row)
    assert "2/2 dates PASS" in line and "FAIL" not in line, line
    code, _ = verify_json(emu, "--date", DAY, "--date", "2025-07-23", "--expect", "contaminated")
    assert code == ExitCode.FINDINGS
    shown = CliRunner().invoke(app, ["history", "-n", "1"], env={"COLUMNS": "200"})
    assert "1/2 dates PASS, 1 FAIL" in shown.output, shown.output


# -- a tool that deletes the restored characters does not pass ---------------------------

TOOL = r"""
import json, pathlib, re, subprocess, sys
day, folder, mode = sys.argv[1], sys.argv[2], sys.argv[3]
docs = []
for path in sorted(pathlib.Path(folder, day).glob("*.hwp")):
    extractor = [sys.executable, "-m", "hwpscan.examples.fixed_extractor", str(path)]
    text = subprocess.run(extractor, capture_output=True, check=True).stdout.decode("utf-8")
    if mode == "drop":  # valid UTF-8 because the private-use characters are gone
        text = re.sub("[\ue000-\uf8ff\U000f0000-\U0010ffff]", "", text)
    elif mode == "map":  # display equivalents where the PUA table knows one
        from hwpscan.forensics.pua import apply_pua_map
        text = apply_pua_map(text)[0]
    docs.append({"type": "text", "text": text})
print(json.dumps({"result": {"content": docs}}))
"""


def _tool(home: Path, mode: str) -> str:
    script = home / "tool.py"
    script.write_text(TOOL, encoding="utf-8")
    return f"{PY} {script} {{date}} {home / 'press'} {mode}"


@pytest.mark.parametrize(("mode", "verdict"), [("keep", "PASS"), ("map", "PASS"), ("drop", "FAIL")])
def test_a_tool_must_deliver_the_restored_characters(
    home: Path, emu: RunningEmulator, mode: str, verdict: str
) -> None:
    out = str(home / "press")
    code, doc = verify_json(
        emu, "--date", DAY, "--expect", "fixed", "--out", out, "--tool-cmd", _tool(home, mode)
    )
    (day,) = doc["dates"]
    assert day["verdict"] == verdict, day
    assert day["tool"]["ok"] and day["tool"]["bad"] == 0  # the output itself is clean UTF-8
    if verdict == "FAIL":
        assert code == ExitCode.FINDINGS
        assert "characters dropped" in day["reason"]
        dropped = [e for e in day["evidence"] if "characters dropped" in e["problem"]]
        assert len(dropped) == day["contaminated"] == 2  # each contaminated attachment named
        assert all(e["file"].endswith(".hwp") and "U+F02B1 ×8" in e["problem"] for e in dropped)
    else:
        assert code == ExitCode.OK


# -- the verify report, and the report of a verify run -----------------------------------


def _junit_cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {case.get("name", ""): case for case in root.iter("testcase")}


def _assert_verify_report(folder: Path) -> None:
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    table = summary.index("## Verification (--expect clean)")
    assert table < summary.index("contaminated**")  # before the file figures
    assert "**1 of 2 dates PASS, 1 FAIL**" in summary
    assert f"| {DAY} | **FAIL** |" in summary and "| 2025-07-23 | **PASS** |" in summary
    assert f"### Evidence for {DAY} (FAIL)" in summary and "[raw]" in summary
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert page.index('id="verdicts"') < page.index('id="summary"')
    assert "1 of 2 dates PASS, 1 FAIL" in page and "surrogate code points" in page
    cases = _junit_cases(folder / "junit.xml")
    assert sorted(cases) == [DAY, "2025-07-23"]  # one case per date, not per file
    failure = cases[DAY].find("failure")
    assert failure is not None and "FAIL" in (failure.get("message") or "")
    assert ".hwp [raw]" in (failure.text or "")
    assert not list(cases["2025-07-23"].iter("failure")) + list(cases["2025-07-23"].iter("error"))


def test_verify_report_leads_with_the_verdicts_and_junit_has_a_case_per_date(
    home: Path, emu: RunningEmulator
) -> None:
    result = cli(
        emu, "verify", "--date", DAY, "--date", "2025-07-23", "--expect", "clean",
        "--report", str(home / "reports" / "{run}"), "-j", "1",
    )  # fmt: skip
    assert result.exit_code == ExitCode.FINDINGS, result.output
    (folder,) = (home / "reports").iterdir()
    _assert_verify_report(folder)
    # the same from the stored run
    again = CliRunner().invoke(app, ["report", "latest", "--out", str(home / "again")])
    assert again.exit_code == 0, again.output
    assert "1/2 dates PASS, 1 FAIL" in again.output
    _assert_verify_report(home / "again")


def test_the_report_of_an_interrupted_run_says_it_is_partial(
    home: Path, emu: RunningEmulator
) -> None:
    out = home / "press"
    code, _ = verify_json(emu, "--date", DAY, "--expect", "contaminated", "--out", str(out))
    assert code == ExitCode.OK
    files = sorted(out.rglob("*.hwp"))
    with (
        pytest.raises(KeyboardInterrupt),
        recorded_run("scan", RunArgs(options={"paths": [str(out)]})) as rec,
    ):
        for result in scan_paths(files[:1], jobs=1):
            rec(result)
        raise KeyboardInterrupt  # Ctrl-C before the other files
    shown = CliRunner().invoke(app, ["report", "latest", "--out", str(home / "partial")])
    assert shown.exit_code == 0, shown.output
    assert "interrupted" in shown.output and "partial" in shown.output
    folder = home / "partial"
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert "**Partial: the run was interrupted" in summary
    assert 'id="partial"' in (folder / "report.html").read_text(encoding="utf-8")
    run_case = _junit_cases(folder / "junit.xml")["run"]
    error = run_case.find("error")
    assert error is not None and error.get("type") == "interrupted"
    # a finished run's report says nothing of the kind
    finished = CliRunner().invoke(app, ["report", "latest~1", "--out", str(home / "whole")])
    assert finished.exit_code == 0 and "partial" not in finished.output
    assert "Partial" not in (home / "whole" / "summary.md").read_text(encoding="utf-8")
