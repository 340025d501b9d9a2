"""Recording a run while it happens: the one way scan, fetch and verify reach the history.

>>> import tempfile, pathlib
>>> from hwpscan.models import Format, Status
>>> from hwpscan.history.store import RunStore
>>> with tempfile.TemporaryDirectory() as tmp, RunStore(pathlib.Path(tmp) / "r.sqlite") as db:
...     with recorded_run("scan", RunArgs(options={"paths": ["a"]}), store=db) as rec:
...         rec(FileResult("a/x.pdf", "", 1, Format.PDF, Status.CLEAN))
...         rec.summary = RunSummary(matrix_rows=0)
...     stored = db.load_run(rec.run_id)
>>> stored.info.files, stored.info.summary, stored.info.finished is not None
(1, {'matrix_rows': 0}, True)

Rows reach the store in small batches, so a run that dies keeps what it computed; when the
store cannot be written the run goes on, its rows in a temporary database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import fields
from typing import TYPE_CHECKING

from hwpscan.errors import StateDirError, StoreError
from hwpscan.history.records import FetchFigures, RunArgs, RunInfo, RunSummary
from hwpscan.history.store import RunRecorder, RunStore, default_store, keep_runs
from hwpscan.history.stored_rows import StoredRows
from hwpscan.models import FileResult
from hwpscan.scanning.row_handoff import Row
from hwpscan.whole_steps import whole_step

if TYPE_CHECKING:  # the fetch layer (httpx) loads only when a fetch runs
    from hwpscan.matrix.matrix_rows import MatrixRow
    from hwpscan.usecases.run_fetch import FetchReport

__all__ = ["HISTORY_ERRORS", "Recording", "fetch_summary", "recorded_run"]

#: What makes the history unavailable without stopping the run it would record.
HISTORY_ERRORS = (sqlite3.Error, OSError, StoreError, StateDirError)


class Recording:
    """A run being recorded: call it with each result. Rows are queued for the store
    (without a *recorder*, a temporary one) and read back from :attr:`results`;
    *also_rows* sees each batch, else *also_row* each row, else *also* each result.
    :attr:`info` is the stored run once finished (None: not recorded, or interrupted)."""

    def __init__(
        self,
        recorder: RunRecorder | None,
        *,
        also: Callable[[FileResult], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        also_row: Callable[[Row], None] | None = None,
        also_rows: Callable[[Sequence[Row]], None] | None = None,
    ) -> None:
        self.results = StoredRows(self.flush)
        self.matrix: list[MatrixRow] = []
        self.summary = RunSummary()  # stored when the run finishes
        self.info: RunInfo | None = None
        self.interrupted = False
        self.forgotten = False  # forget(): the run is deleted when it ends, not finished
        self.warnings: list[str] = []
        self._on_warning = on_warning
        self._also, self._also_row, self._also_rows = also, also_row, also_rows
        self._recorder = recorder  # the history's, while it takes the rows
        self._sink: RunRecorder  # where the rows go: the history, or a temporary store
        self._matrix: RunRecorder | None = None  # the matrix rows' (the history only)
        if recorder is None:
            self._move([], in_memory=False)
            return
        self._sink = recorder
        self.results.stored_in(recorder.store, recorder.run_id)
        store = recorder.store
        self._matrix = RunRecorder(store, recorder.run_id, batch=32, write=store.add_matrix_rows)

    @property
    def run_id(self) -> str | None:
        """The run's id in the store; None when the history is not being written."""
        return self._recorder.run_id if self._recorder else None

    def __call__(self, result: FileResult | Row) -> None:
        """Keep a row (a result, or a :class:`~hwpscan.scanning.row_handoff.Row`)."""
        self.take((result if isinstance(result, Row) else Row.of(result),))

    def take(self, rows: Sequence[Row]) -> None:
        """Keep a batch of rows (a worker's message): queued for the store, counted and
        shown in one step a stop does not split, then written when a batch is due. The
        output comes last: a second stop, or a failed write, leaves it short, never the
        store and the tallies apart."""
        with whole_step():
            self._sink.queue(*rows)
            self.results.extend(rows)
            if self._also_rows is not None:
                self._also_rows(rows)
            else:
                for row in rows:
                    if self._also_row is not None:
                        self._also_row(row)
                    elif self._also is not None:
                        self._also(row.result)
        self._guard(lambda sink: sink.flush() if sink.due else None)

    def matrix_row(self, row: MatrixRow) -> None:
        """Keep a parser-matrix row and persist it with the run (in small batches)."""
        matrix = self._matrix
        with whole_step():
            self.matrix.append(row)
            if matrix is not None:
                matrix.queue(row)
        if matrix is not None:
            self._guard(lambda _: matrix.flush() if matrix.due else None)

    def flush(self) -> None:
        """Write what is pending (results, then matrix rows)."""
        sink = self._sink
        self._guard(lambda s: s.flush())
        if self._sink is not sink:  # the rows moved: written where they went
            self._guard(lambda s: s.flush())
        matrix = self._matrix
        if matrix is not None:
            self._guard(lambda _: matrix.flush())

    def stored_info(self) -> RunInfo | None:
        """The run as the history holds it now (unfinished after a stop), or None."""
        if self.info is not None or self._recorder is None:
            return self.info
        try:
            return self._recorder.store.run_info(self._recorder.run_id)
        except HISTORY_ERRORS:
            return None

    def forget(self) -> None:
        """Keep this run out of the history (a scan that found no document)."""
        self.forgotten = True

    def warn(self, message: str) -> None:
        """Note why the history is incomplete, and tell *on_warning*."""
        self.warnings.append(message)
        if self._on_warning is not None:
            self._on_warning(message)

    def _guard(self, action: Callable[[RunRecorder], object]) -> None:
        """Do *action* on where the rows go; when that fails they go on elsewhere: from the
        history (warned once) to a temporary database, from disk to memory (a failure in
        memory fails the run)."""
        sink = self._sink
        try:
            action(sink)
        except HISTORY_ERRORS as exc:
            history = sink is self._recorder
            if history:
                self._recorder = self._matrix = None  # the matrix rows went with it
                self.warn(f"run not recorded in the history: {exc}")
            elif sink.store.in_memory:
                raise
            self._move(sink.pending, in_memory=not history)

    def _move(self, pending: Sequence[FileResult | Row], *, in_memory: bool) -> None:
        """Store rows in a temporary database from now on, *pending* (not stored yet) first."""
        try:
            store = RunStore.temporary(in_memory=in_memory)
            sink = RunRecorder(store, store.start_run("scan", {}))
        except HISTORY_ERRORS:
            if in_memory:
                raise
            self._move(pending, in_memory=True)
            return
        self.results.stored_in(store, sink.run_id, first=len(self.results) - len(pending))
        self._sink = sink
        if pending:
            self._guard(lambda s: s.add(*pending))

    def _finish(self, keep: int) -> None:
        """Finish the run with its summary (delete it when forgotten), then prune to *keep*."""
        recorder = self._recorder
        if recorder is None:
            return
        store, run_id = recorder.store, recorder.run_id
        if self.forgotten:
            try:
                store.delete_runs([run_id], shrink=False)
            except HISTORY_ERRORS as exc:
                self.warn(f"the run could not be left out of the history: {exc}")
            return
        summary = self.summary if self.summary != RunSummary() else None

        def finish(_: RunRecorder) -> None:
            store.finish_run(run_id, summary=summary)
            self.info = store.run_info(run_id)

        self._guard(finish)
        if self._recorder is None:  # the history failed: the run was not finished
            return
        try:
            store.prune(keep)
        except HISTORY_ERRORS as exc:  # the run is recorded: only the pruning failed
            self.warn(f"the history could not be pruned: {exc}")


@contextmanager
def recorded_run(
    kind: str,
    args: RunArgs,
    *,
    also: Callable[[FileResult], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    store: RunStore | None = None,
    also_row: Callable[[Row], None] | None = None,
    also_rows: Callable[[Sequence[Row]], None] | None = None,
    keep: int | None = None,
) -> Iterator[Recording]:
    """Record a run of *kind* with its *args* (scrubbed of secrets) while it happens, as
    the :class:`Recording` yielded: finished with its summary, or after an exception
    flushed and left unfinished; then the history keeps its newest *keep* runs (None:
    :func:`~hwpscan.history.store.keep_runs`; 0: all)."""
    keep = keep_runs() if keep is None else keep  # a bad setting: said before any work
    with ExitStack() as own:
        lost = ""
        try:
            store = store or own.enter_context(default_store())
            recorder: RunRecorder | None = RunRecorder(store, store.start_run(kind, args.to_json()))
        except HISTORY_ERRORS as exc:
            recorder, lost = None, f"run not recorded in the history: {exc}"
        recording = Recording(
            recorder, also=also, on_warning=on_warning, also_row=also_row, also_rows=also_rows
        )
        if lost:
            recording.warn(lost)
        try:
            yield recording
        except BaseException:
            recording.interrupted = True
            raise
        finally:
            recording.flush()
        recording._finish(keep)


def fetch_summary(report: FetchReport) -> FetchFigures:
    """What a fetch did (a :class:`hwpscan.api.FetchReport`), for the run's summary."""
    said = ("range", "error")
    counts = {f.name: getattr(report, f.name) for f in fields(FetchFigures) if f.name not in said}
    error = str(report.error) if report.error is not None else None
    return FetchFigures(**counts, range=f"{report.start}..{report.end}", error=error)
