"""The persistent call ledger: calls per key per Korea-time day.

The API allows a fixed number of calls a day per key (30 for a personal key), and a
call answered with "limit exceeded" still counts. The ledger is a SQLite file under the
state folder; a call is *reserved* (counted) before it is made, inside a
``BEGIN IMMEDIATE`` transaction, so two runs sharing the ledger never both take the
last call; a run that finds the ledger locked waits (bounded) and retries. Only
``sha256(key)`` is stored.

>>> import tempfile, pathlib
>>> from datetime import datetime
>>> clock = lambda: datetime(2025, 7, 21, 9, 0, tzinfo=KST)
>>> with tempfile.TemporaryDirectory() as tmp:
...     ledger = QuotaLedger(pathlib.Path(tmp) / "q.sqlite", limit=2, clock=clock)
...     ledger.reserve("k"), ledger.reserve("k"), ledger.remaining("k")
(1, 2, 0)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager, suppress
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
    """Counts API calls per key hash per quota day in a SQLite file.

    Several runs may share the file: it runs in WAL mode and each operation waits up to
    *timeout* seconds for another run's lock (see :mod:`hwpscan.shared_sqlite`)
    before :class:`LedgerBusyError` says the ledger is busy.
    """

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
        with self._guard():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with closing(connect(self.path, timeout=timeout)) as db:
                ensure_wal(db, timeout=timeout)
                if not retry_busy(lambda: _has_table(db), timeout=timeout):
                    with self._write(db):
                        db.execute(_SCHEMA)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn a busy, damaged or unreachable ledger file into :class:`LedgerError`."""
        try:
            yield
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

    @contextmanager
    def _write(self, db: sqlite3.Connection) -> Iterator[None]:
        """One write transaction: the lock first (waited for), then the change."""
        begin_immediate(db, timeout=self.timeout)
        try:
            yield
        except BaseException:
            if db.in_transaction:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        commit(db, timeout=self.timeout)

    def _connect(self) -> sqlite3.Connection:
        return connect(self.path, timeout=self.timeout)

    def _day(self) -> date:
        return quota_day(self._clock(), reset_hour=self.reset_hour)

    def status(self, key: str) -> QuotaStatus:
        """Calls used today, the limit and the next reset."""
        now = self._clock()
        day = quota_day(now, reset_hour=self.reset_hour)
        with self._guard(), closing(self._connect()) as db:
            row = retry_busy(
                lambda: db.execute(
                    "SELECT count FROM calls WHERE key_hash = ? AND day = ?",
                    (key_hash(key), day.isoformat()),
                ).fetchone(),
                timeout=self.timeout,
            )
        return QuotaStatus(
            day, row[0] if row else 0, self.limit, next_reset(now, reset_hour=self.reset_hour)
        )

    def remaining(self, key: str) -> int:
        """Calls left today for ``key``."""
        return self.status(key).remaining

    def reserve(self, key: str) -> int:
        """Count one call before it is made; returns the calls used today including it.

        Raises :class:`QuotaExceededError` (nothing counted) when the limit is reached.
        """
        now = self._clock()
        day = quota_day(now, reset_hour=self.reset_hour).isoformat()
        digest = key_hash(key)
        with self._guard(), closing(self._connect()) as db, self._write(db):
            row = db.execute(
                "SELECT count FROM calls WHERE key_hash = ? AND day = ?", (digest, day)
            ).fetchone()
            used = row[0] if row else 0
            if used >= self.limit:
                status = QuotaStatus(
                    date.fromisoformat(day),
                    used,
                    self.limit,
                    next_reset(now, reset_hour=self.reset_hour),
                )
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
        with self._guard(), closing(self._connect()) as db, self._write(db):
            db.execute(
                "UPDATE calls SET count = count - 1 WHERE key_hash = ? AND day = ? AND count > 0",
                (key_hash(key), self._day().isoformat()),
            )

    def mark_exhausted(self, key: str) -> None:
        """Record that the API itself said the limit is reached (code 033)."""
        day = self._day().isoformat()
        with self._guard(), closing(self._connect()) as db, self._write(db):
            db.execute(
                "INSERT INTO calls (key_hash, day, count) VALUES (?, ?, ?) "
                "ON CONFLICT (key_hash, day) DO UPDATE SET count = MAX(count, excluded.count)",
                (key_hash(key), day, self.limit),
            )


def _has_table(db: sqlite3.Connection) -> bool:
    return (
        db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'calls'").fetchone()
        is not None
    )


def default_ledger_path(state: Path) -> Path:
    """The ledger's file inside the state folder."""
    return state / LEDGER_FILE
