"""The press-release API: one GET per window (:class:`ApiClient`, httpx errors scrubbed of
the key), answers parsed (:func:`parse_answer`, pure) and judged (:func:`check_answer`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from dataclasses import dataclass
from datetime import date
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # httpx loads with the first call: `hwpscan --help` needs only the URL
    import httpx

from hwpscan.api.dates import Window
from hwpscan.api.urls import check_api_url, short_url
from hwpscan.errors import ApiNetworkError, ApiRefusedError, ApiResponseError, DailyLimitError
from hwpscan.redaction import redact_bytes, redact_params, redact_text, redact_url

CODE_OK = "1"
CODE_NO_DATA = "900"
CODE_PERIOD_TOO_LONG = "030"
CODE_DAILY_LIMIT = "033"
CODE_BAD_KEY = "010"

#: Weekdays a window may hold and still be one holiday with no release (Chuseok or Seollal
#: with a substitute day off take up to six); an empty window with more is a refusal.
HOLIDAY_WEEKDAYS = 6

#: How long one answer may take to arrive in all, and how large it may be.
API_DEADLINE = 300.0
API_MAX_BYTES = 64_000_000

_REG_DATE_RE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})")
_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_LONE_SURROGATE_RE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attachment as the API lists it (name and URL unvalidated)."""

    name: str
    url: str


@dataclass(frozen=True, slots=True)
class Release:
    """One press release. ``body`` and ``subject`` are raw; clean them only to display."""

    content_id: str
    subject: str
    reg_date: str
    date: str | None
    attachments: tuple[Attachment, ...]
    body: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ApiAnswer:
    """A parsed answer: result code and message, count, releases, and how it was read."""

    code: str
    message: str
    count: int | None
    releases: tuple[Release, ...]
    encoding: str
    warnings: tuple[str, ...] = ()


def decode_body(raw: bytes) -> tuple[str, str]:
    """Decode by the bytes, whatever the header says: UTF-8 when valid, else CP949.

    >>> decode_body("보도".encode("euc-kr")), decode_body(b"\\xff\\xfe\\xfa")[1]
    (('보도', 'cp949'), 'cp949 (damaged bytes replaced)')
    """
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    for encoding in ("utf-8", "cp949"):
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode(encoding), encoding
    return raw.decode("cp949", errors="replace"), "cp949 (damaged bytes replaced)"


def server_text(text: str, limit: int = 200) -> str:
    """Text the server chose, for a message: secrets out *first* (cutting first could
    leave a secret's head the redaction no longer finds), then cut to ``limit``.

    >>> server_text("Error at /api?authKey=" + "k" * 300, 40)
    'Error at /api?authKey=REDACTED'
    >>> server_text("x" * 50, 10)
    'xxxxxxxxx…'
    """
    flat = " ".join(redact_params(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_attachments(names: Any, urls: Any) -> tuple[tuple[Attachment, ...], tuple[str, ...]]:
    """Pair ``atchfileNm`` and ``atchfileUrl`` (both ``|``-joined), reporting mismatches.

    >>> parse_attachments("a.hwp|b.pdf", "u1|u2")[0]
    (Attachment(name='a.hwp', url='u1'), Attachment(name='b.pdf', url='u2'))
    >>> atts, warns = parse_attachments("a.hwp||", "u1||u3")
    >>> [a.name for a in atts], warns
    (['a.hwp', ''], ('1 attachment names but 2 URLs', 'attachment 3 has a URL but no name'))
    >>> parse_attachments("a.hwp|b.hwp", "u1")[1]
    ('2 attachment names but 1 URLs', 'attachment 2 (b.hwp) has no URL: skipped')
    """
    name_list, url_list = (
        [] if f is None else [p.strip() for p in str(f).split("|")] for f in (names, urls)
    )
    warnings: list[str] = []
    real_names, real_urls = sum(map(bool, name_list)), sum(map(bool, url_list))
    if real_names != real_urls:
        warnings.append(f"{real_names} attachment names but {real_urls} URLs")
    out: list[Attachment] = []
    for index, (name, url) in enumerate(zip_longest(name_list, url_list, fillvalue=""), 1):
        if not url:
            if name:
                warnings.append(f"attachment {index} ({name}) has no URL: skipped")
            continue
        if not name:
            warnings.append(f"attachment {index} has a URL but no name")
        out.append(Attachment(name, url))
    return tuple(out), tuple(warnings)


def _release_date(reg: str) -> str | None:
    """The ``YYYY-MM-DD`` a ``regDate`` starts with, when it is a real date."""
    match = _REG_DATE_RE.match(reg)
    with contextlib.suppress(ValueError):
        return date.fromisoformat(match.group(1)).isoformat() if match else None
    return None


def _release(item: dict[str, Any]) -> Release:
    """One result item as a :class:`Release`. Lone surrogates (a JSON ``\\ud800``) become
    U+FFFD, since no file, terminal or UTF-8 writer takes them (the raw answer keeps them)."""
    fields: dict[str, str] = {}
    damaged: list[str] = []
    texts = ("contentId", "subject", "regDate", "originUrl", "atchfileNm", "atchfileUrl")
    for name in (*texts, "contentKor", "contentsKor"):
        if (value := item.get(name)) is not None:
            fields[name] = _LONE_SURROGATE_RE.sub("\ufffd", str(value))
            if fields[name] != str(value):
                damaged.append(name)
    reg = fields.get("regDate", "").strip()
    day = _release_date(reg)
    content_id = fields.get("contentId", "").strip()
    label = f"release {server_text(content_id, 40) or '?'}"
    warnings: list[str] = []
    if damaged:
        warnings.append(
            f"{label}: lone surrogates in {', '.join(damaged)} replaced with U+FFFD "
            "(the raw answer in the cache keeps them)"
        )
    if day is None:
        warnings.append(f"{label}: regDate {server_text(reg, 40)!r} is not a date")
    attachments, att_warnings = parse_attachments(
        fields.get("atchfileNm"), fields.get("atchfileUrl")
    )
    warnings.extend(f"{label}: {w}" for w in att_warnings)
    return Release(
        content_id=content_id,
        subject=fields.get("subject", ""),
        reg_date=reg,
        date=day,
        attachments=attachments,
        body=fields.get("contentKor", fields.get("contentsKor", "")),
        warnings=tuple(warnings),
    )


def parse_answer(raw: bytes) -> ApiAnswer:
    """Parse an answer body, or raise the error it amounts to.

    >>> parse_answer(b'<html><head><title>404</title></head></html>')
    Traceback (most recent call last):
    ...
    hwpscan.errors.ApiResponseError: the API answered with an HTML page ("404") instead of JSON
    """
    text, encoding = decode_body(raw)
    envelope = _envelope(_json_of(text))
    code = server_text(str(envelope.get("resultCode", "")), 40)
    message = server_text(str(envelope.get("resultMsg") or ""))
    _check_result_code(code, message)
    result = envelope.get("result")
    if result is None or result == "":
        result = []
    elif isinstance(result, dict):
        result = [result]
    elif not isinstance(result, list):
        raise ApiResponseError(f"the API's 'result' is a {type(result).__name__}, not a list")
    releases = tuple(_release(item) for item in result if isinstance(item, dict))
    warnings = [
        f"result item {index} is a {type(item).__name__}: skipped"
        for index, item in enumerate(result, 1)
        if not isinstance(item, dict)
    ]
    try:
        count: int | None = int(str(envelope.get("resultCnt")).strip())
    except ValueError:
        count = None
    if count is not None and code == CODE_OK and count != len(releases):
        warnings.append(f"resultCnt says {count} but {len(releases)} releases came")
    if "replaced" in encoding:
        warnings.append("the answer had bytes that are neither UTF-8 nor CP949: replaced")
    return ApiAnswer(code, message, count, releases, encoding, tuple(warnings))


def _json_of(text: str) -> Any:
    """The answer's JSON value; an empty body, an HTML page or broken JSON is an error."""
    if not text.strip():
        raise ApiResponseError("the API answered with an empty body")
    head = text.lstrip()[:512].lower()
    if head.startswith("<") or "<html" in head or "<!doctype" in head:
        title = _TITLE_RE.search(text)
        suffix = f' ("{server_text(title.group(1), 120)}")' if title else ""
        raise ApiResponseError(f"the API answered with an HTML page{suffix} instead of JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        why = f"the API's answer is not valid JSON ({exc.msg} at {exc.pos})"
        raise ApiResponseError(why) from exc
    except RecursionError as exc:
        raise ApiResponseError("the API's JSON is nested too deeply to read") from exc


def _envelope(data: Any) -> dict[str, Any]:
    """The ``reponse`` object (the API's spelling; ``response`` and a bare one too).

    >>> _envelope({"response": {"resultCode": "000"}}), _envelope({"resultCode": "000"})
    ({'resultCode': '000'}, {'resultCode': '000'})
    """
    envelope = None
    if isinstance(data, dict):
        envelope = data.get("reponse", data.get("response"))
        if envelope is None and "resultCode" in data:
            envelope = data
    if not isinstance(envelope, dict):
        keys = ", ".join(sorted(data)) if isinstance(data, dict) else type(data).__name__
        raise ApiResponseError(
            f"the API's JSON has no 'reponse' envelope (found: {server_text(keys, 120)})"
        )
    return envelope


def _check_result_code(code: str, message: str) -> None:
    """Raise the error a result code other than success or "no data" amounts to."""
    detail = f"code {code}: {message}" if message else f"code {code}"
    if code == CODE_PERIOD_TOO_LONG:
        raise ApiRefusedError(
            f"the API refused the window as too long ({detail}); use a smaller --window-days",
            code=code,
        )
    if code == CODE_DAILY_LIMIT:
        raise DailyLimitError(f"the API says the key's daily call limit is used up ({detail})")
    if code == CODE_BAD_KEY or "인증키" in message:
        raise ApiRefusedError(
            f"the API did not accept the key ({detail}): the key is not valid or not issued "
            "for this API / 인증키가 유효하지 않거나 이 API용으로 발급된 키가 아닙니다. "
            "Check HWPSCAN_API_KEY or api_key in the config file (인증키 설정을 확인하세요)",
            code=code,
        )
    if code not in (CODE_OK, CODE_NO_DATA):
        raise ApiRefusedError(f"the API refused the call ({detail or 'no result code'})", code=code)


@dataclass(frozen=True, slots=True)
class Assessment:
    """What a parsed answer means for its window."""

    suspicious_empty: bool
    empty_warning: str | None  # why an empty answer looks like a silent refusal
    outside: tuple[str, ...]  # content ids whose regDate is outside the window
    outside_warnings: tuple[str, ...]
    #: Empty on a few weekdays: a holiday, or a silent refusal. Taken, but not trusted.
    unconfirmed_empty: bool = False

    @property
    def warnings(self) -> tuple[str, ...]:
        return ((self.empty_warning,) if self.empty_warning else ()) + self.outside_warnings


def check_answer(answer: ApiAnswer, window: Window, *, near_limit: bool) -> Assessment:
    """Flag an empty answer that may be a silent refusal, and releases outside the window.

    Zero releases is suspicious (stop) near the daily limit (the API was described as
    answering HTTP 200 with nothing once the quota is used), or without the explicit
    "no data" code (900) on more weekdays than a holiday explains; on fewer it is
    *unconfirmed*: used but not trusted, so a rerun asks again.

    >>> empty = ApiAnswer("1", "", 0, (), "utf-8")
    >>> monday = Window(date(2025, 7, 21), date(2025, 7, 21))
    >>> weeks = Window(date(2025, 7, 21), date(2025, 8, 10))
    >>> weekend = Window(date(2025, 7, 26), date(2025, 7, 27))
    >>> [check_answer(empty, w, near_limit=False).suspicious_empty for w in (monday, weeks)]
    [False, True]
    >>> check_answer(empty, monday, near_limit=False).unconfirmed_empty
    True
    >>> check_answer(empty, monday, near_limit=True).suspicious_empty
    True
    >>> check_answer(empty, weekend, near_limit=False).warnings
    ()
    """
    empty_warning = None
    unconfirmed = False
    if not answer.releases:
        explicit = answer.code == CODE_NO_DATA
        weekdays = window.weekdays()
        if near_limit or (not explicit and weekdays > HOLIDAY_WEEKDAYS):
            why = "the daily limit is near" if near_limit else f"the window has {weekdays} weekdays"
            empty_warning = (
                f"window {window}: HTTP 200 with zero releases although {why}: "
                "possibly a silent quota refusal, not treated as 'no releases'"
            )
        elif not explicit and weekdays:
            unconfirmed = True
            empty_warning = (
                f"window {window}: no releases on {weekdays} weekday(s): a holiday, or a silent "
                "quota refusal; kept as 'no releases' for now, and asked again next run"
            )
    outside = [
        r for r in answer.releases if r.date and not str(window.start) <= r.date <= str(window.end)
    ]
    warnings = tuple(
        f"window {window}: release {r.content_id} is dated {r.date}, outside the window (the "
        "API ignored the range or returned another year): not downloaded"
        for r in outside
    )
    ids = tuple(r.content_id for r in outside)
    suspicious = empty_warning is not None and not unconfirmed
    return Assessment(suspicious, empty_warning, ids, warnings, unconfirmed)


@dataclass(frozen=True, slots=True)
class CheckedAnswer:
    """A window's answer and its :class:`Assessment`, made once, when it was taken."""

    answer: ApiAnswer
    assessment: Assessment
    #: Taken from the cache, where another API key had paid for it.
    other_key: bool = False


@dataclass(frozen=True, slots=True)
class RawAnswer:
    """The bytes of one answer and how they came."""

    body: bytes
    status_code: int
    content_type: str


class ApiClient:
    """Calls the API over an injected :class:`httpx.Client`; one GET per window."""

    def __init__(self, api_url: str, key: str, *, http: httpx.Client) -> None:
        self.api_url = check_api_url(api_url)  # UsageError: no call can be made to it
        self._key, self._http = key, http

    def get(self, window: Window) -> RawAnswer:
        """One call for the window, or :class:`ApiNetworkError` (key scrubbed). The key
        becomes ``REDACTED`` in the answer's bytes too (a server may echo it)."""
        params = {
            "apiType": "json",
            "startDate": window.start.isoformat(),
            "endDate": window.end.isoformat(),
            "authKey": self._key,
        }
        import httpx

        try:
            with self._http.stream("GET", self.api_url, params=params) as response:
                body = self._read(response, window)
                status, ctype = response.status_code, response.headers.get("content-type", "")
        except httpx.InvalidURL as exc:
            raise ApiNetworkError(
                f"cannot call {redact_url(self.api_url)}: {redact_text(str(exc), [self._key])}",
                retryable=False,
                sent=False,
            ) from None
        except httpx.HTTPError as exc:  # the key out of its args, and its request dropped
            exc.args = tuple(
                redact_text(a, [self._key]) if isinstance(a, str) else a for a in exc.args
            )
            if isinstance(exc, httpx.RequestError):
                exc._request = None  # the request's URL holds the key
            detail = str(exc) or type(exc).__name__
            retryable = isinstance(
                exc, (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
            )
            unsent = (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol)
            raise ApiNetworkError(
                f"calling {short_url(self.api_url)} for {window} failed: "
                f"{type(exc).__name__}: {detail}",
                retryable=retryable,
                sent=not isinstance(exc, unsent),
            ) from exc
        return RawAnswer(redact_bytes(body, [self._key]), status, redact_text(ctype, [self._key]))

    def _read(self, response: httpx.Response, window: Window) -> bytes:
        """The answer's bytes, within :data:`API_DEADLINE` and :data:`API_MAX_BYTES`."""
        started = time.monotonic()
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > API_MAX_BYTES:
                raise ApiNetworkError(
                    f"the API's answer for {window} is over {API_MAX_BYTES} bytes: not read",
                    retryable=False,
                )
            if time.monotonic() - started > API_DEADLINE:
                raise ApiNetworkError(
                    f"the API's answer for {window} took over {API_DEADLINE:g} s: given up",
                    retryable=False,
                )
        return bytes(body)


def _redact_secrets(record: logging.LogRecord) -> bool:
    """Rewrite a log record without secret parameters (httpx logs every request URL)."""
    message = record.getMessage()
    if (cleaned := redact_params(message)) != message:
        record.msg, record.args = cleaned, None
    return True


for _logger in ("httpx", "httpcore"):
    logging.getLogger(_logger).addFilter(_redact_secrets)
