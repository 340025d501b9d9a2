"""``hwpscan verify`` against the API emulator over real sockets, and the verdict core."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from report_corpus import build_corpus, scan_folder
from typer.testing import CliRunner

import hwpscan.cli.verify  # noqa: F401  (registers verify)
from hwpscan.cli.app import app
from hwpscan.emulator.quirks import Quirks
from hwpscan.emulator.server import serve_in_thread
from hwpscan.fetch.manifest import MANIFEST_NAME, dates_for, read_entries
from hwpscan.store import load_run
from hwpscan.verify import DateVerdict, repaired_is_clean, scan_files, verdicts

KEY = "Vf" + "3" * 30  # a throwaway key in the API's format
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
    return result


def _row(output: str, day: str) -> str:
    return next(line for line in output.splitlines() if line.startswith(f"│ {day}"))


def test_contaminated_and_clean_dates_get_their_verdicts(home: Path, emulator) -> None:
    calls = emulator.stats().calls_total
    result = _verify(emulator, "--date", "2025-07-21", "--date", "2025-07-23")
    assert result.exit_code == 0, result.output
    assert "contaminated (" in _row(result.output, "2025-07-21") and "OK" in _row(
        result.output, "2025-07-21"
    )
    assert "clean" in _row(result.output, "2025-07-23") and "UTF-8 clean" in _row(
        result.output, "2025-07-23"
    )
    assert "2 of 2 dates as expected" in result.output
    assert emulator.stats().calls_total == calls + 1  # both dates in one window: one call
    run = load_run("latest")
    assert run.info.kind == "verify" and {r.date for r in run.results} == {
        "2025-07-21",
        "2025-07-23",
    }
    assert run.info.summary["verdicts"] == {"2025-07-21": "ok", "2025-07-23": "ok"}
    written = [p for p in (home / "home").rglob("*") if p.is_file()]
    assert any(p.name == "runs.sqlite" for p in written)
    for path in written:  # the run store, cache, ledger, manifest and attachments
        assert KEY.encode() not in path.read_bytes(), path


def test_expectations_that_hold_exit_0(home: Path, emulator) -> None:
    assert (
        _verify(
            emulator, "--date", "2025-07-30", "--date", "2025-08-05", "--expect", "contaminated"
        ).exit_code
        == 0
    )
    assert _verify(emulator, "--date", "2025-07-23", "--expect", "clean").exit_code == 0


def test_an_expectation_mismatch_exits_1(home: Path, emulator) -> None:
    result = _verify(emulator, "--date", "2025-07-21", "--date", "2025-07-23", "--expect", "clean")
    assert result.exit_code == 1, result.output
    assert "MISMATCH" in _row(result.output, "2025-07-21") and "expected clean" in result.output
    assert "OK" in _row(result.output, "2025-07-23")
    assert "mismatch on 2025-07-21" in result.output


def test_a_date_without_attachments_is_a_mismatch(home: Path, emulator) -> None:
    result = _verify(emulator, "--date", "2025-08-16")  # a Saturday after the catalogue ends
    assert result.exit_code == 1, result.output
    assert "nothing to verify" in result.output


def test_bad_dates_exit_2_before_any_call(home: Path, emulator) -> None:
    calls = emulator.stats().calls_total
    for bad in ("20250721", "2025/07/21", "2025-7-21", "2025-02-30"):
        result = _verify(emulator, "--date", "2025-07-21", "--date", bad)
        assert result.exit_code == 2, (bad, result.output)
        assert "YYYY-MM-DD" in result.output or "not a real date" in result.output
    assert _verify(emulator).exit_code == 2  # no date at all
    assert emulator.stats().calls_total == calls


def test_api_refusal_exits_3(home: Path) -> None:
    with serve_in_thread(quirks=Quirks(daily_limit=0)) as emu:
        result = _verify(emu, "--date", "2025-07-21")
    assert result.exit_code == 3, result.output


def test_local_quota_exits_3_without_calling(home: Path, emulator) -> None:
    calls = emulator.stats().calls_total
    result = _verify(emulator, "--date", "2025-08-08", "--daily-limit", "0")
    assert result.exit_code == 3, result.output
    assert emulator.stats().calls_total == calls


def test_after_compares_with_an_earlier_run(home: Path, emulator) -> None:
    first = _verify(emulator, "--date", "2025-07-22")
    assert first.exit_code == 0
    again = _verify(emulator, "--after", "latest", "--expect", "contaminated")
    assert again.exit_code == 0, again.output
    assert "before" in again.output and "2025-07-22" in again.output


def test_a_stale_file_from_an_earlier_fetch_does_not_change_the_verdict(
    home: Path, emulator
) -> None:
    out = home / "dl"
    assert _verify(emulator, "--date", "2025-07-21", "--out", str(out)).exit_code == 0
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


def test_verdicts_look_only_at_the_files_given(tmp_path: Path) -> None:
    root = build_corpus(tmp_path)
    every = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".jsonl")
    results, on_disk = scan_files(every, ["2025-07-21"])
    assert results and all(r.date == "2025-07-21" for r in results)
    some = [p for p in every if Path(on_disk[results[0].path]) != p]
    fewer, _ = scan_files(some, ["2025-07-21"])
    assert len(fewer) == len(results) - 1
    assert scan_files([tmp_path / "gone.hwp"], ["2025-07-21"]) == ([], {})


# -- the verdict core on our own files -------------------------------------------------


def test_repair_is_checked_for_real(tmp_path: Path) -> None:
    root = build_corpus(tmp_path)
    results = scan_folder(root)
    files = {r.path: Path(r.path) for r in results}
    found = verdicts(
        ["2025-07-21", "2025-07-22", "2025-07-24", "2025-07-25"],
        results,
        files,
        expect="contaminated",
    )
    by_day = {v.date: v for v in found}
    assert by_day["2025-07-21"].matches and by_day["2025-07-21"].repaired_clean
    assert by_day["2025-07-22"].contaminated == 1 and by_day["2025-07-22"].matches
    assert not by_day["2025-07-24"].matches and by_day["2025-07-24"].raw == "clean"
    assert by_day["2025-07-25"].raw == "no files" and not by_day["2025-07-25"].matches


def test_a_file_gone_from_disk_fails_the_repair_check(tmp_path: Path) -> None:
    results = scan_folder(build_corpus(tmp_path))
    (v,) = verdicts(["2025-07-21"], results, {})
    assert v.repaired_clean is False and not v.matches and "not on disk" in v.problems[0]
    assert v.reason == "repaired text is still not UTF-8 clean"


def test_repaired_is_clean_on_unreadable_input(tmp_path: Path) -> None:
    junk = tmp_path / "junk.hwp"
    junk.write_bytes(b"\xd0\xcf\x11\xe0" + b"\0" * 100)
    ok, why = repaired_is_clean(junk)
    assert not ok and why.startswith("could not read it again")
    for missing in (tmp_path / "gone.hwp", tmp_path):  # gone, or a folder: OSError
        ok, why = repaired_is_clean(missing)
        assert not ok and "could not read it again" in why and "Error" in why


def test_verdict_rejects_unknown_expectations() -> None:
    with pytest.raises(ValueError):
        verdicts(["2025-07-21"], [], {}, expect="dirty")
    assert DateVerdict("d", 1, 0, 1, "unreadable", None, None).reason.startswith("no attachment")
