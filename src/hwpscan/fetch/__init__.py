"""Fetching press releases and their attachments within the API's limits.

The pieces, each usable alone: :mod:`~hwpscan.fetch.dates` (strict dates, windows, Korea
time), :mod:`~hwpscan.fetch.quota` (the call ledger), :mod:`~hwpscan.fetch.cache` (raw
answers on disk), :mod:`~hwpscan.fetch.client` (the API and its quirks),
:mod:`~hwpscan.fetch.urls` (attachment URL validation, redaction),
:mod:`~hwpscan.fetch.download`; the manifest it writes is :mod:`hwpscan.manifest`, outside
this package, so that the scanner reads it without importing the fetcher. The
orchestrator is :func:`hwpscan.fetch.run.fetch_range` (it brings httpx, so it is not
imported here); :func:`fetch_for_scan` adds the defaults a scan wants.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hwpscan.errors import UsageError
from hwpscan.fetch.client import DEFAULT_API_URL
from hwpscan.fetch.dates import parse_range
from hwpscan.fetch.keys import ENV_VAR, check_key, resolve_key
from hwpscan.fetch.plan import Plan, plan_range
from hwpscan.fetch.progress import ProgressEvent
from hwpscan.home import state_dir
from hwpscan.manifest import dates_for, load_manifest

if TYPE_CHECKING:
    from hwpscan.fetch.run import FetchReport

__all__ = [
    "DEFAULT_API_URL",
    "Plan",
    "ProgressEvent",
    "dates_for",
    "default_out_dir",
    "fetch_for_scan",
    "load_manifest",
    "plan_range",
]


def default_out_dir(api_url: str, state: Path | None = None) -> Path:
    """Where ``scan --from/--to`` keeps attachments: one folder per API host and port.

    >>> default_out_dir("http://127.0.0.1:8123/x", Path("/s")).as_posix()
    '/s/downloads/127.0.0.1_8123'
    """
    port = urlsplit(api_url).port
    host = (urlsplit(api_url).hostname or "api").lower()
    name = f"{host}_{port}" if port else host
    return (state or state_dir()) / "downloads" / name


def fetch_for_scan(
    start: date | str,
    end: date | str,
    *,
    api_url: str | None = None,
    out_dir: Path | None = None,
    key: str | None = None,
    **options: Any,
) -> tuple[Path, FetchReport]:
    """Fetch a range (cache first) for a scan; returns the folder to scan and the report.

    ``api_url`` defaults to the real endpoint. ``start``/``end`` may be ``YYYY-MM-DD``
    strings (validated strictly). The key comes from ``key``, else ``HWPSCAN_API_KEY``,
    else the config file; a missing key raises :class:`UsageError`. ``options`` go to
    :func:`~hwpscan.fetch.run.fetch_range` (``progress``, ``window_days``, ``daily_limit``,
    ``allow_hosts``, timeouts...). Check ``report.error`` / ``report.exit_code``: a stopped
    fetch still returns what it got.
    """
    # the orchestrator brings httpx (and its own deps): loaded when a fetch is asked for,
    # so that importing this package (the CLI's options, --help) stays light
    from hwpscan.fetch.run import fetch_range

    api_url = api_url or DEFAULT_API_URL
    if isinstance(start, str) or isinstance(end, str):
        start, end = parse_range(str(start), str(end))
    state = options.pop("state", None) or state_dir()
    key = key or resolve_key(state)
    if not key:
        raise UsageError(
            f'no API key: set {ENV_VAR} or put api_key = "..." in {state / "config.toml"}'
        )
    folder = Path(out_dir) if out_dir else default_out_dir(api_url, state)
    report = fetch_range(
        start, end, key=check_key(key), out_dir=folder, state=state, api_url=api_url, **options
    )
    return folder, report
