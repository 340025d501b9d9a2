"""Warnings before the damage, over real sockets against the emulator on 127.0.0.1.

The other-year check comes before the first call (and asks on a terminal), retries say
so as they happen, per-file warnings name the date, subject and file, the size cap
names ``--max-mb``, a refused key is explained, and a key of the wrong length is
refused before any call.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pty
import select
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from emulator_env import CLI, emulator, env, new_key  # noqa: F401 - fixtures
from typer.testing import CliRunner

import hwpscan.cli.fetch_command  # noqa: F401  (registers fetch)
from hwpscan.api.dates import quota_day
from hwpscan.cli import app
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.quirks import Oversize, Quirks
from hwpscan.rehearsal.emulator.replies import DownloadPlan, Reply
from hwpscan.rehearsal.emulator.server import RunningEmulator

DAY = ["--from", "2025-07-21", "--to", "2025-07-21"]
runner = CliRunner()


def fetch(emu: RunningEmulator, env: dict[str, str], *args: str) -> Any:
    return runner.invoke(
        app, ["fetch", *args, "--api-url", emu.api_url, "--out", env["out"], "--no-progress"]
    )


def flat(text: str) -> str:
    return " ".join(text.split())


def other_year_day() -> list[str]:
    day = date(quota_day().year - 1, 7, 21).isoformat()
    return ["--from", day, "--to", day]


def test_other_year_warning_comes_before_the_calls_and_once(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    result = fetch(emulator, env, *other_year_day())  # stdin is not a terminal: go on
    text = flat(result.output)
    assert "check the year" in text
    assert text.index("check the year") < text.index("calls:")
    assert text.count("check the year") == 1
    assert emulator.stats().calls_total == 1


def _on_a_terminal(args: list[str], env: dict[str, str], answer: bytes) -> tuple[int, str]:
    """Run the CLI with stdin and stderr on a pseudo-terminal, typing ``answer``."""
    parent, child = pty.openpty()
    child_env = {
        **os.environ,
        "HWPSCAN_HOME": env["home"],
        "HWPSCAN_API_KEY": env["key"],
        "COLUMNS": "200",
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, *args],
        env=child_env,
        stdin=child,
        stdout=subprocess.PIPE,
        stderr=child,
    )
    os.close(child)
    seen = b""
    deadline = time.monotonic() + 60
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([parent], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(parent, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not answered and b"anyway?" in seen:
            os.write(parent, answer)
            answered = True
        if proc.poll() is not None and not ready:
            break
    proc.wait(30)
    os.close(parent)
    assert proc.stdout is not None
    proc.stdout.close()
    return proc.returncode, seen.decode("utf-8", "replace")


@pytest.mark.slow
def test_on_a_terminal_the_other_year_warns_and_goes_on_without_asking(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    """The dates are typed whole, year and all: the warning shows, nothing is asked."""
    args = ["fetch", *other_year_day(), "--api-url", emulator.api_url, "--out", env["out"]]
    code, seen = _on_a_terminal([*args, "--no-progress"], env, b"n\n")
    assert "check the year" in seen and "anyway?" not in seen
    assert code == ExitCode.OK, seen
    assert emulator.stats().calls_total == 1
    code, seen = _on_a_terminal([*args, "--yes", "--no-progress"], env, b"")  # still taken
    assert "anyway?" not in seen and "check the year" in seen
    assert "--yes does nothing" in seen  # an old script is told, not broken
    assert code == ExitCode.OK, seen


@pytest.mark.slow
def test_download_retries_are_shown_with_the_file_and_the_wait(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(fail_first=1)
    result = fetch(emulator, env, *DAY)
    assert result.exit_code == 0, result.output
    lines = [flat(line) for line in result.output.splitlines() if line.startswith("retry:")]
    assert lines, result.output
    assert all("2025-07-21" in line and "HTTP 500" in line for line in lines)
    assert all("retrying in 0.5 s (attempt 2 of 4)" in line for line in lines)
    assert not any("http://" in line for line in lines)


def test_api_call_retries_are_shown_with_the_window_and_the_wait(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    original = emulator.app.listing
    answered = 0

    def first_fails(params: Any, base_url: str) -> Reply:
        nonlocal answered
        answered += 1
        if answered == 1:
            return Reply(503, "text/plain", b"busy")
        return original(params, base_url)

    emulator.app.listing = first_fails  # type: ignore[method-assign]
    result = fetch(emulator, env, *DAY)
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    assert "retry: API call for 2025-07-21" in text
    assert "HTTP 503" in text and "retrying in 0.5 s (attempt 2 of" in text
    assert text.index("retry: API call") < text.index("calls:")
    retry = next(line for line in result.output.splitlines() if line.startswith("retry:"))
    assert retry.count("2025-07-21..2025-07-21") == 1  # the window named once


def test_a_retry_line_names_the_api_by_host_and_path_only(env: dict[str, str]) -> None:
    """A refused connection: the line says which API, without scheme or query."""
    dead = "http://127.0.0.1:9/fss/kr/openApi/api/bodoInfo.jsp"
    result = runner.invoke(
        app,
        ["fetch", *DAY, "--api-url", dead, "--out", env["out"], "--no-progress"],
    )
    retries = [line for line in result.output.splitlines() if line.startswith("retry:")]
    assert retries, result.output
    for line in retries:
        assert "127.0.0.1:9/fss/kr/openApi/api/bodoInfo.jsp failed" in line
        assert "http://" not in line and "?" not in line and env["key"] not in line


def test_failed_downloads_name_date_subject_and_file_and_the_cap_names_max_mb(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(oversize=Oversize.STREAM, oversize_bytes=3_000_000)
    result = fetch(emulator, env, *DAY, "--max-mb", "1")
    assert result.exit_code == ExitCode.API
    warnings = [flat(line) for line in result.output.splitlines() if "download failed" in line]
    assert warnings, result.output
    for line in warnings:
        assert line.startswith('warning: 2025-07-21 "'), line
        assert "http" not in line.split("download failed")[0]
    text = flat(result.output)
    assert "size cap of 1 MB per file (raise it with --max-mb)" in text


def test_a_refused_key_is_explained_in_english_and_korean(
    emulator: RunningEmulator, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = "-" * 32  # the right length, a shape the API does not issue
    monkeypatch.setenv("HWPSCAN_API_KEY", bad)
    result = fetch(emulator, env, *DAY)
    assert result.exit_code == ExitCode.API
    text = flat(result.output)
    assert "code 010" in text and "did not accept the key" in text
    assert "인증키가 유효하지 않거나" in text and "HWPSCAN_API_KEY" in text
    assert bad not in result.output


@pytest.mark.parametrize("length", [8, 31, 33])
def test_a_key_of_the_wrong_length_is_refused_before_any_call(
    emulator: RunningEmulator, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, length: int
) -> None:
    key = ("Zq9" * 12)[:length]
    monkeypatch.setenv("HWPSCAN_API_KEY", key)
    result = fetch(emulator, env, *DAY)
    assert result.exit_code == ExitCode.USAGE, result.output
    assert f"{length} characters long, but keys are 32" in flat(result.output)
    assert key not in result.output
    assert emulator.stats().calls_total == 0


class SlowFirst:
    """Answers the first downloads slowest, so they complete last."""

    def __init__(self, emu: RunningEmulator, slow: int) -> None:
        self.original = emu.app.download
        self.seen = 0
        self.slow = slow
        self.lock = threading.Lock()

    def __call__(self, params: Any, target: str, **extra: Any) -> DownloadPlan:
        with self.lock:
            self.seen += 1
            seen = self.seen
        plan = self.original(params, target, **extra)
        delay = 0.05 * max(0, self.slow - seen + 1)
        return dataclasses.replace(plan, delay=delay)


def _scan_order(emu: RunningEmulator, env: dict[str, str], out: str, *args: str) -> list[str]:
    result = runner.invoke(
        app,
        [
            "scan",
            "--from",
            "2025-07-21",
            "--to",
            "2025-07-22",
            "--api-url",
            emu.api_url,
            "--out",
            out,
            "--no-progress",
            "--format",
            "jsonl",
            "--sort",
            "input",  # rows in input order: the order the fetch listed the files in
            *args,
        ],
    )
    assert result.exit_code in (0, 1), result.output
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert rows
    return [Path(row["path"]).name for row in rows]


@pytest.mark.slow
def test_scan_from_to_rows_come_in_listing_order_not_download_order(
    emulator: RunningEmulator, env: dict[str, str], tmp_path: Path
) -> None:
    import hwpscan.cli.scan_command  # noqa: F401  (registers scan)

    plain_timing = _scan_order(emulator, env, str(tmp_path / "a"))
    emulator.app.download = SlowFirst(emulator, len(plain_timing))  # type: ignore[method-assign]
    reversed_timing = _scan_order(emulator, env, str(tmp_path / "b"))
    del emulator.app.download
    assert len(plain_timing) > 2
    assert reversed_timing == plain_timing


@pytest.mark.slow
def test_manifest_view_shows_the_last_line_per_attachment(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    import hwpscan.cli.manifest_command  # noqa: F401  (registers manifest)

    emulator.app.quirks = Quirks(fail_first=5)
    failed = fetch(emulator, env, *DAY, "--retries", "0")
    assert failed.exit_code == ExitCode.API
    emulator.app.quirks = Quirks()
    done = fetch(emulator, env, *DAY)
    assert done.exit_code == 0, done.output
    lines = (Path(env["out"]) / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    files = len(lines) // 2
    assert files and len(lines) == 2 * files  # each attachment: failed, then downloaded
    shown = runner.invoke(app, ["manifest", env["out"], "--format", "jsonl"])
    assert shown.exit_code == 0, shown.output
    rows = [json.loads(line) for line in shown.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == files and {r["status"] for r in rows} == {"downloaded"}
    assert f"{files} earlier line(s) superseded" in flat(shown.output)
    table = runner.invoke(app, ["manifest", env["out"]])
    assert table.exit_code == 0 and "failed" not in table.stdout
    missing = runner.invoke(app, ["manifest", str(Path(env["out"]) / "nowhere")])
    assert missing.exit_code == ExitCode.USAGE and "no manifest.jsonl" in missing.output


def test_a_fetch_of_only_html_pages_exits_3_with_the_reason(
    emulator: RunningEmulator, env: dict[str, str]
) -> None:
    emulator.app.quirks = Quirks(html_attachments=True)
    result = fetch(emulator, env, *DAY)
    assert result.exit_code == ExitCode.API
    assert "are HTML pages, not files" in flat(result.output)
