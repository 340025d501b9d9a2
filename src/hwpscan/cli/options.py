"""Options shared by the commands that fetch (``plan``, ``fetch``, ``scan``, ``verify``),
and by the two that scan files (``scan``, ``repair``).

Each option is defined once here, with its default next to it, so every command that
takes it spells, checks and defaults it the same way. The fetch options come as one
group, :class:`FetchOptions` (with :class:`ApiOptions`, which ``plan`` takes alone, and
:class:`LimitOptions` inside), a frozen dataclass whose fields are the options, for
:func:`hwpscan.cli.params.options_from_dataclasses`; ``FetchOptions.settings()`` is the
:class:`hwpscan.api.FetchSettings` they ask for. One option alone is an ``Annotated``
type with its default::

    def fetch(connect_timeout: ConnectTimeoutOpt = CONNECT_TIMEOUT, ...)

The defaults are those of :class:`hwpscan.api.FetchSettings` and
:class:`hwpscan.api.FetchLimits`, read from :mod:`hwpscan.api.defaults` as they
are, not restated; that module imports nothing, so declaring these options (which every
``scan`` does) loads none of the fetcher, whose classes load when a fetch runs:

>>> from hwpscan.api import FetchLimits, FetchSettings
>>> MAX_MB == FetchSettings().max_bytes / 1_000_000, RETRIES == FetchSettings().retry.retries
(True, True)
>>> MAX_TOTAL_MB == FetchLimits().max_download_bytes / 1_000_000
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeVar

import typer

from hwpscan.api import defaults
from hwpscan.cli.app import ApiUrlOpt, err_console
from hwpscan.errors import UsageError

if TYPE_CHECKING:
    from hwpscan.api.limits import FetchLimits
    from hwpscan.api.settings import FetchSettings

__all__ = [
    "API_RETRIES",
    "CONNECT_TIMEOUT",
    "DAILY_LIMIT",
    "DOWNLOADS",
    "MAX_ATTACHMENTS",
    "MAX_FILES",
    "MAX_ITEMS",
    "MAX_MB",
    "MAX_TOTAL_MB",
    "READ_TIMEOUT",
    "RESET_HOUR",
    "RETRIES",
    "WINDOW_DAYS",
    "AllowHostOpt",
    "ApiOptions",
    "ApiRetriesOpt",
    "ConnectTimeoutOpt",
    "DownloadPathOpt",
    "DownloadsOpt",
    "FetchOptions",
    "FileTimeoutOpt",
    "FromOpt",
    "JobsOpt",
    "LimitOpt",
    "LimitOptions",
    "MaxAttachmentsOpt",
    "MaxFilesOpt",
    "MaxItemsOpt",
    "MaxMbOpt",
    "MaxTotalMbOpt",
    "ProgressOpt",
    "ReadTimeoutOpt",
    "RecordOpt",
    "ResetOpt",
    "RetriesOpt",
    "ToOpt",
    "WindowOpt",
    "YesOpt",
    "deprecated",
    "fetch_options",
    "split_list",
]

_T = TypeVar("_T")


def split_list(values: Iterable[str] | str | None) -> list[str]:
    """A list option's values, given as repeats, commas or both; blanks dropped.

    >>> split_list(["contaminated", "unreadable,error", " "])
    ['contaminated', 'unreadable', 'error']
    >>> split_list("strict, pyhwp"), split_list(None)
    (['strict', 'pyhwp'], [])
    """
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def deprecated(old: _T | None, new: _T, message: str) -> _T:
    """``old`` (with a warning on stderr) when the old spelling was used, else ``new``.

    The old spellings are hidden from ``--help`` and kept for one release.
    """
    if old is None:
        return new
    err_console.print(f"[yellow]warning:[/] {message}", markup=True, highlight=False)
    return old


MAX_ITEMS = defaults.MAX_ITEMS
MAX_ATTACHMENTS = defaults.MAX_ATTACHMENTS_PER_RELEASE
MAX_FILES = defaults.MAX_ATTACHMENTS_PER_RUN
MAX_TOTAL_MB = defaults.MAX_DOWNLOAD_BYTES / 1_000_000
API_RETRIES = defaults.API_RETRIES
CONNECT_TIMEOUT = defaults.DEFAULT_CONNECT_TIMEOUT
READ_TIMEOUT = defaults.DEFAULT_READ_TIMEOUT
RETRIES = defaults.DEFAULT_RETRIES
MAX_MB = defaults.DEFAULT_MAX_BYTES / 1_000_000
WINDOW_DAYS = defaults.DEFAULT_WINDOW_DAYS
DAILY_LIMIT = defaults.DEFAULT_DAILY_LIMIT
RESET_HOUR = defaults.DEFAULT_RESET_HOUR
DOWNLOADS = defaults.DEFAULT_DOWNLOADS

FromOpt = Annotated[str, typer.Option("--from", help="First day, YYYY-MM-DD.", show_default=False)]
ToOpt = Annotated[
    str, typer.Option("--to", help="Last day, YYYY-MM-DD (inclusive).", show_default=False)
]


def _window_days(value: int) -> int:
    """``--window-days`` within the API's limit, checked before anything is sent.

    Click calls this for the default too, on every ``scan``: the default is within the
    limit, so the fetcher's date rules load only for a window someone typed.

    >>> _window_days(WINDOW_DAYS), _window_days(7)
    (21, 7)
    >>> try:
    ...     _window_days(42)
    ... except typer.BadParameter as exc:
    ...     print(exc.format_message()[:50])
    Invalid value: 42 is more than the API's 21 days p
    """
    if value == WINDOW_DAYS:
        return value
    # the fetcher's date rules: loaded when a window is given, not on every scan
    from hwpscan.api.dates import check_window_days

    try:
        return check_window_days(value)
    except UsageError as exc:
        raise typer.BadParameter(str(exc).removeprefix("--window-days ")) from None


WindowOpt = Annotated[
    int,
    typer.Option(
        "--window-days",
        callback=_window_days,
        help=f"Days per call, both ends counted (at most {defaults.MAX_WINDOW_DAYS}).",
    ),
]
LimitOpt = Annotated[
    int, typer.Option("--daily-limit", min=0, help="Calls allowed per key per Korea-time day.")
]
ResetOpt = Annotated[
    int, typer.Option("--reset-hour", min=0, max=23, help="Korea-time hour the daily quota resets.")
]
ConnectTimeoutOpt = Annotated[float, typer.Option("--connect-timeout", min=0.1, help="Seconds.")]
ReadTimeoutOpt = Annotated[
    float, typer.Option("--read-timeout", min=0.1, help="Seconds between bytes.")
]
RetriesOpt = Annotated[int, typer.Option("--retries", min=0, help="Retries on timeouts and 5xx.")]
MaxMbOpt = Annotated[
    float, typer.Option("--max-mb", min=0.001, help="Size cap per attachment, MB.")
]
DownloadsOpt = Annotated[
    int, typer.Option("--downloads", min=1, help="Attachments downloaded at the same time.")
]
YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        hidden=True,  # nothing is ever asked: accepted with a warning, to be removed
        help="Does nothing (nothing is asked); accepted for old scripts, with a warning.",
    ),
]
AnyKeyLengthOpt = Annotated[
    bool,
    typer.Option(
        "--any-key-length",
        help="Send a key that is not 32 characters long (the warning still shows).",
    ),
]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bars.")]
#: ``--record/--no-record``: every command that records a run takes it.
RecordOpt = Annotated[
    bool,
    typer.Option(
        "--record/--no-record",
        help="Keep this run in the history (hwpscan history); --no-record: not.",
    ),
]
#: ``scan`` and ``repair``: their worker processes and each file's time limit.
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs", "-j", min=0, help="Worker processes (0: one per core).", show_default=False
    ),
]
FileTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--file-timeout",
        min=0,
        help="Seconds one file may take before its worker is stopped (0: no limit).",
    ),
]
AllowHostOpt = Annotated[
    list[str],
    typer.Option(
        "--allow-host",
        help="Also download attachments from this host (repeatable, or comma-separated).",
    ),
]
DownloadPathOpt = Annotated[
    list[str],
    typer.Option(
        "--download-path",
        help="Accepted attachment path prefix (repeatable, or comma-separated; replaces the "
        "default).",
    ),
]


MaxItemsOpt = Annotated[
    int, typer.Option("--max-items", min=1, help="Releases one API answer may list.")
]
MaxAttachmentsOpt = Annotated[
    int, typer.Option("--max-attachments", min=1, help="Attachments one release may list.")
]
MaxFilesOpt = Annotated[
    int, typer.Option("--max-files", min=1, help="Attachments one run may download.")
]
MaxTotalMbOpt = Annotated[
    float, typer.Option("--max-total-mb", min=0.001, help="Megabytes one run may download.")
]
ApiRetriesOpt = Annotated[
    int,
    typer.Option(
        "--api-retries", min=0, help="Paid API calls one window may retry (timeouts, 5xx)."
    ),
]


@dataclass(frozen=True)
class ApiOptions:
    """Which API and how it is asked: what ``plan`` and every fetch share."""

    PANEL: ClassVar[str] = "API"

    api_url: ApiUrlOpt = defaults.DEFAULT_API_URL
    window_days: WindowOpt = WINDOW_DAYS
    daily_limit: LimitOpt = DAILY_LIMIT
    reset_hour: ResetOpt = RESET_HOUR

    def settings(self, **overrides: Any) -> FetchSettings:
        """:class:`FetchSettings` with these fields, the others default or ``overrides``."""
        from hwpscan.api.settings import FetchSettings  # the fetcher: when a fetch runs

        return FetchSettings(**{**self.fields(), **overrides})

    def fields(self) -> dict[str, Any]:
        """These options as :class:`FetchSettings` fields."""
        return {
            "api_url": self.api_url,
            "window_days": self.window_days,
            "daily_limit": self.daily_limit,
            "reset_hour": self.reset_hour,
        }


@dataclass(frozen=True)
class LimitOptions:
    """The budgets of a fetch, as :class:`hwpscan.api.FetchLimits`."""

    PANEL: ClassVar[str] = "Fetch budgets"

    max_items: MaxItemsOpt = MAX_ITEMS
    max_attachments: MaxAttachmentsOpt = MAX_ATTACHMENTS
    max_files: MaxFilesOpt = MAX_FILES
    max_total_mb: MaxTotalMbOpt = MAX_TOTAL_MB
    api_retries: ApiRetriesOpt = API_RETRIES

    def limits(self) -> FetchLimits:
        from hwpscan.api.limits import FetchLimits  # the fetcher: when a fetch runs

        return FetchLimits(
            max_items=self.max_items,
            max_attachments=self.max_attachments,
            max_files=self.max_files,
            max_download_bytes=int(self.max_total_mb * 1_000_000),
            api_retries=self.api_retries,
        )


@dataclass(frozen=True)
class FetchOptions:
    """Every option of a fetch, declared once: a command takes them all as one group.

    Used with :func:`hwpscan.cli.params.options_from_dataclasses`::

        @app.command()
        @options_from_dataclasses
        def fetch(start: FromOpt, end: ToOpt, *, fetch: FetchOptions) -> None:
            settings = fetch.settings(out_dir=out)

    :meth:`settings` maps the options to :class:`hwpscan.api.FetchSettings`
    (``--max-mb`` to bytes, comma lists split, an empty ``--download-path`` keeping
    the default prefixes); its ``overrides`` set the fields no option gives (``out_dir``,
    ``fresh``, ``only_dates``...). Not in the group: ``--out``, whose default differs
    by command (``fetch``: ``./hwpscan-downloads``; ``scan --from/--to`` and
    ``verify``: a folder per API host in the state folder), and ``--progress``, which
    ``scan`` also uses for the scan. ``any_key_length`` is not a setting: pass it to
    :func:`hwpscan.cli.fetch_view.fetch_for_scan` (or :func:`~hwpscan.cli.fetch_view.get_key`).
    ``yes`` (``--yes``, hidden) does nothing but warn: hwpscan never asks.

    >>> from pathlib import Path
    >>> opts = FetchOptions(allow_host=["a,b", "c"], max_mb=1.5, retries=0)
    >>> s = opts.settings(out_dir=Path("x"))
    >>> s.allow_hosts, s.max_bytes, s.retry.retries, s.out_dir.name, s == opts.settings(
    ...     out_dir=Path("x"))
    (('a', 'b', 'c'), 1500000, 0, 'x', True)
    >>> from hwpscan.api import FetchSettings
    >>> FetchOptions().settings() == FetchSettings()
    True
    >>> FetchOptions(download_path=["/f/"]).settings().path_prefixes
    ('/f/',)
    """

    PANEL: ClassVar[str] = "Fetch"

    api: ApiOptions = field(default_factory=ApiOptions)
    allow_host: AllowHostOpt = field(default_factory=list)
    download_path: DownloadPathOpt = field(default_factory=list)
    connect_timeout: ConnectTimeoutOpt = CONNECT_TIMEOUT
    read_timeout: ReadTimeoutOpt = READ_TIMEOUT
    retries: RetriesOpt = RETRIES
    max_mb: MaxMbOpt = MAX_MB
    downloads: DownloadsOpt = DOWNLOADS
    limits: LimitOptions = field(default_factory=LimitOptions)
    yes: YesOpt = False
    any_key_length: AnyKeyLengthOpt = False

    def __post_init__(self) -> None:
        if self.yes:  # hidden from --help; old scripts keep working, and are told
            err_console.print(
                "[yellow]warning:[/] --yes does nothing (hwpscan never asks) and will be "
                "removed; drop it from the command",
                markup=True,
                highlight=False,
            )

    def settings(self, **overrides: Any) -> FetchSettings:
        """The :class:`FetchSettings` these options ask for, ``overrides`` replacing fields."""
        from hwpscan.api.settings import FetchSettings  # the fetcher: when a fetch runs

        return FetchSettings(**{**self.fields(), **overrides})

    def fields(self) -> dict[str, Any]:
        """These options as :class:`FetchSettings` fields."""
        from hwpscan.api.settings import RetryPolicy  # the fetcher: when a fetch runs

        fields = {
            **self.api.fields(),
            "allow_hosts": tuple(split_list(self.allow_host)),
            "connect_timeout": self.connect_timeout,
            "read_timeout": self.read_timeout,
            "retry": RetryPolicy(retries=self.retries),
            "max_bytes": int(self.max_mb * 1_000_000),
            "downloads": self.downloads,
            "limits": self.limits.limits(),
        }
        if prefixes := split_list(self.download_path):
            fields["path_prefixes"] = tuple(prefixes)
        return fields


def fetch_options(**options: Any) -> dict[str, Any]:
    """For a command that still takes the fetch options one by one: ``options`` named
    as the fields of :class:`FetchOptions` and :class:`ApiOptions` (``window_days``,
    ``retries``, ``max_mb``...), given back as :class:`hwpscan.api.FetchSettings`
    fields (``fetch_for_scan(..., **fetch_options(...))``).

    >>> opts = fetch_options(window_days=7, allow_host=["a"], retries=0, max_mb=1.5)
    >>> opts["window_days"], opts["max_bytes"], opts["allow_hosts"], opts["retry"].retries
    (7, 1500000, ('a',), 0)
    >>> "api_url" in opts, "downloads" in opts, "limits" in opts
    (False, False, False)
    """
    api = {name: options.pop(name) for name in _API_FIELDS if name in options}
    given = FetchOptions(api=ApiOptions(**api), **options).fields()
    return {name: given[name] for name in given if name in _GIVEN_ONE_BY_ONE}


_API_FIELDS = ("window_days", "daily_limit", "reset_hour")
_GIVEN_ONE_BY_ONE = frozenset(
    {
        "window_days",
        "daily_limit",
        "reset_hour",
        "allow_hosts",
        "path_prefixes",
        "connect_timeout",
        "read_timeout",
        "retry",
        "max_bytes",
    }
)
