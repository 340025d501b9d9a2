"""``hwpscan report``, ``history`` and ``diff``: the stored runs, read back."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from hwpscan.cli.app import ENV_LOCAL, app, console, epilog, err_console, fail
from hwpscan.cli.machine import (
    MachineFormat,
    MachineFormatOpt,
    ResultsOutOpt,
    check_results_file,
    diff_json,
    history_json,
    print_json,
)
from hwpscan.cli.options import split_list
from hwpscan.errors import StateDirError, StoreError, UsageError
from hwpscan.history.store import DEFAULT_KEEP_RUNS, KEEP_RUNS_ENV, default_store, keep_runs
from hwpscan.models import ExitCode

if TYPE_CHECKING:
    from hwpscan.history import Run, RunDiff, RunInfo
    from hwpscan.matrix.matrix_rows import MatrixRow


DEFAULT_REPORTS = Path("reports")
DIFF_FAIL_ON = ("became-contaminated",)
CHANGE_LABELS = {
    "became_contaminated": ("became contaminated", "bold red"),
    "became_clean": ("became clean", "green"),
    "status_changed": ("status changed", "yellow"),
    "appeared": ("appeared", "cyan"),
    "vanished": ("vanished", "magenta"),
}


@app.command(
    rich_help_panel="Runs and reports",
    epilog=epilog(
        [
            ("hwpscan report", "report.html and friends for the latest run"),
            ("hwpscan report latest~1 --out old-report/", "the run before it, elsewhere"),
        ],
        ENV_LOCAL,
        ["0  report written", "2  no such run, or a fetch run (it holds no scan results)"],
    ),
)
def report(
    run: Annotated[
        str, typer.Argument(help="Run id (or its start or end), 'latest' or 'latest~N'.")
    ] = "latest",
    out: Annotated[
        Path | None, typer.Option(help="Folder for the report (default: reports/<run-id>/).")
    ] = None,
    fmt: Annotated[
        MachineFormat,
        typer.Option(
            "--format", "-f", help="table: lines for people; json: one document for tools."
        ),
    ] = MachineFormat.table,
    output: ResultsOutOpt = None,
) -> None:
    """Write report.html, files.csv, pivot.csv, summary.md and junit.xml for a stored run."""
    from hwpscan.cli.runs_view import load_or_fail

    output = check_results_file(output, fmt.value, "json")
    stored = load_or_fail(run)
    target = out or DEFAULT_REPORTS / stored.id
    with default_store() as store:
        matrix = store.matrix_rows(stored.id)
    written = _write_or_stop(stored, target, matrix)
    verdicts = stored.info.summary.get("verdicts") if stored.info.kind == "verify" else None
    if fmt is MachineFormat.json:
        print_json(report_json(stored.info, written, verdicts), output)
        _warn_if_partial(stored.info)  # on stderr: the document says "partial" too
    else:
        _report_lines(stored.info, written, verdicts)


def _report_lines(info: RunInfo, written: Sequence[Path], verdicts: object) -> None:
    """What ``report`` says for people: the run, its verdicts, the files written."""
    from hwpscan.report.tables import verdict_tally

    line = Text(f"run {info.id}: ")
    if isinstance(verdicts, dict) and verdicts:
        line.append(verdict_tally(verdicts.values()))
        line.append("; ")
    line.append(f"{info.files} files, {info.contaminated} contaminated")
    console.print(line)
    _warn_if_partial(info)
    for path in written:
        console.print(f"  {path}", highlight=False)


def _warn_if_partial(info: RunInfo) -> None:
    if info.finished is None:
        err_console.print(
            f"[yellow]warning:[/] run {info.id} was interrupted: the report is partial, "
            f"it holds only the {info.files} file(s) recorded before the run stopped",
            markup=True,
            highlight=False,
            soft_wrap=True,
        )


#: ``report --format json`` (its keys: docs/scanning.md).
REPORT_SCHEMA = "hwpscan.report/1"


def report_json(info: RunInfo, written: Sequence[Path], verdicts: object) -> dict[str, Any]:
    """``report --format json``'s document."""
    return {
        "schema": REPORT_SCHEMA,
        "run": info.id,
        "kind": info.kind,
        "files": info.files,
        "contaminated": info.contaminated,
        "partial": info.finished is None,
        "verdicts": verdicts if isinstance(verdicts, dict) else None,
        "written": [str(path) for path in written],
    }


def _write_or_stop(stored: Run, target: Path, matrix: Sequence[MatrixRow]) -> list[Path]:
    """The report files; a stop says the folder was not finished and how to write it."""
    from hwpscan.cli.stop import interrupted
    from hwpscan.report.bundle import write_report  # pandas: loaded when a report is made

    try:
        return write_report(stored.results, target, run=stored.info, matrix=matrix)
    except KeyboardInterrupt:
        again = shlex.join(["hwpscan", "report", stored.id, "--out", str(target)])
        kept = [
            f"the report in {target} was not finished (each file in it is whole, old or new); "
            f"run {stored.id} is unchanged in the history"
        ]
        raise interrupted(kept, again) from None


HistoryActionArg = Annotated[
    str | None,
    typer.Argument(
        help="prune: delete all but the newest --keep runs; delete RUN...: delete these "
        "runs (id, its start or end, latest, latest~N). None: list the runs.",
        show_default=False,
    ),
]
HistoryRunsArg = Annotated[
    list[str] | None, typer.Argument(help="The runs to delete.", show_default=False)
]
KeepOpt = Annotated[
    int | None,
    typer.Option(
        "--keep",
        min=1,
        help=f"prune: how many runs to keep (default: {KEEP_RUNS_ENV}, else "
        f"{DEFAULT_KEEP_RUNS}; each recorded run prunes to it too).",
        show_default=False,
    ),
]


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


def render_history(runs: Sequence[RunInfo], short_ids: Mapping[str, str], where: Path) -> None:
    """The runs as a table, then how to name one."""
    from hwpscan.report.tables import history_table

    if not runs:
        console.print("no runs recorded yet: run `hwpscan scan PATH` or `hwpscan demo`")
        return
    table = history_table(
        runs,
        title=f"Runs, newest first (stored in {where})",
        short_ids=dict(short_ids),
        width=console.width,
        args_line=lambda info: _args_line(info.args),
        took=_duration,
    )
    console.print(table, soft_wrap=False)  # the table lays itself out in the width
    console.print(
        "name a run by its id, its start or end, latest, or latest~N (N runs back)",
        style="dim",
        highlight=False,
    )


@app.command(
    rich_help_panel="Runs and reports",
    epilog=epilog(
        [
            ("hwpscan history", "the last 20 runs, newest first"),
            ("hwpscan history prune --keep 10", "delete all but the newest ten runs"),
        ],
        (*ENV_LOCAL, KEEP_RUNS_ENV),
        ["0  listed, pruned or deleted", "2  no such run, or the run store cannot be used"],
    ),
)
def history(
    action: HistoryActionArg = None,
    runs: HistoryRunsArg = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, help="How many runs, newest first.")
    ] = 20,
    keep: KeepOpt = None,
    fmt: MachineFormatOpt = MachineFormat.table,
    output: ResultsOutOpt = None,
) -> None:
    """List recorded runs (scans, fetches and verifications), or prune or delete them.

    The history keeps the newest 50 runs (HWPSCAN_KEEP_RUNS sets how many, 0 all):
    each run recorded prunes the oldest, and the file shrinks with them.
    """
    if action is not None:
        _forget(action, list(runs or []), keep)
        return
    output = check_results_file(output, fmt.value, "json")
    try:
        with default_store() as store:
            listed = store.list_runs(limit)
            short_ids = {info.id: store.short_id(info.id) for info in listed}
    except (StoreError, StateDirError) as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    where = store.path
    if fmt is MachineFormat.json:
        print_json(history_json(listed), output)
    else:
        render_history(listed, short_ids, where)


def _forget(action: str, refs: list[str], keep: int | None) -> None:
    """``history prune`` and ``history delete RUN...``: what was deleted, and the size."""
    if action not in ("prune", "delete"):
        raise fail(f"history takes prune or delete, not {action!r}", ExitCode.USAGE)
    if action == "prune" and refs:
        raise fail("history prune takes no run: use history delete RUN...", ExitCode.USAGE)
    if action == "delete" and not refs:
        raise fail("history delete needs the runs to delete (e.g. latest~3)", ExitCode.USAGE)
    if action == "delete" and keep is not None:
        raise fail("--keep goes with history prune", ExitCode.USAGE)
    try:
        with default_store() as store:
            before = _size(store.path)
            if action == "prune":
                gone = store.prune(keep if keep is not None else keep_runs())
            else:
                gone = store.delete_runs([store.resolve(ref) for ref in refs])
            left = len(store.list_runs(1_000_000))
            after = _size(store.path)
    except (StoreError, StateDirError, UsageError) as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    for run_id in gone:
        console.print(f"deleted run {run_id}", highlight=False)
    console.print(
        f"{len(gone)} run{'s' * (len(gone) != 1)} deleted, {left} kept; the history "
        f"({store.path}) went from {before / 1e6:.1f} MB to {after / 1e6:.1f} MB",
        highlight=False,
    )


def _size(path: Path) -> int:
    """The bytes of a store: its file and its write-ahead log."""
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def _n(value: int | None) -> str:
    """A count, or a dash when the file was absent or its body not read.

    >>> _n(1234), _n(None)
    ('1,234', '—')
    """
    return "—" if value is None else f"{value:,}"


def render_diff(d: RunDiff) -> None:
    """Print a run diff: the dates whose state changed, then the files, then the tally."""
    from hwpscan.history.diff import CHANGE_KINDS

    console.print(f"diff {d.a} → {d.b}")
    if d.empty:
        console.print(f"[green]no change[/] ({d.unchanged} files the same)")
        return
    from rich.table import Table

    def label(kind: str) -> Text:
        return Text(CHANGE_LABELS[kind][0], style=CHANGE_LABELS[kind][1])

    if d.dates:  # the dates whose state changed
        table = Table(title="Dates", title_justify="left")
        for col in ("date", "before", "after", "change"):
            table.add_column(col)
        for dc in d.dates:
            table.add_row(dc.date, dc.before or "—", dc.after or "—", label(dc.kind))
        console.print(table)
    if d.files:  # the files whose verdict changed, with their surrogates before and after
        table = Table(title="Files", title_justify="left")
        for col in ("change", "file", "date", "before", "after", "surrogates"):
            table.add_column(
                col, overflow="fold", justify="right" if col == "surrogates" else "left"
            )
        for c in d.files:
            surrogates = f"{_n(c.surrogates_before)} → {_n(c.surrogates_after)}"
            table.add_row(
                label(c.kind), c.path, c.date or "—", c.before or "—", c.after or "—", surrogates
            )
        console.print(table)
    counts = ", ".join(
        f"{len(d.of_kind(k))} {CHANGE_LABELS[k][0]}" for k in CHANGE_KINDS if d.of_kind(k)
    )
    console.print(f"files: {counts}; {d.unchanged} unchanged")


@app.command(
    rich_help_panel="Runs and reports",
    epilog=epilog(
        [
            ("hwpscan diff latest~1", "what changed between the last two runs"),
            ("hwpscan diff 8f3a latest", "a run by the end of its id against the latest"),
        ],
        ENV_LOCAL,
        ["0  compared", "2  no such run"],
    ),
)
def diff(
    run_a: Annotated[
        str, typer.Argument(help="The earlier run (id, its start or end, 'latest~1').")
    ],
    run_b: Annotated[str, typer.Argument(help="The later run.")] = "latest",
    fmt: MachineFormatOpt = MachineFormat.table,
    output: ResultsOutOpt = None,
    fail_on: Annotated[
        list[str],
        typer.Option(
            help="Exit 1 when a file or date 'became-contaminated' (for CI; repeatable, or "
            "comma-separated).",
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
) -> None:
    """Files and dates that became clean, became contaminated, appeared or vanished."""
    from hwpscan.cli.runs_view import load_or_fail
    from hwpscan.history.diff import diff_results

    output = check_results_file(output, fmt.value, "json")
    fail_on = split_list(fail_on)
    bad = [v for v in fail_on if v not in DIFF_FAIL_ON]
    if bad:
        raise fail(
            f"diff --fail-on takes {', '.join(DIFF_FAIL_ON)}, not {', '.join(bad)}", ExitCode.USAGE
        )
    a, b = load_or_fail(run_a), load_or_fail(run_b)
    d = diff_results(a.id, a.results, b.id, b.results)
    if fmt is MachineFormat.json:
        print_json(diff_json(d), output)
    else:
        render_diff(d)
    regressed = d.of_kind("became_contaminated") or d.dates_of_kind("became_contaminated")
    if "became-contaminated" in fail_on and regressed:
        raise typer.Exit(code=ExitCode.FINDINGS)
