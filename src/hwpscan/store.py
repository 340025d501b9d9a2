"""The run store: every scan, fetch and verify with its per-file results, in SQLite.

The database lives at ``state_dir()/runs.sqlite`` (``HWPSCAN_HOME`` wins). A run is
opened with :func:`start_run`, results are added as they arrive with
:func:`add_results` (each call is its own transaction, so a run that dies later loses
nothing already computed) and :func:`finish_run` stamps the end. The functions here
work on the default store unless given ``store=``; :class:`RunStore` (in
:mod:`hwpscan.runstore.db`) is the handle they use.

Arguments are stored without secrets (see :func:`clean_args`):

>>> clean_args({"api_key": "x", "authKey": "y", "from": "2025-07-21", "jobs": 2})
{'from': '2025-07-21', 'jobs': 2}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from hwpscan.models import FileResult
from hwpscan.redaction import clean_args
from hwpscan.rundiff import (
    CHANGE_KINDS,
    DateChange,
    FileChange,
    RunDiff,
    date_states,
    diff_results,
)
from hwpscan.runstore.db import RunRecorder, RunStore
from hwpscan.runstore.records import RUN_KINDS, Run, RunInfo, new_run_id

__all__ = [
    "CHANGE_KINDS",
    "DB_NAME",
    "RUN_KINDS",
    "DateChange",
    "FileChange",
    "Run",
    "RunDiff",
    "RunInfo",
    "RunRecorder",
    "RunStore",
    "add_results",
    "clean_args",
    "date_states",
    "default_store",
    "diff_results",
    "diff_runs",
    "finish_run",
    "list_runs",
    "load_run",
    "new_run_id",
    "record_run",
    "start_run",
]

DB_NAME = "runs.sqlite"


def default_store() -> RunStore:
    """The store under :func:`hwpscan.home.state_dir`."""
    from hwpscan.home import state_dir

    return RunStore(state_dir() / DB_NAME)


def record_run(
    kind: str,
    args: Mapping[str, Any],
    results: Iterable[FileResult],
    *,
    started: datetime | None = None,
    summary: Mapping[str, Any] | None = None,
    store: RunStore | None = None,
) -> str:
    """Record a finished run in the default store (or *store*); returns its id."""
    with _using(store) as s:
        return s.record_run(kind, args, results, started=started, summary=summary)


def start_run(
    kind: str,
    args: Mapping[str, Any],
    *,
    started: datetime | None = None,
    store: RunStore | None = None,
) -> str:
    """Open a run of *kind* (``scan``, ``fetch`` or ``verify``) and return its id.

    *args* are stored scrubbed of secrets. Add results with :func:`add_results`, then
    :func:`finish_run`; a run never finished shows as interrupted in ``history``.
    """
    with _using(store) as s:
        return s.start_run(kind, args, started=started)


def add_results(
    run_id: str, results: Iterable[FileResult], *, store: RunStore | None = None
) -> int:
    """Add results to an open run in one transaction; returns how many were added."""
    with _using(store) as s:
        return s.add_results(run_id, results)


def finish_run(
    run_id: str, *, summary: Mapping[str, Any] | None = None, store: RunStore | None = None
) -> None:
    """Stamp the end of a run; *summary* (scrubbed of secrets) says what it did."""
    with _using(store) as s:
        s.finish_run(run_id, summary=summary)


def list_runs(limit: int = 20, *, store: RunStore | None = None) -> list[RunInfo]:
    """The *limit* newest runs, newest first, with their per-status file counts."""
    with _using(store) as s:
        return s.list_runs(limit)


def load_run(ref: str = "latest", *, store: RunStore | None = None) -> Run:
    """A run and its results by id, unique id prefix or end, ``latest`` or ``latest~N``.

    Raises :class:`RunNotFoundError` (a usage error) when nothing or several runs match.
    """
    with _using(store) as s:
        return s.load_run(ref)


@contextmanager
def _using(store: RunStore | None) -> Iterator[RunStore]:
    """*store* as given, or the default store opened for the call and closed after."""
    if store is not None:
        yield store
        return
    own = default_store()
    try:
        yield own
    finally:
        own.close()


# -- comparing two stored runs (the logic lives in hwpscan.rundiff) -------------------


def diff_runs(a: str, b: str, *, store: RunStore | None = None) -> RunDiff:
    """Compare two stored runs (ids, unique prefixes or ``latest``)."""
    with _using(store) as s:
        run_a, run_b = s.load_run(a), s.load_run(b)
    return diff_results(run_a.id, run_a.results, run_b.id, run_b.results)
