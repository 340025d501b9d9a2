"""Strict dates, windows and Korea time; bad dates exit 2 through the CLI."""

from __future__ import annotations

import itertools
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from hwpscan.api.dates import (
    KST,
    Window,
    next_reset,
    parse_date,
    parse_range,
    quota_day,
    split_windows,
    with_weekday,
    year_warning,
)
from hwpscan.cli import app
from hwpscan.errors import UsageError
from hwpscan.models import ExitCode

BAD_DATES = [
    ("20250721", "not in the form YYYY-MM-DD"),
    ("2025/07/21", "not in the form YYYY-MM-DD"),
    ("2025-7-21", "not in the form YYYY-MM-DD"),
    ("2025-07-21T00:00", "not in the form YYYY-MM-DD"),
    ("25-07-21", "not in the form YYYY-MM-DD"),
    ("", "not in the form YYYY-MM-DD"),
    ("２０２５-07-21", "not in the form YYYY-MM-DD"),  # full-width digits
    ("2025-02-29", "not a real date"),
    ("2025-13-01", "not a real date"),
    ("2025-04-31", "not a real date"),
    ("2025-00-10", "not a real date"),
]


@pytest.mark.parametrize(("text", "why"), BAD_DATES)
def test_parse_date_rejects_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(UsageError, match=why):
        parse_date(text)


def test_leap_day_accepted() -> None:
    assert parse_date("2024-02-29") == date(2024, 2, 29)


def test_backwards_range_rejected_with_weekdays() -> None:
    with pytest.raises(UsageError, match=r"2025-08-11 \(Mon\) is after --to 2025-07-21 \(Mon\)"):
        parse_range("2025-08-11", "2025-07-21")


@pytest.mark.parametrize("days", [1, 7, 20, 21])
def test_windows_cover_the_range_exactly_once(days: int) -> None:
    start, end = date(2025, 1, 30), date(2025, 4, 2)
    windows = split_windows(start, end, days)
    assert windows[0].start == start and windows[-1].end == end
    assert all(w.days <= days for w in windows)
    for before, after in itertools.pairwise(windows):
        assert after.start == before.end + timedelta(days=1)
    assert sum(w.days for w in windows) == (end - start).days + 1


def test_single_day_is_one_window() -> None:
    assert split_windows(date(2025, 8, 11), date(2025, 8, 11)) == (
        Window(date(2025, 8, 11), date(2025, 8, 11)),
    )


def test_quota_day_and_reset_follow_korea_time() -> None:
    utc = ZoneInfo("UTC")
    late_utc = datetime(2025, 7, 21, 15, 30, tzinfo=utc)  # 00:30 on 7/22 in Seoul
    assert quota_day(late_utc) == date(2025, 7, 22)
    assert next_reset(late_utc) == datetime(2025, 7, 23, 0, 0, tzinfo=KST)
    assert quota_day(late_utc, reset_hour=1) == date(2025, 7, 21)


def test_weekday_labels() -> None:
    assert [with_weekday(date(2025, 7, d)) for d in (26, 27, 28)] == [
        "2025-07-26 (Sat)",
        "2025-07-27 (Sun)",
        "2025-07-28 (Mon)",
    ]


def test_year_warning_only_for_a_whole_range_in_another_year() -> None:
    assert year_warning(date(2024, 1, 1), date(2024, 1, 5), date(2025, 1, 1)) is not None
    assert year_warning(date(2025, 1, 1), date(2025, 1, 5), date(2025, 1, 1)) is None


runner = CliRunner()


@pytest.mark.parametrize(("text", "why"), BAD_DATES[:6] + BAD_DATES[7:9])
@pytest.mark.parametrize("command", ["plan", "fetch"])
def test_cli_bad_dates_exit_2(
    command: str, text: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path))
    monkeypatch.setenv("HWPSCAN_API_KEY", "TESTKEY" + "0" * 24)
    result = runner.invoke(
        app, [command, "--from", text, "--to", "2025-08-11", "--api-url", "http://127.0.0.1:9/x"]
    )
    assert result.exit_code == ExitCode.USAGE
    assert why in " ".join(result.output.split())
    assert not (tmp_path / "quota.sqlite").exists() or command == "plan"


def test_cli_from_after_to_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path))
    result = runner.invoke(app, ["plan", "--from", "2025-08-11", "--to", "2025-07-21"])
    assert result.exit_code == ExitCode.USAGE
    assert "is after --to" in result.output


def test_cli_plan_prints_resolved_range_with_weekdays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path))
    monkeypatch.delenv("HWPSCAN_API_KEY", raising=False)
    result = runner.invoke(app, ["plan", "--from", "2025-07-21", "--to", "2025-08-11"])
    assert result.exit_code == 0, result.output
    assert "2025-07-21 (Mon) .. 2025-08-11 (Mon), 22 days" in result.output
    assert "calls needed: 2, already cached: 0" in result.output
    assert "unknown (no key" in result.output
