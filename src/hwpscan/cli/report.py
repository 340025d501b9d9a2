"""``hwpscan report``, ``history``, ``diff`` and ``verify``; run recording for ``scan``.

Options in, core calls (:mod:`hwpscan.store`, :mod:`hwpscan.report.bundle`,
:mod:`hwpscan.verify`), rendering out. :func:`record_and_report` and
:func:`write_junit` are what ``scan`` calls.
"""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from hwpscan.cli.app import app, console, err_console, fail
from hwpscan.errors import UsageError
from hwpscan.models import ExitCode, FileResult
from hwpscan.report.bundle import write_report
from hwpscan.report.junit import write_junit_file
from hwpscan.store import (
    CHANGE_KINDS,
    RunDiff,
    RunInfo,
    RunNotFoundError,
    RunRecorder,
    RunStore,
    date_states,
    default_store,
)

__all__ = [
    "RunSink",
    "diff",
    "history",
    "record_and_report",
    "recorded_run",
    "report",
    "verify",
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
    except (sqlite3.Error, OSError) as exc:
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
        except (sqlite3.Error, OSError) as exc:
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
    except (sqlite3.Error, OSError) as exc:
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
                store.finish_run(sink.recorder.run_id)
                run = store.run_info(sink.recorder.run_id)
            except (sqlite3.Error, OSError) as exc:
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
    written = write_report(results, target, run=run)
    err_console.print(f"report written: {written[0]} (+{len(written) - 1} files)", highlight=False)


def write_junit(results: Sequence[FileResult], out: Path) -> Path:
    """``scan --format junit``: the JUnit XML file (see :mod:`hwpscan.report.junit`)."""
    return write_junit_file(results, out)


# -- report -------------------------------------------------------------------------


def _load(ref: str):
    try:
        with default_store() as store:
            return store.load_run(ref)
    except RunNotFoundError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


@app.command()
def report(
    run: Annotated[str, typer.Argument(help="Run id, unique prefix, or 'latest'.")] = "latest",
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for the report (default: reports/<run-id>/)."),
    ] = None,
) -> None:
    """Write report.html, files.csv, pivot.csv, summary.md and junit.xml for a stored run."""
    stored = _load(run)
    target = out or DEFAULT_REPORTS / stored.id
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


@app.command()
def history(
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many runs, newest first.")
    ] = 20,
) -> None:
    """List recorded runs: scans, fetches and verifications."""
    with default_store() as store:
        runs = store.list_runs(limit)
    if not runs:
        console.print("no runs recorded yet: run `hwpscan scan PATH` or `hwpscan demo`")
        return
    table = Table(
        title=f"Runs (newest first, stored in {default_store().path})", title_justify="left"
    )
    for col, just in (
        ("run", "left"),
        ("kind", "left"),
        ("started (UTC)", "left"),
        ("took", "right"),
        ("files", "right"),
        ("contaminated", "right"),
        ("clean", "right"),
        ("unreadable", "right"),
        ("arguments", "left"),
    ):
        table.add_column(col, justify=just, overflow="fold")
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
    return "—" if value is None else f"{value:,}"


def render_diff(d: RunDiff) -> None:
    console.print(f"diff {d.a} → {d.b}")
    if d.empty:
        console.print(f"[green]no change[/] ({d.unchanged} files the same)")
        return
    if d.dates:
        table = Table(title="Dates", title_justify="left")
        for col in ("date", "before", "after", "change"):
            table.add_column(col)
        for c in d.dates:
            label, style = CHANGE_LABELS[c.kind]
            table.add_row(c.date, c.before or "—", c.after or "—", Text(label, style=style))
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


@app.command()
def diff(
    run_a: Annotated[str, typer.Argument(help="The earlier run (id, prefix or 'latest').")],
    run_b: Annotated[str, typer.Argument(help="The later run.")] = "latest",
) -> None:
    """Files and dates that became clean, became contaminated, appeared or vanished."""
    from hwpscan.store import diff_results

    a, b = _load(run_a), _load(run_b)
    render_diff(diff_results(a.id, a.results, b.id, b.results))


# -- verify -------------------------------------------------------------------------


class Expect(str, enum.Enum):
    contaminated = "contaminated"
    clean = "clean"


def _parse_days(values: Sequence[str]) -> list[date]:
    from hwpscan.fetch.dates import parse_date

    try:
        return [parse_date(v, what="--date") for v in values]
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


def render_verdicts(verdicts: Sequence[Any], *, show_before: bool) -> None:
    from hwpscan.fetch.dates import with_weekday

    table = Table(title="Verification", title_justify="left")
    for col in (
        "date",
        "files",
        "raw extraction",
        "repaired text",
        "expected",
        *(("before",) if show_before else ()),
        "verdict",
    ):
        table.add_column(col, justify="right" if col == "files" else "left")
    for v in verdicts:
        raw = (
            Text(f"contaminated ({v.contaminated}/{v.files})", style="bold red")
            if v.raw == "contaminated"
            else Text(v.raw, style="green" if v.raw == "clean" else "yellow")
        )
        repaired = (
            Text("—", style="dim")
            if v.repaired_clean is None
            else Text("UTF-8 clean", style="green")
            if v.repaired_clean
            else Text("FAIL", style="bold red")
        )
        verdict = (
            Text("OK", style="bold green")
            if v.matches
            else Text(f"MISMATCH: {v.reason}", style="bold red")
        )
        table.add_row(
            with_weekday(date.fromisoformat(v.date)),
            str(v.files),
            raw,
            repaired,
            v.expected or "any",
            *((v.before or "—",) if show_before else ()),
            verdict,
        )
    console.print(table)
    for v in verdicts:
        for problem in v.problems:
            err_console.print(f"[red]{v.date}[/]: {problem}", highlight=False)


@app.command()
def verify(
    dates: Annotated[
        list[str],
        typer.Option(
            "--date", "-d", help="A day to verify, YYYY-MM-DD (repeatable).", show_default=False
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    expect: Annotated[
        Expect | None,
        typer.Option("--expect", help="What the raw extraction should show on every date."),
    ] = None,
    after: Annotated[
        str | None,
        typer.Option("--after", help="Compare with this earlier run (id, prefix or 'latest')."),
    ] = None,
    api_url: Annotated[
        str | None,
        typer.Option(
            "--api-url",
            envvar="HWPSCAN_API_URL",
            help="The listing endpoint (default: the real API).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for attachments (default: the scan cache)."),
    ] = None,
    allow_host: Annotated[
        list[str],
        typer.Option("--allow-host", help="Also download attachments from this host (repeatable)."),
    ] = [],  # noqa: B006
    download_path: Annotated[
        list[str],
        typer.Option(
            "--download-path",
            help="Accepted attachment path prefix (repeatable; replaces the default).",
        ),
    ] = [],  # noqa: B006
    window_days: Annotated[
        int, typer.Option("--window-days", min=1, help="Days per call, both ends counted.")
    ] = 21,
    daily_limit: Annotated[
        int | None,
        typer.Option("--daily-limit", min=0, help="Calls allowed per key per Korea-time day."),
    ] = None,
    reset_hour: Annotated[
        int | None,
        typer.Option("--reset-hour", min=0, max=23, help="Korea-time hour the daily quota resets."),
    ] = None,
    max_mb: Annotated[
        float | None, typer.Option("--max-mb", min=0.001, help="Size cap per attachment, MB.")
    ] = None,
    connect_timeout: Annotated[
        float, typer.Option("--connect-timeout", min=0.1, help="Seconds.")
    ] = 10.0,
    read_timeout: Annotated[
        float, typer.Option("--read-timeout", min=0.1, help="Seconds between bytes.")
    ] = 60.0,
    retries: Annotated[
        int, typer.Option("--retries", min=0, help="Retries on timeouts and 5xx.")
    ] = 3,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Scan processes (0: one per core).")
    ] = 0,
    show_progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bars.")
    ] = True,
) -> None:
    """Fetch chosen dates (cache first), scan them, and give a verdict per date.

    Exit 0 when every date matches, 1 on any mismatch, 2 on bad dates, 3 when the API
    or its limits stopped the fetch.
    """
    from hwpscan.cli.fetch import fetch_for_scan, stop_message
    from hwpscan.fetch import DEFAULT_API_URL
    from hwpscan.scan import collect_files, resolve_dates, scan_paths
    from hwpscan.verify import group_dates, verdicts

    days = _parse_days(dates)
    before: dict[str, str] | None = None
    if after is not None:
        baseline = _load(after)
        before = date_states(baseline.results)
        if not days:
            days = sorted(date.fromisoformat(d) for d in before)
    if not days:
        raise fail(
            "give at least one --date YYYY-MM-DD (or --after RUN to re-check its dates)",
            ExitCode.USAGE,
        )
    url = api_url or DEFAULT_API_URL
    options: dict[str, Any] = {
        "window_days": window_days,
        "allow_hosts": tuple(allow_host),
        "connect_timeout": connect_timeout,
        "read_timeout": read_timeout,
        "retries": retries,
    }
    if daily_limit is not None:
        options["daily_limit"] = daily_limit
    if reset_hour is not None:
        options["reset_hour"] = reset_hour
    if max_mb is not None:
        options["max_bytes"] = int(max_mb * 1_000_000)
    if download_path:
        options["path_prefixes"] = tuple(download_path)
    folder: Path | None = out
    stopped: str | None = None
    for first, last in group_dates(days, window_days):
        folder, fetched = fetch_for_scan(
            first.isoformat(),
            last.isoformat(),
            api_url=url,
            out_dir=folder,
            show_progress=show_progress,
            **options,
        )
        if fetched.exit_code is not ExitCode.OK:
            stopped = stop_message(fetched)
            break
    wanted = {d.isoformat() for d in days}
    files = collect_files([folder]) if folder is not None and folder.exists() else []
    file_dates = resolve_dates(files)
    chosen = [p for p in files if file_dates.get(p) in wanted]
    results = list(scan_paths(chosen, jobs=jobs or None, dates=file_dates))
    on_disk = {r.path: p for r, p in zip(results, chosen, strict=True)}
    found = verdicts(
        [d.isoformat() for d in days],
        results,
        on_disk,
        expect=expect.value if expect else None,
        before=before,
    )
    render_verdicts(found, show_before=before is not None)
    args = {
        "dates": sorted(wanted),
        "expect": expect.value if expect else None,
        "after": after,
        "api_url": url,
        "out": folder,
    }
    record_and_report(
        results,
        kind="verify",
        args=args,
        summary={"verdicts": {v.date: ("ok" if v.matches else v.reason) for v in found}},
    )
    if stopped:
        raise fail(stopped, ExitCode.API)
    bad = [v for v in found if not v.matches]
    console.print(
        f"{len(found) - len(bad)} of {len(found)} dates as expected"
        + (f"; mismatch on {', '.join(v.date for v in bad)}" if bad else "")
    )
    raise typer.Exit(code=ExitCode.FINDINGS if bad else ExitCode.OK)
