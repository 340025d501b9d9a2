"""The emulator's switches: every documented quirk of the press-release API, on or off.

The defaults are what the real API does: 30 calls per key a day (then ``033``), windows
of up to 31 days (longer: ``030``), EUC-KR bytes, damaged body text, and a wrong year
silently answered with plausible data. The attachment faults are off by default, so
``hwpscan demo`` completes.

>>> Quirks().daily_limit, Quirks().quota_mode.value, Quirks().max_days
(30, 'code', 31)
>>> Quirks(fail_first=1).fail_first
1
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Annotated

import typer


def _zero_is_unlimited(value: int | None) -> int | None:
    """The command line says "no limit" with ``0``; a :class:`Quirks` says it with ``None``."""
    return value or None


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


# the two help panels of ``hwpscan emulator --help``
_api = functools.partial(typer.Option, rich_help_panel="API quirks")
_file = functools.partial(typer.Option, rich_help_panel="Attachment quirks")


@dataclass(frozen=True, slots=True)
class Quirks:
    """Switches for one emulator instance. Each field is also an option of ``hwpscan
    emulator`` (hwpscan.cli.params) whose help says what it does; ``None`` limits are
    unlimited; the attachment-listing quirks add entries, the real files stay listed."""

    envelope_key: Annotated[str, _api(help="Top-level JSON key (the real API misspells it).")] = (
        "reponse"
    )
    body_key: Annotated[
        str, _api(help="Body field name (contentKor; documented as contentsKor).")
    ] = "contentKor"
    single_result: Annotated[
        bool, _api("--single-result", help="A lone item sent as an object, not a list.")
    ] = False
    string_counts: Annotated[bool, _api("--string-counts", help="resultCnt as a string.")] = False
    daily_limit: Annotated[
        int | None,
        _api(
            min=0, callback=_zero_is_unlimited, help="Calls per key per Korea day (0: unlimited)."
        ),
    ] = 30
    quota_mode: Annotated[
        QuotaMode, _api(help="Past the limit: code 033, or silent zero items.")
    ] = QuotaMode.CODE
    max_days: Annotated[
        int | None,
        _api(
            min=0,
            callback=_zero_is_unlimited,
            help="Longest window in days, inclusive (0: unlimited); longer gets 030.",
        ),
    ] = 31
    bad_dates: Annotated[
        BadDateMode, _api(help="A non YYYY-MM-DD date: zero items or an HTML page.")
    ] = BadDateMode.EMPTY
    wrong_year: Annotated[
        WrongYearMode,
        _api(help="A year the catalogue lacks: nothing, re-dated data, or out-of-window items."),
    ] = WrongYearMode.SHIFTED
    damaged_text: Annotated[
        bool,
        _api(
            "--damaged-text/--clean-text",
            help="Entities and backslash-less escapes (nn, u203B) in text.",
        ),
    ] = True
    check_key: Annotated[bool, _api(help="Refuse a missing or malformed authKey.")] = True
    auth_code: Annotated[str, _api(help="Result code for a bad key.")] = "010"
    no_data_code: Annotated[
        bool, _api("--no-data-code", help="Answer an empty window with code 900.")
    ] = False
    escaped_amp: Annotated[bool, _file("--escaped-amp", help="&amp; inside attachment URLs.")] = (
        False
    )
    unsafe_urls: Annotated[
        bool, _file("--unsafe-urls", help="Add URLs on another host and with userinfo.")
    ] = False
    messy_lists: Annotated[
        bool, _file("--messy-lists", help="|| segments and more names than URLs.")
    ] = False
    disposition: Annotated[Disposition, _file(help="Content-Disposition file-name encoding.")] = (
        Disposition.RFC5987
    )
    download_delay: Annotated[float, _file(min=0, help="Seconds before each download answers.")] = (
        0.0
    )
    fail_first: Annotated[
        int, _file(min=0, help="HTTP 500 answers per URL before it succeeds.")
    ] = 0
    oversize: Annotated[
        Oversize, _file(help="A lying Content-Length, or a body streamed past any cap.")
    ] = Oversize.OFF
    oversize_bytes: Annotated[
        int, _file(min=1, help="Size announced or streamed by --oversize.")
    ] = 1 << 30
    html_attachments: Annotated[
        bool, _file("--html-attachments", help="An HTML error page instead of every file.")
    ] = False
    etags: Annotated[
        bool,
        _file(
            "--etags/--no-etags",
            help="Send an ETag with each file and answer If-None-Match with 304.",
        ),
    ] = True

    def __post_init__(self) -> None:
        if self.daily_limit is not None and self.daily_limit < 0:
            raise ValueError("daily_limit must be >= 0 or None")
        if self.max_days is not None and self.max_days < 1:
            raise ValueError("max_days must be >= 1 or None")
        if self.download_delay < 0 or self.fail_first < 0 or self.oversize_bytes < 0:
            raise ValueError("download_delay, fail_first and oversize_bytes must be >= 0")
