"""The press-release API emulator over real loopback sockets: shape, bytes, every quirk."""

from __future__ import annotations

import hashlib
import json
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from datetime import UTC, date, datetime, time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import httpx
import pytest
import typer.main
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.cli import emulator_command as _emulator_cli  # noqa: F401  (registers the command)
from hwpscan.errors import CatalogueError
from hwpscan.models import Format, Status
from hwpscan.redaction import key_hash
from hwpscan.rehearsal.emulator import (
    BadDateMode,
    Disposition,
    Oversize,
    Post,
    Quirks,
    QuotaMode,
    RunningEmulator,
    WrongYearMode,
    from_releases,
    load_data_dir,
    serve_in_thread,
    write_data_dir,
)
from hwpscan.rehearsal.emulator.wire import damage_text
from hwpscan.rehearsal.synth.catalogue import expected_contaminated_dates, incident_catalogue
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.scanning.one_file import scan_bytes

KEY = hashlib.sha256(b"emulator-test-key").hexdigest()[:32]
OTHER_KEY = hashlib.sha256(b"emulator-other-key").hexdigest()[:32]
BULLET = chr(0xF02B1)
TIMEOUT = httpx.Timeout(5.0)
#: 2025-07-21 12:00 in Korea: a fixed clock, so no test depends on today's date.
NOON_KST = datetime(2025, 7, 21, 3, 0, tzinfo=UTC)
#: One client for the whole module (plain HTTP to loopback: no certificates, no proxies).
HTTP = httpx.Client(timeout=TIMEOUT, verify=False, trust_env=False)
URL_RE = re.compile(
    r"http://127\.0\.0\.1:\d+/fss/cmmn/file/fileDown\.do\?menuNo=200218"
    r"&atchFileId=[0-9a-f]{32}&fileSn=\d+&bbsId=B0000188"
)


@pytest.fixture(scope="module", autouse=True)
def _close_client() -> Iterator[None]:
    yield
    HTTP.close()


@pytest.mark.parametrize(
    ("day", "reg_time"),
    [
        (date(2025, 7, 21), time(9, 30)),
        ("2025-07-21", "09:30"),
        (date(2025, 7, 21), "2025-07-21 09:30:00"),
        (datetime(2025, 7, 21, 23, 0), time(9, 30)),
        (date(2025, 7, 20), datetime(2025, 7, 21, 9, 30, tzinfo=UTC)),
    ],
)
def test_a_release_registration_time_comes_in_every_form_the_loader_takes(
    day: object, reg_time: object
) -> None:
    (post,) = from_releases([{"date": day, "content_id": 1, "reg_time": reg_time}])
    assert post.reg_date == datetime(2025, 7, 21, 9, 30)


def test_a_release_without_a_registration_time_is_registered_at_ten() -> None:
    (post,) = from_releases([{"date": "2025-07-21", "content_id": 1}])
    assert post.reg_date == datetime(2025, 7, 21, 10, 0)


def _tiny_catalogue() -> tuple[Post, ...]:
    """Four releases with real generated files: a contaminated HWP, clean HWP/PDF/HWPX."""
    return from_releases(
        [
            {
                "date": date(2025, 7, 21),
                "content_id": "41851",
                "reg_time": time(9, 30),
                "subject": f"{BULLET} 불법사금융 피해 예방 안내\u203b",
                "body_html": "<p>\u2018예방\u2019 안내</p>\n<p>\u00b7 문의</p>",
                "attachments": [
                    ("보도자료.hwp", build_hwp5([f"{BULLET} 오염된 본문"])),
                    ("참고자료.pdf", build_pdf([["깨끗한 본문"]])),
                ],
            },
            {
                "date": date(2025, 7, 23),
                "content_id": "41860",
                "reg_time": time(14, 0),
                "subject": "금융소비자 보호 강화",
                "body_html": "<p>본문</p>",
                "attachments": [("보도자료.hwp", build_hwp5(["깨끗한 본문"]))],
            },
            {
                "date": date(2025, 7, 25),
                "content_id": "41871",
                "reg_time": time(10, 0),
                "subject": "첨부 없는 알림",
                "body_html": "<p>알림</p>",
                "attachments": [],
            },
            {
                "date": date(2025, 8, 5),
                "content_id": "41902",
                "reg_time": time(11, 0),
                "subject": "8월 보도자료",
                "body_html": "<p>본문</p>",
                "attachments": [("보도자료.hwpx", build_hwpx(["깨끗한 본문"]))],
            },
        ]
    )


CATALOGUE = _tiny_catalogue()


@contextmanager
def running(
    clock: Callable[[], datetime] = lambda: NOON_KST,
    log: Callable[[str], None] | None = None,
    **quirks: object,
) -> Iterator[RunningEmulator]:
    with serve_in_thread(quirks=Quirks(**quirks), catalogue=CATALOGUE, clock=clock, log=log) as emu:  # type: ignore[arg-type]
        yield emu


def call(
    emu: RunningEmulator, start: str, end: str, *, key: str | None = KEY, post: bool = False
) -> httpx.Response:
    params = {"apiType": "json", "startDate": start, "endDate": end}
    if key is not None:
        params["authKey"] = key
    if post:
        return HTTP.post(emu.api_url, data=params, timeout=TIMEOUT)
    return HTTP.get(emu.api_url, params=params, timeout=TIMEOUT)


def envelope(response: httpx.Response) -> dict[str, object]:
    return json.loads(response.content.decode("cp949"))["reponse"]


def items(
    emu: RunningEmulator, start: str = "2025-07-21", end: str = "2025-08-11"
) -> list[dict[str, str]]:
    body = envelope(call(emu, start, end))
    assert body["resultCode"] == "1"
    return body["result"]  # type: ignore[return-value]


def urls_of(item: dict[str, str]) -> list[str]:
    return [u for u in item["atchfileUrl"].split("|") if u]


# -- shape and bytes -------------------------------------------------------------------


def test_listing_has_the_real_shape_in_euc_kr_bytes() -> None:
    with running() as emu:
        response = call(emu, "2025-07-21", "2025-07-31")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html;charset=euc-kr"
    with pytest.raises(UnicodeDecodeError):
        response.content.decode("utf-8")
    assert "보도자료".encode("cp949") in response.content
    # The PUA bullet is outside CP949: it travels as a JSON escaped surrogate pair.
    assert b"\\udb80\\udeb1" in response.content
    body = envelope(response)
    assert (body["resultCode"], body["resultCnt"]) == ("1", 3)
    first, second, third = body["result"]  # type: ignore[misc]
    assert [i["contentId"] for i in (first, second, third)] == ["41851", "41860", "41871"]
    assert set(first) == {
        "contentId",
        "subject",
        "publishOrg",
        "originUrl",
        "viewCnt",
        "regDate",
        "atchfileNm",
        "atchfileUrl",
        "contentKor",
    }
    assert first["publishOrg"] == "금융감독원"
    assert first["regDate"] == "2025-07-21 09:30:00"
    assert "nttId=41851" in first["originUrl"]
    assert first["subject"] == damage_text(CATALOGUE[0].subject)
    assert first["subject"].startswith(BULLET) and first["subject"].endswith("u203B")
    assert first["contentKor"] == "<p>u2018예방u2019 안내</p>nn<p>&middot; 문의</p>"
    assert first["atchfileNm"] == "보도자료.hwp|참고자료.pdf"
    urls = urls_of(first)
    assert len(urls) == 2 and all(URL_RE.fullmatch(u) for u in urls)
    ids = {parse_qs(urlsplit(u).query)["atchFileId"][0] for u in urls}
    assert len(ids) == 1  # the files of one post share atchFileId
    assert urls_of(second)[0] != urls[0]
    assert (third["atchfileNm"], third["atchfileUrl"]) == ("", "")


def test_post_form_answers_like_get() -> None:
    with running() as emu:
        got = call(emu, "2025-07-21", "2025-07-25").content
        posted = call(emu, "2025-07-21", "2025-07-25", post=True).content
        assert emu.stats().calls_total == 2
    assert posted == got


def test_clean_text_switch_keeps_subject_and_body() -> None:
    with running(damaged_text=False) as emu:
        first = items(emu)[0]
    assert first["subject"] == CATALOGUE[0].subject
    assert first["contentKor"] == CATALOGUE[0].body_html


# -- quota -----------------------------------------------------------------------------


def test_quota_code_033_and_refused_calls_still_count() -> None:
    with running(daily_limit=3) as emu:
        codes = [envelope(call(emu, "2025-07-21", "2025-07-21"))["resultCode"] for _ in range(5)]
        stats = emu.stats()
    assert codes == ["1", "1", "1", "033", "033"]
    assert stats.calls_on("2025-07-21", key_hash(KEY)) == 5
    assert stats.refusals == {"033": 2}


def test_quota_silent_answers_200_with_zero_items() -> None:
    with running(daily_limit=1, quota_mode=QuotaMode.SILENT) as emu:
        full = envelope(call(emu, "2025-07-21", "2025-07-31"))
        silent_response = call(emu, "2025-07-21", "2025-07-31")
        errors = emu.stats().errors
    silent = envelope(silent_response)
    assert silent_response.status_code == 200
    assert full["resultCnt"] == 3
    assert (silent["resultCode"], silent["resultCnt"], silent["result"]) == ("1", 0, [])
    assert errors["quota_silent"] == 1


def test_quota_is_per_key_and_resets_at_korea_midnight() -> None:
    now = [datetime(2025, 7, 21, 14, 59, tzinfo=UTC)]  # 23:59 in Seoul
    with running(clock=lambda: now[0], daily_limit=1) as emu:
        assert envelope(call(emu, "2025-07-21", "2025-07-21"))["resultCode"] == "1"
        assert envelope(call(emu, "2025-07-21", "2025-07-21"))["resultCode"] == "033"
        assert envelope(call(emu, "2025-07-21", "2025-07-21", key=OTHER_KEY))["resultCode"] == "1"
        now[0] = datetime(2025, 7, 21, 15, 0, tzinfo=UTC)  # 00:00 on the 22nd in Seoul
        assert envelope(call(emu, "2025-07-21", "2025-07-21"))["resultCode"] == "1"
        calls = emu.stats().calls
    assert calls[key_hash(KEY)] == {"2025-07-21": 2, "2025-07-22": 1}
    assert calls[key_hash(OTHER_KEY)] == {"2025-07-21": 1}


# -- ranges, dates, years, keys ---------------------------------------------------------


@pytest.mark.parametrize(
    ("max_days", "start", "end", "code"),
    [
        (31, "2025-07-21", "2025-08-10", "1"),  # 21 days
        (31, "2025-07-01", "2025-07-31", "1"),  # exactly 31
        (31, "2025-07-01", "2025-08-01", "030"),  # 32
        (31, "2025-07-01", "2025-08-11", "030"),  # 42 days
        (21, "2025-07-21", "2025-08-11", "030"),  # 22 days over a 21-day limit
        (None, "2025-07-01", "2025-08-11", "1"),
    ],
)
def test_range_limit_answers_030(max_days: int | None, start: str, end: str, code: str) -> None:
    with running(max_days=max_days) as emu:
        body = envelope(call(emu, start, end))
        stats = emu.stats()
    assert body["resultCode"] == code
    assert stats.refusals == ({} if code == "1" else {"030": 1})
    assert stats.calls_total == 1  # a refused call still spends quota


@pytest.mark.parametrize("bad", ["20250721", "2025/07/21", "2025-7-21", "2025-02-30", ""])
def test_bad_dates_give_zero_items_or_an_html_page(bad: str) -> None:
    with running() as emu:
        empty = envelope(call(emu, bad, "2025-07-31"))
    assert (empty["resultCode"], empty["result"]) == ("1", [])
    with running(bad_dates=BadDateMode.HTML) as emu:
        page = call(emu, "2025-07-21", bad)
        assert emu.stats().errors == {"bad_date": 1}
    assert page.status_code == 200
    text = page.content.decode("cp949")
    assert text.startswith("<!DOCTYPE html>") and "reponse" not in text


def test_wrong_year_returns_plausible_redated_data() -> None:
    with running() as emu:
        shifted = items(emu, "2024-07-21", "2024-07-31")
        real = items(emu, "2025-07-21", "2025-07-31")
        file_2024 = HTTP.get(urls_of(shifted[0])[0], timeout=TIMEOUT)
    assert [i["regDate"][:10] for i in shifted] == ["2024-07-21", "2024-07-23", "2024-07-25"]
    assert {i["contentId"] for i in shifted}.isdisjoint({i["contentId"] for i in real})
    assert file_2024.status_code == 200 and file_2024.content == CATALOGUE[0].attachments[0].data
    with running(wrong_year=WrongYearMode.IGNORED) as emu:
        ignored = items(emu, "2024-07-21", "2024-07-31")
    assert [i["regDate"][:10] for i in ignored] == ["2025-07-21", "2025-07-23", "2025-07-25"]
    with running(wrong_year=WrongYearMode.OFF) as emu:
        assert items(emu, "2024-07-21", "2024-07-31") == []


@pytest.mark.parametrize("key", [None, "", "short", KEY + "x", KEY[:31] + "!"])
def test_missing_or_malformed_key_is_refused_and_not_counted(key: str | None) -> None:
    with running() as emu:
        body = envelope(call(emu, "2025-07-21", "2025-07-21", key=key))
        stats = emu.stats()
    assert (body["resultCode"], body["result"]) == ("010", [])
    assert stats.calls_total == 0 and stats.errors == {"bad_key": 1}


def test_key_check_can_be_switched_off_and_code_chosen() -> None:
    with running(check_key=False) as emu:
        assert envelope(call(emu, "2025-07-21", "2025-07-21", key=None))["resultCnt"] == 1
    with running(auth_code="020") as emu:
        assert envelope(call(emu, "2025-07-21", "2025-07-21", key="x"))["resultCode"] == "020"


def test_envelope_variants_for_the_clients_defences() -> None:
    with running(
        envelope_key="response", body_key="contentsKor", single_result=True, string_counts=True
    ) as emu:
        doc = json.loads(call(emu, "2025-07-21", "2025-07-21").content.decode("cp949"))
    assert set(doc) == {"response"}
    body = doc["response"]
    assert body["resultCnt"] == "1" and isinstance(body["result"], dict)
    assert "contentsKor" in body["result"] and "contentKor" not in body["result"]


def test_other_api_type_gets_an_html_page() -> None:
    with running() as emu:
        response = HTTP.get(emu.api_url, params={"apiType": "xml", "authKey": KEY}, timeout=TIMEOUT)
    assert response.content.decode("cp949").startswith("<!DOCTYPE html>")


def test_empty_window_is_code_1_or_900() -> None:
    with running() as emu:
        assert envelope(call(emu, "2025-07-26", "2025-07-28"))["resultCode"] == "1"
    with running(no_data_code=True) as emu:
        assert envelope(call(emu, "2025-07-26", "2025-07-28"))["resultCode"] == "900"
        assert envelope(call(emu, "2025-07-21", "2025-07-21"))["resultCode"] == "1"


# -- attachment lists ---------------------------------------------------------------------


def test_escaped_amp_urls_only_work_once_unescaped() -> None:
    with running(escaped_amp=True) as emu:
        raw = items(emu)[0]["atchfileUrl"].split("|")[0]
        as_given = HTTP.get(raw, timeout=TIMEOUT)
        fixed = HTTP.get(raw.replace("&amp;", "&"), timeout=TIMEOUT)
    assert "&amp;atchFileId=" in raw
    assert as_given.status_code == 404
    assert fixed.status_code == 200 and fixed.content == CATALOGUE[0].attachments[0].data


def test_unsafe_urls_point_elsewhere_and_following_them_is_counted() -> None:
    with running(unsafe_urls=True) as emu:
        first = items(emu)[0]
        urls = first["atchfileUrl"].split("|")
        api_host = urlsplit(emu.url).hostname
        other, with_userinfo = urlsplit(urls[2]), urlsplit(urls[3])
        followed = HTTP.get(urls[3], timeout=TIMEOUT)  # what a careless client would do
        errors = emu.stats().errors
    assert len(first["atchfileNm"].split("|")) == len(urls) == 4
    assert other.hostname != api_host and other.hostname == "localhost"
    assert (with_userinfo.username, with_userinfo.hostname) == ("hwpscan", api_host)
    assert followed.status_code == 200
    assert errors == {"unsafe_url_followed": 1}


def test_messy_lists_have_empty_segments_and_one_name_too_many() -> None:
    with running(messy_lists=True) as emu:
        first = items(emu)[0]
    assert "||" in first["atchfileNm"] and "||" in first["atchfileUrl"]
    names = [n for n in first["atchfileNm"].split("|") if n]
    urls = urls_of(first)
    assert len(names) == len(urls) + 1 == 3


# -- downloads ----------------------------------------------------------------------------


def _disposition_name(header: str | None, raw: bytes, mode: Disposition) -> str | None:
    if mode is Disposition.NONE:
        return header
    if mode is Disposition.RFC5987:
        return unquote(header.split("filename*=UTF-8''", 1)[1])  # type: ignore[union-attr]
    value = raw.split(b'filename="', 1)[1].rstrip(b'"')
    return value.decode("cp949" if mode is Disposition.EUCKR else "utf-8")


@pytest.mark.parametrize("mode", list(Disposition))
def test_download_bytes_type_and_disposition(mode: Disposition) -> None:
    with running(disposition=mode) as emu:
        url = urls_of(items(emu)[0])[0]
        response = HTTP.get(url, timeout=TIMEOUT)
        stats = emu.stats()
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.content == CATALOGUE[0].attachments[0].data
    raw = next((v for k, v in response.headers.raw if k.lower() == b"content-disposition"), b"")
    expected = None if mode is Disposition.NONE else "보도자료.hwp"
    assert _disposition_name(response.headers.get("content-disposition"), raw, mode) == expected
    assert stats.downloads == {url.removeprefix(emu.url): 1}


def test_failing_download_answers_500_then_200_per_url() -> None:
    with running(fail_first=1) as emu:
        first, second = urls_of(items(emu)[0])
        codes = [HTTP.get(u, timeout=TIMEOUT).status_code for u in (first, first, second, second)]
        stats = emu.stats()
    assert codes == [500, 200, 500, 200]
    assert stats.errors == {"download_500": 2}
    assert stats.downloads_total == 4


def test_slow_download_trips_a_short_read_timeout() -> None:
    with running(download_delay=3.0) as emu:
        url = urls_of(items(emu)[0])[0]
        with pytest.raises(httpx.ReadTimeout):
            HTTP.get(url, timeout=httpx.Timeout(5.0, read=0.2))
        emu.close()  # wakes the sleeping handler instead of waiting out the delay
        assert emu.closed


def test_oversize_header_announces_a_huge_length() -> None:
    with running(oversize=Oversize.HEADER, oversize_bytes=5 << 30) as emu:
        url = urls_of(items(emu)[0])[0]
        with HTTP.stream("GET", url, timeout=TIMEOUT) as response:
            announced = int(response.headers["content-length"])
            with pytest.raises(httpx.RemoteProtocolError):
                response.read()  # the body ends long before the announced length
    assert announced == 5 << 30


def test_oversize_stream_runs_past_a_cap_without_length() -> None:
    cap = 1 << 20
    with running(oversize=Oversize.STREAM, oversize_bytes=8 << 20) as emu:
        url = urls_of(items(emu)[0])[0]
        received = 0
        with HTTP.stream("GET", url, timeout=TIMEOUT) as response:
            assert "content-length" not in response.headers
            for chunk in response.iter_bytes():
                received += len(chunk)
                if received > cap:
                    break
    assert received > cap


def test_html_page_instead_of_attachment() -> None:
    with running(html_attachments=True) as emu:
        response = HTTP.get(urls_of(items(emu)[0])[0], timeout=TIMEOUT)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.content.decode("cp949").startswith("<!DOCTYPE html>")


def test_unknown_file_is_404() -> None:
    with running() as emu:
        url = urls_of(items(emu)[0])[0]
        missing = HTTP.get(url.replace("fileSn=1", "fileSn=9"), timeout=TIMEOUT)
        assert emu.stats().errors == {"not_found": 1}
    assert missing.status_code == 404


# -- stats, logging, lifecycle ------------------------------------------------------------


def test_stats_endpoint_matches_counters_and_reset_clears_them() -> None:
    with running() as emu:
        call(emu, "2025-07-21", "2025-07-21")
        HTTP.get(urls_of(items(emu)[0])[0], timeout=TIMEOUT)
        served = HTTP.get(emu.url + "/_emulator/stats", timeout=TIMEOUT)
        snapshot = emu.stats()
        reset = HTTP.post(emu.url + "/_emulator/reset", timeout=TIMEOUT)
        after = emu.stats()
    assert served.json() == snapshot.to_json()
    assert snapshot.calls_total == 2 and snapshot.downloads_total == 1
    assert KEY not in served.text
    assert reset.status_code == 200
    assert (after.calls_total, after.downloads_total, after.requests) == (0, 0, 0)


def test_request_log_is_off_by_default_and_redacted_when_on(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with running() as emu:
        call(emu, "2025-07-21", "2025-07-21")
    quiet = capfd.readouterr()
    assert quiet.out == "" and quiet.err == ""
    lines: list[str] = []
    with running(log=lines.append) as emu:
        call(emu, "2025-07-21", "2025-07-21")
    assert lines and all(KEY not in line for line in lines)
    assert any("authKey=REDACTED" in line for line in lines)


def test_close_releases_the_port() -> None:
    with running() as emu:
        assert call(emu, "2025-07-21", "2025-07-21").status_code == 200
    assert emu.closed
    with pytest.raises(httpx.ConnectError):
        HTTP.get(emu.api_url, timeout=TIMEOUT)


def test_quirks_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="max_days"):
        Quirks(max_days=0)
    with pytest.raises(ValueError, match="daily_limit"):
        Quirks(daily_limit=-1)


# -- data folders ------------------------------------------------------------------------


def test_data_folder_round_trips_and_is_served(tmp_path: Path) -> None:
    write_data_dir(CATALOGUE, tmp_path / "data")
    loaded = load_data_dir(tmp_path / "data")
    assert loaded == CATALOGUE
    with serve_in_thread(catalogue=loaded, clock=lambda: NOON_KST) as emu:
        assert envelope(call(emu, "2025-07-21", "2025-08-11"))["resultCnt"] == 4


def test_data_folder_errors_are_catalogue_errors(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="cannot read"):
        load_data_dir(tmp_path)
    (tmp_path / "catalogue.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogueError, match="not valid"):
        load_data_dir(tmp_path)
    escape = {
        "releases": [{"content_id": "1", "reg_date": "2025-07-21 10:00:00",
                      "attachments": [{"name": "x.hwp", "file": "../../etc/passwd"}]}]
    }  # fmt: skip
    (tmp_path / "catalogue.json").write_text(json.dumps(escape), encoding="utf-8")
    with pytest.raises(CatalogueError, match="leaves the data folder"):
        load_data_dir(tmp_path)
    (tmp_path / "catalogue.json").write_text('{"releases": [{"content_id": 1}]}', encoding="utf-8")
    with pytest.raises(CatalogueError, match="malformed"):
        load_data_dir(tmp_path)


# -- the bundled incident catalogue -------------------------------------------------------

CONTAMINATED_DAYS = {"07-21", "07-22", "07-24", "07-29", "07-30", "07-31"}
CLEAN_HWP_DAYS = {"07-23", "07-26", "07-27", "07-28"}


def test_bundled_catalogue_reproduces_the_incident_pattern() -> None:
    results = []
    with serve_in_thread(clock=lambda: NOON_KST) as emu:
        body = envelope(
            HTTP.get(
                emu.api_url,
                params={
                    "apiType": "json",
                    "startDate": "2025-07-21",
                    "endDate": "2025-08-11",
                    "authKey": KEY,
                },
            )
        )
        for item in body["result"]:  # type: ignore[union-attr]
            for url in urls_of(item):  # type: ignore[arg-type]
                data = HTTP.get(url).content
                results.append((item["regDate"][:10], scan_bytes(data, path=url)))  # type: ignore[index]
    assert body["resultCode"] == "1" and results
    by_day: dict[str, set[tuple[Format, Status]]] = {}
    for day, result in results:
        by_day.setdefault(day[5:], set()).add((result.format, result.status))
    for day, seen in by_day.items():
        hwp = {status for fmt, status in seen if fmt is Format.HWP5}
        others = {status for fmt, status in seen if fmt is not Format.HWP5}
        assert others <= {Status.CLEAN}, day
        if day in CONTAMINATED_DAYS or day >= "08-05":
            assert Status.CONTAMINATED in hwp, day
        elif day in CLEAN_HWP_DAYS:
            assert hwp == {Status.CLEAN}, day
    assert set(by_day) >= CONTAMINATED_DAYS | CLEAN_HWP_DAYS
    smallest_day, smallest = min(results, key=lambda r: r[1].bytes)
    assert smallest_day == "2025-08-05" and smallest.format is Format.HWP5
    # The served bytes agree file by file with the generator's ground truth.
    truth = {a.data: a.contaminated for r in incident_catalogue() for a in r.attachments}
    served = {res.sha256: res.status is Status.CONTAMINATED for _, res in results}
    assert served == {hashlib.sha256(data).hexdigest(): flag for data, flag in truth.items()}
    dirty = {day for day, res in results if res.status is Status.CONTAMINATED}
    assert dirty == expected_contaminated_dates()


# -- the command -------------------------------------------------------------------------


def test_command_refuses_remote_hosts_and_bad_data() -> None:
    runner = CliRunner()
    remote = runner.invoke(app, ["emulator", "--host", "0.0.0.0"])
    assert remote.exit_code == 2 and "--allow-remote" in remote.output
    missing = runner.invoke(app, ["emulator", "--data", "/nonexistent/emulator-data"])
    assert missing.exit_code == 2 and "cannot read" in missing.output
    assert "--quota-mode" in runner.invoke(app, ["emulator", "--help"]).output


def test_every_quirk_has_a_command_line_flag() -> None:
    help_text = CliRunner().invoke(app, ["emulator", "--help"], env={"COLUMNS": "200"}).output
    flags = {f.name: "--" + f.name.replace("_", "-") for f in fields(Quirks)}
    flags["damaged_text"] = "--clean-text"
    assert [name for name, flag in flags.items() if flag not in help_text] == []


def test_command_line_values_become_the_quirks() -> None:
    """The options are the Quirks fields: parsing them gives the Quirks the server gets
    (0 meaning unlimited on the command line, None in a Quirks)."""
    group = typer.main.get_command(app)
    command = group.get_command(typer.Context(group), "emulator")  # type: ignore[attr-defined]

    def parsed(*args: str) -> Quirks:
        params = command.make_context("emulator", list(args)).params
        return Quirks(**{f.name: params[f.name] for f in fields(Quirks)})

    assert parsed() == Quirks()
    argv = ["--daily-limit", "0", "--max-days", "0", "--clean-text", "--quota-mode", "silent"]
    assert parsed(*argv, "--oversize", "stream", "--fail-first", "2") == Quirks(
        daily_limit=None,
        max_days=None,
        damaged_text=False,
        quota_mode=QuotaMode.SILENT,
        oversize=Oversize.STREAM,
        fail_first=2,
    )


def test_command_writes_a_data_folder(tmp_path: Path) -> None:
    write_data_dir(CATALOGUE, tmp_path / "src")
    result = CliRunner().invoke(
        app, ["emulator", "--data", str(tmp_path / "src"), "--write-data", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert load_data_dir(tmp_path / "out") == CATALOGUE


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_command_serves_until_stopped(tmp_path: Path, stop: signal.Signals) -> None:
    write_data_dir(CATALOGUE, tmp_path / "data")
    # SIGINT's default restored in the child: the test works whatever the runner ignores
    code = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from hwpscan.cli import emulator_command; from hwpscan.cli.app import app; app()"
    )
    args = ["emulator", "--port", "0", "--data", str(tmp_path / "data"), "--daily-limit", "2", "-v"]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner: list[str] = []
        for _ in range(20):  # the banner is five lines; EOF means the command died
            banner.append(proc.stdout.readline())  # type: ignore[union-attr]
            if not banner[-1] or banner[-1].startswith("Press Ctrl-C"):
                break
        api_url = next(line.split()[-1] for line in banner if line.startswith("Use: --api-url "))
        assert api_url.startswith("http://127.0.0.1:")
        response = HTTP.get(api_url, params={
            "apiType": "json", "startDate": "2025-07-21", "endDate": "2025-07-21", "authKey": KEY},
            timeout=TIMEOUT)  # fmt: skip
        assert envelope(response)["resultCnt"] == 1
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Quirks changed: daily_limit=2\n" in banner
    assert "Stopped after 1 API calls" in err and "authKey=REDACTED" in err
    assert KEY not in out + err and "Traceback" not in err


def test_downloads_carry_etags_and_a_reissue_changes_them(tmp_path) -> None:
    """Conditional downloads over real sockets: 304 for the current ETag, a new ETag and
    clean bytes after ``POST /_emulator/reissue``, and a bad date refused."""
    from hwpscan.api import FetchSettings, RetryPolicy
    from hwpscan.api.download import Downloader, DownloadJob
    from hwpscan.forensics.surrogates import SURROGATE_RE, join_segments
    from hwpscan.formats import read_document
    from hwpscan.rehearsal.synth.catalogue import incident_catalogue

    with serve_in_thread() as emu, httpx.Client(timeout=TIMEOUT, trust_env=False) as http:
        listing = http.get(
            emu.api_url,
            params={"authKey": "E" * 32, "startDate": "2025-07-21", "endDate": "2025-07-21"},
        )
        url = listing.content.split(b'"atchfileUrl":"')[1].split(b"|")[0].split(b'"')[0].decode()
        first = http.get(url)
        etag = first.headers["etag"]
        assert SURROGATE_RE.search(join_segments(read_document(first.content).body))
        same = http.get(url, headers={"If-None-Match": etag})
        assert same.status_code == 304 and same.content == b""
        assert emu.stats().not_modified == 1
        bad = http.post(f"{emu.url}/_emulator/reissue", params={"date": "21 July"})
        assert bad.status_code == 400
        dirty = sum(a.contaminated for r in incident_catalogue() for a in r.attachments)
        assert http.post(f"{emu.url}/_emulator/reissue").json() == {"reissued": dirty}
        changed = http.get(url, headers={"If-None-Match": etag})
        assert changed.status_code == 200 and changed.headers["etag"] != etag
        assert not SURROGATE_RE.search(join_segments(read_document(changed.content).body))
        # the downloader: without an ETag the bytes are compared; with one, a 304 is enough
        dest = tmp_path / "a.hwp"
        dest.write_bytes(first.content)
        loader = Downloader(http, FetchSettings(retry=RetryPolicy(0)))
        got = loader.download(DownloadJob(url, dest, revalidate=True))
        assert got.status == "downloaded" and got.superseded is not None
        assert got.superseded.read_bytes() == first.content
        assert dest.read_bytes() == changed.content
        again = loader.download(DownloadJob(url, dest, revalidate=True))
        assert again.status == "skipped" and "same bytes" in (again.reason or "")
        cond = loader.download(DownloadJob(url, dest, revalidate=True, etag=got.etag))
        assert cond.status == "skipped" and "304" in (cond.reason or "")
