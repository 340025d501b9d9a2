"""Fetch settings: one retry policy for calls and downloads, defaults stated once, no key."""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime
from pathlib import Path

import httpx
import pytest

from hwpscan.api import FetchHooks, FetchLimits, FetchSettings, ProgressEvent, RetryPolicy
from hwpscan.api.dates import KST
from hwpscan.cli.options import FetchOptions, LimitOptions
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.usecases.run_fetch import fetch_range

KEY = "SETTINGSKEY" + "5d" * 11
HOST = "https://www.fss.or.kr"
API = HOST + "/fss/kr/openApi/api/bodoInfo.jsp"
FILE = HOST + "/fss/cmmn/file/fileDown.do"
DAY = date(2025, 7, 21)


def _listing() -> httpx.Response:
    item = {
        "contentId": "41",
        "subject": "보도자료",
        "regDate": f"{DAY} 10:00:00",
        "atchfileNm": "보도자료.hwp",
        "atchfileUrl": f"{FILE}?atchFileId=41&amp;fileSn=1",
    }
    body = json.dumps({"reponse": {"resultCode": "1", "resultCnt": 1, "result": [item]}})
    return httpx.Response(200, content=body.encode("cp949"))


def test_api_calls_and_downloads_wait_and_say_so_as_the_one_retry_policy_says(
    tmp_path: Path,
) -> None:
    failures = {"api": 1, "file": 1}  # each fails once with a 5xx, then answers

    def handler(request: httpx.Request) -> httpx.Response:
        kind = "api" if request.url.path.endswith("bodoInfo.jsp") else "file"
        if failures[kind]:
            failures[kind] -= 1
            return httpx.Response(503)
        return _listing() if kind == "api" else httpx.Response(200, content=build_hwp5(["본문"]))

    sleeps: list[float] = []
    events: list[ProgressEvent] = []
    policy = RetryPolicy(retries=2, backoff=0.25)
    settings = FetchSettings(
        api_url=API,
        out_dir=tmp_path / "out",
        state=tmp_path / "state",
        retry=policy,
        limits=FetchLimits(api_retries=2),
    )
    report = fetch_range(
        DAY,
        DAY,
        settings,
        key=KEY,
        client=httpx.Client(transport=httpx.MockTransport(handler)),
        progress=events.append,
        hooks=FetchHooks(
            clock=lambda: datetime(2025, 7, 22, 9, 0, tzinfo=KST), sleep=sleeps.append
        ),
    )
    assert report.complete and report.files_downloaded == 1 and report.calls_made == 2
    assert sleeps == [policy.delay(1)] * 2 == [0.25, 0.25]
    retries = [e.message for e in events if e.kind == "retry"]
    assert len(retries) == 2
    assert retries[0].startswith("API call for ") and "HTTP 503" in retries[0]
    assert "HTTP 503" in retries[1] and "보도자료.hwp" in retries[1]
    assert all(m.endswith("retrying in 0.25 s (attempt 2 of 3)") for m in retries)


def test_paid_api_retries_are_capped_by_the_budget_not_only_the_policy(tmp_path: Path) -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        return httpx.Response(502)

    settings = FetchSettings(
        api_url=API,
        out_dir=tmp_path / "out",
        state=tmp_path / "state",
        retry=RetryPolicy(retries=5, backoff=0),
        limits=FetchLimits(api_retries=1),
    )
    report = fetch_range(
        DAY,
        DAY,
        settings,
        key=KEY,
        client=httpx.Client(transport=httpx.MockTransport(handler)),
        hooks=FetchHooks(
            clock=lambda: datetime(2025, 7, 22, 9, 0, tzinfo=KST), sleep=lambda s: None
        ),
    )
    assert len(calls) == 2 and "after 2 attempts" in str(report.error)


def test_settings_hold_no_key_and_show_none() -> None:
    assert not [f.name for f in dataclasses.fields(FetchSettings) if "key" in f.name.lower()]
    settings = FetchOptions(allow_host=["files.example"]).settings(out_dir=Path("x"))
    assert KEY not in repr(settings) and "files.example" in repr(settings)


@pytest.mark.parametrize(
    ("options", "field", "expected"),
    [
        (FetchOptions(), "retry", FetchSettings().retry),
        (FetchOptions(retries=0), "retry", RetryPolicy(retries=0)),
        (FetchOptions(max_mb=2.5), "max_bytes", 2_500_000),
        (FetchOptions(downloads=9), "downloads", 9),
        (FetchOptions(download_path=["/a/,/b/"]), "path_prefixes", ("/a/", "/b/")),
        (
            FetchOptions(limits=LimitOptions(max_total_mb=1)),
            "limits",
            FetchLimits(max_download_bytes=1_000_000),
        ),
    ],
)
def test_fetch_options_map_onto_the_settings(
    options: FetchOptions, field: str, expected: object
) -> None:
    assert getattr(options.settings(), field) == expected


def test_every_cli_default_is_the_settings_default() -> None:
    assert FetchOptions().settings() == FetchSettings()
    assert LimitOptions().limits() == FetchLimits()
