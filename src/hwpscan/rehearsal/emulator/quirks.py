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
from typing import Annotated

import typer

#: Help panels of ``hwpscan emulator --help``
_API = "API quirks"
_FILES = "Attachment quirks"


def _zero_is_unlimited(value: int | None) -> int | None:
    """The command line says "no limit" with ``0``; a :class:`Quirks` says it with ``None``.

    >>> _zero_is_unlimited(0), _zero_is_unlimited(31)
    (None, 31)
    """
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
      (HTTP 200) instead of every file; ``etags`` off: no ``ETag`` header and every
      ``If-None-Match`` ignored (a server that cannot say a file is unchanged).
    """

    # Each field is also the option of ``hwpscan emulator`` (see hwpscan.cli.params):
    # its name gives the option name, the Annotated metadata its help and panel.
    envelope_key: Annotated[
        str,
        typer.Option(help="Top-level JSON key (the real API misspells it).", rich_help_panel=_API),
    ] = "reponse"
    body_key: Annotated[
        str,
        typer.Option(
            help="Body field name (contentKor; documented as contentsKor).", rich_help_panel=_API
        ),
    ] = "contentKor"
    single_result: Annotated[
        bool,
        typer.Option(
            "--single-result",
            help="A lone item sent as an object, not a list.",
            rich_help_panel=_API,
        ),
    ] = False
    string_counts: Annotated[
        bool, typer.Option("--string-counts", help="resultCnt as a string.", rich_help_panel=_API)
    ] = False
    daily_limit: Annotated[
        int | None,
        typer.Option(
            min=0,
            callback=_zero_is_unlimited,
            help="Calls per key per Korea day (0: unlimited).",
            rich_help_panel=_API,
        ),
    ] = 30
    quota_mode: Annotated[
        QuotaMode,
        typer.Option(help="Past the limit: code 033, or silent zero items.", rich_help_panel=_API),
    ] = QuotaMode.CODE
    max_days: Annotated[
        int | None,
        typer.Option(
            min=0,
            callback=_zero_is_unlimited,
            help="Longest window in days, inclusive (0: unlimited); longer gets 030.",
            rich_help_panel=_API,
        ),
    ] = 31
    bad_dates: Annotated[
        BadDateMode,
        typer.Option(
            help="A non YYYY-MM-DD date: zero items or an HTML page.", rich_help_panel=_API
        ),
    ] = BadDateMode.EMPTY
    wrong_year: Annotated[
        WrongYearMode,
        typer.Option(
            help="A year the catalogue lacks: nothing, re-dated data, or out-of-window items.",
            rich_help_panel=_API,
        ),
    ] = WrongYearMode.SHIFTED
    damaged_text: Annotated[
        bool,
        typer.Option(
            "--damaged-text/--clean-text",
            help="Entities and backslash-less escapes (nn, u203B) in text.",
            rich_help_panel=_API,
        ),
    ] = True
    check_key: Annotated[
        bool, typer.Option(help="Refuse a missing or malformed authKey.", rich_help_panel=_API)
    ] = True
    auth_code: Annotated[
        str, typer.Option(help="Result code for a bad key.", rich_help_panel=_API)
    ] = "010"
    no_data_code: Annotated[
        bool,
        typer.Option(
            "--no-data-code", help="Answer an empty window with code 900.", rich_help_panel=_API
        ),
    ] = False
    escaped_amp: Annotated[
        bool,
        typer.Option("--escaped-amp", help="&amp; inside attachment URLs.", rich_help_panel=_FILES),
    ] = False
    unsafe_urls: Annotated[
        bool,
        typer.Option(
            "--unsafe-urls",
            help="Add URLs on another host and with userinfo.",
            rich_help_panel=_FILES,
        ),
    ] = False
    messy_lists: Annotated[
        bool,
        typer.Option(
            "--messy-lists", help="|| segments and more names than URLs.", rich_help_panel=_FILES
        ),
    ] = False
    disposition: Annotated[
        Disposition,
        typer.Option(help="Content-Disposition file-name encoding.", rich_help_panel=_FILES),
    ] = Disposition.RFC5987
    download_delay: Annotated[
        float,
        typer.Option(min=0, help="Seconds before each download answers.", rich_help_panel=_FILES),
    ] = 0.0
    fail_first: Annotated[
        int,
        typer.Option(
            min=0, help="HTTP 500 answers per URL before it succeeds.", rich_help_panel=_FILES
        ),
    ] = 0
    oversize: Annotated[
        Oversize,
        typer.Option(
            help="A lying Content-Length, or a body streamed past any cap.", rich_help_panel=_FILES
        ),
    ] = Oversize.OFF
    oversize_bytes: Annotated[
        int,
        typer.Option(
            min=1, help="Size announced or streamed by --oversize.", rich_help_panel=_FILES
        ),
    ] = 1 << 30
    html_attachments: Annotated[
        bool,
        typer.Option(
            "--html-attachments",
            help="An HTML error page instead of every file.",
            rich_help_panel=_FILES,
        ),
    ] = False
    etags: Annotated[
        bool,
        typer.Option(
            "--etags/--no-etags",
            help="Send an ETag with each file and answer If-None-Match with 304.",
            rich_help_panel=_FILES,
        ),
    ] = True

    def __post_init__(self) -> None:
        if self.daily_limit is not None and self.daily_limit < 0:
            raise ValueError("daily_limit must be >= 0 or None")
        if self.max_days is not None and self.max_days < 1:
            raise ValueError("max_days must be >= 1 or None")
        if self.download_delay < 0 or self.fail_first < 0 or self.oversize_bytes < 0:
            raise ValueError("download_delay, fail_first and oversize_bytes must be >= 0")
