"""What the emulated API answers: request parameters in, a reply plan out (no sockets).

:class:`EmulatorApp` holds the catalogue, quirks, clock and counters; the server only
moves bytes. Every listing call with a well-formed key counts against that key's quota
for the Korea-time day, refused ones included.

>>> app = EmulatorApp([], quirks=Quirks(daily_limit=1))
>>> ask = {"authKey": "k" * 32, "startDate": "2025-07-21", "endDate": "2025-07-21"}
>>> app.listing(ask, "http://127.0.0.1:1").body
b'{"reponse":{"resultCode":"1","resultMsg":"\\xc1\\xa4\\xbb\\xf3","resultCnt":0,"result":[]}}'
>>> b'"resultCode":"033"' in app.listing(ask, "http://127.0.0.1:1").body
True
>>> app.counters.snapshot().calls_total
2
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime

from hwpscan.redaction import key_hash
from hwpscan.rehearsal.emulator.catalogue_loader import Attachment, Post
from hwpscan.rehearsal.emulator.quirks import (
    BadDateMode,
    Oversize,
    Quirks,
    QuotaMode,
    WrongYearMode,
)
from hwpscan.rehearsal.emulator.state import Counters
from hwpscan.rehearsal.emulator.wire import (
    EUCKR_HTML,
    content_disposition,
    damage_text,
    encode_json_cp949,
    html_page,
    korea_day,
    utc_now,
)

LIST_PATH = "/fss/kr/openApi/api/bodoInfo.jsp"
DOWNLOAD_PATH = "/fss/cmmn/file/fileDown.do"
VIEW_PATH = "/fss/bbs/B0000188/view.do"
PUBLISH_ORG = "금융감독원"
_KEY_RE = re.compile(r"[A-Za-z0-9]{32}")
_DAY_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
#: ``fileSn`` values of the extra, unsafe attachment URLs (another host, userinfo).
UNSAFE_SN = ("901", "902")
_NO_FILE = "요청하신 파일을 찾을 수 없습니다."
_DOWNLOAD_FAILED = "파일 다운로드 중 오류가 발생하였습니다."


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete answer: status, content type, body, extra headers."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class DownloadPlan:
    """How to answer one download: a reply plus the timing and size faults to apply."""

    reply: Reply
    delay: float = 0.0
    announced_length: int | None = None  # Content-Length to send when it is a lie
    stream_bytes: int = 0  # when > 0: no Content-Length, stream this many padding bytes


def atch_file_id(content_id: str) -> str:
    """The 32-hex ``atchFileId`` shared by the files of one post (stable per post).

    >>> atch_file_id("41851") == atch_file_id("41851"), len(atch_file_id("41851"))
    (True, 32)
    """
    return hashlib.sha256(f"atch:{content_id}".encode()).hexdigest()[:32]


def etag_of(data: bytes) -> str:
    """The strong ``ETag`` the emulator sends for a file's bytes.

    >>> etag_of(b"x") == etag_of(b"x") != etag_of(b"y")
    True
    """
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def clean_rebuild(data: bytes) -> bytes | None:
    """A publisher's corrected re-issue of the contaminated HWP 5 file *data* (else None):
    the same paragraphs, private-use characters mapped (``『``, ``①``...) or left out."""
    from hwpscan.forensics.pua import apply_pua_map  # only to serve a re-issue
    from hwpscan.forensics.surrogates import join_segments, merge_pairs  # only to serve a re-issue
    from hwpscan.formats import read_document  # only to serve a re-issue
    from hwpscan.models import Format  # only to serve a re-issue
    from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5  # only to serve a re-issue

    doc = read_document(data)
    if doc.format is not Format.HWP5 or doc.status is not None:
        return None
    text = join_segments(doc.body)
    if not _SURROGATE_RE.search(text):
        return None
    mapped, _ = apply_pua_map(merge_pairs(text))
    clean = _ASTRAL_RE.sub("", _SURROGATE_RE.sub("", mapped))
    return build_hwp5(clean.split("\n"))


def parse_day(value: str | None) -> date | None:
    """A strict ``YYYY-MM-DD`` date, else ``None``.

    >>> parse_day("2025-07-21"), parse_day("20250721"), parse_day("2025-02-30")
    (datetime.date(2025, 7, 21), None, None)
    """
    if value is None or not _DAY_RE.fullmatch(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _shifted_id(content_id: str, years: int) -> str:
    if not content_id.isdigit():
        return f"{content_id}-{years:+d}"
    value = int(content_id) + years * 4099
    return str(value if value > 0 else value + 10**7)


class EmulatorApp:
    """The emulated API: catalogue + quirks + clock + counters."""

    def __init__(
        self,
        posts: Sequence[Post],
        *,
        quirks: Quirks | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.posts = tuple(posts)
        self.quirks = quirks or Quirks()
        self.clock = clock
        self.counters = Counters()
        self._years = {p.day.year for p in self.posts}
        self._files: dict[str, tuple[Attachment, ...]] = {}
        self._uploads: dict[str, int] = {}  # content id -> times its files were re-uploaded
        self._lock = threading.Lock()
        for post in self.posts:
            self._register(post)

    def _register(self, post: Post) -> None:
        with self._lock:
            self._files[self._atch(post.content_id)] = post.attachments

    def _atch(self, content_id: str) -> str:
        """The post's current ``atchFileId``: a new one for each re-upload."""
        upload = self._uploads.get(content_id, 0)
        return atch_file_id(content_id if not upload else f"{content_id}#{upload}")

    def reissue(self, day: date | None = None, *, new_urls: bool = False) -> int:
        """Replace each contaminated HWP 5 attachment on *day* (None: every day) by its
        :func:`clean_rebuild`; return how many. *new_urls*: a new ``atchFileId``, as the
        portal gives a re-upload, while the old URLs serve the old bytes."""
        replaced = 0
        posts = []
        for post in self.posts:
            if day is not None and post.day != day:
                posts.append(post)
                continue
            atts = []
            for att in post.attachments:
                clean = clean_rebuild(att.data)
                replaced += clean is not None
                atts.append(att if clean is None else replace(att, data=clean))
            reissued = replace(post, attachments=tuple(atts))
            if new_urls and tuple(atts) != post.attachments:
                with self._lock:
                    self._uploads[post.content_id] = self._uploads.get(post.content_id, 0) + 1
            self._register(reissued)
            posts.append(reissued)
        self.posts = tuple(posts)
        return replaced

    def listing(self, params: Mapping[str, str], base_url: str) -> Reply:
        """Answer ``bodoInfo.jsp`` for the given query/form parameters."""
        q = self.quirks
        key = params.get("authKey", "")
        if q.check_key and not _KEY_RE.fullmatch(key):
            self.counters.error("bad_key")
            return self._envelope(q.auth_code, "인증키가 유효하지 않습니다.")
        if params.get("apiType", "json").lower() != "json":
            return self._page("bad_api_type", 200, "요청 오류", "지원하지 않는 apiType 입니다.")
        calls = self.counters.call(key_hash(key) if key else "-", korea_day(self.clock()))
        if q.daily_limit is not None and calls > q.daily_limit:
            if q.quota_mode is QuotaMode.CODE:
                return self._envelope("033", f"일일 호출 한도({q.daily_limit}회)를 초과하였습니다.")
            self.counters.error("quota_silent")
            return self._envelope("1", "정상")
        start, end = parse_day(params.get("startDate")), parse_day(params.get("endDate"))
        if start is None or end is None:
            if q.bad_dates is BadDateMode.HTML:
                return self._page(
                    "bad_date", 200, "시스템 오류", "요청하신 페이지를 처리할 수 없습니다."
                )
            self.counters.error("bad_date")
            return self._envelope("1", "정상")
        if q.max_days is not None and (end - start).days + 1 > q.max_days:
            return self._envelope("030", f"조회기간은 최대 {q.max_days}일까지 가능합니다.")
        items = [self._item(p, base_url) for p in self._select(start, end)]
        if not items and q.no_data_code:
            return self._envelope("900", "데이터가 없습니다.")
        return self._envelope("1", "정상", items)

    def _select(self, start: date, end: date) -> list[Post]:
        if end < start:
            return []
        found = [p for p in self.posts if start <= p.day <= end]
        asked = set(range(start.year, end.year + 1))
        mode = self.quirks.wrong_year
        if found or mode is WrongYearMode.OFF or asked & self._years:
            return found
        out: list[Post] = []
        for post in self.posts:
            for year in sorted(asked):
                try:
                    moved = post.reg_date.replace(year=year)
                except ValueError:  # 29 February
                    continue
                if not start <= moved.date() <= end:
                    continue
                if mode is WrongYearMode.IGNORED:  # month-day matched, real date kept
                    out.append(post)
                    continue
                shifted_id = _shifted_id(post.content_id, year - post.day.year)
                out.append(replace(post, content_id=shifted_id, reg_date=moved))
                self._register(out[-1])
        return out

    def _item(self, post: Post, base_url: str) -> dict[str, object]:
        q = self.quirks
        atch = self._atch(post.content_id)
        names = [a.name for a in post.attachments]
        urls = [
            f"{base_url}{DOWNLOAD_PATH}?menuNo=200218&atchFileId={atch}&fileSn={n}&bbsId=B0000188"
            for n in range(1, len(names) + 1)
        ]
        if q.unsafe_urls and names:
            scheme, _, hostport = base_url.partition("://")
            host = hostport.rsplit(":", 1)[0]
            other = hostport.replace(host, "localhost" if host[:1].isdigit() else "127.0.0.1", 1)
            tail = f"{DOWNLOAD_PATH}?menuNo=200218&atchFileId={atch}&bbsId=B0000188&fileSn="
            names += ["외부서버첨부.hwp", "계정포함첨부.hwp"]
            urls += [
                f"{scheme}://{other}{tail}{UNSAFE_SN[0]}",
                f"{scheme}://hwpscan:secret@{hostport}{tail}{UNSAFE_SN[1]}",
            ]
        if q.escaped_amp:
            urls = [u.replace("&", "&amp;") for u in urls]
        if q.messy_lists and names:
            names = [names[0], "", *names[1:], "별첨_목록.hwp"]
            urls = [urls[0], "", *urls[1:]]
        subject, body = post.subject, post.body_html
        if q.damaged_text:
            subject, body = damage_text(subject), damage_text(body)
        return {
            "contentId": post.content_id,
            "subject": subject,
            "publishOrg": PUBLISH_ORG,
            "originUrl": f"{base_url}{VIEW_PATH}?nttId={post.content_id}&menuNo=200218",
            "viewCnt": str(post.view_cnt),
            "regDate": post.reg_date.strftime("%Y-%m-%d %H:%M:%S"),
            "atchfileNm": "|".join(names),
            "atchfileUrl": "|".join(urls),
            q.body_key: body,
        }

    def _envelope(self, code: str, message: str, items: Sequence[dict[str, object]] = ()) -> Reply:
        if code != "1":
            self.counters.count("refusals", code)
        q = self.quirks
        result: object = items[0] if q.single_result and len(items) == 1 else list(items)
        count: object = str(len(items)) if q.string_counts else len(items)
        envelope = {"resultCode": code, "resultMsg": message, "resultCnt": count, "result": result}
        doc = {q.envelope_key: envelope}
        return Reply(200, EUCKR_HTML, encode_json_cp949(doc))

    def _page(self, fault: str, status: int, title: str, message: str) -> Reply:
        """An HTML page, the portal's answer to the *fault* it counts."""
        self.counters.error(fault)
        return Reply(status, EUCKR_HTML, html_page(title, message))

    def download(
        self,
        params: Mapping[str, str],
        target: str,
        *,
        with_credentials: bool,
        if_none_match: str | None = None,
    ) -> DownloadPlan:
        """Answer ``fileDown.do``; ``target`` (path and query) names the URL for the counters.
        Each file has a strong ``ETag``, and ``If-None-Match`` naming it gets ``304``
        (neither with the ``etags`` quirk off)."""
        q = self.quirks
        attempts = self.counters.count("downloads", target)
        serial = params.get("fileSn", "")
        if serial in UNSAFE_SN or with_credentials:
            # A client that follows these URLs failed to validate them; make it visible.
            self.counters.error("unsafe_url_followed")
        with self._lock:
            files = self._files.get(params.get("atchFileId", ""))
        if serial in UNSAFE_SN and files:
            files = files[:1]
            serial = "1"
        if not files or not serial.isdigit() or not 1 <= int(serial) <= len(files):
            return DownloadPlan(self._page("not_found", 404, "파일 없음", _NO_FILE))
        if attempts <= q.fail_first:
            page = self._page("download_500", 500, "시스템 오류", "일시적인 오류입니다.")
            return DownloadPlan(page, q.download_delay)
        if q.html_attachments:
            page = self._page("html_attachment", 200, "오류", _DOWNLOAD_FAILED)
            return DownloadPlan(page, q.download_delay)
        att = files[int(serial) - 1]
        etag = etag_of(att.data)
        tags = (("ETag", etag),) if q.etags else ()
        if not q.etags:
            if_none_match = None
        if if_none_match is not None and etag in (t.strip() for t in if_none_match.split(",")):
            self.counters.count("not_modified")
            return DownloadPlan(Reply(304, "application/octet-stream", b"", (("ETag", etag),)))
        disposition = content_disposition(att.name, q.disposition)
        headers = (("Content-Disposition", disposition),) if disposition else ()
        reply = Reply(200, "application/octet-stream", att.data, (*headers, *tags))
        plan = DownloadPlan(reply, q.download_delay)
        if q.oversize is not Oversize.OFF:
            self.counters.error(f"oversize_{q.oversize.value}")
        if q.oversize is Oversize.HEADER:
            return replace(plan, announced_length=max(q.oversize_bytes, len(att.data) + 1))
        if q.oversize is Oversize.STREAM:
            return replace(plan, stream_bytes=max(q.oversize_bytes, 1))
        return plan
