"""Stand-in for :mod:`hwpscan.fetch.settings` until the fetch package has its settings:
the same names and fields, mapped onto today's keyword interface. Removed when
``FetchSettings`` lands (the imports of it then change, nothing else).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwpscan.fetch.client import DEFAULT_API_URL
from hwpscan.fetch.dates import DEFAULT_WINDOW_DAYS
from hwpscan.fetch.download import DEFAULT_MAX_BYTES
from hwpscan.fetch.limits import FetchLimits
from hwpscan.fetch.quota import DEFAULT_DAILY_LIMIT
from hwpscan.fetch.urls import DEFAULT_DOWNLOAD_PATHS

if TYPE_CHECKING:
    from hwpscan.fetch.progress import Progress
    from hwpscan.fetch.run import FetchReport

__all__ = ["FetchSettings", "RetryPolicy", "fetch_range", "stop_message"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int = 3
    backoff: float = 0.5


@dataclass(frozen=True, slots=True)
class FetchSettings:
    api_url: str = DEFAULT_API_URL
    out_dir: Path | None = None
    state: Path | None = None
    window_days: int = DEFAULT_WINDOW_DAYS
    daily_limit: int = DEFAULT_DAILY_LIMIT
    reset_hour: int = 0
    allow_hosts: tuple[str, ...] = ()
    path_prefixes: tuple[str, ...] = DEFAULT_DOWNLOAD_PATHS
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    max_bytes: int = DEFAULT_MAX_BYTES
    download_deadline: float | None = None
    downloads: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    limits: FetchLimits = field(default_factory=FetchLimits)
    fresh: bool = False
    only_dates: frozenset[str] | None = None

    def out_folder(self) -> Path:
        from hwpscan.fetch import default_out_dir

        return Path(self.out_dir) if self.out_dir else default_out_dir(self.api_url)

    def keywords(self) -> dict[str, Any]:
        return {
            "api_url": self.api_url,
            "out_dir": self.out_folder(),
            "state": self.state,
            "window_days": self.window_days,
            "daily_limit": self.daily_limit,
            "reset_hour": self.reset_hour,
            "allow_hosts": self.allow_hosts,
            "path_prefixes": self.path_prefixes,
            "connect_timeout": self.connect_timeout,
            "read_timeout": self.read_timeout,
            "max_bytes": self.max_bytes,
            "download_deadline": self.download_deadline,
            "jobs": self.downloads,
            "retries": self.retry.retries,
            "backoff": self.retry.backoff,
            "limits": self.limits,
            "fresh": self.fresh,
            "only_dates": self.only_dates,
        }


def fetch_range(
    start: date,
    end: date,
    settings: FetchSettings,
    *,
    key: str,
    progress: Progress | None = None,
) -> FetchReport:
    from hwpscan.fetch.run import fetch_range as fetch_keywords

    return fetch_keywords(start, end, key=key, progress=progress, **settings.keywords())


def stop_message(report: FetchReport) -> str | None:
    if report.error is not None:
        return f"{report.error} (kept everything fetched before the stop in {report.out_dir})"
    return None
