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

Results reach the store in small batches as they come (:class:`RunRecorder`), so a run
that dies keeps what it computed; such a run is left unfinished, which ``history``
shows as interrupted. The history is a record, not the work: when the store cannot be
opened or written (disk full, locked too long, no state folder) the run goes on, the
rows that follow go to a temporary database instead (so :attr:`Recording.results` keeps
every row), and *on_warning* is told why.

After each recorded run the history is pruned to the newest *keep* runs (by default
:func:`~hwpscan.history.store.keep_runs`: 50, or ``HWPSCAN_KEEP_RUNS``), and a run the
caller :meth:`~Recording.forget`-s (a scan that found no document) is not kept at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from hwpscan.errors import StateDirError, StoreError
from hwpscan.history.matrix_store import MatrixRecorder
from hwpscan.history.records import FetchFigures, RunArgs, RunInfo, RunSummary
from hwpscan.history.store import RunRecorder, RunStore, default_store, keep_runs
from hwpscan.history.stored_rows import StoredRows
from hwpscan.models import FileResult
from hwpscan.scanning.row_handoff import Row

if TYPE_CHECKING:  # the fetch layer (httpx) loads only when a fetch runs
    from hwpscan.matrix.matrix_rows import MatrixRow
    from hwpscan.usecases.run_fetch import FetchReport

__all__ = ["HISTORY_ERRORS", "Recording", "fetch_summary", "recorded_run"]

#: What makes the history unavailable without stopping the run it would record.
HISTORY_ERRORS = (sqlite3.Error, OSError, StoreError, StateDirError)

Warn = Callable[[str], None]


class Recording:
    """A run being recorded: call it with each result (a ``sink`` for ``run_scan``).

    Every result is queued for the store and can be read back from :attr:`results` (for
    the report and the caller: :class:`~hwpscan.history.stored_rows.StoredRows`, which holds none
    of them). Without a *recorder* (a run not recorded, or a history that cannot be
    written) the rows go to a temporary database of the same schema instead;
    :meth:`matrix_row` does the same for parser-matrix rows. :attr:`summary` is stored
    with the run when it finishes; :attr:`info` is the stored run after that (None when
    the history could not be written, or the run was interrupted).
    """

    def __init__(
        self,
        recorder: RunRecorder | None,
        *,
        also: Callable[[FileResult], None] | None = None,
        on_warning: Warn | None = None,
        also_row: Callable[[Row], None] | None = None,
        also_rows: Callable[[Sequence[Row]], None] | None = None,
    ) -> None:
        self.results = StoredRows(self.flush)
        self.matrix: list[MatrixRow] = []
        self.summary = RunSummary()  # stored when the run finishes
        self.info: RunInfo | None = None
        self.interrupted = False
        self.forgotten = False  # forget(): the run is not kept in the history
        self.pruned: list[str] = []  # the old runs pruned after this one was recorded
        self.warnings: list[str] = []
        self._recorder = recorder
        self._matrix_recorder: MatrixRecorder | None = None
        self._also = also
        self._also_row = also_row
        self._also_rows = also_rows
        self._on_warning = on_warning
        self._rows: RunRecorder | None = None  # where the rows go when not to the history
        if recorder is not None:
            self.results.stored_in(recorder.store, recorder.run_id)
        else:
            self._elsewhere([])

    @property
    def run_id(self) -> str | None:
        """The run's id in the store; None when the history is not being written."""
        return self._recorder.run_id if self._recorder else None

    def __call__(self, result: FileResult | Row) -> None:
        """Keep a row (a result, or a :class:`~hwpscan.scanning.row_handoff.Row` as the
        pool gave it), show it to *also_row* (else *also*), and queue it for the store."""
        self.take((result if isinstance(result, Row) else Row.of(result),))

    def take(self, rows: Sequence[Row]) -> None:
        """Keep a batch of rows as the pool gave them (a worker's message), each step
        once for the batch: *also_rows*, when given, sees the batch at once, else
        *also_row* (or *also*) each row; then the batch is queued for the store."""
        self.results.extend(rows)
        self._keep(rows)
        if self._also_rows is not None:
            self._also_rows(rows)
        else:
            for row in rows:
                if self._also_row is not None:
                    self._also_row(row)
                elif self._also is not None:
                    self._also(row.result)
        self._store(lambda rec: rec.add(*rows))

    def matrix_row(self, row: MatrixRow) -> None:
        """Keep a parser-matrix row and persist it with the run (in small batches)."""
        self.matrix.append(row)
        self._store(lambda rec: self._matrix(rec).add(row))

    def flush(self) -> None:
        """Write what is pending (results, then matrix rows)."""
        self._store(lambda rec: rec.flush())
        self._keep((), flush=True)
        if self._matrix_recorder is not None:
            matrix = self._matrix_recorder
            self._store(lambda _rec: matrix.flush())

    def stored_info(self) -> RunInfo | None:
        """The run as the history holds it now (unfinished after a stop), or None when
        it is not being recorded or cannot be read."""
        if self.info is not None or self._recorder is None:
            return self.info
        try:
            return self._recorder.store.run_info(self._recorder.run_id)
        except HISTORY_ERRORS:
            return None

    def forget(self) -> None:
        """Keep this run out of the history (a scan that found no document): it is
        deleted from the store when it ends, instead of being finished."""
        self.forgotten = True

    def warn(self, message: str) -> None:
        """Note why the history is incomplete, and tell *on_warning*."""
        self.warnings.append(message)
        if self._on_warning is not None:
            self._on_warning(message)

    def _matrix(self, recorder: RunRecorder) -> MatrixRecorder:
        if self._matrix_recorder is None:
            self._matrix_recorder = MatrixRecorder(recorder.store, recorder.run_id)
        return self._matrix_recorder

    def _store(self, action: Callable[[RunRecorder], None]) -> None:
        """Do *action* on the store; on failure warn once and record no more."""
        if self._recorder is None:
            return
        try:
            action(self._recorder)
        except HISTORY_ERRORS as exc:
            self._lost(exc)

    def _lost(self, exc: BaseException) -> None:
        recorder, self._recorder = self._recorder, None
        self.warn(f"run not recorded in the history: {exc}")
        if self._rows is None:  # the rows the history did not take go elsewhere
            self._elsewhere(recorder.pending if recorder is not None else [])

    def _keep(self, rows: Sequence[FileResult | Row], *, flush: bool = False) -> None:
        """Queue rows for the temporary store, when the history does not take them (and
        write them, with *flush*); when a temporary database on disk fails, one in
        memory takes its rows."""
        temporary = self._rows
        if temporary is None:
            return
        try:
            temporary.add(*rows)
            if flush:
                temporary.flush()
        except HISTORY_ERRORS:
            if temporary.store.in_memory:
                raise
            self._elsewhere(temporary.pending, in_memory=True)

    def _elsewhere(self, pending: Sequence[FileResult | Row], *, in_memory: bool = False) -> None:
        """Store rows in a temporary database from now on, *pending* (the last rows
        added, not stored yet) first."""
        try:
            store = RunStore.temporary(in_memory=in_memory)
            temporary = RunRecorder(store, store.start_run("scan", {}))
        except HISTORY_ERRORS:
            if in_memory:
                raise
            self._elsewhere(pending, in_memory=True)
            return
        self.results.stored_in(store, temporary.run_id, first=len(self.results) - len(pending))
        self._rows = temporary
        if pending:
            self._keep(pending)

    def _finish(self, keep: int) -> None:
        """Stamp the end with the summary and read back the stored run (or delete it,
        when forgotten), then prune the history to the newest *keep* runs."""
        recorder = self._recorder
        if recorder is None:
            return
        if self.forgotten:
            try:
                recorder.store.delete_runs([recorder.run_id], shrink=False)
            except HISTORY_ERRORS as exc:
                self.warn(f"the run could not be left out of the history: {exc}")
            return
        try:
            summary = self.summary if self.summary != RunSummary() else None
            recorder.store.finish_run(recorder.run_id, summary=summary)
            self.info = recorder.store.run_info(recorder.run_id)
        except HISTORY_ERRORS as exc:
            self._lost(exc)
            return
        try:
            self.pruned = recorder.store.prune(keep)
        except HISTORY_ERRORS as exc:  # the run is recorded: only the pruning failed
            self.warn(f"the history could not be pruned: {exc}")


@contextmanager
def recorded_run(
    kind: str,
    args: RunArgs,
    *,
    also: Callable[[FileResult], None] | None = None,
    on_warning: Warn | None = None,
    store: RunStore | None = None,
    also_row: Callable[[Row], None] | None = None,
    also_rows: Callable[[Sequence[Row]], None] | None = None,
    keep: int | None = None,
) -> Iterator[Recording]:
    """Record a run of *kind* (``scan``, ``fetch``, ``verify``) with its *args* (stored
    scrubbed of secrets) while it happens.

    Yields a :class:`Recording`: call it with each result (*also* sees each one too,
    e.g. a stream writer; *also_row*, when given, sees each one instead as the
    :class:`~hwpscan.scanning.row_handoff.Row` it came in; *also_rows* each batch given to
    :meth:`Recording.take`). On a normal exit the run is finished with
    the recording's summary; on an exception what was computed is flushed, the run stays unfinished
    (``history``: interrupted) and the exception goes on. *store* defaults to
    :func:`default_store`, opened and closed here. After the run the history keeps its
    newest *keep* runs (None: :func:`~hwpscan.history.store.keep_runs`; 0: all).
    """
    keep = keep_runs() if keep is None else keep  # a bad setting: said before any work
    own = store is None
    recorder: RunRecorder | None = None
    lost: BaseException | None = None
    try:
        store = store or default_store()
        recorder = RunRecorder(store, store.start_run(kind, args.to_json()))
    except HISTORY_ERRORS as exc:
        lost = exc
    except BaseException:  # a kind that is not a run kind: a bug in the caller
        if own and store is not None:
            store.close()
        raise
    recording = Recording(
        recorder, also=also, on_warning=on_warning, also_row=also_row, also_rows=also_rows
    )
    if lost is not None:
        recording._lost(lost)
    try:
        try:
            yield recording
        except BaseException:
            recording.interrupted = True
            raise
        finally:
            recording.flush()
        recording._finish(keep)
    finally:
        if own and store is not None:
            store.close()


def fetch_summary(report: FetchReport) -> FetchFigures:
    """What a fetch did (a :class:`hwpscan.api.FetchReport`), for the run's summary."""
    return FetchFigures(
        calls_made=report.calls_made,
        calls_cached=report.calls_cached,
        releases=report.releases,
        files_downloaded=report.files_downloaded,
        files_skipped=report.files_skipped,
        files_failed=report.files_failed,
        files_refused=report.files_refused,
        range=f"{report.start}..{report.end}",
        error=str(report.error) if report.error is not None else None,
    )
