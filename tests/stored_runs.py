"""Runs written straight into a store, for tests that set a run's start time themselves.

hwpscan records runs with :func:`hwpscan.history.recording.recorded_run` while they happen;
these tests need runs with chosen start times (id order, ``latest``, the history's
layout), which only the store's own primitives take.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from hwpscan.history import RunStore, RunSummary
from hwpscan.models import FileResult


def stored_run(
    store: RunStore,
    kind: str,
    args: Mapping[str, Any],
    results: Iterable[FileResult] = (),
    *,
    started: datetime | None = None,
    summary: RunSummary | None = None,
) -> str:
    """A finished run of *kind* with *results*; returns its id."""
    run_id = store.start_run(kind, args, started=started)
    store.add_results(run_id, results)
    store.finish_run(run_id, summary=summary)
    return run_id
