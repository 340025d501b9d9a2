"""The fetch orchestrator against an httpx.MockTransport API: order, stops, cache, manifest."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from hwpscan.api import FetchHooks, FetchSettings, RetryPolicy, plan_range
from hwpscan.api.dates import KST, Window
from hwpscan.api.plan import open_cache, open_ledger
from hwpscan.errors import (
    ApiNetworkError,
    ApiRefusedError,
    ApiResponseError,
    DailyLimitError,
    QuotaExceededError,
)
from hwpscan.manifest import dates_for, read_entries
from hwpscan.models import ExitCode
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.usecases.run_fetch import fetch_range

KEY = "TESTKEY" + "7c" * 12
HOST = "https://www.fss.or.kr"
API = HOST + "/fss/kr/openApi/api/bodoInfo.jsp"
FILE = HOST + "/fss/cmmn/file/fileDown.do"
HWP = build_hwp5(["금융감독원 보도자료"])
PDF = build_pdf([["참고자료"]])
START, END = date(2025, 7, 21), date(2025, 8, 11)  # two windows of 21 days


@dataclass
class FakeApi:
    """A MockTransport handler shaped like the real API (CP949 JSON under text/html)."""

    mode: Callable[[httpx.Request], httpx.Response | None] | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    extra_urls: str = ""

    def items(self, start: str, end: str) -> list[dict[str, Any]]:
        out = []
        day = date.fromisoformat(start)
        while day <= date.fromisoformat(end):
            if day.weekday() < 5:
                cid = day.strftime("4%m%d")
                out.append(
                    {
                        "contentId": cid,
                        "subject": f"{day} 보도자료",
                        "regDate": f"{day} 10:00:00",
                        "contentKor": "<p>본문nnu203B</p>",
                        "atchfileNm": "보도자료.hwp|참고.pdf" + ("|x" if self.extra_urls else ""),
                        "atchfileUrl": f"{FILE}?atchFileId={cid}&amp;fileSn=1|"
                        f"{FILE}?atchFileId={cid}&amp;fileSn=2"
                        + (f"|{self.extra_urls}" if self.extra_urls else ""),
                    }
                )
            day += timedelta(days=1)
        return out

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("bodoInfo.jsp"):
            params = request.url.params
            self.calls.append((params["startDate"], params["endDate"]))
            if self.mode is not None and (special := self.mode(request)) is not None:
                return special
            items = self.items(params["startDate"], params["endDate"])
            return reply(
                {"resultCode": "1" if items else "900", "resultCnt": len(items), "result": items}
            )
        self.downloads.append(str(request.url))
        data = HWP if request.url.params["fileSn"] == "1" else PDF
        return httpx.Response(
            200, content=data, headers={"content-type": "application/octet-stream"}
        )


def reply(envelope: dict[str, Any], status: int = 200) -> httpx.Response:
    body = json.dumps({"reponse": envelope}, ensure_ascii=False).encode("cp949")
    return httpx.Response(
        status, content=body, headers={"content-type": "text/html;charset=euc-kr"}
    )


def run(tmp_path: Path, api: FakeApi, **kw: Any):
    """``kw``: ``start``, ``end``, ``progress``, ``clock``, ``retries`` and settings fields."""
    clock = kw.pop("clock", lambda: datetime(2025, 8, 12, 9, 0, tzinfo=KST))
    if "retries" in kw:
        kw["retry"] = RetryPolicy(retries=kw.pop("retries"))
    start, end, progress = kw.pop("start", START), kw.pop("end", END), kw.pop("progress", None)
    return fetch_range(
        start,
        end,
        settings(tmp_path, **kw),
        key=KEY,
        client=httpx.Client(transport=httpx.MockTransport(api)),
        progress=progress,
        hooks=FetchHooks(clock=clock, sleep=lambda s: None),
    )


def settings(tmp_path: Path, **kw: Any) -> FetchSettings:
    return FetchSettings(api_url=API, out_dir=tmp_path / "out", state=tmp_path / "state", **kw)


def test_fetch_downloads_every_attachment_and_dates_them(tmp_path: Path) -> None:
    api = FakeApi()
    report = run(tmp_path, api)
    assert report.ok and report.exit_code == ExitCode.OK
    assert report.calls_made == 2 and report.releases == 16 and report.files_downloaded == 32
    files = sorted(
        p
        for p in (tmp_path / "out").rglob("*")
        if p.is_file() and p.name != "manifest.jsonl" and ".hwpscan-fetch" not in p.parts
    )
    assert len(files) == 32
    dates = dates_for(files)
    assert all(dates[p] == p.parent.name for p in files)
    first = tmp_path / "out" / "2025-07-21" / "40721_보도자료.hwp"
    assert first.read_bytes() == HWP
    entries = read_entries(report.manifest_path)
    assert {e.status for e in entries} == {"downloaded"}
    assert all("&amp;" not in e.url for e in entries)


def test_plan_predicts_the_calls_and_a_rerun_costs_nothing(tmp_path: Path) -> None:
    api = FakeApi()
    before = plan_range(START, END, settings(tmp_path), key=KEY)
    assert before.calls_needed == 2 and before.calls_cached == 0
    run(tmp_path, api)
    assert len(api.calls) == before.calls_needed
    after = plan_range(START, END, settings(tmp_path), key=KEY)
    assert after.calls_needed == 0 and after.calls_cached == 2
    again = run(tmp_path, api)
    assert len(api.calls) == 2 and again.calls_cached == 2 and again.calls_made == 0
    assert again.files_skipped == 32 and again.files_downloaded == 0
    assert len(read_entries(again.manifest_path)) == 32  # no duplicate lines for skipped files


def test_plan_judges_the_quota_day_and_the_year_by_its_clock(tmp_path: Path) -> None:
    in_range = plan_range(
        START, END, settings(tmp_path), key=KEY, clock=lambda: datetime(2025, 7, 30, 12, tzinfo=KST)
    )
    assert in_range.warnings == () and in_range.quota is not None
    assert in_range.quota.day == date(2025, 7, 30)
    later = plan_range(
        START, END, settings(tmp_path), key=KEY, clock=lambda: datetime(2027, 1, 5, tzinfo=KST)
    )
    assert any("not the current year 2027" in w for w in later.warnings)


def test_quota_stops_before_calling_and_keeps_what_was_fetched(tmp_path: Path) -> None:
    api = FakeApi()
    report = run(tmp_path, api, daily_limit=1)
    assert isinstance(report.error, QuotaExceededError)
    assert report.exit_code == ExitCode.API
    assert len(api.calls) == 1 and report.calls_made == 1
    assert "0 of 1 calls left" in str(report.error) and "resets 2025-08-13 00:00 KST" in str(
        report.error
    )
    assert report.files_downloaded == 30  # the first window's files are kept
    assert len(list((tmp_path / "out").rglob("*.hwp"))) == 15


def test_daily_limit_code_033_spends_the_call_and_marks_the_day_used(tmp_path: Path) -> None:
    api = FakeApi(mode=lambda r: reply({"resultCode": "033", "resultMsg": "일일 한도 초과"}))
    report = run(tmp_path, api)
    assert isinstance(report.error, DailyLimitError) and report.calls_made == 1
    ledger = open_ledger(
        FetchSettings(state=tmp_path / "state"),
        clock=lambda: datetime(2025, 8, 12, 9, 0, tzinfo=KST),
    )
    assert ledger.status(KEY).remaining == 0


def test_030_period_too_long_stops_with_advice(tmp_path: Path) -> None:
    api = FakeApi(mode=lambda r: reply({"resultCode": "030", "resultMsg": "조회기간 초과"}))
    report = run(tmp_path, api)
    assert isinstance(report.error, ApiRefusedError) and "--window-days" in str(report.error)
    assert report.exit_code == ExitCode.API


def test_html_page_is_cached_raw_before_parsing_and_never_trusted(tmp_path: Path) -> None:
    page = "<html><head><title>서비스 점검</title></head></html>".encode("cp949")
    api = FakeApi(
        mode=lambda r: httpx.Response(200, content=page, headers={"content-type": "text/html"})
    )
    report = run(tmp_path, api)
    assert isinstance(report.error, ApiResponseError) and "서비스 점검" in str(report.error)
    entry = open_cache(tmp_path / "state").get(API, Window(START, date(2025, 8, 10)))
    assert entry is not None and entry.body == page and entry.meta["trusted"] is False
    assert plan_range(START, END, settings(tmp_path), key=None).calls_needed == 2


def test_silent_zero_items_on_weekdays_is_a_refusal_not_no_releases(tmp_path: Path) -> None:
    api = FakeApi(mode=lambda r: reply({"resultCode": "1", "resultCnt": 0, "result": []}))
    report = run(tmp_path, api)
    assert isinstance(report.error, ApiRefusedError)
    assert "possibly a silent quota refusal" in str(report.error)
    assert report.releases == 0 and len(api.calls) == 1  # stopped: no call wasted after it
    api.mode = None  # the quota is back: the window is asked again, not taken from cache
    again = run(tmp_path, api)
    assert again.ok and again.calls_made == 2


def test_releases_outside_the_window_are_flagged_and_not_downloaded(tmp_path: Path) -> None:
    def wrong_year(request: httpx.Request) -> httpx.Response:
        items = FakeApi().items("2024-07-21", "2024-07-22")
        return reply({"resultCode": "1", "resultCnt": len(items), "result": items})

    report = run(tmp_path, FakeApi(mode=wrong_year), end=date(2025, 7, 22))
    assert report.files_downloaded == 0
    assert any("dated 2024-07-22, outside the window" in w for w in report.warnings)
    assert {e.status for e in read_entries(report.manifest_path)} == {"skipped"}


def test_range_wholly_in_another_year_warns(tmp_path: Path) -> None:
    report = run(tmp_path, FakeApi(), start=date(2024, 7, 22), end=date(2024, 7, 22))
    assert any("not the current year 2025" in w for w in report.warnings)


def test_unsafe_attachment_urls_are_refused_and_recorded(tmp_path: Path) -> None:
    api = FakeApi(extra_urls="javascript:alert(1)")
    report = run(tmp_path, api, start=START, end=START)
    assert report.files_refused == 1 and report.files_downloaded == 2
    assert report.exit_code == ExitCode.API and report.error is None
    refused = [e for e in read_entries(report.manifest_path) if e.status == "refused"]
    assert refused[0].path is None and "scheme 'javascript'" in (refused[0].reason or "")
    assert not any("javascript" in u for u in api.downloads)


def test_api_5xx_is_retried_and_network_failure_stops_after_retries(tmp_path: Path) -> None:
    answers = iter([httpx.Response(502), None, None])
    report = run(tmp_path, FakeApi(mode=lambda r: next(answers)), end=START)
    assert report.ok and report.calls_made == 2

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    failed = run(tmp_path / "2", FakeApi(mode=down), end=START, retries=1)
    assert isinstance(failed.error, ApiNetworkError) and "after 2 attempts" in str(failed.error)
    assert KEY not in str(failed.error)


def test_connection_refused_costs_no_quota(tmp_path: Path) -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    report = run(tmp_path, FakeApi(mode=refused), end=START, retries=1)
    assert isinstance(report.error, ApiNetworkError) and report.calls_made == 0
    ledger = open_ledger(
        FetchSettings(state=tmp_path / "state"),
        clock=lambda: datetime(2025, 8, 12, 9, 0, tzinfo=KST),
    )
    assert ledger.status(KEY).used == 0


def test_progress_events_count_windows_and_files(tmp_path: Path) -> None:
    events = []
    run(tmp_path, FakeApi(), progress=events.append)
    calls = [e for e in events if e.kind == "calls"]
    downloads = [e for e in events if e.kind == "downloads"]
    assert calls[0].total == 2 and sum(e.advance for e in calls) == 2
    assert sum(e.total for e in downloads) == sum(e.advance for e in downloads) == 32


def test_unnamed_attachment_takes_the_servers_euc_kr_name_and_resumes(tmp_path: Path) -> None:
    downloads: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("bodoInfo.jsp"):
            item = {
                "contentId": "41851",
                "subject": "s",
                "regDate": "2025-07-21 10:00:00",
                "atchfileNm": "|보도자료.hwp",
                "atchfileUrl": f"{FILE}?atchFileId=a&fileSn=1|{FILE}?atchFileId=a&fileSn=2",
            }
            return reply({"resultCode": "1", "resultCnt": 1, "result": [item]})
        downloads.append(str(request.url))
        name = "서버 이름.hwp" if request.url.params["fileSn"] == "1" else "무시.hwp"
        return httpx.Response(
            200,
            content=HWP,
            headers=[(b"content-disposition", f'attachment; filename="{name}"'.encode("euc-kr"))],
        )

    for _ in range(2):
        report = fetch_range(
            START,
            START,
            settings(tmp_path),
            key=KEY,
            client=httpx.Client(transport=httpx.MockTransport(handler)),
        )
        assert report.complete
    names = sorted(p.name for p in (tmp_path / "out" / "2025-07-21").iterdir())
    assert names == [
        "41851_보도자료.hwp",
        "41851_서버 이름.hwp",
    ]  # the listed name wins when there is one
    assert len(downloads) == 2  # the rerun found both files
    entries = read_entries(tmp_path / "out" / "manifest.jsonl")
    assert sorted(e.name for e in entries) == ["보도자료.hwp", "서버 이름.hwp"]


def test_report_lists_this_fetchs_files_not_the_folders_older_ones(tmp_path: Path) -> None:
    api = FakeApi()
    whole = run(tmp_path, api)
    assert len(whole.paths) == 32 and all(p.is_file() for p in whole.paths)
    # a later, shorter fetch into the same folder: the other days' files stay on disk
    one_day = run(tmp_path, api, start=date(2025, 7, 23), end=date(2025, 7, 23))
    assert one_day.files_skipped == 2 and one_day.files_downloaded == 0
    assert {p.parent.name for p in one_day.paths} == {"2025-07-23"}
    assert sorted(p.name for p in one_day.paths) == ["40723_보도자료.hwp", "40723_참고.pdf"]
    assert [e.status for e in one_day.entries] == ["downloaded", "downloaded"]


def test_refused_and_failed_attachments_are_entries_but_not_paths(tmp_path: Path) -> None:
    api = FakeApi(extra_urls="http://127.0.0.1:1/evil")
    report = run(tmp_path, api, start=date(2025, 7, 21), end=date(2025, 7, 21))
    assert [e.status for e in report.entries].count("refused") == 1
    assert len(report.paths) == 2 and report.files_refused == 1
