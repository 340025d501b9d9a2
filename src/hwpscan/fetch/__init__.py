"""Fetching press releases and their attachments within the API's limits.

The pieces, each usable alone: :mod:`~hwpscan.fetch.dates` (strict dates, windows, Korea
time), :mod:`~hwpscan.fetch.quota` (the call ledger), :mod:`~hwpscan.fetch.cache` (raw
answers on disk), :mod:`~hwpscan.fetch.client` (the API and its quirks),
:mod:`~hwpscan.fetch.urls` (attachment URL validation, redaction),
:mod:`~hwpscan.fetch.download`; the manifest it writes is :mod:`hwpscan.manifest`, outside
this package, so that the scanner reads it without importing the fetcher. What a fetch
is asked to do is a :class:`FetchSettings` (:mod:`~hwpscan.fetch.settings`); the use
cases are :func:`fetch_range` and :func:`plan_range`, and :func:`fetch_for_scan` adds
the key lookup a scan wants. No module here imports httpx until a fetch runs.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from hwpscan.errors import UsageError
from hwpscan.lazy import lazy_names

if TYPE_CHECKING:
    from hwpscan.fetch.defaults import DEFAULT_API_URL
    from hwpscan.fetch.limits import FetchLimits
    from hwpscan.fetch.plan import Plan, plan_range
    from hwpscan.fetch.progress import Progress, ProgressEvent
    from hwpscan.fetch.run import FetchReport, fetch_range, stop_message
    from hwpscan.fetch.settings import (
        FetchHooks,
        FetchSettings,
        RetryPolicy,
        default_out_dir,
    )
    from hwpscan.manifest import dates_for, load_manifest

#: Every name loads on first use, so that importing a light module of the package
#: (:mod:`~hwpscan.fetch.defaults`, which every ``scan`` reads for its fetch options'
#: defaults) loads nothing else; the engine (the run loop, the planner and what they
#: import) loads only when a fetch or a plan runs.
_LAZY = {
    "DEFAULT_API_URL": "hwpscan.fetch.defaults",
    "FetchHooks": "hwpscan.fetch.settings",
    "FetchLimits": "hwpscan.fetch.limits",
    "FetchSettings": "hwpscan.fetch.settings",
    "RetryPolicy": "hwpscan.fetch.settings",
    "default_out_dir": "hwpscan.fetch.settings",
    "ProgressEvent": "hwpscan.fetch.progress",
    "dates_for": "hwpscan.manifest",
    "load_manifest": "hwpscan.manifest",
    "FetchReport": "hwpscan.fetch.run",
    "fetch_range": "hwpscan.fetch.run",
    "stop_message": "hwpscan.fetch.run",
    "Plan": "hwpscan.fetch.plan",
    "plan_range": "hwpscan.fetch.plan",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "DEFAULT_API_URL",
    "FetchHooks",
    "FetchLimits",
    "FetchReport",
    "FetchSettings",
    "Plan",
    "ProgressEvent",
    "RetryPolicy",
    "dates_for",
    "default_out_dir",
    "fetch_for_scan",
    "fetch_range",
    "load_manifest",
    "plan_range",
    "stop_message",
]


def fetch_for_scan(
    start: date | str,
    end: date | str,
    settings: FetchSettings | None = None,
    *,
    key: str | None = None,
    progress: Progress | None = None,
    hooks: FetchHooks | None = None,
) -> tuple[Path, FetchReport]:
    """Fetch a range (cache first) for a scan; returns the folder to scan and the report.

    ``start``/``end`` may be ``YYYY-MM-DD`` strings (validated strictly). The key comes
    from ``key``, else ``HWPSCAN_API_KEY``, else the config file; a missing key raises
    :class:`UsageError`. Check ``report.error`` / ``report.exit_code``: a stopped fetch
    still returns what it got.
    """
    # the dates, the key and the settings: loaded by a fetch, not by importing the package
    from hwpscan.fetch.dates import parse_range  # zoneinfo: for a fetch only
    from hwpscan.fetch.keys import ENV_VAR, check_key, resolve_key  # for a fetch only
    from hwpscan.fetch.settings import FetchSettings  # for a fetch only

    settings = settings or FetchSettings()
    if isinstance(start, str) or isinstance(end, str):
        start, end = parse_range(str(start), str(end))
    state = settings.state_folder()
    key = key or resolve_key(state)
    if not key:
        raise UsageError(
            f'no API key: set {ENV_VAR} or put api_key = "..." in {state / "config.toml"}'
        )
    from hwpscan.fetch.run import fetch_range  # the engine: on first use

    report = fetch_range(start, end, settings, key=check_key(key), progress=progress, hooks=hooks)
    return report.out_dir, report
