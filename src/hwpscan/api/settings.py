"""What a fetch is asked to do: :class:`FetchSettings` (no secret: the key is passed on
its own), :class:`RetryPolicy`, and what tests inject, :class:`FetchHooks`.

>>> FetchSettings(window_days=7).retry
RetryPolicy(retries=3, backoff=0.5)
>>> [RetryPolicy().delay(n) for n in (1, 2, 3)]
[0.5, 1.0, 2.0]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from hwpscan.api.defaults import (
    DEFAULT_API_URL,
    DEFAULT_BACKOFF,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_DAILY_LIMIT,
    DEFAULT_DOWNLOADS,
    DEFAULT_MAX_BYTES,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_RESET_HOUR,
    DEFAULT_RETRIES,
    DEFAULT_WINDOW_DAYS,
)
from hwpscan.api.limits import FetchLimits
from hwpscan.api.urls import DEFAULT_DOWNLOAD_PATHS, Resolver, system_resolver
from hwpscan.home import state_dir

_T = TypeVar("_T")
_E = TypeVar("_E", bound=Exception)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries after a timeout or a 5xx: the one retry loop of API calls and downloads."""

    retries: int = DEFAULT_RETRIES
    backoff: float = DEFAULT_BACKOFF

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1, 2, ...)."""
        return float(self.backoff * 2 ** (attempt - 1))

    def run(
        self,
        attempt: Callable[[int], _T],
        *,
        catch: type[_E],
        give_up: Callable[[_E, int], _T],
        retryable: Callable[[_E], bool] = lambda exc: True,
        on_retry: Callable[[_E, str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> _T:
        """``attempt(1)``, ``attempt(2)``, ... until one returns its value. A retryable
        ``catch`` goes to ``on_retry``, then a wait of :meth:`delay`; the last one, or one
        not retryable, to ``give_up(exc, attempts made)``, whose value is the result.

        >>> policy = RetryPolicy(retries=2)
        >>> def flaky(n: int) -> str:
        ...     if n < 3:
        ...         raise TimeoutError(f"slow {n}")
        ...     return f"ok on {n}"
        >>> policy.run(flaky, catch=TimeoutError, give_up=lambda e, n: "gave up",
        ...            on_retry=lambda e, when: print(e, when), sleep=lambda s: None)
        slow 1 retrying in 0.5 s (attempt 2 of 3)
        slow 2 retrying in 1 s (attempt 3 of 3)
        'ok on 3'
        >>> RetryPolicy(retries=0).run(flaky, catch=TimeoutError,
        ...                            give_up=lambda e, n: f"{e} after {n}")
        'slow 1 after 1'
        """
        number = 0
        while True:
            number += 1
            try:
                return attempt(number)
            except catch as exc:
                if number > self.retries or not retryable(exc):
                    return give_up(exc, number)
                wait = self.delay(number)
                if on_retry is not None:
                    on_retry(
                        exc, f"retrying in {wait:g} s (attempt {number + 1} of {self.retries + 1})"
                    )
                sleep(wait)


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """Everything a fetch of a date range is asked to do, except the key. ``None`` is the
    default for ``out_dir``, ``state`` and ``download_deadline``; ``fresh`` asks again for
    everything; ``only_dates`` limits downloads to releases of those ``YYYY-MM-DD`` days.
    """

    api_url: str = DEFAULT_API_URL
    out_dir: Path | None = None
    state: Path | None = None
    window_days: int = DEFAULT_WINDOW_DAYS
    daily_limit: int = DEFAULT_DAILY_LIMIT
    reset_hour: int = DEFAULT_RESET_HOUR
    allow_hosts: tuple[str, ...] = ()
    path_prefixes: tuple[str, ...] = DEFAULT_DOWNLOAD_PATHS
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES
    download_deadline: float | None = None
    downloads: int = DEFAULT_DOWNLOADS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    limits: FetchLimits = field(default_factory=FetchLimits)
    fresh: bool = False
    only_dates: frozenset[str] | None = None

    def state_folder(self) -> Path:
        """Where the cache and the quota ledger live."""
        return self.state or state_dir()

    def out_folder(self) -> Path:
        """Where the attachments and the manifest go."""
        return Path(self.out_dir) if self.out_dir else default_out_dir(self.api_url, self.state)


@dataclass(frozen=True, slots=True)
class FetchHooks:
    """What a fetch calls out to, replaceable by tests: DNS (``None`` skips the check that
    attachment hosts are public), the time (``None``: the real one), waiting."""

    resolver: Resolver | None = system_resolver
    clock: Callable[[], datetime] | None = None
    sleep: Callable[[float], None] = time.sleep


def default_out_dir(api_url: str, state: Path | None = None) -> Path:
    """Where ``scan --from/--to`` keeps attachments: one folder per API host and port.

    >>> default_out_dir("http://127.0.0.1:8123/x", Path("/s")).as_posix()
    '/s/downloads/127.0.0.1_8123'
    """
    parts = urlsplit(api_url)
    host = (parts.hostname or "api").lower()
    name = f"{host}_{parts.port}" if parts.port else host
    return (state or state_dir()) / "downloads" / name
