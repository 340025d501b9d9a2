"""``hwpscan verify`` against the API emulator over real sockets, and the verdict core.

The deployed code is run for real: the example extractors shipped in
``hwpscan.examples`` (one fixed, one decoding code unit by code unit like the incident's
parser) as ``--parser-cmd`` subprocesses, and small scripts as ``--tool-cmd``.
"""

from __future__ import annotations

import json
import stat
import sys
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from report_corpus import build_corpus, scan_folder
from typer.testing import CliRunner

import hwpscan.cli.verify_command  # noqa: F401  (registers verify)
from hwpscan.cli import app
from hwpscan.forensics.checkjson import check_json_text
from hwpscan.history import load_run
from hwpscan.manifest import MANIFEST_NAME, dates_for, read_entries
from hwpscan.matrix import MatrixRow
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.quirks import Quirks, QuotaMode
from hwpscan.rehearsal.emulator.server import serve_in_thread
from hwpscan.verify import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    DateVerdict,
    Listing,
    ToolOutcome,
    exit_code,
    judge,
    parse_tool_cmd,
    run_tool,
    scan_files,
)

KEY = "Vf" + "3" * 30  # a throwaway key in the API's format
PY = sys.executable
FIXED = f"fixed={PY} -m hwpscan.examples.fixed_extractor {{path}}"
BROKEN = f"broken={PY} -m hwpscan.examples.broken_extractor {{path}}"
pytestmark = pytest.mark.slow


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def emulator():
    with serve_in_thread() as emu:
        yield emu


def _verify(emu, *args: str):
    result = CliRunner().invoke(
        app, ["verify", *args, "--api-url", emu.api_url, "--no-progress", "-j", "1"]
    )
    assert KEY not in result.output
    assert "Traceback" not in result.output
    return result


def _json(emu, *args: str) -> tuple[int, dict]:
    result = _verify(emu, *args, "--format", "json")
    start = result.stdout.index("{")
    return result.exit_code, json.loads(result.stdout[start : result.stdout.rindex("}") + 1])


def _row(output: str, day: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(f"│ {day}"))


def _flat(output: str) -> str:
    """The output with table borders and line wraps taken out."""
    return " ".join(output.replace("│", " ").split())


def _script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!{PY}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


# -- Done when: the fixed extractor passes, the broken one fails with the evidence -------


@pytest.mark.slow
def test_the_fixed_extractor_passes_both_incident_dates(home: Path, emulator) -> None:
    before = emulator.stats()
    code, doc = _json(
        emulator, "--date", "2025-07-21", "--date", "2025-07-30", "--expect", "fixed",
        "--parser-cmd", FIXED,
    )  # fmt: skip
    assert code == ExitCode.OK, doc
    assert [d["verdict"] for d in doc["dates"]] == [PASS, PASS]
    first = doc["dates"][0]
    assert first["raw"] == "contaminated" and first["contaminated"] >= 1
    assert first["extractors"] == ["fixed"] and first["rows_checked"] == first["files"]
    after = emulator.stats()
    # one call for both dates (one 21-day span), and only those dates' attachments
    assert after.calls_total - before.calls_total == 1
    fetched = after.downloads_total - before.downloads_total
    assert fetched == sum(d["files"] for d in doc["dates"]) == 9
    assert doc["fetch"] == {
        "calls_made": 1, "calls_cached": 0, "files_fetched": 9, "files_reused": 0,
    }  # fmt: skip
    run = load_run("latest")
    assert run.info.kind == "verify"
    assert {d: v["verdict"] for d, v in run.info.summary["verdicts"].items()} == {
        "2025-07-21": PASS,
        "2025-07-30": PASS,
    }
    for path in (home / "home").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.slow
def test_the_broken_extractor_fails_naming_file_and_position(home: Path, emulator) -> None:
    result = _verify(
        emulator, "--date", "2025-07-21", "--date", "2025-07-30", "--expect", "fixed",
        "--parser-cmd", BROKEN,
    )  # fmt: skip
    assert result.exit_code == ExitCode.FINDINGS, result.output
    assert "FAIL" in _row(result.output, "2025-07-21")
    code, doc = _json(emulator, "--date", "2025-07-21", "--expect", "fixed", "--parser-cmd", BROKEN)
    assert code == 1
    (day,) = doc["dates"]
    ev = day["evidence"][0]
    assert ev["source"] == "broken" and ev["file"].endswith(".hwp")
    assert "surrogates" in ev["problem"]
    assert isinstance(ev["position"], int) and "\\udb80" in ev["context"]
    assert Path(ev["file"]).name in day["reason"] and f"at {ev['position']}" in day["reason"]
    # every contaminated file is named, and no clean one
    assert len(day["evidence"]) == day["contaminated"]


@pytest.mark.slow
def test_a_date_with_only_clean_attachments_is_inconclusive_under_fixed(
    home: Path, emulator
) -> None:
    code, doc = _json(emulator, "--date", "2025-07-23", "--expect", "fixed", "--parser-cmd", FIXED)
    assert code == ExitCode.INCONCLUSIVE == 4
    (day,) = doc["dates"]
    assert day["verdict"] == INCONCLUSIVE and day["raw"] == "clean"
    assert "no raw attachment is contaminated" in day["reason"]
    # mixed with a passing date: still not 0
    code, doc = _json(
        emulator, "--date", "2025-07-21", "--date", "2025-07-23", "--expect", "fixed",
        "--parser-cmd", FIXED,
    )  # fmt: skip
    assert code == 4 and [d["verdict"] for d in doc["dates"]] == [PASS, INCONCLUSIVE]


# -- Done when: fresh by default ------------------------------------------------------


def test_reissued_clean_files_are_seen_without_cached(home: Path) -> None:
    with serve_in_thread() as emu:
        first = _verify(emu, "--date", "2025-07-21", "--expect", "clean")
        assert first.exit_code == 1, first.output  # the published files are contaminated
        base = emu.stats()
        answer = httpx.post(f"{emu.url}/_emulator/reissue", params={"date": "2025-07-21"})
        assert answer.json() == {"reissued": 2}
        stale = _verify(emu, "--date", "2025-07-21", "--expect", "clean", "--cached")
        assert stale.exit_code == 1, stale.output  # the cache still holds the old state
        assert emu.stats().calls_total == base.calls_total  # --cached: no call
        assert emu.stats().downloads_total == base.downloads_total  # and no download
        base = emu.stats()
        fresh = _verify(emu, "--date", "2025-07-21", "--expect", "clean")
        assert fresh.exit_code == 0, fresh.output
        assert "PASS" in _row(fresh.output, "2025-07-21")
        assert "files: 2 downloaded, 3 already there" in _flat(fresh.output)  # said once
        now = emu.stats()
        assert now.calls_total - base.calls_total == 1
        assert now.downloads_total - base.downloads_total == 5  # one conditional GET each
        assert now.not_modified - base.not_modified == 3  # the unchanged ones: no body
    # the earlier, contaminated copies are kept, outside what a folder scan reads
    kept = list((home / "home").rglob(".superseded/*.hwp"))
    assert len(kept) == 2


def test_a_second_verify_revalidates_without_downloading_bodies(home: Path, emulator) -> None:
    assert _verify(emulator, "--date", "2025-08-05", "--expect", "contaminated").exit_code == 0
    base = emulator.stats()
    again = _verify(emulator, "--date", "2025-08-05", "--expect", "contaminated")
    assert again.exit_code == 0, again.output
    now = emulator.stats()
    assert now.calls_total - base.calls_total == 1  # asked again, not read from the cache
    assert now.not_modified - base.not_modified == now.downloads_total - base.downloads_total


# -- Done when: the API or its quota stopping is exit 3 -------------------------------


def test_an_exhausted_quota_exits_3(home: Path) -> None:
    with serve_in_thread(quirks=Quirks(daily_limit=0)) as emu:
        code, doc = _json(emu, "--date", "2025-07-21", "--expect", "fixed", "--parser-cmd", FIXED)
    assert code == ExitCode.API == 3
    assert doc["dates"][0]["verdict"] == INCONCLUSIVE
    assert "stopped before this date was listed" in doc["dates"][0]["reason"]
    assert doc["stopped"]


def test_a_silent_quota_refusal_is_exit_3_not_a_failure(home: Path) -> None:
    quirks = Quirks(daily_limit=0, quota_mode=QuotaMode.SILENT)
    with serve_in_thread(quirks=quirks) as emu:
        # the ledger knows the limit is near: the empty answer is a refusal
        near = _verify(emu, "--date", "2025-07-21", "--expect", "clean", "--daily-limit", "2")
        assert near.exit_code == 3, near.output
        # the ledger does not: an empty weekday is a possible refusal, never a PASS or FAIL
        code, doc = _json(emu, "--date", "2025-07-21", "--expect", "clean")
    assert code == 3
    assert doc["dates"][0]["verdict"] == INCONCLUSIVE
    assert "silent quota refusal" in doc["dates"][0]["reason"]


def test_local_quota_exits_3_without_calling(home: Path, emulator) -> None:
    calls = emulator.stats().calls_total
    result = _verify(emulator, "--date", "2025-08-08", "--expect", "clean", "--daily-limit", "0")
    assert result.exit_code == 3, result.output
    assert emulator.stats().calls_total == calls


# -- Done when: a tool command's SSE stream with a lone surrogate fails with its path --


def test_a_tool_command_printing_sse_with_a_lone_surrogate_fails_with_the_path(
    home: Path, emulator
) -> None:
    tool = _script(
        home,
        "tool.py",
        "import sys\n"
        "day = sys.argv[1]\n"
        "print('event: message')\n"
        'print(\'data: {"result": {"content": [{"type": "text", "text": "\' + day + \'"}]}}\')\n'
        "print()\n"
        'print(\'data: {"result": {"content": [{"type": "text", "text": "bad \\\\udb80 x"}]}}\')\n'
        "print()\n",
    )
    code, doc = _json(
        emulator, "--date", "2025-07-30", "--expect", "fixed", "--tool-cmd", f"{tool} {{date}}"
    )
    assert code == 1
    (day,) = doc["dates"]
    assert day["verdict"] == FAIL and day["tool"]["documents"] == 2
    ev = day["evidence"][0]
    assert ev["source"] == "tool" and ev["json_path"] == "$.result.content[0].text"
    assert ev["position"] == 4 and ev["json_line"] == 4
    assert "$.result.content[0].text" in day["reason"]


@pytest.mark.slow
def test_a_clean_tool_output_passes_and_a_failing_tool_is_a_failure(
    home: Path, emulator, tmp_path: Path
) -> None:
    good = _script(  # the date's text as the fixed extractor gives it, restored characters too
        tmp_path,
        "good.py",
        "import json, pathlib, subprocess, sys\n"
        "texts = [subprocess.run([sys.executable, '-m', 'hwpscan.examples.fixed_extractor', "
        "str(p)], capture_output=True, check=True).stdout.decode('utf-8')\n"
        "         for p in sorted(pathlib.Path(sys.argv[2], sys.argv[1]).glob('*.hwp'))]\n"
        "print(json.dumps({'date': sys.argv[1], 'texts': texts}))\n",
    )
    out = tmp_path / "press"
    code, doc = _json(
        emulator, "--date", "2025-07-30", "--expect", "fixed", "--out", str(out),
        "--tool-cmd", f"{good} {{date}} {out}",
    )  # fmt: skip
    assert code == 0 and doc["dates"][0]["verdict"] == PASS, doc
    for body, words in (
        ("import sys\nprint('boom', file=sys.stderr)\nsys.exit(5)\n", "exited with status 5: boom"),
        ("print('not json at all')\n", "printed no JSON"),
        ("import time\ntime.sleep(30)\n", "did not finish within 1 s"),
    ):
        tool = _script(tmp_path, "t.py", body)
        code, doc = _json(
            emulator, "--date", "2025-07-30", "--expect", "fixed",
            "--tool-cmd", f"{tool} {{date}}", "--tool-timeout", "1",
        )  # fmt: skip
        assert code == 1, (body, doc)
        assert words in doc["dates"][0]["reason"], doc["dates"][0]
    code, doc = _json(
        emulator, "--date", "2025-07-30", "--expect", "fixed", "--tool-cmd", "no-such-tool-x {date}"
    )
    assert code == 1 and "cannot run the tool command" in doc["dates"][0]["reason"]


# -- expectations on the raw files, options, dates -------------------------------------


@pytest.mark.slow
def test_raw_expectations_pass_and_fail(home: Path, emulator) -> None:
    ok = _verify(
        emulator, "--date", "2025-07-30", "--date", "2025-08-05", "--expect", "contaminated"
    )
    assert ok.exit_code == 0, ok.output
    assert _verify(emulator, "--date", "2025-07-23", "--expect", "clean").exit_code == 0
    bad = _verify(emulator, "--date", "2025-07-21", "--date", "2025-07-23", "--expect", "clean")
    assert bad.exit_code == 1, bad.output
    assert "FAIL" in _row(bad.output, "2025-07-21") and "PASS" in _row(bad.output, "2025-07-23")
    assert "U+F02B1" in bad.output  # the evidence lines name the first defect
    code, doc = _json(emulator, "--date", "2025-07-21", "--expect", "clean")
    assert code == 1 and doc["dates"][0]["reason"].startswith("expected clean, found 2 of 5")
    code, doc = _json(emulator, "--date", "2025-07-23", "--expect", "contaminated")
    assert code == 1 and doc["dates"][0]["reason"] == "expected contaminated, found clean"


@pytest.mark.slow
def test_expect_is_required_and_checked_before_any_call(home: Path, emulator) -> None:
    calls = emulator.stats().calls_total
    missing = _verify(emulator, "--date", "2025-07-21")
    assert missing.exit_code == 2 and "verify needs --expect" in missing.output
    needs_code = _verify(emulator, "--date", "2025-07-21", "--expect", "fixed")
    assert needs_code.exit_code == 2 and "--parser-cmd" in needs_code.output
    stray = _verify(emulator, "--date", "2025-07-21", "--expect", "clean", "--parser-cmd", FIXED)
    assert stray.exit_code == 2 and "go with --expect fixed" in stray.output
    no_date = _verify(emulator, "--date", "2025-07-21", "--expect", "fixed", "--tool-cmd", "t")
    assert no_date.exit_code == 2 and "{date}" in no_date.output
    bad_cmd = _verify(emulator, "--date", "2025-07-21", "--expect", "fixed", "--parser-cmd", "x")
    assert bad_cmd.exit_code == 2
    for bad in ("20250721", "2025-02-30"):
        result = _verify(emulator, "--date", bad, "--expect", "clean")
        assert result.exit_code == 2, (bad, result.output)
    assert _verify(emulator, "--expect", "clean").exit_code == 2  # no date at all
    assert emulator.stats().calls_total == calls


def test_a_date_without_attachments_is_inconclusive(home: Path, emulator) -> None:
    result = _verify(emulator, "--date", "2025-08-02", "--expect", "clean")  # a Saturday
    assert result.exit_code == 4, result.output
    assert "INCONCLUSIVE" in result.output
    code, doc = _json(emulator, "--date", "2025-08-02", "--expect", "clean")
    assert code == 4 and doc["dates"][0]["reason"].endswith("nothing to verify")


def test_after_compares_with_an_earlier_run(home: Path, emulator) -> None:
    assert _verify(emulator, "--date", "2025-07-22", "--expect", "contaminated").exit_code == 0
    again = _verify(emulator, "--after", "latest", "--expect", "contaminated")
    assert again.exit_code == 0, again.output
    assert "before" in again.output and "2025-07-22" in again.output


def test_a_stale_file_from_an_earlier_fetch_does_not_change_the_verdict(
    home: Path, emulator
) -> None:
    out = home / "dl"
    assert (
        _verify(
            emulator, "--date", "2025-07-21", "--expect", "contaminated", "--out", str(out)
        ).exit_code
        == 0
    )
    clean = _verify(emulator, "--date", "2025-07-23", "--expect", "clean", "--out", str(out))
    assert clean.exit_code == 0, clean.output
    files_row = _row(clean.output, "2025-07-23")
    # an attachment an earlier fetch listed for 2025-07-23 and the API no longer lists:
    # a contaminated file, dated by a manifest line as a real fetch writes it
    contaminated = next((out / "2025-07-21").glob("*.hwp"))
    stale = out / "2025-07-23" / "999_withdrawn.hwp"
    stale.write_bytes(contaminated.read_bytes())
    entry = next(e for e in read_entries(out / MANIFEST_NAME) if e.date == "2025-07-23")
    line = replace(
        entry,
        content_id="999",
        name="withdrawn.hwp",
        url=entry.url.replace(entry.content_id, "999") + "&withdrawn=1",
        path=stale.relative_to(out).as_posix(),
    )
    with (out / MANIFEST_NAME).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line.to_json(), ensure_ascii=False) + "\n")
    assert dates_for([stale]) == {stale: "2025-07-23"}  # the folder's view counts it
    again = _verify(emulator, "--date", "2025-07-23", "--expect", "clean", "--out", str(out))
    assert again.exit_code == 0, again.output
    assert _row(again.output, "2025-07-23") == files_row
    assert "withdrawn" not in again.output
    assert all("withdrawn" not in r.path for r in load_run("latest").results)


# -- the verdict core on our own files -------------------------------------------------


def test_verdicts_look_only_at_the_files_given(tmp_path: Path) -> None:
    root = build_corpus(tmp_path)
    every = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".jsonl")
    results, on_disk = scan_files(every, ["2025-07-21"])
    assert results and all(r.date == "2025-07-21" for r in results)
    some = [p for p in every if Path(on_disk[results[0].path]) != p]
    fewer, _ = scan_files(some, ["2025-07-21"])
    assert len(fewer) == len(results) - 1
    assert scan_files([tmp_path / "gone.hwp"], ["2025-07-21"]) == ([], {})


def test_judge_on_our_own_files(tmp_path: Path) -> None:
    results = scan_folder(build_corpus(tmp_path))
    day = next(r.date for r in results if r.contaminated)
    mine = [r for r in results if r.date == day]
    bad = next(r for r in mine if r.contaminated)
    # fixed: whole rows for every file pass; a guilty row fails naming it
    whole = [MatrixRow(r.path, "x", "ok", compared=True) for r in mine]
    assert judge(day, "fixed", results, rows=whole, extractors=["x"]).verdict == PASS
    leaked = [*whole[:-1], MatrixRow(bad.path, "x", "ok", surrogates=2, compared=True)]
    failed = judge(day, "fixed", results, rows=leaked)
    assert failed.verdict == FAIL and failed.evidence[0].file == bad.path
    # a lone surrogate the document itself holds, passed through, is still not encodable
    own = [MatrixRow(bad.path, "x", "ok", surrogates=1, reference_surrogates=1, compared=True)]
    assert judge(day, "fixed", results, rows=own).verdict == FAIL
    # an extractor that crashed on a readable file fails; one not installed proves nothing
    crashed = [MatrixRow(bad.path, "x", "crashed", reason="boom", compared=True)]
    assert judge(day, "fixed", results, rows=crashed).verdict == FAIL
    absent = [MatrixRow(bad.path, "x", "not-installed", reason="no x")]
    assert judge(day, "fixed", results, rows=absent).verdict == INCONCLUSIVE
    # an attachment that was listed but not downloaded keeps a PASS from being proven
    assert (
        judge(day, "fixed", results, rows=whole, listing=Listing(missing=1)).verdict == INCONCLUSIVE
    )
    assert judge(day, "contaminated", results).verdict == PASS
    assert judge(day, "clean", results).verdict == FAIL
    with pytest.raises(ValueError):
        judge(day, "dirty", results)


def test_tool_outcomes_and_exit_codes(tmp_path: Path) -> None:
    check = check_json_text('{"a": "\\udc00"}')
    tool = ToolOutcome("2025-07-21", "t", None, check)
    assert not tool.ok and tool.to_json()["bad"] == 1
    assert parse_tool_cmd("t {date}") == ("t", "{date}")
    echo = _script(tmp_path, "echo.py", "import sys, json\nprint(json.dumps([sys.argv[1]]))\n")
    got = run_tool([str(echo), "{date}"], "2025-07-21", timeout=30)
    assert got.ok and got.check is not None and got.check.strings == 1
    v = lambda s: DateVerdict("d", s, "", "fixed")  # noqa: E731
    assert exit_code([v(PASS)]) == 0 and exit_code([]) == 4
    assert exit_code([v(FAIL), v(INCONCLUSIVE)], stopped=True) == 1
    assert exit_code([v(PASS)], stopped=True) == 3


def test_the_tool_command_gets_no_key_unless_a_variable_is_passed_by_name(
    home: Path, emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "tok-" + "9" * 12)
    tool = _script(
        tmp_path,
        "env.py",
        "import json, os, sys\n"
        "if 'HWPSCAN_API_KEY' in os.environ: sys.exit('the key leaked')\n"
        "if 'SERVICE_TOKEN' not in os.environ: sys.exit('no SERVICE_TOKEN')\n"
        "print(json.dumps({'date': sys.argv[1]}))\n",
    )
    args = ["--date", "2025-07-30", "--expect", "fixed", "--tool-cmd", f"{tool} {{date}}"]
    code, doc = _json(emulator, *args)
    assert code == 1 and "no SERVICE_TOKEN" in doc["dates"][0]["reason"], doc
    code, doc = _json(emulator, *args, "--tool-env", "SERVICE_TOKEN")
    (day,) = doc["dates"]  # it ran with its token; it prints no text, so it proves no fix
    assert day["tool"]["ok"] and day["tool"]["failure"] is None, doc
    assert "no SERVICE_TOKEN" not in day["reason"] and "characters dropped" in day["reason"]


def test_verify_takes_every_fetch_option_fetch_takes() -> None:
    import typer.main

    group = typer.main.get_command(app)

    def spellings(name: str) -> set[str]:
        cmd = group.commands[name]  # type: ignore[attr-defined]
        return {o for p in cmd.params if not p.hidden for o in p.opts + p.secondary_opts}

    fetch_only = spellings("fetch") - {"--from", "--to"}
    assert fetch_only <= spellings("verify"), sorted(fetch_only - spellings("verify"))
