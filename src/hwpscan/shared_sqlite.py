"""SQLite files shared by concurrent runs (the run store, the call ledger): WAL set once,
bounded waits, errors told apart.

SQLite's busy timeout covers most waits but not a journal-mode switch, nor a
transaction that read first and then needs the write lock: those fail with
``SQLITE_BUSY`` at once. So the mode is switched to WAL only when it is not WAL yet
(:func:`ensure_wal`), writes start with ``BEGIN IMMEDIATE``, and :func:`retry_busy`
retries on busy or locked until a deadline, then raises :class:`BusyError`. Only a
damaged file (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``) is called corrupt
(:func:`error_kind`).

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     conn = connect(pathlib.Path(tmp) / "x.sqlite", timeout=1.0)
...     mode = ensure_wal(conn, timeout=1.0)
...     conn.close()
>>> mode
'wal'
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from hwpscan.errors import BusyError

T = TypeVar("T")

#: Seconds a run waits for a database another run holds before it says "busy".
DEFAULT_TIMEOUT = 30.0

_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_BUSY_TEXT = ("database is locked", "database table is locked", "database is busy")


def error_kind(exc: BaseException) -> str:
    """``busy``, ``corrupt`` or ``other`` for an :mod:`sqlite3` error.

    >>> error_kind(sqlite3.OperationalError("database is locked"))
    'busy'
    >>> error_kind(sqlite3.DatabaseError("file is not a database"))
    'corrupt'
    >>> error_kind(sqlite3.OperationalError("unable to open database file"))
    'other'
    """
    if isinstance(exc, BusyError):
        return "busy"
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF  # extended codes (SQLITE_BUSY_SNAPSHOT...) keep the primary
        if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
            return "busy"
        if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
            return "corrupt"
        return "other"
    text = str(exc).lower()
    if any(t in text for t in _BUSY_TEXT):
        return "busy"
    if "not a database" in text or "malformed" in text:
        return "corrupt"
    return "other"


def retry_busy(
    action: Callable[[], T],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run *action* (safe to repeat: one statement, or a read), retrying it while SQLite
    says busy or locked, for *timeout* seconds, with doubling jittered pauses; then
    :class:`BusyError`. Any other error is raised at once."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if isinstance(exc, BusyError) or error_kind(exc) != "busy":
                raise
            if time.monotonic() >= deadline:
                raise BusyError(f"{exc} (waited {timeout:g} s)") from exc
            sleep(pause * random.uniform(0.5, 1.5))  # jitter, not a secret
            pause = min(pause * 2, 0.25)


def connect(path: Path, *, timeout: float = DEFAULT_TIMEOUT) -> sqlite3.Connection:
    """An autocommit connection whose busy handler waits up to *timeout* seconds."""
    conn = sqlite3.connect(path, timeout=timeout, check_same_thread=False, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    except BaseException:
        conn.close()
        raise
    return conn


def ensure_wal(conn: sqlite3.Connection, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Put the database in WAL mode unless it is already; the mode in force. Reading the
    (persistent) mode first spares later openers the exclusive lock a switch needs; a
    switch that meets another's lock is retried."""

    def switch() -> str:
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode == "wal":
            return mode
        return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()

    return retry_busy(switch, timeout=timeout)


def begin_immediate(conn: sqlite3.Connection, *, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Start a write transaction, waiting (bounded) for another writer to finish."""
    retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"), timeout=timeout)


def commit(conn: sqlite3.Connection, *, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Commit, retrying while readers keep the commit from finishing."""
    retry_busy(lambda: conn.execute("COMMIT"), timeout=timeout)


#: Unfinished runs started this recently are named when a file is busy.
_OPEN_RUN_HOURS = 12


def open_runs_note(path: Path, *, exclude: Iterable[str] = ()) -> str:
    """``" (runs still open: ...)"`` naming recent unfinished runs other than the
    caller's own (*exclude*), or ``""`` (also on any trouble reading: this only decorates
    a message)."""
    since = datetime.now(UTC).timestamp() - _OPEN_RUN_HOURS * 3600
    stamp = datetime.fromtimestamp(since, UTC).isoformat(timespec="seconds")
    try:
        conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=0.5)
        try:
            rows = conn.execute(
                "SELECT id, kind, started FROM runs WHERE finished IS NULL AND started >= ?"
                " ORDER BY started DESC, rowid DESC LIMIT 8",
                (stamp,),
            ).fetchall()
        finally:
            conn.close()
    except (sqlite3.Error, ValueError, OSError):
        return ""
    mine = set(exclude)
    rows = [row for row in rows if row[0] not in mine][:3]
    if not rows:
        return ""
    shown = ", ".join(f"{rid} ({kind}, started {started})" for rid, kind, started in rows)
    return f" (runs still open: {shown})"
