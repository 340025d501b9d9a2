"""The run history: every scan, fetch and verify with its per-file results, and diffs.

The SQLite store is :mod:`~hwpscan.history.store` (``runs.sqlite`` in the state folder);
a run is recorded while it happens by :func:`~hwpscan.history.recording.recorded_run`;
:mod:`~hwpscan.history.records` says what a stored run is, :mod:`~hwpscan.history.diff`
what changed between two (pure), :mod:`~hwpscan.history.matrix_store` keeps parser-matrix
rows with their run.
"""

from __future__ import annotations

from hwpscan.history.diff import (
    CHANGE_KINDS,
    DATE_STATES,
    DateChange,
    FileChange,
    RunDiff,
    date_states,
    diff_results,
)
from hwpscan.history.records import RUN_KINDS, FetchFigures, Run, RunInfo, RunSummary, new_run_id
from hwpscan.history.store import (
    DB_NAME,
    RunRecorder,
    RunStore,
    default_store,
    diff_runs,
    list_runs,
    load_run,
)

__all__ = [
    "CHANGE_KINDS",
    "DATE_STATES",
    "DB_NAME",
    "RUN_KINDS",
    "DateChange",
    "FetchFigures",
    "FileChange",
    "Run",
    "RunDiff",
    "RunInfo",
    "RunRecorder",
    "RunStore",
    "RunSummary",
    "date_states",
    "default_store",
    "diff_results",
    "diff_runs",
    "list_runs",
    "load_run",
    "new_run_id",
]
