"""End to end over real sockets: the CLI against the API emulator on 127.0.0.1.

The emulator runs in a thread of the test process; ``hwpscan`` runs either through
CliRunner or as a real subprocess (for SIGKILL and for grepping its output for the key).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from emulator_env import CLI, emulator, env, new_key  # noqa: F401 - fixtures
from typer.testing import CliRunner

from hwpscan.atomic import TEMP_PREFIX
from hwpscan.cli import app
from hwpscan.manifest import LOCK_FOLDER, MANIFEST_NAME, read_entries
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.quirks import Oversize, Quirks, QuotaMode, WrongYearMode
from hwpscan.rehearsal.emulator.replies import DownloadPlan, Reply, atch_file_id
from hwpscan.rehearsal.emulator.server import RunningEmulator
from hwpscan.rehearsal.synth.catalogue import expected_contaminated_dates, incident_catalogue

pytestmark = pytest.mark.slow

RANGE = ["--from", "2025-07-21", "--to", "2025-08-11"]
SHORT = ["--from", "2025-07-21", "--to", "2025-07-31", "--window-days", "3"]  # 4 windows
runner = CliRunner()


def fetch(emu: RunningEmulator, env: dict[str, str], *args: str):
    return runner.invoke(
        app, ["fetch", *args, "--api-url", emu.api_url, "--out", env["out"], "--no-progress"]
    )


def calls_in_range(start: str, end: str) -> int:
    return sum(len(r.attachments) for r in incident_catalogue() if start <= str(r.date) <= end)


@pytest.mark.slow
def test_plan_matches_the_calls_fetch_then_makes(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    planned = runner.invoke(app, ["plan", *SHORT, "--api-url", emulator.api_url])
    assert planned.exit_code == 0, planned.output
    assert "calls needed: 4, already cached: 0" in planned.output
    assert "30 of 30 calls left" in planned.output
    result = fetch(emulator, env, *SHORT)
    assert result.exit_code == 0, result.output
    assert emulator.stats().calls_total == 4
    assert emulator.stats().downloads_total == calls_in_range("2025-07-21", "2025-07-31")
    again = runner.invoke(app, ["plan", *SHORT, "--api-url", emulator.api_url])
    assert (
        "calls needed: 0, already cached: 4" in again.output
        and "26 of 30 calls left" in again.output
    )
    rerun = fetch(emulator, env, *SHORT)
    assert rerun.exit_code == 0 and emulator.stats().calls_total == 4


def test_downloaded_files_carry_the_catalogue_dates(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    result = fetch(emulator, env, *RANGE)
    assert result.exit_code == 0, result.output
    entries = read_entries(Path(env["out"]) / MANIFEST_NAME)
    assert len(entries) == calls_in_range("2025-07-21", "2025-08-11")
    for entry in entries:
        data = (Path(env["out"]) / entry.path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.bytes
        assert entry.path.startswith(entry.date + "/")
    assert expected_contaminated_dates() <= {e.date for e in entries}


def test_our_ledger_stops_before_the_limit_and_exits_3(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    result = fetch(emulator, env, *SHORT, "--daily-limit", "2")
    assert result.exit_code == ExitCode.API
    text = " ".join(result.output.split())
    assert "0 of 2 calls left" in text and "resets" in text and "KST" in text
    assert emulator.stats().calls_total == 2  # stopped before calling
    kept = read_entries(Path(env["out"]) / MANIFEST_NAME)
    assert kept and max(e.date for e in kept) <= "2025-07-26"  # two windows' files kept
    resumed = fetch(emulator, env, *SHORT)  # a higher limit (e.g. the next day) finishes the job
    assert resumed.exit_code == 0 and emulator.stats().calls_total == 4


def test_api_code_033_exits_3_with_its_message(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(daily_limit=1, quota_mode=QuotaMode.CODE)
    result = fetch(emulator, env, *SHORT)
    assert result.exit_code == ExitCode.API
    assert "daily call limit is used up" in " ".join(result.output.split())
    assert emulator.stats().calls_total == 2  # the refused call was made and counted


def test_silent_empty_answer_exits_3_as_possible_refusal(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(daily_limit=1, quota_mode=QuotaMode.SILENT)
    # the ledger near its limit: an empty weekday is then a likely silent refusal
    result = fetch(emulator, env, *SHORT, "--daily-limit", "3")
    assert result.exit_code == ExitCode.API
    text = " ".join(result.output.split())
    assert "possibly a silent quota refusal" in text and "no releases" in text
    assert emulator.stats().calls_total == 2


def test_a_refused_key_exits_3_with_the_api_message(
    emulator: RunningEmulator, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWPSCAN_API_KEY", "badkey-" * 4 + "0000")  # 32 characters, bad shape
    result = fetch(emulator, env, *SHORT)
    assert result.exit_code == ExitCode.API
    assert "code 010" in result.output and "badkey-" not in result.output


def test_a_short_key_is_refused_before_any_call(
    emulator: RunningEmulator, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWPSCAN_API_KEY", "short-key")
    result = fetch(emulator, env, *SHORT)
    assert result.exit_code == ExitCode.USAGE
    assert "short-key" not in result.output and emulator.stats().calls_total == 0


def test_period_too_long_exits_3(emulator: RunningEmulator, env: dict[str, str]) -> None:
    emulator.app.quirks = Quirks(max_days=7)  # a stricter server than the real one
    result = fetch(
        emulator, env, "--from", "2025-07-01", "--to", "2025-08-11", "--window-days", "14"
    )
    assert result.exit_code == ExitCode.API
    assert "too long" in result.output and "--window-days" in result.output


def test_unsafe_attachment_urls_are_never_requested(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(unsafe_urls=True, escaped_amp=True, messy_lists=True)
    result = fetch(emulator, env, "--from", "2025-07-21", "--to", "2025-07-21")
    assert result.exit_code == ExitCode.API
    entries = read_entries(Path(env["out"]) / MANIFEST_NAME)
    refused = [e for e in entries if e.status == "refused"]
    downloaded = [e for e in entries if e.status == "downloaded"]
    assert len(downloaded) == calls_in_range("2025-07-21", "2025-07-21")
    assert refused and all("attachment URL refused" in (e.reason or "") for e in refused)
    assert emulator.stats().downloads_total == len(downloaded)


def test_failing_then_working_downloads_are_retried(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(fail_first=1)
    result = fetch(emulator, env, "--from", "2025-07-21", "--to", "2025-07-21")
    assert result.exit_code == 0, result.output
    files = calls_in_range("2025-07-21", "2025-07-21")
    assert emulator.stats().downloads_total == 2 * files


def test_oversized_download_is_cut_and_leaves_no_partial_file(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(oversize=Oversize.STREAM, oversize_bytes=3_000_000)
    result = fetch(emulator, env, "--from", "2025-07-21", "--to", "2025-07-21", "--max-mb", "1")
    assert result.exit_code == ExitCode.API
    assert "size cap" in result.output
    out = Path(env["out"])
    assert not list(out.rglob(TEMP_PREFIX + "*"))
    assert all(e.status == "failed" for e in read_entries(out / MANIFEST_NAME))


def _run_cli(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    child_env = {**os.environ, "HWPSCAN_HOME": env["home"], "HWPSCAN_API_KEY": env["key"]}
    return subprocess.Popen(
        [sys.executable, "-c", CLI, *args],
        env=child_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


class DownloadGate:
    """Wraps the emulator's real download handler: the files of the posts dated
    ``first`` to ``last`` go through; every other download is held until the gate
    closes, then answered 503 (by then the client is dead; a held request is never
    counted as a download).

    It holds by file, not by arrival order or time: which files a killed run got does
    not depend on how fast its requests reach the emulator. :meth:`wait_held` tells when
    a run has no request left on its way: once as many are held as it has download
    workers, it cannot send another, so none of its requests can reach the real handler
    after the gate is gone and be counted against the restart.
    """

    def __init__(self, emulator: RunningEmulator, first: str, last: str) -> None:
        self.app = emulator.app
        self.free = frozenset(
            atch_file_id(p.content_id) for p in self.app.posts if first <= str(p.day) <= last
        )
        self.original = emulator.app.download
        self.held = 0
        self.changed = threading.Condition()
        self.opened = threading.Event()

    def __call__(
        self, params: Any, target: str, *, with_credentials: bool, **extra: Any
    ) -> DownloadPlan:
        if params.get("atchFileId") in self.free:
            return self.original(params, target, with_credentials=with_credentials, **extra)
        with self.changed:
            self.held += 1
            self.changed.notify_all()
        self.opened.wait(60)
        return DownloadPlan(Reply(503, "text/plain", b"held by the test"))

    def wait_held(self, count: int, timeout: float) -> bool:
        """Whether ``count`` requests are being held within ``timeout`` seconds."""
        with self.changed:
            return self.changed.wait_for(lambda: self.held >= count, timeout)

    def __enter__(self) -> DownloadGate:
        self.app.download = self  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.opened.set()
        del self.app.download  # the class's own method again


@pytest.mark.slow
def test_killed_run_restarts_without_extra_calls_or_partial_files(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    workers = 2
    args = ["fetch", *SHORT, "--api-url", emulator.api_url, "--out", env["out"]]
    args += ["--downloads", str(workers)]
    first_window = calls_in_range("2025-07-21", "2025-07-23")  # SHORT's first 3-day window
    second_window = calls_in_range("2025-07-24", "2025-07-26")
    root, manifest = Path(env["out"]), Path(env["out"]) / MANIFEST_NAME
    with DownloadGate(emulator, "2025-07-21", "2025-07-23") as gate:
        proc = _run_cli(args, env)
        # window 1 is fully downloaded, window 2 answered and cached, and every download
        # worker held on one of its files: the run has nothing else on its way
        if not gate.wait_held(min(workers, second_window), 60):
            proc.kill()
            pytest.fail("the first run never reached its second window's downloads")
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    stats = emulator.stats()
    assert stats.calls_total == 2 and stats.downloads_total == first_window
    kept = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    kept = {k for k in kept if not k.startswith(f"{LOCK_FOLDER}/")}  # runs' locks
    assert not [k for k in kept if TEMP_PREFIX in k]
    written = read_entries(manifest)
    assert kept - {MANIFEST_NAME} == {e.path for e in written} and len(written) == first_window
    assert {e.date for e in written} <= {"2025-07-21", "2025-07-22", "2025-07-23"}

    restart = _run_cli(args, env)
    _out, err = restart.communicate(timeout=120)
    assert restart.returncode == 0, err.decode()
    total = calls_in_range("2025-07-21", "2025-07-31")
    stats = emulator.stats()
    assert stats.calls_total == 4  # window 2 came from the cache: no window asked twice
    # every file fetched once over both runs: window 1's were not fetched again
    assert stats.downloads_total == total and set(stats.downloads.values()) == {1}
    assert not list(root.rglob(TEMP_PREFIX + "*"))
    latest = {e.path: e for e in read_entries(manifest)}
    on_disk = {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name != MANIFEST_NAME and LOCK_FOLDER not in p.parts
    }
    assert on_disk == set(latest) and len(on_disk) == total
    for rel, entry in latest.items():
        assert hashlib.sha256((root / rel).read_bytes()).hexdigest() == entry.sha256


@pytest.mark.slow
def test_the_key_never_reaches_files_or_output(
    emulator: RunningEmulator, env: dict[str, str], tmp_path: Path
) -> None:
    key = env["key"].encode()
    outputs: list[bytes] = []
    runs = [
        ["plan", *SHORT, "--api-url", emulator.api_url],
        ["fetch", *SHORT, "--api-url", emulator.api_url, "--out", env["out"]],
        ["fetch", *RANGE, "--api-url", emulator.api_url, "--out", env["out"], "--daily-limit", "5"],
        [
            "fetch",
            *RANGE,
            "--api-url",
            "http://127.0.0.1:9/fss/kr/openApi/api/bodoInfo.jsp",
            "--out",
            env["out"],
            "--retries",
            "0",
        ],
    ]
    codes = []
    for args in runs:
        proc = _run_cli(args, env)
        out, err = proc.communicate(timeout=120)
        codes.append(proc.returncode)
        outputs += [out, err]
    emulator.app.quirks = Quirks(daily_limit=0, quota_mode=QuotaMode.CODE)
    proc = _run_cli(
        [
            "fetch",
            "--from",
            "2025-08-11",
            "--to",
            "2025-08-11",
            "--api-url",
            emulator.api_url,
            "--out",
            env["out"],
        ],
        env,
    )
    outputs += list(proc.communicate(timeout=120))
    codes.append(proc.returncode)
    assert codes == [0, 0, ExitCode.API, ExitCode.API, ExitCode.API]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 30  # ledger, cache bodies and sidecars, manifest, attachments
    leaks = [str(p) for p in written if key in p.read_bytes() or key.decode() in str(p)]
    assert leaks == []
    assert all(key not in blob for blob in outputs)
    network_error = outputs[7].decode()  # stderr of the run against a closed port
    assert "ConnectError" in network_error and "127.0.0.1:9" in network_error


@pytest.mark.slow
def test_demo_shows_the_incident_pattern(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HWPSCAN_API_KEY", raising=False)
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["demo", "--out", str(tmp_path / "kept"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "emulator counted 2 API call(s)" in result.output
    entries = read_entries(tmp_path / "kept" / MANIFEST_NAME)
    assert len(entries) == calls_in_range("2025-07-21", "2025-08-11")
    for day in sorted(expected_contaminated_dates()):
        row = next(line for line in result.output.splitlines() if line.startswith(f"│ {day} │"))
        assert "contaminated" in row
    # the demo's fetch state (cache, quota ledger, key) is thrown away; only its scan is
    # recorded in the user's run history, marked as a demo
    kept = {p.name for p in (tmp_path / "home").iterdir()}
    assert kept and all(name.startswith("runs.sqlite") for name in kept), kept
    json.dumps([e.to_json() for e in entries], ensure_ascii=False)


@pytest.mark.slow
def test_html_error_pages_instead_of_files_are_kept_and_flagged(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(html_attachments=True)
    result = fetch(emulator, env, "--from", "2025-07-21", "--to", "2025-07-21")
    assert result.exit_code == ExitCode.API, result.output  # nothing but error pages
    assert "sent an HTML page" in result.output
    assert "are HTML pages, not files" in " ".join(result.output.split())
    entries = read_entries(Path(env["out"]) / MANIFEST_NAME)
    assert entries and all(e.reason and "HTML page" in e.reason for e in entries)


@pytest.mark.slow
def test_a_year_the_api_ignores_returns_out_of_window_releases_not_downloaded(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(wrong_year=WrongYearMode.IGNORED)
    result = fetch(emulator, env, "--from", "2024-07-21", "--to", "2024-07-22")
    text = " ".join(result.output.split())
    assert "is in 2024, not the current year" in text
    assert "outside the window" in text
    entries = read_entries(Path(env["out"]) / MANIFEST_NAME)
    assert entries and {e.status for e in entries} == {"skipped"}
    assert emulator.stats().downloads_total == 0


@pytest.mark.slow
def test_scan_from_to_takes_the_fetch_options(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    """scan --from/--to fetches with every option fetch takes: --window-days splits the
    range into as many calls as fetch would make, --max-files stops the fetch (exit 3)
    after scanning what was kept."""
    base = ["scan", *SHORT, "--api-url", emulator.api_url, "--out", env["out"], "--no-progress"]
    result = runner.invoke(app, [*base, "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert emulator.stats().calls_total == 4  # 3-day windows, as `fetch` makes them
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == calls_in_range("2025-07-21", "2025-07-31")
    emulator.reset()
    capped = runner.invoke(
        app,
        [
            *base[:2],
            "2025-07-21",
            "--to",
            "2025-08-11",
            "--api-url",
            emulator.api_url,
            "--out",
            str(Path(env["out"]) / "capped"),
            "--no-progress",
            "--max-files",
            "2",
            "--format",
            "jsonl",
        ],
    )
    assert capped.exit_code == ExitCode.API, capped.output
    kept = [json.loads(line) for line in capped.stdout.splitlines() if line.startswith("{")]
    assert len(kept) == 2  # what was kept is scanned before the exit


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_downloads_manifest_and_reports_follow_the_umask(
    emulator: RunningEmulator, env: dict[str, str], tmp_path: Path, umask: int
) -> None:
    child_env = {**os.environ, "HWPSCAN_HOME": env["home"], "HWPSCAN_API_KEY": env["key"]}
    out, report, results = Path(env["out"]), tmp_path / "report", tmp_path / "rows.jsonl"
    commands = [
        ["fetch", *SHORT, "--api-url", emulator.api_url, "--out", str(out), "--no-progress"],
        ["scan", str(out), "--no-progress", "--format", "jsonl", "-o", str(results)],
        ["scan", str(out), "--no-progress", "--report", str(report)],
    ]
    for args in commands:
        done = subprocess.run(
            [sys.executable, "-c", CLI, *args],
            env=child_env,
            capture_output=True,
            umask=umask,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr.decode()
    expected = 0o666 & ~umask
    written = [p for p in out.rglob("*") if p.is_file() and LOCK_FOLDER not in p.parts]
    written += [results, *report.iterdir()]
    assert len(written) > 10 and out / MANIFEST_NAME in written
    modes = {p.relative_to(tmp_path).as_posix(): oct(p.stat().st_mode & 0o777) for p in written}
    assert set(modes.values()) == {oct(expected)}, modes


def test_answers_from_a_cache_another_key_paid_for_say_the_key_was_not_checked(
    emulator: RunningEmulator, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = fetch(emulator, env, *SHORT)
    assert first.exit_code == 0, first.output
    assert "another API key" not in first.output
    same = fetch(emulator, env, *SHORT)  # the same key from the cache: nothing to say
    assert same.exit_code == 0 and "another API key" not in same.output
    other = new_key()
    monkeypatch.setenv("HWPSCAN_API_KEY", other)
    result = fetch(emulator, env, *SHORT)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert (
        "answers for 11 date(s) (4 window(s)) came from the cache made with another API key; "
        "the current key was not checked" in text
    ), text
    assert emulator.stats().calls_total == 4  # no call paid with the other key
    cached = list(Path(env["home"]).rglob("*.json"))
    assert cached
    for path in cached:  # the cache names the paying key by its hash only
        text = path.read_text(encoding="utf-8")
        assert env["key"] not in text and other not in text
    # a window the other key pays for checks it: nothing to warn about
    wider = fetch(emulator, env, "--from", "2025-07-21", "--to", "2025-08-04", "--window-days", "3")
    assert wider.exit_code == 0, wider.output
    assert "another API key" not in wider.output
