"""The emulator's switches: every documented quirk of the press-release API, on or off.

The defaults reproduce what the real API is known to do (see
``shared/notes/press-release-api.md``): a daily quota of 30 calls per key answered
with code ``033``, a maximum window (31 days by default, so 21 works and 42 fails)
answered with ``030``, EUC-KR bytes, damaged body text, and a wrong year silently
answered with that year's (plausible) data. The attachment faults are off by default,
so ``hwpscan demo`` completes; tests and users switch them on one by one.

>>> Quirks().daily_limit, Quirks().quota_mode.value, Quirks().max_days
(30, 'code', 31)
>>> Quirks(fail_first=1).fail_first
1
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class QuotaMode(str, enum.Enum):
    """How a call past the daily limit is answered."""

    CODE = "code"  # resultCode 033 in a normal 200 JSON body (still counts as a call)
    SILENT = "silent"  # HTTP 200, resultCode 1, zero items: the incident's silent refusal


class BadDateMode(str, enum.Enum):
    """How a date that is not ``YYYY-MM-DD`` is answered."""

    EMPTY = "empty"  # success with zero items
    HTML = "html"  # an HTML error page under HTTP 200


class WrongYearMode(str, enum.Enum):
    """What a window in a year the catalogue does not cover returns."""

    OFF = "off"  # nothing: zero items
    SHIFTED = "shifted"  # the catalogue re-dated into the asked year (plausible, wrong)
    IGNORED = "ignored"  # the year is ignored: items keep their own, out-of-window dates


class Disposition(str, enum.Enum):
    """How ``Content-Disposition`` carries a Korean attachment name."""

    RFC5987 = "rfc5987"  # filename="ascii fallback"; filename*=UTF-8''percent-encoded
    UTF8 = "utf-8"  # raw UTF-8 bytes inside filename="..."
    EUCKR = "euc-kr"  # raw EUC-KR (CP949) bytes inside filename="..."
    NONE = "none"  # no header at all


class Oversize(str, enum.Enum):
    """How an attachment download goes past any sane size cap."""

    OFF = "off"
    HEADER = "header"  # a huge Content-Length announced, the real (short) body sent
    STREAM = "stream"  # no Content-Length; ``oversize_bytes`` streamed until the client stops


@dataclass(frozen=True, slots=True)
class Quirks:
    """Switches for one emulator instance (keyword arguments; all have defaults).

    API listing:
      ``envelope_key`` the top-level key (the real API misspells it ``reponse``);
      ``body_key`` the body field (``contentKor``; the documentation says
      ``contentsKor``); ``single_result`` a lone item sent as an object, not a list;
      ``string_counts`` ``resultCnt`` as a string; ``daily_limit`` calls per key per
      Korea-time day (``None``: unlimited);
      ``quota_mode`` how calls past it are answered; ``max_days`` the longest window,
      inclusive (``None``: unlimited), longer ones get ``030``; ``bad_dates`` how a
      non-``YYYY-MM-DD`` date is answered; ``wrong_year`` what a year outside the
      catalogue returns; ``damaged_text`` entities and backslash-less escapes (``nn``,
      ``u203B``) in subjects and bodies; ``check_key`` refuse a missing or malformed
      ``authKey`` with ``auth_code``; ``no_data_code`` answer an empty window with
      ``900`` instead of ``1`` and zero items.

    Attachment listing (additive: the real files stay listed):
      ``escaped_amp`` ``&amp;`` in ``atchfileUrl``; ``unsafe_urls`` two extra entries per
      post, one on another host and one with userinfo; ``messy_lists`` ``||`` empty
      segments and one more name than URLs.

    Downloads:
      ``disposition`` the file-name encoding; ``download_delay`` seconds before the
      answer; ``fail_first`` answers of HTTP 500 per URL before it succeeds;
      ``oversize`` and ``oversize_bytes``; ``html_attachments`` an HTML error page
      (HTTP 200) instead of every file.
    """

    envelope_key: str = "reponse"
    body_key: str = "contentKor"
    single_result: bool = False
    string_counts: bool = False
    daily_limit: int | None = 30
    quota_mode: QuotaMode = QuotaMode.CODE
    max_days: int | None = 31
    bad_dates: BadDateMode = BadDateMode.EMPTY
    wrong_year: WrongYearMode = WrongYearMode.SHIFTED
    damaged_text: bool = True
    check_key: bool = True
    auth_code: str = "010"
    no_data_code: bool = False
    escaped_amp: bool = False
    unsafe_urls: bool = False
    messy_lists: bool = False
    disposition: Disposition = Disposition.RFC5987
    download_delay: float = 0.0
    fail_first: int = 0
    oversize: Oversize = Oversize.OFF
    oversize_bytes: int = 1 << 30
    html_attachments: bool = False

    def __post_init__(self) -> None:
        if self.daily_limit is not None and self.daily_limit < 0:
            raise ValueError("daily_limit must be >= 0 or None")
        if self.max_days is not None and self.max_days < 1:
            raise ValueError("max_days must be >= 1 or None")
        if self.download_delay < 0 or self.fail_first < 0 or self.oversize_bytes < 0:
            raise ValueError("download_delay, fail_first and oversize_bytes must be >= 0")
