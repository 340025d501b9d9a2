"""The plan/fetch/demo commands' edges: key sources, help, quota shown by plan."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from hwpscan.api import DEFAULT_API_URL, FetchSettings
from hwpscan.api.defaults import DEFAULT_MAX_BYTES
from hwpscan.api.quota import QuotaLedger
from hwpscan.cli import app
from hwpscan.manifest import MANIFEST_NAME, read_entries
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.server import serve_in_thread
from hwpscan.usecases.run_fetch import fetch_for_scan

runner = CliRunner()
KEY = "TESTKEY" + "3a" * 12 + "b"  # 32 characters, the shape the emulator accepts


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HWPSCAN_API_KEY", raising=False)
    return tmp_path / "home"


@pytest.mark.parametrize("command", ["plan", "fetch", "demo"])
def test_every_command_has_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output


def test_fetch_and_verify_share_their_fetch_options_and_defaults() -> None:
    import hwpscan.cli.verify_command  # noqa: F401  (registers verify)

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]

    def options(name: str) -> dict[str, object]:
        return {p.opts[0]: p.default for p in commands[name].params if p.opts[0] != "--out"}

    fetch, verify = options("fetch"), options("verify")
    shared = {
        "--api-url": DEFAULT_API_URL,
        "--connect-timeout": 10.0,
        "--read-timeout": 60.0,
        "--retries": 3,
        "--max-mb": DEFAULT_MAX_BYTES / 1_000_000,
        "--window-days": 21,
        "--daily-limit": 30,
        "--reset-hour": 0,
        "--allow-host": [],
        "--download-path": [],
        "--progress": True,
    }
    assert {k: fetch[k] for k in shared} == shared
    assert {k: verify[k] for k in shared} == shared


def test_fetch_without_a_key_exits_2_and_says_where_to_put_one(home: Path) -> None:
    result = runner.invoke(app, ["fetch", "--from", "2025-07-21", "--to", "2025-07-21"])
    assert result.exit_code == ExitCode.USAGE
    assert "HWPSCAN_API_KEY" in result.output and "config.toml" in result.output


def test_key_from_the_config_file_is_used_and_not_copied(home: Path, tmp_path: Path) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text(f'api_key = "{KEY}"\n', encoding="utf-8")
    with serve_in_thread() as emu:
        out = tmp_path / "out"
        result = runner.invoke(
            app,
            [
                "fetch",
                "--from",
                "2025-07-21",
                "--to",
                "2025-07-21",
                "--api-url",
                emu.api_url,
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        assert emu.stats().calls_total == 1
    assert read_entries(out / MANIFEST_NAME)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "config.toml"]
    assert files and not any(KEY.encode() in p.read_bytes() for p in files)
    assert KEY not in result.output


def test_broken_config_file_exits_2_without_echoing_it(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text(f'api_key = "{KEY}\n', encoding="utf-8")  # unterminated
    result = runner.invoke(app, ["fetch", "--from", "2025-07-21", "--to", "2025-07-21"])
    assert result.exit_code == ExitCode.USAGE
    assert "cannot read the config file" in result.output and KEY not in result.output


def test_plan_warns_when_the_quota_left_is_too_small(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWPSCAN_API_KEY", KEY)
    ledger = QuotaLedger(home / "quota.sqlite", limit=30)
    for _ in range(29):
        ledger.reserve(KEY)
    result = runner.invoke(app, ["plan", "--from", "2025-01-01", "--to", "2025-03-01"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "calls needed: 3" in text and "1 of 30 calls left" in text
    assert "needs 3 calls but only 1 are left" in text


def test_fetch_for_scan_defaults_to_a_folder_per_api_host(home: Path) -> None:
    with serve_in_thread() as emu:
        folder, report = fetch_for_scan(
            "2025-07-21", "2025-07-22", FetchSettings(api_url=emu.api_url), key=KEY
        )
    assert report.complete and report.calls_made == 1
    assert folder == home / "downloads" / f"127.0.0.1_{emu.port}"
    assert (folder / MANIFEST_NAME).is_file()
    assert report.start == date(2025, 7, 21)


def test_fetch_for_scan_rejects_bad_dates_and_a_missing_key(home: Path) -> None:
    from hwpscan.errors import UsageError

    with pytest.raises(UsageError, match="YYYY-MM-DD"):
        fetch_for_scan("2025/07/21", "2025-07-22", key=KEY)
    with pytest.raises(UsageError, match="no API key"):
        fetch_for_scan("2025-07-21", "2025-07-22")


def test_cli_fetch_for_scan_then_raise_for_report_exits_3_on_a_stop(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer

    from hwpscan.cli.fetch_view import fetch_for_scan as cli_fetch_for_scan
    from hwpscan.cli.fetch_view import raise_for_report

    monkeypatch.setenv("HWPSCAN_API_KEY", KEY)
    with serve_in_thread() as emu:
        folder, report = cli_fetch_for_scan(
            "2025-07-21", "2025-08-11", api_url=emu.api_url, show_progress=False, daily_limit=1
        )
    assert report.calls_made == 1 and report.files_downloaded > 0  # the first window is kept
    assert any(folder.rglob("*.hwp"))
    with pytest.raises(typer.Exit) as info:
        raise_for_report(report)
    assert info.value.exit_code == ExitCode.API
    raise_for_report(dataclasses.replace(report, error=None))  # complete: returns
