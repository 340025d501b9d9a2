"""The plan: which windows a range needs, which are cached, what the quota allows. No
network; a fetch uses the same :func:`usable_cached`, so "calls needed" is what it spends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from hwpscan.api.cache import CACHE_DIR, ResponseCache
from hwpscan.api.client import CheckedAnswer, check_answer, parse_answer
from hwpscan.api.dates import Window, quota_day, split_windows, year_warning
from hwpscan.api.quota import LEDGER_FILE, QuotaLedger, QuotaStatus
from hwpscan.api.settings import FetchSettings
from hwpscan.errors import HwpscanError, LedgerError


@dataclass(frozen=True, slots=True)
class WindowPlan:
    """One window and whether its answer is already in the cache."""

    window: Window
    cached: bool


@dataclass(frozen=True, slots=True)
class Plan:
    """What a fetch of ``start..end`` would do, without doing it."""

    start: date
    end: date
    windows: tuple[WindowPlan, ...]
    quota: QuotaStatus | None  # None when no key is known
    warnings: tuple[str, ...] = ()

    @property
    def calls_cached(self) -> int:
        return sum(1 for w in self.windows if w.cached)

    @property
    def calls_needed(self) -> int:
        return len(self.windows) - self.calls_cached

    @property
    def fits_quota(self) -> bool | None:
        """True when today's remaining calls cover the plan (None: no key known)."""
        return None if self.quota is None else self.calls_needed <= self.quota.remaining


def usable_cached(
    cache: ResponseCache, api_url: str, window: Window, *, key_sha256: str | None = None
) -> CheckedAnswer | None:
    """The cached answer for a window with its assessment, when it parses as success or
    "no data" and is not (or might not be) a silent refusal; with *key_sha256* (the
    current key's hash) it says whether another key paid for it."""
    entry = cache.get(api_url, window)
    if entry is None or entry.meta.get("verdict") not in (None, "ok"):
        return None
    try:
        answer = parse_answer(entry.body)
    except HwpscanError:
        return None
    verdict = check_answer(answer, window, near_limit=False)
    if verdict.suspicious_empty or verdict.unconfirmed_empty:
        return None
    paid_with = entry.meta.get("key_sha256")
    other = key_sha256 is not None and isinstance(paid_with, str) and paid_with != key_sha256
    return CheckedAnswer(answer, verdict, other_key=other)


def open_cache(state: Path) -> ResponseCache:
    """The response cache inside the state folder."""
    return ResponseCache(state / CACHE_DIR)


def open_ledger(
    settings: FetchSettings, clock: Callable[[], datetime] | None = None
) -> QuotaLedger:
    """The quota ledger in the settings' state folder, with their limit and reset hour."""
    path = settings.state_folder() / LEDGER_FILE
    return QuotaLedger(
        path, limit=settings.daily_limit, reset_hour=settings.reset_hour, clock=clock
    )


def plan_range(
    start: date,
    end: date,
    settings: FetchSettings,
    *,
    key: str | None,
    clock: Callable[[], datetime] | None = None,
) -> Plan:
    """Windows, cached windows and today's quota (unknown without a ``key``); no network.
    *clock* gives the time the quota day and the year warning are judged at."""
    cache = open_cache(settings.state_folder())
    planned = tuple(
        WindowPlan(w, usable_cached(cache, settings.api_url, w) is not None)
        for w in split_windows(start, end, settings.window_days)
    )
    quota = None
    warnings: list[str] = []
    if key:
        try:
            quota = open_ledger(settings, clock).status(key)
        except LedgerError as exc:  # the plan still stands; only the quota is unknown
            warnings.append(str(exc))
    if warning := year_warning(start, end, quota_day(clock() if clock else None)):
        warnings.append(warning)
    return Plan(start, end, planned, quota, tuple(warnings))
