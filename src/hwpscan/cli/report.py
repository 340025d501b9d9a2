"""``hwpscan report``, ``history`` and ``diff``; run recording for ``scan`` and ``fetch``.

Options in, core calls (:mod:`hwpscan.store`, :mod:`hwpscan.report.bundle`), rendering
out. :func:`recorded_run`, :func:`record_and_report` and :func:`write_junit` are what
``scan``, ``fetch`` and ``verify`` call.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from hwpscan.cli.app import app, console, err_console, fail
from hwpscan.cli.machine import MachineFormat, diff_json, history_json, print_json
from hwpscan.cli.options import OldOutOpt, deprecated, split_list
from hwpscan.errors import RunNotFoundError, StateDirError, StoreError
from hwpscan.matrix.rows import MatrixRow
from hwpscan.models import ExitCode, FileResult
from hwpscan.runstore.matrix import MatrixRecorder, load_matrix_rows
from hwpscan.store import CHANGE_KINDS, Run, RunDiff, RunInfo, RunRecorder, RunStore, default_store

if TYPE_CHECKING:  # the fetch layer (httpx) loads only when a fetch runs
    from hwpscan.fetch.run import FetchReport

__all__ = [
    "RunSink",
    "diff",
    "fetch_summary",
    "history",
    "record_and_report",
    "recorded_run",
    "report",
    "write_junit",
]

DEFAULT_REPORTS = Path("reports")
DIFF_FAIL_ON = ("became-contaminated",)
CHANGE_LABELS = {
    "became_contaminated": ("became contaminated", "bold red"),
    "became_clean": ("became clean", "green"),
    "status_changed": ("status changed", "yellow"),
    "appeared": ("appeared", "cyan"),
    "vanished": ("vanished", "magenta"),
}


# -- called from scan (and fetch) -------------------------------------------------------


def record_and_report(
    results: Sequence[FileResult],
    *,
    kind: str,
    args: Mapping[str, Any],
    report_dir: Path | None = None,
    summary: Mapping[str, Any] | None = None,
) -> str | None:
    """Record a finished run in the run store; with *report_dir*, write the report bundle.

    A ``{run}`` in *report_dir* is replaced by the run id (``reports/{run}``). Returns
    the run id, or None when the store could not be written (a warning says why; the
    scan's own outcome is not changed by a history failure).
    """
    run: RunInfo | None = None
    try:
        with default_store() as store:
            run_id = store.record_run(kind, args, results, summary=summary)
            run = store.run_info(run_id)
    except (sqlite3.Error, OSError, StoreError, StateDirError) as exc:
        _history_warning(exc)
    _write_bundle(results, report_dir, run)
    if run is not None:
        err_console.print(f"run recorded: {run.id}", highlight=False)
    return run.id if run else None


class RunSink:
    """A ``sink`` for ``run_scan``: keeps each result and persists it in the run store.

    If the store fails mid-run (disk full, locked for too long) the scan goes on with a
    warning; the results are still kept for the report.
    """

    def __init__(
        self, recorder: RunRecorder | None, also: Callable[[FileResult], None] | None = None
    ) -> None:
        self.recorder = recorder
        self.also = also
        self.results: list[FileResult] = []
        self.summary: dict[str, Any] = {}  # stored with the run when it finishes
        self.matrix: list[MatrixRow] = []  # parser-matrix rows, for the store and the report
        self._matrix_recorder: MatrixRecorder | None = None

    @property
    def run_id(self) -> str | None:
        return self.recorder.run_id if self.recorder else None

    def __call__(self, result: FileResult) -> None:
        self.results.append(result)
        if self.also is not None:
            self.also(result)
        self._store(lambda rec: rec.add(result))

    def matrix_row(self, row: MatrixRow) -> None:
        """Keep a parser-matrix row and persist it with the run (in small batches)."""
        self.matrix.append(row)
        if self.recorder is not None and self._matrix_recorder is None:
            self._matrix_recorder = MatrixRecorder(self.recorder.store, self.recorder.run_id)
        recorder = self._matrix_recorder
        if recorder is not None:
            self._store(lambda _rec: recorder.add(row))

    def flush(self) -> None:
        self._store(lambda rec: rec.flush())
        recorder = self._matrix_recorder
        if recorder is not None:
            self._store(lambda _rec: recorder.flush())

    def _store(self, action: Callable[[RunRecorder], None]) -> None:
        if self.recorder is None:
            return
        try:
            action(self.recorder)
        except (sqlite3.Error, OSError, StoreError, StateDirError) as exc:
            _history_warning(exc)
            self.recorder = None


def _history_warning(exc: BaseException) -> None:
    err_console.print(
        f"[yellow]warning:[/] run not recorded in the history: {exc}", highlight=False
    )


@contextmanager
def recorded_run(
    kind: str,
    args: Mapping[str, Any],
    *,
    report_dir: Path | None = None,
    also: Callable[[FileResult], None] | None = None,
) -> Iterator[RunSink]:
    """Record a run while it happens: pass the yielded sink to ``run_scan(sink=...)``.

    Results reach the store in small batches as they come; on a normal exit the run is
    finished and, with *report_dir* (``{run}`` becomes the run id), the report bundle
    written. On an exception what was computed is flushed and the run stays
    unfinished. Raise ``typer.Exit`` after the ``with`` block, not inside it.
    """
    store: RunStore | None = None
    recorder: RunRecorder | None = None
    try:
        store = default_store()
        recorder = RunRecorder(store, store.start_run(kind, args))
    except (sqlite3.Error, OSError, StoreError, StateDirError) as exc:
        _history_warning(exc)
    sink = RunSink(recorder, also)
    try:
        try:
            yield sink
        finally:
            sink.flush()
        run: RunInfo | None = None
        if sink.recorder is not None and store is not None:
            try:
                store.finish_run(sink.recorder.run_id, summary=sink.summary or None)
                run = store.run_info(sink.recorder.run_id)
            except (sqlite3.Error, OSError, StoreError, StateDirError) as exc:
                _history_warning(exc)
        _write_bundle(sink.results, report_dir, run, matrix=sink.matrix)
        if run is not None:
            err_console.print(f"run recorded: {run.id}", highlight=False)
    finally:
        if store is not None:
            store.close()


def _write_bundle(
    results: Sequence[FileResult],
    report_dir: Path | None,
    run: RunInfo | None,
    *,
    matrix: Sequence[MatrixRow] = (),
) -> None:
    if report_dir is None:
        return
    target = Path(str(report_dir).replace("{run}", run.id if run else "unrecorded"))
    from hwpscan.report.bundle import write_report  # pandas: loaded when a report is made

    ordered = sorted(results, key=lambda r: -1 if r.index is None else r.index)  # input order
    written = write_report(ordered, target, run=run, matrix=matrix)
    err_console.print(f"report written: {written[0]} (+{len(written) - 1} files)", highlight=False)


def fetch_summary(report: FetchReport) -> dict[str, Any]:
    """What a fetch did (a :class:`hwpscan.fetch.FetchReport`), for the run store."""
    counts = (
        "calls_made",
        "calls_cached",
        "releases",
        "files_downloaded",
        "files_skipped",
        "files_failed",
        "files_refused",
    )
    out: dict[str, Any] = {name: getattr(report, name) for name in counts}
    out["range"] = f"{report.start}..{report.end}"
    out["error"] = str(report.error) if report.error is not None else None
    return out


def write_junit(
    results: Sequence[FileResult],
    out: Path | None = None,
    *,
    gate: Sequence[str] | None = None,
    empty_reason: str | None = None,
) -> Path | None:
    """``scan --format junit``: JUnit XML to *out*, or to stdout when *out* is None.

    *gate* is the scan's ``--fail-on`` (None: everything not clean fails)."""
    from hwpscan.report.junit import junit_xml, write_junit_file

    if out is not None:
        return write_junit_file(results, out, gate=gate, empty_reason=empty_reason)
    data = junit_xml(results, gate=gate, empty_reason=empty_reason)
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:  # a text-only stdout (some embedders): the XML is ASCII-safe there
        sys.stdout.write(data.decode("utf-8"))
    else:  # bytes: the XML says UTF-8 whatever the terminal's encoding is
        sys.stdout.flush()
        stream.write(data)
        stream.flush()
    return None


# -- report -------------------------------------------------------------------------


def load_or_fail(ref: str) -> Run:
    """The stored run *ref* (id, prefix, ``latest``) with file results, or exit 2 saying why.

    A fetch run records its downloads, not scan results: reporting or diffing one would
    show nothing (or everything "appeared"), so it is refused with a pointer.
    """
    try:
        with default_store() as store:
            run = store.load_run(ref)
    except (RunNotFoundError, StoreError, StateDirError) as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    if run.info.kind == "fetch":
        raise fail(
            f"run {run.id} is a fetch: it holds downloads, not scan results; scan the folder "
            "(`hwpscan scan DIR`) and use that run",
            ExitCode.USAGE,
        )
    return run


@app.command(rich_help_panel="Runs and reports")
def report(
    run: Annotated[
        str, typer.Argument(help="Run id (or its start or end), 'latest' or 'latest~N'.")
    ] = "latest",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the report (default: reports/<run-id>/)."),
    ] = None,
    out_old: OldOutOpt = None,
) -> None:
    """Write report.html, files.csv, pivot.csv, summary.md and junit.xml for a stored run."""
    out = deprecated(out_old, out, "-o for a folder is deprecated: use --out")
    stored = load_or_fail(run)
    target = out or DEFAULT_REPORTS / stored.id
    from hwpscan.report.bundle import write_report  # pandas: loaded when a report is made

    with default_store() as store:
        matrix = load_matrix_rows(store, stored.id)
    written = write_report(stored.results, target, run=stored.info, matrix=matrix)
    console.print(
        f"run {stored.id}: {stored.info.files} files, {stored.info.contaminated} contaminated"
    )
    for path in written:
        console.print(f"  {path}", highlight=False)


# -- history ------------------------------------------------------------------------


def _duration(info: RunInfo) -> str:
    if info.finished is None:
        return "interrupted"
    seconds = (
        datetime.fromisoformat(info.finished) - datetime.fromisoformat(info.started)
    ).total_seconds()
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _args_line(args: Mapping[str, Any]) -> str:
    parts = []
    for key in ("paths", "start", "end", "dates", "api_url", "expect", "after"):
        value = args.get(key)
        if value in (None, "", [], False):
            continue
        parts.append(" ".join(map(str, value)) if isinstance(value, list) else f"{key}={value}")
    return "  ".join(parts)


@app.command(rich_help_panel="Runs and reports")
def history(
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many runs, newest first.")
    ] = 20,
    fmt: Annotated[
        MachineFormat,
        typer.Option("--format", "-f", help="table for people; json: one document for tools."),
    ] = MachineFormat.table,
) -> None:
    """List recorded runs: scans, fetches and verifications."""
    from hwpscan.report.tables import history_table

    try:
        with default_store() as store:
            runs = store.list_runs(limit)
            short = {info.id: store.short_id(info.id) for info in runs}
            where = store.path
    except (StoreError, StateDirError) as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    if fmt is MachineFormat.json:
        print_json(history_json(runs))
        return
    if not runs:
        console.print("no runs recorded yet: run `hwpscan scan PATH` or `hwpscan demo`")
        return
    console.print(
        history_table(
            runs,
            title=f"Runs, newest first (stored in {where})",
            short_ids=short,
            width=console.width,
            args_line=lambda info: _args_line(info.args),
            took=_duration,
        ),
        soft_wrap=False,  # a table lays itself out in the width (its title, a long path, too)
    )
    console.print(
        "name a run by its id, its start or end, latest, or latest~N (N runs back)",
        style="dim",
        highlight=False,
    )


# -- diff ---------------------------------------------------------------------------


def _n(value: int | None) -> str:
    """A count, or a dash when the file was absent or its body not read.

    >>> _n(1234), _n(None)
    ('1,234', '—')
    """
    return "—" if value is None else f"{value:,}"


def render_diff(d: RunDiff) -> None:
    """Print a run diff: the dates whose state changed, then the files, then the tally."""
    console.print(f"diff {d.a} → {d.b}")
    if d.empty:
        console.print(f"[green]no change[/] ({d.unchanged} files the same)")
        return
    if d.dates:
        table = Table(title="Dates", title_justify="left")
        for col in ("date", "before", "after", "change"):
            table.add_column(col)
        for dc in d.dates:
            label, style = CHANGE_LABELS[dc.kind]
            table.add_row(dc.date, dc.before or "—", dc.after or "—", Text(label, style=style))
        console.print(table)
    if d.files:
        table = Table(title="Files", title_justify="left")
        for col in ("change", "file", "date", "before", "after", "surrogates"):
            table.add_column(
                col, overflow="fold", justify="right" if col == "surrogates" else "left"
            )
        for c in d.files:
            label, style = CHANGE_LABELS[c.kind]
            table.add_row(
                Text(label, style=style),
                c.path,
                c.date or "—",
                c.before or "—",
                c.after or "—",
                f"{_n(c.surrogates_before)} → {_n(c.surrogates_after)}",
            )
        console.print(table)
    counts = ", ".join(
        f"{len(d.of_kind(k))} {CHANGE_LABELS[k][0]}" for k in CHANGE_KINDS if d.of_kind(k)
    )
    console.print(f"files: {counts}; {d.unchanged} unchanged")


@app.command(rich_help_panel="Runs and reports")
def diff(
    run_a: Annotated[
        str, typer.Argument(help="The earlier run (id, its start or end, 'latest~1').")
    ],
    run_b: Annotated[str, typer.Argument(help="The later run.")] = "latest",
    fmt: Annotated[
        MachineFormat,
        typer.Option("--format", "-f", help="table for people; json: one document for tools."),
    ] = MachineFormat.table,
    fail_on: Annotated[
        list[str],
        typer.Option(
            "--fail-on",
            help="Exit 1 when a file or date 'became-contaminated' (for CI; repeatable, or "
            "comma-separated).",
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
) -> None:
    """Files and dates that became clean, became contaminated, appeared or vanished."""
    from hwpscan.store import diff_results

    fail_on = split_list(fail_on)

    bad = [v for v in fail_on if v not in DIFF_FAIL_ON]
    if bad:
        raise fail(
            f"diff --fail-on takes {', '.join(DIFF_FAIL_ON)}, not {', '.join(bad)}", ExitCode.USAGE
        )
    a, b = load_or_fail(run_a), load_or_fail(run_b)
    d = diff_results(a.id, a.results, b.id, b.results)
    if fmt is MachineFormat.json:
        print_json(diff_json(d))
    else:
        render_diff(d)
    regressed = d.of_kind("became_contaminated") or d.dates_of_kind("became_contaminated")
    if "became-contaminated" in fail_on and regressed:
        raise typer.Exit(code=ExitCode.FINDINGS)
