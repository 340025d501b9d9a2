"""The emulator's counters: calls per key hash per Korea day, downloads, refusals, errors.

Keys are only ever seen here as hashes (:func:`hwpscan.redaction.key_hash`).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any


@dataclass(frozen=True)
class Stats:
    """A snapshot of the counters, as served by ``GET /_emulator/stats``.

    >>> s = Stats(calls={"ab12": {"2025-07-21": 2}}, downloads={"/f?a=1": 3})
    >>> s.calls_total, s.calls_on("2025-07-21"), s.downloads_total
    (2, 2, 3)
    """

    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    downloads: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    not_modified: int = 0  # downloads answered 304 (counted in ``downloads`` too)

    @property
    def calls_total(self) -> int:
        """Listing calls that carried a key, over all keys and days."""
        return sum(n for days in self.calls.values() for n in days.values())

    @property
    def downloads_total(self) -> int:
        """Attachment requests, failed ones included."""
        return sum(self.downloads.values())

    def calls_on(self, day: date | str, key_hash: str | None = None) -> int:
        """Calls on a Korea-time day, for one key hash or all of them."""
        iso = day if isinstance(day, str) else day.isoformat()
        keys = [key_hash] if key_hash is not None else list(self.calls)
        return sum(self.calls.get(k, {}).get(iso, 0) for k in keys)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "calls": {k: dict(v) for k, v in self.calls.items()},
            "calls_total": self.calls_total,
            "downloads": dict(self.downloads),
            "downloads_total": self.downloads_total,
            "refusals": dict(self.refusals),
            "errors": dict(self.errors),
            "requests": self.requests,
            "not_modified": self.not_modified,
        }


class Counters:
    """Thread-safe counters shared by the request threads of one server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget every count (the quota starts over too)."""
        with self._lock:
            self._calls: defaultdict[str, Counter[str]] = defaultdict(Counter)
            self._tables: defaultdict[str, Counter[str]] = defaultdict(Counter)

    def count(self, table: str, key: str = "") -> int:
        """Count one in *table* (``requests``, ``downloads`` per URL, ``not_modified``,
        ``refusals`` per code, ``errors`` per fault) under *key*; return the new count."""
        with self._lock:
            self._tables[table][key] += 1
            return self._tables[table][key]

    def call(self, key_hash: str, day: date) -> int:
        """Count a listing call; return the key's calls that day, this one included."""
        with self._lock:
            calls = self._calls[key_hash]
            calls[day.isoformat()] += 1
            return calls[day.isoformat()]

    def error(self, kind: str) -> None:
        """Count a fault the emulator served or saw (``download_500``, ``not_found``...)."""
        self.count("errors", kind)

    def snapshot(self) -> Stats:
        """A consistent copy of every counter."""
        with self._lock:
            table = {name: dict(self._tables[name]) for name in ("downloads", "refusals", "errors")}
            return Stats(
                calls={k: dict(v) for k, v in self._calls.items()},
                requests=self._tables["requests"][""],
                not_modified=self._tables["not_modified"][""],
                **table,
            )
