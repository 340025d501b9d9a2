"""Byte-level habits of the real API as small pure functions: JSON as CP949 under
``text/html;charset=euc-kr``, escapes without their backslash in body text, and
attachment names in a ``Content-Disposition`` of undocumented encoding."""

from __future__ import annotations

import codecs
import html
import json
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from hwpscan.rehearsal.emulator.quirks import Disposition

KOREA = ZoneInfo("Asia/Seoul")
#: Header value the real endpoint sends, for JSON as well as for HTML.
EUCKR_HTML = "text/html;charset=euc-kr"

_ERRORS = "hwpscan-json-escape"


def _json_escape(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: characters CP949 lacks become JSON ``\\uXXXX`` escapes."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return json.dumps(exc.object[exc.start : exc.end])[1:-1], exc.end


codecs.register_error(_ERRORS, _json_escape)


def encode_json_cp949(obj: Any) -> bytes:
    """JSON as CP949 bytes; what CP949 cannot encode (PUA, emoji) becomes ``\\u``
    escapes, which land inside JSON strings (the only place non-ASCII text can be).

    >>> encode_json_cp949({"s": "보도"})
    b'{"s":"\\xba\\xb8\\xb5\\xb5"}'
    >>> encode_json_cp949({"s": "A" + chr(0xF02B1)})
    b'{"s":"A\\\\udb80\\\\udeb1"}'
    >>> text = "가" + chr(0xF02B1)
    >>> json.loads(encode_json_cp949({"s": text}).decode("cp949"))["s"] == text
    True
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.encode("cp949", errors=_ERRORS)


#: (character, what the API writes instead), in the order they are applied.
_DAMAGE = [("\r\n", "rn"), ("\n", "nn"), ("\u203b", "u203B"), ("\u2018", "u2018")]
_DAMAGE += [("\u2019", "u2019"), ("\u00b7", "&middot;"), ("\u00a0", "&nbsp;")]
_DAMAGE += [("\u201c", "&ldquo;"), ("\u201d", "&rdquo;")]


def damage_text(text: str) -> str:
    """Damage text the way the API does: escapes without backslash, named entities.

    >>> damage_text("안내\\u203b\\n\\u2018A\\u2019\\u00b7B")
    '안내u203Bnnu2018Au2019&middot;B'
    >>> damage_text("plain")
    'plain'
    """
    for old, new in _DAMAGE:
        text = text.replace(old, new)
    return text


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def content_disposition(name: str, mode: Disposition) -> str | None:
    """The ``Content-Disposition`` value for ``name``, as a latin-1 string for the wire
    (raw modes: each encoded byte one latin-1 character).

    >>> content_disposition("보도.hwp", Disposition.RFC5987)
    'attachment; filename="__.hwp"; filename*=UTF-8\\'\\'%EB%B3%B4%EB%8F%84.hwp'
    >>> content_disposition("보.hwp", Disposition.EUCKR).encode("latin-1")
    b'attachment; filename="\\xba\\xb8.hwp"'
    >>> content_disposition("보.hwp", Disposition.UTF8).encode("latin-1").decode("utf-8")
    'attachment; filename="보.hwp"'
    >>> content_disposition("a.pdf", Disposition.NONE) is None
    True
    """
    if mode is Disposition.NONE:
        return None
    if mode is Disposition.RFC5987:
        fallback = "".join(c if c.isascii() and c.isprintable() else "_" for c in name)
        return (
            f"attachment; filename=\"{_quoted(fallback)}\"; filename*=UTF-8''{quote(name, safe='')}"
        )
    codec = "cp949" if mode is Disposition.EUCKR else "utf-8"
    raw = _quoted(name).encode(codec, errors="replace").decode("latin-1")
    return f'attachment; filename="{raw}"'


def html_page(title: str, message: str) -> bytes:
    """A minimal EUC-KR HTML error page like the portal's own.

    >>> html_page("오류", "잘못된 요청").decode("cp949").startswith("<!DOCTYPE html>")
    True
    """
    body = (
        '<!DOCTYPE html>\n<html lang="ko"><head>'
        '<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">'
        f"<title>{html.escape(title)}</title></head>\n"
        f"<body><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></body></html>\n"
    )
    return body.encode("cp949", errors="xmlcharrefreplace")


def korea_day(moment: datetime) -> date:
    """The calendar day in Korea for an aware moment (naive moments are taken as UTC).

    >>> korea_day(datetime(2025, 7, 21, 15, 30, tzinfo=UTC)).isoformat()
    '2025-07-22'
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(KOREA).date()


def utc_now() -> datetime:
    """The current moment, aware (the default clock; tests inject their own)."""
    return datetime.now(UTC)
