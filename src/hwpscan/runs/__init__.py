"""The run history: every scan, fetch and verify with its per-file results, and diffs.

- :mod:`~hwpscan.runs.store`: the SQLite store (:class:`RunStore`, ``runs.sqlite`` in
  the state folder) and its reading helpers (:func:`load_run`, :func:`list_runs`,
  :func:`diff_runs`);
- :mod:`~hwpscan.runs.recording`: :func:`~hwpscan.runs.recording.recorded_run`, the
  one way a run is recorded while it happens (and :func:`~hwpscan.runs.recording.fetch_summary`);
- :mod:`~hwpscan.runs.records`: what a stored run is (:class:`Run`, :class:`RunInfo`) and
  what a run did (:class:`RunSummary`, :class:`FetchFigures`);
- :mod:`~hwpscan.runs.diff`: what changed between two result sets, and each date's
  state (pure);
- :mod:`~hwpscan.runs.matrix`: parser-matrix rows stored with their run;
SQLite shared by concurrent processes (the store, and the fetch's call ledger) is
:mod:`hwpscan.shared_sqlite`, below both.

Secrets are kept out of stored arguments and summaries by
:func:`hwpscan.redaction.clean_args`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names
from hwpscan.runs.records import RUN_KINDS, FetchFigures, Run, RunInfo, RunSummary, new_run_id
from hwpscan.runs.store import (
    DB_NAME,
    RunRecorder,
    RunStore,
    default_store,
    diff_runs,
    list_runs,
    load_run,
)

if TYPE_CHECKING:
    from hwpscan.runs.diff import (
        CHANGE_KINDS,
        DATE_STATES,
        DateChange,
        FileChange,
        RunDiff,
        date_states,
        diff_results,
    )

#: The diff's names load when first asked for: recording a scan compares nothing.
_DIFF_NAMES = (
    "CHANGE_KINDS",
    "DATE_STATES",
    "DateChange",
    "FetchFigures",
    "FileChange",
    "RunDiff",
    "date_states",
    "diff_results",
)
__getattr__ = lazy_names(__name__, dict.fromkeys(_DIFF_NAMES, "hwpscan.runs.diff"))

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
