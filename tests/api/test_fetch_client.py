"""Parsing the API's answers and calling it over httpx.MockTransport."""

from __future__ import annotations

import json
import logging
import secrets
from datetime import date
from typing import Any

import httpx
import pytest

from hwpscan.api.clean import clean_text
from hwpscan.api.client import ApiClient, check_answer, decode_body, parse_answer
from hwpscan.api.dates import Window
from hwpscan.errors import (
    ApiNetworkError,
    ApiRefusedError,
    ApiResponseError,
    DailyLimitError,
    QuotaExceededError,
)

KEY = "TESTKEY" + secrets.token_hex(12)
API = "https://www.fss.or.kr/fss/kr/openApi/api/bodoInfo.jsp"
JULY = Window(date(2025, 7, 21), date(2025, 8, 10))


def item(cid: str = "41851", day: str = "2025-07-21", **extra: Any) -> dict[str, Any]:
    base = {
        "contentId": cid,
        "subject": "금융감독원 보도자료",
        "publishOrg": "금융감독원",
        "originUrl": f"https://www.fss.or.kr/fss/bbs/B0000188/view.do?nttId={cid}",
        "viewCnt": "12",
        "regDate": f"{day} 10:00:00",
        "atchfileNm": "보도자료.hwp",
        "atchfileUrl": "https://www.fss.or.kr/fss/cmmn/file/fileDown.do?atchFileId=ab&amp;fileSn=1",
        "contentKor": "<p>안내nnu203B 참고</p>",
    }
    return base | extra


def envelope(code: str = "1", result: Any = None, top: str = "reponse", msg: str = "") -> bytes:
    body = {
        top: {
            "resultCode": code,
            "resultMsg": msg,
            "resultCnt": len(result or []) if isinstance(result, list) else 1,
            "result": result,
        }
    }
    return json.dumps(body, ensure_ascii=False).encode("cp949")


def test_cp949_bytes_under_a_misleading_header_decode_by_bytes() -> None:
    answer = parse_answer(envelope(result=[item()]))
    assert answer.encoding == "cp949"
    assert answer.releases[0].subject == "금융감독원 보도자료"


def test_utf8_bytes_are_also_read() -> None:
    raw = json.dumps(
        {"reponse": {"resultCode": "1", "result": [item()]}}, ensure_ascii=False
    ).encode()
    assert parse_answer(raw).encoding == "utf-8"


def test_undecodable_bytes_are_replaced_and_reported() -> None:
    text, how = decode_body(b'{"a": "\xff\xff"}')
    assert "replaced" in how and "\ufffd" in text


def test_correctly_spelled_envelope_and_single_object_result() -> None:
    answer = parse_answer(
        envelope(result=item(contentsKor="본문", contentKor=None), top="response")
    )
    assert len(answer.releases) == 1
    assert answer.releases[0].body == "본문"  # contentsKor accepted


def test_html_page_is_an_error_not_zero_items() -> None:
    page = "<!DOCTYPE html><html><head><title>시스템 오류</title></head><body>오류</body></html>"
    with pytest.raises(ApiResponseError, match=r"HTML page.*시스템 오류"):
        parse_answer(page.encode("cp949"))


@pytest.mark.parametrize("raw", [b"", b"not json", b'{"other": 1}', b"[1, 2]"])
def test_non_api_bodies_are_response_errors(raw: bytes) -> None:
    with pytest.raises(ApiResponseError):
        parse_answer(raw)


def test_030_period_too_long() -> None:
    with pytest.raises(ApiRefusedError, match=r"too long.*--window-days") as info:
        parse_answer(envelope("030", msg="최대 조회기간 초과"))
    assert info.value.code == "030"


def test_033_daily_limit_is_a_quota_error() -> None:
    with pytest.raises(QuotaExceededError, match="daily call limit"):
        parse_answer(envelope("033", msg="일일 호출 한도 초과"))


def test_other_codes_show_their_message() -> None:
    with pytest.raises(ApiRefusedError, match="code 010: 인증키 오류") as info:
        parse_answer(envelope("010", msg="인증키 오류"))
    assert info.value.code == "010"


def test_900_is_no_data_and_not_suspicious_on_a_weekday() -> None:
    answer = parse_answer(envelope("900", msg="데이터 없음"))
    assert answer.releases == ()
    assert not check_answer(answer, JULY, near_limit=False).suspicious_empty
    assert check_answer(answer, JULY, near_limit=True).suspicious_empty


def test_zero_items_with_success_on_weekdays_is_a_possible_silent_refusal() -> None:
    answer = parse_answer(envelope("1", result=[]))
    verdict = check_answer(answer, JULY, near_limit=False)
    assert verdict.suspicious_empty
    assert "possibly a silent quota refusal" in verdict.warnings[0]
    weekend = Window(date(2025, 7, 26), date(2025, 7, 27))
    assert not check_answer(answer, weekend, near_limit=False).suspicious_empty


def test_items_outside_the_window_are_flagged() -> None:
    answer = parse_answer(envelope(result=[item("1", "2025-07-22"), item("2", "2024-07-22")]))
    verdict = check_answer(answer, JULY, near_limit=False)
    assert verdict.outside == ("2",)
    assert "dated 2024-07-22, outside the window" in verdict.warnings[0]


def test_count_mismatch_and_messy_attachment_lists_warn() -> None:
    raw = json.dumps(
        {
            "reponse": {
                "resultCode": "1",
                "resultCnt": 5,
                "result": [item(atchfileNm="a.hwp||b.pdf|c.hwpx", atchfileUrl="u1||u2")],
            }
        }
    ).encode()
    answer = parse_answer(raw)
    assert any("resultCnt says 5" in w for w in answer.warnings)
    release = answer.releases[0]
    assert [a.name for a in release.attachments] == ["a.hwp", "b.pdf"]
    assert any("3 attachment names but 2 URLs" in w for w in release.warnings)


def test_display_cleaning_keeps_the_raw_body() -> None:
    answer = parse_answer(envelope(result=[item()]))
    raw = answer.releases[0].body
    assert raw == "<p>안내nnu203B 참고</p>"
    assert clean_text(raw) == "안내\n\n※ 참고"


def _client(handler: Any) -> ApiClient:
    return ApiClient(API, KEY, http=httpx.Client(transport=httpx.MockTransport(handler)))


def test_get_sends_the_documented_parameters() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, content=envelope(result=[]), headers={"content-type": "text/html;charset=euc-kr"}
        )

    raw = _client(handler).get(JULY)
    params = dict(seen[0].url.params)
    assert params == {
        "apiType": "json",
        "startDate": "2025-07-21",
        "endDate": "2025-08-10",
        "authKey": KEY,
    }
    assert raw.content_type == "text/html;charset=euc-kr"


@pytest.mark.parametrize(
    "error", [httpx.ConnectError, httpx.ReadTimeout, httpx.RemoteProtocolError]
)
def test_network_errors_are_translated_without_the_key(error: type[httpx.RequestError]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error(f"failed for {request.url}", request=request)

    with pytest.raises(ApiNetworkError) as info:
        _client(handler).get(JULY)
    exc = info.value
    assert exc.retryable
    assert exc.sent is (error is not httpx.ConnectError)
    assert KEY not in str(exc)
    assert "authKey=REDACTED" in str(exc)
    cause = exc.__cause__
    assert cause is not None and KEY not in str(cause) and KEY not in repr(cause.args)


def test_httpx_request_logs_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    _client(lambda request: httpx.Response(200, content=envelope(result=[]))).get(JULY)
    assert "HTTP Request" in caplog.text  # httpx did log the request...
    assert KEY not in caplog.text  # ...without the key
    assert "authKey=REDACTED" in caplog.text


def test_daily_limit_error_carries_its_code() -> None:
    with pytest.raises(DailyLimitError) as info:
        parse_answer(envelope("033"))
    assert info.value.code == "033"
