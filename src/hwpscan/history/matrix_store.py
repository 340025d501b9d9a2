"""Parser-matrix rows in the run store: one row per file and extractor, with its run.

The table is created on first use (``CREATE TABLE IF NOT EXISTS``), so databases from
before it keep working and nothing changes for runs without a matrix. Rows are written
in small batches while the matrix runs (:class:`MatrixRecorder`), each batch its own
transaction, so a run that is killed keeps what was written before.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hwpscan.history.store import RunStore

if TYPE_CHECKING:
    from hwpscan.matrix.matrix_rows import MatrixRow

__all__ = ["MatrixRecorder", "add_matrix_rows", "load_matrix_rows"]

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS matrix_rows (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    path   TEXT NOT NULL,
    parser TEXT NOT NULL,
    status TEXT NOT NULL,
    guilty INTEGER NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
)""",
    "CREATE INDEX IF NOT EXISTS matrix_rows_parser ON matrix_rows (run_id, parser)",
)


def _ensure(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)


def add_matrix_rows(store: RunStore, run_id: str, rows: Iterable[MatrixRow]) -> int:
    """Persist matrix rows for *run_id* (one transaction); returns how many."""
    batch = list(rows)
    if not batch:
        return 0
    with store._tx() as conn:
        _ensure(conn)
        (seq,) = conn.execute(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM matrix_rows WHERE run_id = ?", (run_id,)
        ).fetchone()
        conn.executemany(
            "INSERT INTO matrix_rows (run_id, seq, path, parser, status, guilty, data)"
            " VALUES (?,?,?,?,?,?,?)",
            [
                (
                    run_id,
                    seq + i,
                    r.path,
                    r.parser,
                    r.status,
                    int(r.guilty),
                    json.dumps(r.to_json(), ensure_ascii=False),
                )
                for i, r in enumerate(batch)
            ],
        )
    return len(batch)


def load_matrix_rows(store: RunStore, run_id: str) -> list[MatrixRow]:
    """The matrix rows of a run, in the order they were recorded (none: ``[]``)."""
    with store._lock:
        conn = store._connect()
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'matrix_rows'"
        ).fetchone()
        if exists is None:
            return []
        data = conn.execute(
            "SELECT data FROM matrix_rows WHERE run_id = ? ORDER BY seq", (run_id,)
        ).fetchall()
    from hwpscan.matrix.matrix_rows import MatrixRow  # the matrix package: only to read rows back

    return [MatrixRow.from_json(json.loads(d)) for (d,) in data]


class MatrixRecorder:
    """Adds matrix rows to one run as they arrive, every *batch* rows or *max_delay*
    seconds, and on :meth:`flush`."""

    def __init__(
        self, store: RunStore, run_id: str, *, batch: int = 32, max_delay: float = 0.5
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.added = 0
        self._batch = max(1, batch)
        self._max_delay = max_delay
        self._pending: list[MatrixRow] = []
        self._last = time.monotonic()

    def add(self, row: MatrixRow) -> None:
        self._pending.append(row)
        if len(self._pending) >= self._batch or time.monotonic() - self._last >= self._max_delay:
            self.flush()

    __call__ = add

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        self.added += add_matrix_rows(self.store, self.run_id, pending)
        self._last = time.monotonic()
