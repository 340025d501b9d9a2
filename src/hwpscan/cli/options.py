"""Options shared by the commands that fetch (``plan``, ``fetch``, ``verify``).

Each option is defined once here, with its default next to it, so every command that
takes it spells, checks and defaults it the same way::

    def fetch(connect_timeout: ConnectTimeoutOpt = CONNECT_TIMEOUT, ...)

>>> MAX_MB == DEFAULT_MAX_BYTES / 1_000_000
True
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from hwpscan.fetch import limits as _limits
from hwpscan.fetch.dates import DEFAULT_WINDOW_DAYS
from hwpscan.fetch.download import DEFAULT_MAX_BYTES
from hwpscan.fetch.quota import DEFAULT_DAILY_LIMIT

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


MAX_ITEMS = _limits.MAX_ITEMS
MAX_ATTACHMENTS = _limits.MAX_ATTACHMENTS_PER_RELEASE
MAX_FILES = _limits.MAX_ATTACHMENTS_PER_RUN
MAX_TOTAL_MB = _limits.MAX_DOWNLOAD_BYTES / 1_000_000
API_RETRIES = _limits.API_RETRIES
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 60.0
RETRIES = 3
MAX_MB = DEFAULT_MAX_BYTES / 1_000_000
WINDOW_DAYS = DEFAULT_WINDOW_DAYS
DAILY_LIMIT = DEFAULT_DAILY_LIMIT
RESET_HOUR = 0

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
DOWNLOADS = 4
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
) -> dict[str, object]:
    """The budget options as the ``limits`` keyword of :func:`hwpscan.fetch.fetch_range`."""
    from hwpscan.fetch.limits import FetchLimits

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
) -> dict[str, object]:
    """The options above as :func:`hwpscan.fetch.fetch_range` keywords.

    An empty ``download_path`` keeps the default prefixes.

    >>> opts = fetch_options(window_days=7, daily_limit=30, reset_hour=0, allow_host=["a"],
    ...     download_path=[], connect_timeout=1.0, read_timeout=2.0, retries=0, max_mb=1.5)
    >>> opts["max_bytes"], opts["allow_hosts"], "path_prefixes" in opts
    (1500000, ('a',), False)
    >>> fetch_options(window_days=7, daily_limit=30, reset_hour=0, allow_host=["a,b", "c"],
    ...     download_path=[], connect_timeout=1.0, read_timeout=2.0, retries=0,
    ...     max_mb=1)["allow_hosts"]
    ('a', 'b', 'c')
    """
    options: dict[str, object] = {
        "window_days": window_days,
        "daily_limit": daily_limit,
        "reset_hour": reset_hour,
        "allow_hosts": tuple(split_list(allow_host)),
        "connect_timeout": connect_timeout,
        "read_timeout": read_timeout,
        "retries": retries,
        "max_bytes": int(max_mb * 1_000_000),
    }
    if prefixes := split_list(download_path):
        options["path_prefixes"] = tuple(prefixes)
    return options
