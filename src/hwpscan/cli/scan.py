"""``hwpscan scan`` and ``hwpscan repair``: options in, core calls, rendering out."""

from __future__ import annotations

import enum
import io
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from hwpscan.cli import scale
from hwpscan.cli.app import (
    ApiUrlOpt,
    app,
    check_writable_folder,
    console,
    err_console,
    fail,
)
from hwpscan.cli.options import DOWNLOADS, DownloadsOpt, YesOpt, deprecated, split_list
from hwpscan.errors import UsageError
from hwpscan.fetch import DEFAULT_API_URL
from hwpscan.forensics.guard import OrphanPolicy as OrphanMode
from hwpscan.matrix import (
    MatrixRow,
    ParserSpec,
    matrix_exit_code,
    matrix_table,
    parse_parser_options,
    run_matrix,
)
from hwpscan.matrix.render import jsonl_row_writer, verdict_lines
from hwpscan.models import ExitCode, FileResult, combine_exit_codes
from hwpscan.report.export import csv_sink, jsonl_sink
from hwpscan.report.tables import Show, repair_table, scan_view, summary_line
from hwpscan.scan import (
    DEFAULT_FILE_TIMEOUT,
    FAIL_ON_ALIASES,
    FAIL_ON_CHOICES,
    collect_files,
    exit_code,
    resolve_dates,
    scan_paths,
)
from hwpscan.sources import shown_url


class OutputFormat(str, enum.Enum):
    table = "table"
    jsonl = "jsonl"
    csv = "csv"
    junit = "junit"


JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs", "-j", min=0, help="Worker processes (0: one per core).", show_default=False
    ),
]
ProgressOpt = Annotated[
    bool, typer.Option("--progress/--no-progress", help="Show a progress bar on long scans.")
]
FileTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--file-timeout",
        min=0,
        help="Seconds one file may take before its worker is stopped (0: no limit).",
    ),
]


class SortOrder(str, enum.Enum):
    completion = "completion"
    input = "input"


def run_scan(
    paths: Sequence[Path],
    *,
    jobs: int,
    progress: bool,
    repair_dir: Path | None = None,
    orphans: OrphanMode = "drop",
    pua_map: bool = False,
    sink: Callable[[FileResult], None] | None = None,
    file_timeout: float = DEFAULT_FILE_TIMEOUT,
) -> list[FileResult]:
    """Collect files, date them, scan them with a progress bar; return the results in
    input order.

    *sink* receives each result the moment it exists, in the order files complete
    (streamed output, the run store), so neither a failure later in the batch nor one
    slow file can hold back what was already computed.
    """
    files = collect_files(paths)
    dates = resolve_dates(files)
    results: list[FileResult] = []
    with _progress(len(files), enabled=progress) as advance:
        for result in scan_paths(
            files,
            jobs=jobs or None,
            dates=dates,
            repair_dir=repair_dir,
            orphans=orphans,
            pua_map=pua_map,
            file_timeout=file_timeout,
            ordered=False,
        ):
            results.append(result)
            advance(result)
            if sink is not None:
                sink(result)
    return sorted(results, key=input_order)


def input_order(result: FileResult) -> int:
    """Sort key restoring the input order of streamed results."""
    return -1 if result.index is None else result.index


def render_tables(
    results: Sequence[FileResult], *, root: Path | str | None = None, show: Show | None = None
) -> None:
    """Verdict, date x format table, the file rows *show* asks for, verdict again."""
    shown_root = str(root) if root is not None else None
    for part in scan_view(results, root=shown_root, width=console.width, show=show):
        console.print(part)


def _display_root(paths: Sequence[Path]) -> Path | None:
    """The folder to show paths relative to: the one folder scanned, if that is all."""
    return paths[0] if len(paths) == 1 and paths[0].is_dir() else None


@contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[FileResult], None]]:
    if not enabled or total < 20 or not err_console.is_terminal:
        yield lambda _result: None
        return
    bar = Progress(
        TextColumn("scanning"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )
    with bar:
        task = bar.add_task("scan", total=total)
        yield lambda _result: bar.advance(task)


@contextmanager
def _open_output(output: Path | None, *, append: bool = False) -> Iterator[IO[str]]:
    """The stream for machine output: always UTF-8, whatever the terminal's encoding."""
    if output is None:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None or (sys.stdout.encoding or "").lower().replace("-", "") == "utf8":
            yield sys.stdout
            return
        sys.stdout.flush()
        utf8 = io.TextIOWrapper(buffer, encoding="utf-8", newline="", write_through=True)
        try:
            yield utf8
        finally:
            utf8.flush()
            utf8.detach()  # leave sys.stdout's buffer open
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        handle = output.open("a" if append else "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}", ExitCode.USAGE) from None
    with handle:
        yield handle


def _check_paths(paths: Sequence[Path]) -> None:
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise fail(f"no such file or folder: {', '.join(map(str, missing))}", ExitCode.USAGE)


def _check_fail_on(values: Sequence[str]) -> list[str]:
    """The gate, with ``error`` read as its newer name ``unreadable``."""
    bad = [v for v in values if v not in FAIL_ON_CHOICES]
    if bad:
        names = " or ".join(c for c in FAIL_ON_CHOICES if c not in FAIL_ON_ALIASES)
        raise fail(
            f"--fail-on takes {names} ('error' is another name for 'unreadable'), "
            f"not {', '.join(bad)}",
            ExitCode.USAGE,
        )
    return list(dict.fromkeys(FAIL_ON_ALIASES.get(v, v) for v in values))


def _streaming_writer(
    fmt: OutputFormat, out: IO[str], *, bom: bool = True
) -> Callable[[FileResult], None]:
    return csv_sink(out, bom=bom) if fmt is OutputFormat.csv else jsonl_sink(out)


@app.command(rich_help_panel="Scan files")
def scan(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Files and folders (searched recursively).", show_default=False),
    ] = None,
    fmt: Annotated[
        OutputFormat,
        typer.Option("--format", "-f", help="table for people; jsonl, csv or junit for tools."),
    ] = OutputFormat.table,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write jsonl/csv/junit here instead of stdout."),
    ] = None,
    report_dir: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write report.html, files.csv, pivot.csv, summary.md and junit.xml to "
            "this folder ('{run}' becomes the run id).",
        ),
    ] = None,
    jobs: JobsOpt = 0,
    fail_on: Annotated[
        list[str],
        typer.Option(
            "--fail-on",
            help="Exit 1 when a file is 'contaminated' or 'unreadable' ('error' is an alias); "
            "with no document at all, exit 2 (repeatable, or comma-separated).",
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    emit_repaired: Annotated[
        Path | None,
        typer.Option(
            "--emit-repaired", help="Write each body's repaired UTF-8 text below this folder."
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option("--from", help="Fetch releases from this day (YYYY-MM-DD), then scan them."),
    ] = None,
    end: Annotated[
        str | None, typer.Option("--to", help="Last day to fetch (YYYY-MM-DD, inclusive).")
    ] = None,
    api_url: ApiUrlOpt = DEFAULT_API_URL,
    downloads: DownloadsOpt = DOWNLOADS,
    yes: YesOpt = False,
    fetch_out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="With --from/--to: keep attachments here (default: state folder)."
        ),
    ] = None,
    parser: Annotated[
        list[str],
        typer.Option(
            "--parser",
            help="Also run these extractors on every file and compare them with the strict "
            "view: codeunit, strict, pyhwp, module:function (repeatable, or comma-separated).",
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    parser_cmd: Annotated[
        list[str],
        typer.Option(
            "--parser-cmd",
            help="Also run a command extractor: NAME='tool {path}' (repeatable; one command "
            "each, as a command line may itself hold commas).",
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    parser_timeout: Annotated[
        float,
        typer.Option("--parser-timeout", min=0.1, help="Seconds before an extractor is killed."),
    ] = 30.0,
    strict_markup: Annotated[
        bool,
        typer.Option(
            "--strict-markup",
            help="Parser matrix: count markup, placeholders and replaced or extra text as guilt "
            "too (by default only leaked or lost text and failures are).",
        ),
    ] = False,
    progress: ProgressOpt = True,
    show: Annotated[
        Show | None,
        typer.Option(
            "--show",
            help="File rows in the table: all, problems (not clean) or none "
            "(default: all up to 50 files, problems above).",
            show_default=False,
        ),
    ] = None,
    bom: Annotated[
        bool,
        typer.Option(
            "--bom/--no-bom",
            help="Start --format csv with a UTF-8 byte-order mark, so spreadsheets read it "
            "as UTF-8.",
        ),
    ] = True,
    executor: Annotated[
        scale.Executor,
        typer.Option(
            "--executor",
            help="local: this machine's processes; dask: a Dask cluster "
            "(pip install 'hwpscan[dask]').",
        ),
    ] = scale.Executor.local,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            envvar="HWPSCAN_DASK_SCHEDULER",
            help="Dask scheduler (tcp://HOST:8786); without it a local cluster on 127.0.0.1.",
            show_default=False,
        ),
    ] = None,
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=1, help="Files per Dask task.")
    ] = scale.DEFAULT_BATCH,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            help="Skip files this run (id, prefix, 'latest') already holds with the same "
            "size; its rows are carried into the new run.",
            show_default=False,
        ),
    ] = None,
    file_timeout: FileTimeoutOpt = DEFAULT_FILE_TIMEOUT,
    sort: Annotated[
        SortOrder,
        typer.Option(
            "--sort",
            help="jsonl/csv rows as files complete (each row has its input 'index'), or "
            "all at the end in input order.",
        ),
    ] = SortOrder.completion,
) -> None:
    """Scan attachments for surrogate code points, private-use characters and UTF-8 failures.

    Give files and folders, or --from/--to to fetch a date range first (cache first,
    within the API's daily quota).
    """
    from hwpscan.cli.fetch_view import fetch_for_scan, raise_for_report
    from hwpscan.cli.runs_view import reported_run
    from hwpscan.runs.recording import fetch_summary

    wanted = _check_fail_on(split_list(fail_on))
    specs = _parser_specs(",".join(split_list(parser)) or None, parser_cmd)
    if output is not None and fmt is OutputFormat.table:
        message = "--output needs --format jsonl, csv or junit (tables go to the terminal)"
        raise fail(message, ExitCode.USAGE)
    if emit_repaired is not None:
        check_writable_folder(emit_repaired, "--emit-repaired")
    if report_dir is not None:  # fail now, not after the whole scan
        check_writable_folder(Path(str(report_dir).split("{run}")[0] or "."), "--report")
    if output is not None and fmt is OutputFormat.junit:  # written at the end: check now
        if output.is_dir():
            raise fail(f"--output {output} is a folder; give a file name", ExitCode.USAGE)
        check_writable_folder(output.parent, "--output")
    paths = list(paths or [])
    given = [scale.url_from_argument(p) or str(p) for p in paths]  # as named, for the record
    report = None
    if start is not None or end is not None:
        if start is None or end is None:
            raise fail("--from and --to go together", ExitCode.USAGE)
        folder, report = fetch_for_scan(
            start,
            end,
            api_url=api_url,
            out_dir=fetch_out,
            show_progress=progress,
            downloads=downloads,
            assume_yes=yes,
        )
        # The download folder is shared by every range fetched: scan what this fetch
        # listed (a file an earlier fetch left behind is not part of this range).
        in_range = list(report.paths)
        if not in_range:
            raise_for_report(report)  # nothing fetched and the fetch stopped: say why
        paths.extend(in_range)
        display_root: Path | str | None = folder
    elif not paths:
        raise fail("give files or folders to scan, or --from and --to", ExitCode.USAGE)
    else:
        display_root = _display_root(paths)
    scaled = scale.needs_scaled(paths, executor, resume)
    if scaled:
        scale.check_scaled_options(
            paths, executor, repair=emit_repaired is not None, parser=bool(specs)
        )
        display_root = scale.display_root(paths) or display_root
    resumed = scale.load_resume(resume) if resume is not None else None  # before this run opens
    _check_paths(scale.local_paths(paths))
    args = {
        "paths": given,
        "start": start,
        "end": end,
        "api_url": api_url if start else None,
        "format": fmt,
        "output": output,
        "jobs": jobs,
        "fail_on": wanted,
        "emit_repaired": emit_repaired,
        "report": report_dir,
        "parser": ",".join(split_list(parser)) or None,
        "parser_cmd": [v.partition("=")[0] for v in parser_cmd] or None,  # names only
        "strict_markup": strict_markup,
        "executor": executor,
        "scheduler": scheduler if executor is scale.Executor.dask else None,
        "resume": resume,
        "file_timeout": file_timeout,
    }
    streamed = fmt in (OutputFormat.jsonl, OutputFormat.csv)
    live = streamed and sort is SortOrder.completion
    # Each result reaches the run store (and, unless sorted, the stream) the moment it
    # exists.
    with (
        _open_output(output if streamed else None) as out,
        reported_run(
            "scan",
            args,
            report_dir=report_dir,
            also=_streaming_writer(fmt, out, bom=bom) if live else None,
        ) as record,
    ):
        if report is not None:
            record.summary.update(fetch_summary(report))
        stop: ExitCode | None = None
        if scaled:
            results, stop = scale.run_scaled(
                paths,
                executor=executor,
                scheduler=scheduler,
                batch_size=batch_size,
                jobs=jobs,
                progress=progress,
                resume=resumed,
                sink=record,
                file_timeout=file_timeout or None,  # 0: no limit, as for the local pool
            )
            if stop is not None:
                record.summary["stopped"] = "the run stopped early (see the error above)"
        else:
            results = run_scan(
                paths,
                jobs=jobs,
                progress=progress,
                repair_dir=emit_repaired,
                sink=record,
                file_timeout=file_timeout,
            )
        if streamed and not live:
            write = _streaming_writer(fmt, out, bom=bom)
            for result in results:
                write(result)
        matrix_rows: list[MatrixRow] = []
        if specs:  # inside the run: each row reaches the stream and the store as it comes
            matrix_rows = _parser_matrix(
                paths,
                specs,
                jobs=jobs,
                timeout=parser_timeout,
                progress=progress,
                strict_markup=strict_markup,
                sinks=[
                    record.matrix_row,
                    *(
                        [jsonl_row_writer(out, strict_markup=strict_markup)]
                        if fmt is OutputFormat.jsonl
                        else []
                    ),
                ],
            )
            record.summary["matrix_rows"] = len(matrix_rows)
    named = ", ".join(shown_url(g) if "://" in g else g for g in given)  # no userinfo
    nothing = f"no documents under {named or display_root or 'the fetched range'}"
    if fmt is OutputFormat.table:
        render_tables(results, root=display_root, show=show)
    elif fmt is OutputFormat.junit:
        from hwpscan.report.junit import write_junit  # pandas (the pivot): only for junit

        write_junit(
            results, output, gate=wanted if wanted else (), empty_reason=nothing if wanted else None
        )
    if output is not None and fmt is not OutputFormat.table:
        err_console.print(f"{summary_line(results)}; written to {output}")
    if emit_repaired is not None:
        err_console.print(f"repaired text written below {emit_repaired}")
    if wanted and not results:  # a gate over nothing would pass on nothing
        if report is not None:
            raise_for_report(report)
        raise fail(nothing, ExitCode.USAGE)
    code: int = exit_code(results, wanted)
    if specs:
        if fmt is not OutputFormat.jsonl:  # csv keeps stdout for its rows: the matrix to stderr
            shown = console if fmt is OutputFormat.table else err_console
            table = matrix_table(matrix_rows, strict_markup=strict_markup, width=shown.width)
            shown.print(table, soft_wrap=True)
            for line in verdict_lines(matrix_rows, strict_markup=strict_markup):
                shown.print(line, markup=False, highlight=False)
        # the matrix calls an extractor that failed on a readable file an 'error'
        matrix_gate = ["error" if f == "unreadable" else f for f in wanted]
        matrix_code = matrix_exit_code(matrix_rows, matrix_gate, strict_markup=strict_markup)
        code = combine_exit_codes(code, matrix_code)
    if report is not None:
        raise_for_report(report)  # exit 3 when the fetch stopped, after showing what was kept
    if stop is not None:
        code = combine_exit_codes(code, stop)
    raise typer.Exit(code=code)


def _parser_specs(parser: str | None, parser_cmd: Sequence[str]) -> list[ParserSpec]:
    """The extractors --parser/--parser-cmd ask for (none: no parser matrix)."""
    if parser is None and not parser_cmd:
        return []
    try:
        return parse_parser_options(parser, parser_cmd)
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


def _parser_matrix(
    paths: Sequence[Path],
    specs: Sequence[ParserSpec],
    *,
    jobs: int,
    timeout: float,
    progress: bool,
    sinks: Sequence[Callable[[MatrixRow], None]],
    strict_markup: bool = False,
) -> list[MatrixRow]:
    """Run every extractor on every file with a progress bar; each row goes to every
    sink (the run store, the JSON Lines stream) the moment it exists."""
    files = collect_files(paths)
    rows: list[MatrixRow] = []
    total = len(files) * len(specs)
    with _matrix_progress(total, enabled=progress, strict_markup=strict_markup) as advance:

        def on_row(row: MatrixRow) -> None:
            rows.append(row)
            for sink in sinks:
                sink(row)
            advance(row)

        for _ in run_matrix(
            files, specs, timeout=timeout, jobs=jobs or os.cpu_count() or 1, on_row=on_row
        ):
            pass
    return rows


@contextmanager
def _matrix_progress(
    total: int, *, enabled: bool, strict_markup: bool
) -> Iterator[Callable[[MatrixRow], None]]:
    """A bar for the matrix phase: rows done of files x extractors, the current file."""
    if not enabled or total == 0 or not err_console.is_terminal:
        yield lambda _row: None
        return
    bar = Progress(
        TextColumn("parser matrix"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[guilty]} guilty · {task.description}"),
        console=err_console,
        transient=True,
    )
    guilty = 0
    with bar:
        task = bar.add_task("", total=total, guilty=0)

        def advance(row: MatrixRow) -> None:
            nonlocal guilty
            guilty += row.is_guilty(strict_markup=strict_markup)
            bar.update(task, advance=1, guilty=guilty, description=Path(row.path).name[:40])

        yield advance


class OrphanPolicy(str, enum.Enum):
    # upper-case names: a member called ``replace`` would shadow str.replace
    DROP = "drop"
    REPLACE = "replace"
    ESCAPE = "escape"


_ORPHAN_MODES: dict[OrphanPolicy, OrphanMode] = {
    OrphanPolicy.DROP: "drop",
    OrphanPolicy.REPLACE: "replace",
    OrphanPolicy.ESCAPE: "escape",
}


@app.command(rich_help_panel="Scan files")
def repair(
    paths: Annotated[
        list[Path], typer.Argument(help="Files and folders to repair.", show_default=False)
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for the repaired .txt files.", show_default=False),
    ] = None,
    out_old: Annotated[
        Path | None, typer.Option("--output", "-o", hidden=True, show_default=False)
    ] = None,
    orphans: Annotated[
        OrphanPolicy,
        typer.Option(
            help="What to do with halves that have no partner: drop, replace (U+FFFD), escape."
        ),
    ] = OrphanPolicy.DROP,
    pua_map: Annotated[
        bool,
        typer.Option(
            "--pua-map", help="Replace known Hancom private-use characters by standard ones."
        ),
    ] = False,
    jobs: JobsOpt = 0,
    progress: ProgressOpt = True,
    file_timeout: FileTimeoutOpt = DEFAULT_FILE_TIMEOUT,
) -> None:
    """Write each file's body text as UTF-8 with surrogate pairs restored and orphans removed."""
    out = deprecated(out_old, out, "--output/-o for a folder is deprecated: use --out")
    if out is None:
        raise fail("repair needs --out FOLDER for the repaired .txt files", ExitCode.USAGE)
    _check_paths(paths)
    check_writable_folder(out, "--out")
    results = run_scan(
        paths,
        jobs=jobs,
        progress=progress,
        repair_dir=out,
        orphans=_ORPHAN_MODES[orphans],
        pua_map=pua_map,
        file_timeout=file_timeout,
    )
    root = _display_root(paths)
    console.print(repair_table(results, out=out, root=str(root) if root else None, pua_map=pua_map))
    raise typer.Exit(code=ExitCode.OK)
