"""The run history: every scan, fetch and verify with its per-file results (the SQLite
:mod:`~hwpscan.history.store`, written while a run happens by
:func:`~hwpscan.history.recording.recorded_run`), and what changed between two runs.
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
from hwpscan.history.store import DB_NAME, RunRecorder, RunStore, default_store, diff_runs, load_run

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
    "load_run",
    "new_run_id",
]
