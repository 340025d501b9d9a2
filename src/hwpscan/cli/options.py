"""Options shared by the commands that fetch (``plan``, ``fetch``, ``verify``).

Each option is defined once here, with its default next to it, so every command that
takes it spells, checks and defaults it the same way::

    def fetch(connect_timeout: ConnectTimeoutOpt = CONNECT_TIMEOUT, ...)

The defaults are those of :class:`hwpscan.fetch.FetchSettings` and
:class:`hwpscan.fetch.FetchLimits`, read from them, not restated:

>>> MAX_MB == FetchSettings().max_bytes / 1_000_000, RETRIES == FetchSettings().retry.retries
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from hwpscan.fetch.limits import FetchLimits
from hwpscan.fetch.settings import FetchSettings, RetryPolicy

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
    "ApiRetriesOpt",
    "ConnectTimeoutOpt",
    "DownloadPathOpt",
    "DownloadsOpt",
    "FromOpt",
    "LimitOpt",
    "MaxAttachmentsOpt",
    "MaxFilesOpt",
    "MaxItemsOpt",
    "MaxMbOpt",
    "MaxTotalMbOpt",
    "OldOutOpt",
    "ProgressOpt",
    "ReadTimeoutOpt",
    "ResetOpt",
    "RetriesOpt",
    "ToOpt",
    "WindowOpt",
    "YesOpt",
    "deprecated",
    "fetch_options",
    "limits_option",
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
    from hwpscan.cli.app import err_console

    err_console.print(
        f"[yellow]warning:[/] {message}", markup=True, highlight=False, soft_wrap=True
    )
    return old


_SETTINGS = FetchSettings()
_LIMITS = FetchLimits()
MAX_ITEMS = _LIMITS.max_items
MAX_ATTACHMENTS = _LIMITS.max_attachments
MAX_FILES = _LIMITS.max_files
MAX_TOTAL_MB = _LIMITS.max_download_bytes / 1_000_000
API_RETRIES = _LIMITS.api_retries
CONNECT_TIMEOUT = _SETTINGS.connect_timeout
READ_TIMEOUT = _SETTINGS.read_timeout
RETRIES = _SETTINGS.retry.retries
MAX_MB = _SETTINGS.max_bytes / 1_000_000
WINDOW_DAYS = _SETTINGS.window_days
DAILY_LIMIT = _SETTINGS.daily_limit
RESET_HOUR = _SETTINGS.reset_hour
DOWNLOADS = _SETTINGS.downloads

FromOpt = Annotated[str, typer.Option("--from", help="First day, YYYY-MM-DD.", show_default=False)]
ToOpt = Annotated[
    str, typer.Option("--to", help="Last day, YYYY-MM-DD (inclusive).", show_default=False)
]
WindowOpt = Annotated[
    int, typer.Option("--window-days", min=1, help="Days per call, both ends counted.")
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
#: ``-o`` for a folder, before ``-o`` meant a file everywhere (hidden; one release).
OldOutOpt = Annotated[Path | None, typer.Option("-o", hidden=True, show_default=False)]
YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes",
        "-y",
        help="Do not ask before fetching a range in another year (the warning still shows).",
    ),
]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bars.")]
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


def limits_option(
    *, max_items: int, max_attachments: int, max_files: int, max_total_mb: float, api_retries: int
) -> dict[str, Any]:
    """The budget options as the ``limits`` field of :class:`hwpscan.fetch.FetchSettings`."""
    limits = FetchLimits(
        max_items=max_items,
        max_attachments=max_attachments,
        max_files=max_files,
        max_download_bytes=int(max_total_mb * 1_000_000),
        api_retries=api_retries,
    )
    return {"limits": limits}


def fetch_options(
    *,
    window_days: int,
    daily_limit: int,
    reset_hour: int,
    allow_host: list[str],
    download_path: list[str],
    connect_timeout: float,
    read_timeout: float,
    retries: int,
    max_mb: float,
) -> dict[str, Any]:
    """The options above as :class:`hwpscan.fetch.FetchSettings` fields.

    An empty ``download_path`` keeps the default prefixes.

    >>> opts = fetch_options(window_days=7, daily_limit=30, reset_hour=0, allow_host=["a"],
    ...     download_path=[], connect_timeout=1.0, read_timeout=2.0, retries=0, max_mb=1.5)
    >>> opts["max_bytes"], opts["allow_hosts"], "path_prefixes" in opts, opts["retry"]
    (1500000, ('a',), False, RetryPolicy(retries=0, backoff=0.5))
    >>> fetch_options(window_days=7, daily_limit=30, reset_hour=0, allow_host=["a,b", "c"],
    ...     download_path=[], connect_timeout=1.0, read_timeout=2.0, retries=0,
    ...     max_mb=1)["allow_hosts"]
    ('a', 'b', 'c')
    """
    options: dict[str, Any] = {
        "window_days": window_days,
        "daily_limit": daily_limit,
        "reset_hour": reset_hour,
        "allow_hosts": tuple(split_list(allow_host)),
        "connect_timeout": connect_timeout,
        "read_timeout": read_timeout,
        "retry": RetryPolicy(retries=retries),
        "max_bytes": int(max_mb * 1_000_000),
    }
    if prefixes := split_list(download_path):
        options["path_prefixes"] = tuple(prefixes)
    return options
