"""The run history: every scan, fetch and verify with its per-file results, and diffs.

- :mod:`~hwpscan.history.store`: the SQLite store (:class:`RunStore`, ``runs.sqlite`` in
  the state folder) and its reading helpers (:func:`load_run`, :func:`list_runs`,
  :func:`diff_runs`);
- :mod:`~hwpscan.history.recording`: :func:`~hwpscan.history.recording.recorded_run`, the
  one way a run is recorded while it happens;
- :mod:`~hwpscan.history.records`: what a stored run is (:class:`Run`, :class:`RunInfo`) and
  what a run did (:class:`RunSummary`, :class:`FetchFigures`);
- :mod:`~hwpscan.history.diff`: what changed between two result sets, and each date's
  state (pure);
- :mod:`~hwpscan.history.matrix_store`: parser-matrix rows stored with their run.

Secrets are kept out of stored arguments and summaries by
:func:`hwpscan.redaction.clean_args`.
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
