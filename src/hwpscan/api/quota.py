"""The call ledger: calls per key hash per Korea-time day, in SQLite. Each call is
*reserved* (counted) before it is made, under ``BEGIN IMMEDIATE``, so two runs sharing
the ledger never both take the last call (a refused call still counts at the API).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from hwpscan.api.dates import KST, next_reset, quota_day
from hwpscan.api.defaults import DEFAULT_DAILY_LIMIT
from hwpscan.errors import LedgerBusyError, LedgerError, QuotaExceededError
from hwpscan.redaction import key_hash
from hwpscan.shared_sqlite import (
    DEFAULT_TIMEOUT,
    begin_immediate,
    commit,
    connect,
    ensure_wal,
    error_kind,
    open_runs_note,
    retry_busy,
)

LEDGER_FILE = "quota.sqlite"
RUNS_FILE = "runs.sqlite"  # the run store beside it, asked which runs are open when busy

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key_hash TEXT NOT NULL,
    day TEXT NOT NULL,
    count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key_hash, day)
)
"""
_COUNT = "SELECT count FROM calls WHERE key_hash = ? AND day = ?"


@dataclass(frozen=True, slots=True)
class QuotaStatus:
    """Where a key stands today."""

    day: date
    used: int
    limit: int
    resets_at: datetime

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    def describe(self) -> str:
        """One line for people.

        >>> QuotaStatus(date(2025, 7, 21), 28, 30, datetime(2025, 7, 22, tzinfo=KST)).describe()
        '2 of 30 calls left for 2025-07-21 (resets 2025-07-22 00:00 KST)'
        """
        return (
            f"{self.remaining} of {self.limit} calls left for {self.day.isoformat()} "
            f"(resets {self.resets_at.strftime('%Y-%m-%d %H:%M')} KST)"
        )


class QuotaLedger:
    """API calls per key hash per quota day, in a SQLite file runs share (waits *timeout* s)."""

    def __init__(
        self,
        path: Path,
        *,
        limit: int = DEFAULT_DAILY_LIMIT,
        reset_hour: int = 0,
        clock: Callable[[], datetime] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if limit < 0:
            raise ValueError(f"daily limit must be >= 0, not {limit}")
        self.path = Path(path)
        self.limit = limit
        self.reset_hour = reset_hour
        self.timeout = timeout
        self._clock = clock or (lambda: datetime.now(tz=KST))
        has_table = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'calls'"
        with self._db() as db:
            ensure_wal(db, timeout=timeout)
            if not retry_busy(lambda: db.execute(has_table).fetchone(), timeout=timeout):
                begin_immediate(db, timeout=timeout)  # the lock only when the table is new
                db.execute(_SCHEMA)
                commit(db, timeout=timeout)

    @contextmanager
    def _db(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection of its own, in a write transaction with *write* (closed on error:
        rolled back); a busy, damaged or unreachable file is :class:`LedgerError`."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with closing(connect(self.path, timeout=self.timeout)) as db:
                if write:
                    begin_immediate(db, timeout=self.timeout)
                yield db
                if write:
                    commit(db, timeout=self.timeout)
        except sqlite3.Error as exc:
            kind = error_kind(exc)
            if kind == "busy":
                raise LedgerBusyError(
                    f"the call ledger {self.path} is busy: another hwpscan run held it for "
                    f"more than {self.timeout:g} s"
                    f"{open_runs_note(self.path.with_name(RUNS_FILE))}; "
                    "try again when that run has finished (no call was made)"
                ) from exc
            if kind == "corrupt":
                raise LedgerError(
                    f"the call ledger {self.path} cannot be used: it is not a usable SQLite "
                    f"database ({exc}); "
                    "move it aside and hwpscan starts a new one (today's count is then "
                    "forgotten, so mind the API's daily limit)"
                ) from exc
            raise LedgerError(
                f"the call ledger {self.path} cannot be used ({type(exc).__name__}: {exc})"
            ) from exc
        except OSError as exc:
            raise LedgerError(
                f"the call ledger {self.path} cannot be used ({exc.strerror or exc})"
            ) from exc

    def _today(self) -> tuple[datetime, str]:
        now = self._clock()
        return now, quota_day(now, reset_hour=self.reset_hour).isoformat()

    def status(self, key: str) -> QuotaStatus:
        """Calls used today, the limit and the next reset."""
        now, day = self._today()
        with self._db() as db:
            row = retry_busy(
                lambda: db.execute(_COUNT, (key_hash(key), day)).fetchone(), timeout=self.timeout
            )
        resets = next_reset(now, reset_hour=self.reset_hour)
        return QuotaStatus(date.fromisoformat(day), row[0] if row else 0, self.limit, resets)

    def reserve(self, key: str) -> int:
        """Count one call before it is made; the calls used today including it, or
        :class:`QuotaExceededError` (nothing counted) when the limit is reached."""
        now, day = self._today()
        digest = key_hash(key)
        with self._db(write=True) as db:
            row = db.execute(_COUNT, (digest, day)).fetchone()
            used = row[0] if row else 0
            if used >= self.limit:
                resets = next_reset(now, reset_hour=self.reset_hour)
                status = QuotaStatus(date.fromisoformat(day), used, self.limit, resets)
                raise QuotaExceededError(
                    f"daily call limit reached: {status.describe()}; run again after the reset"
                )
            db.execute(
                "INSERT INTO calls (key_hash, day, count) VALUES (?, ?, 1) "
                "ON CONFLICT (key_hash, day) DO UPDATE SET count = count + 1",
                (digest, day),
            )
        return used + 1

    def refund(self, key: str) -> None:
        """Give back a reserved call whose request never left (connection refused)."""
        with self._db(write=True) as db:
            db.execute(
                "UPDATE calls SET count = count - 1 WHERE key_hash = ? AND day = ? AND count > 0",
                (key_hash(key), self._today()[1]),
            )

    def mark_exhausted(self, key: str) -> None:
        """Record that the API itself said the limit is reached (code 033)."""
        with self._db(write=True) as db:
            db.execute(
                "INSERT INTO calls (key_hash, day, count) VALUES (?, ?, ?) "
                "ON CONFLICT (key_hash, day) DO UPDATE SET count = MAX(count, excluded.count)",
                (key_hash(key), self._today()[1], self.limit),
            )
