"""Options shared by several commands, each defined once with its default.

The fetch options are one group of option dataclasses, :class:`FetchOptions` (with
:class:`ApiOptions`, which ``plan`` takes alone, and :class:`LimitOptions`). Their
defaults come from :mod:`hwpscan.api.defaults`, which imports nothing, so declaring
them loads none of the fetcher:

>>> from hwpscan.api import FetchLimits, FetchSettings
>>> FetchOptions().settings() == FetchSettings(), LimitOptions().limits() == FetchLimits()
(True, True)
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import typer

from hwpscan.api import defaults
from hwpscan.cli.app import ApiUrlOpt, warn
from hwpscan.errors import UsageError

if TYPE_CHECKING:
    from hwpscan.api.limits import FetchLimits
    from hwpscan.api.settings import FetchSettings


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


FromOpt = Annotated[str, typer.Option("--from", help="First day, YYYY-MM-DD.", show_default=False)]
ToOpt = Annotated[
    str, typer.Option("--to", help="Last day, YYYY-MM-DD (inclusive).", show_default=False)
]


def _window_days(value: int) -> int:
    """``--window-days`` within the API's limit, checked before anything is sent (the
    fetcher's date rules load only for a window someone typed).

    >>> _window_days(defaults.DEFAULT_WINDOW_DAYS), _window_days(7)
    (21, 7)
    >>> try:
    ...     _window_days(42)
    ... except typer.BadParameter as exc:
    ...     print(exc.format_message()[:50])
    Invalid value: 42 is more than the API's 21 days p
    """
    if value == defaults.DEFAULT_WINDOW_DAYS:
        return value
    from hwpscan.api.dates import check_window_days

    try:
        return check_window_days(value)
    except UsageError as exc:
        raise typer.BadParameter(str(exc).removeprefix("--window-days ")) from None


DownloadsOpt = Annotated[
    int, typer.Option("--downloads", min=1, help="Attachments downloaded at the same time.")
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
#: ``--parser-timeout`` of ``scan`` and ``verify``.
ParserTimeoutOpt = Annotated[
    float, typer.Option("--parser-timeout", min=0.1, help="Seconds before an extractor is killed.")
]


class PuaChoice(str, enum.Enum):
    """``--pua`` of ``repair`` and ``text``."""

    KEEP = "keep"
    MAP = "map"
    PLACEHOLDER = "placeholder"
    DROP = "drop"


class _Settings:
    """``settings()``: the :class:`FetchSettings` of a group's ``fields()``."""

    def fields(self) -> dict[str, Any]:
        return dict(vars(self))

    def settings(self, **overrides: Any) -> FetchSettings:
        """The :class:`FetchSettings` these options ask for, ``overrides`` replacing fields."""
        from hwpscan.api.settings import FetchSettings  # the fetcher: when a fetch runs

        return FetchSettings(**{**self.fields(), **overrides})


@dataclass(frozen=True)
class ApiOptions(_Settings):
    """Which API and how it is asked: what ``plan`` and every fetch share."""

    PANEL: ClassVar[str] = "API"

    api_url: ApiUrlOpt = defaults.DEFAULT_API_URL
    window_days: Annotated[
        int,
        typer.Option(
            callback=_window_days,
            help=f"Days per call, both ends counted (at most {defaults.MAX_WINDOW_DAYS}).",
        ),
    ] = defaults.DEFAULT_WINDOW_DAYS
    daily_limit: Annotated[
        int, typer.Option(min=0, help="Calls allowed per key per Korea-time day.")
    ] = defaults.DEFAULT_DAILY_LIMIT
    reset_hour: Annotated[
        int, typer.Option(min=0, max=23, help="Korea-time hour the daily quota resets.")
    ] = defaults.DEFAULT_RESET_HOUR


@dataclass(frozen=True)
class LimitOptions:
    """The budgets of a fetch, as :class:`hwpscan.api.FetchLimits`."""

    PANEL: ClassVar[str] = "Fetch budgets"

    max_items: Annotated[int, typer.Option(min=1, help="Releases one API answer may list.")] = (
        defaults.MAX_ITEMS
    )
    max_attachments: Annotated[
        int, typer.Option(min=1, help="Attachments one release may list.")
    ] = defaults.MAX_ATTACHMENTS_PER_RELEASE
    max_files: Annotated[int, typer.Option(min=1, help="Attachments one run may download.")] = (
        defaults.MAX_ATTACHMENTS_PER_RUN
    )
    max_total_mb: Annotated[
        float, typer.Option(min=0.001, help="Megabytes one run may download.")
    ] = defaults.MAX_DOWNLOAD_BYTES / 1_000_000
    api_retries: Annotated[
        int, typer.Option(min=0, help="Paid API calls one window may retry (timeouts, 5xx).")
    ] = defaults.API_RETRIES

    def limits(self) -> FetchLimits:
        from hwpscan.api.limits import FetchLimits  # the fetcher: when a fetch runs

        fields = dataclasses.asdict(self)
        fields["max_download_bytes"] = int(fields.pop("max_total_mb") * 1_000_000)
        return FetchLimits(**fields)


@dataclass(frozen=True)
class FetchOptions(_Settings):
    """Every option of a fetch, as one group (not ``--out`` and ``--progress``, which
    differ by command). :meth:`settings` maps them to :class:`hwpscan.api.FetchSettings`;
    its ``overrides`` set the fields no option gives. ``any_key_length`` goes to
    :func:`~hwpscan.cli.fetch_view.get_key`; the hidden ``--yes`` only warns.

    >>> from pathlib import Path
    >>> opts = FetchOptions(allow_host=["a,b", "c"], max_mb=1.5, retries=0)
    >>> s = opts.settings(out_dir=Path("x"))
    >>> s.allow_hosts, s.max_bytes, s.retry.retries, s.out_dir.name
    (('a', 'b', 'c'), 1500000, 0, 'x')
    >>> FetchOptions(download_path=["/f/"]).settings().path_prefixes
    ('/f/',)
    """

    PANEL: ClassVar[str] = "Fetch"

    api: ApiOptions = field(default_factory=ApiOptions)
    allow_host: Annotated[
        list[str],
        typer.Option(
            help="Also download attachments from this host (repeatable, or comma-separated).",
        ),
    ] = field(default_factory=list)
    download_path: Annotated[
        list[str],
        typer.Option(
            help="Accepted attachment path prefix (repeatable, or comma-separated; replaces "
            "the default).",
        ),
    ] = field(default_factory=list)
    connect_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds.")] = (
        defaults.DEFAULT_CONNECT_TIMEOUT
    )
    read_timeout: Annotated[float, typer.Option(min=0.1, help="Seconds between bytes.")] = (
        defaults.DEFAULT_READ_TIMEOUT
    )
    retries: Annotated[int, typer.Option(min=0, help="Retries on timeouts and 5xx.")] = (
        defaults.DEFAULT_RETRIES
    )
    max_mb: Annotated[float, typer.Option(min=0.001, help="Size cap per attachment, MB.")] = (
        defaults.DEFAULT_MAX_BYTES / 1_000_000
    )
    downloads: DownloadsOpt = defaults.DEFAULT_DOWNLOADS
    limits: LimitOptions = field(default_factory=LimitOptions)
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            hidden=True,  # nothing is ever asked: accepted with a warning, to be removed
            help="Does nothing (nothing is asked); accepted for old scripts, with a warning.",
        ),
    ] = False
    any_key_length: Annotated[
        bool,
        typer.Option(
            "--any-key-length",
            help="Send a key that is not 32 characters long (the warning still shows).",
        ),
    ] = False

    def __post_init__(self) -> None:
        if self.yes:  # hidden from --help; old scripts keep working, and are told
            warn(
                "--yes does nothing (hwpscan never asks) and will be removed; drop it from "
                "the command"
            )

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
