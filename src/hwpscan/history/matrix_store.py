"""Parser-matrix rows in the run store: one per file and extractor, kept with their run."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hwpscan.history.store import RunStore

if TYPE_CHECKING:
    from hwpscan.matrix.matrix_rows import MatrixRow

__all__ = ["add_matrix_rows", "load_matrix_rows"]


def add_matrix_rows(store: RunStore, run_id: str, rows: Iterable[MatrixRow]) -> int:
    """Persist matrix rows for *run_id* (one transaction); returns how many."""
    batch = [
        (r.path, r.parser, r.status, int(r.guilty), json.dumps(r.to_json(), ensure_ascii=False))
        for r in rows
    ]
    if batch:
        columns = "path, parser, status, guilty, data"
        store._append("matrix_rows", columns, "?,?,?,?,?", run_id, batch)
    return len(batch)


def load_matrix_rows(store: RunStore, run_id: str) -> list[MatrixRow]:
    """The matrix rows of a run, in the order they were recorded (none: ``[]``)."""
    data = store._query("SELECT data FROM matrix_rows WHERE run_id = ? ORDER BY seq", run_id)
    from hwpscan.matrix.matrix_rows import MatrixRow  # the matrix package: only to read rows back

    return [MatrixRow.from_json(json.loads(d)) for (d,) in data]
