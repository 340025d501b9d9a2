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
from hwpscan.errors import StateDirError, StoreError
from hwpscan.models import ExitCode, FileResult
from hwpscan.store import (
    CHANGE_KINDS,
    Run,
    RunDiff,
    RunInfo,
    RunNotFoundError,
    RunRecorder,
    RunStore,
    default_store,
)

if TYPE_CHECKING:  # the fetch layer (httpx) loads only when a fetch runs
    from hwpscan.fetch import FetchReport

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

    @property
    def run_id(self) -> str | None:
        return self.recorder.run_id if self.recorder else None

    def __call__(self, result: FileResult) -> None:
        self.results.append(result)
        if self.also is not None:
            self.also(result)
        self._store(lambda rec: rec.add(result))

    def flush(self) -> None:
        self._store(lambda rec: rec.flush())

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
        _write_bundle(sink.results, report_dir, run)
        if run is not None:
            err_console.print(f"run recorded: {run.id}", highlight=False)
    finally:
        if store is not None:
            store.close()


def _write_bundle(
    results: Sequence[FileResult], report_dir: Path | None, run: RunInfo | None
) -> None:
    if report_dir is None:
        return
    target = Path(str(report_dir).replace("{run}", run.id if run else "unrecorded"))
    from hwpscan.report.bundle import write_report  # pandas: loaded when a report is made

    ordered = sorted(results, key=lambda r: -1 if r.index is None else r.index)  # input order
    written = write_report(ordered, target, run=run)
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


def write_junit(results: Sequence[FileResult], out: Path | None = None) -> Path | None:
    """``scan --format junit``: JUnit XML to *out*, or to stdout when *out* is None."""
    from hwpscan.report.junit import junit_xml, write_junit_file

    if out is not None:
        return write_junit_file(results, out)
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:  # a text-only stdout (some embedders): the XML is ASCII-safe there
        sys.stdout.write(junit_xml(results).decode("utf-8"))
    else:  # bytes: the XML says UTF-8 whatever the terminal's encoding is
        sys.stdout.flush()
        stream.write(junit_xml(results))
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
    run: Annotated[str, typer.Argument(help="Run id, unique prefix, or 'latest'.")] = "latest",
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for the report (default: reports/<run-id>/)."),
    ] = None,
) -> None:
    """Write report.html, files.csv, pivot.csv, summary.md and junit.xml for a stored run."""
    stored = load_or_fail(run)
    target = out or DEFAULT_REPORTS / stored.id
    from hwpscan.report.bundle import write_report  # pandas: loaded when a report is made

    written = write_report(stored.results, target, run=stored.info)
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
) -> None:
    """List recorded runs: scans, fetches and verifications."""
    try:
        with default_store() as store:
            runs = store.list_runs(limit)
    except (StoreError, StateDirError) as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    if not runs:
        console.print("no runs recorded yet: run `hwpscan scan PATH` or `hwpscan demo`")
        return
    table = Table(
        title=f"Runs (newest first, stored in {default_store().path})", title_justify="left"
    )
    for col in (
        "run",
        "kind",
        "started (UTC)",
        "took",
        "files",
        "contaminated",
        "clean",
        "unreadable",
        "arguments",
    ):
        left = col in ("run", "kind", "started (UTC)", "arguments")
        table.add_column(col, justify="left" if left else "right", overflow="fold")
    for info in runs:
        table.add_row(
            info.id,
            info.kind,
            info.started.replace("+00:00", "").replace("T", " "),
            _duration(info),
            str(info.files),
            Text(str(info.contaminated), style="bold red" if info.contaminated else ""),
            str(info.clean),
            str(info.unreadable),
            _args_line(info.args),
        )
    console.print(table)


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
    run_a: Annotated[str, typer.Argument(help="The earlier run (id, prefix or 'latest').")],
    run_b: Annotated[str, typer.Argument(help="The later run.")] = "latest",
) -> None:
    """Files and dates that became clean, became contaminated, appeared or vanished."""
    from hwpscan.store import diff_results

    a, b = load_or_fail(run_a), load_or_fail(run_b)
    render_diff(diff_results(a.id, a.results, b.id, b.results))
