"""``hwpscan scan``: options to :func:`hwpscan.usecases.run_scan.scan`, and its output
(the terminal's part is :mod:`hwpscan.cli.scan_view`)."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, ClassVar

import typer

from hwpscan.cli.app import (
    ENV_FETCH,
    EXIT_USAGE,
    app,
    check_writable_folder,
    console,
    epilog,
    err_console,
    fail,
)
from hwpscan.cli.machine import STDOUT_NAME, check_results_file, write_rows_document
from hwpscan.cli.options import (
    FetchOptions,
    FileTimeoutOpt,
    JobsOpt,
    ParserTimeoutOpt,
    ProgressOpt,
    RecordOpt,
    split_list,
)
from hwpscan.cli.params import options_from_dataclasses
from hwpscan.errors import UsageError
from hwpscan.models import ExitCode
from hwpscan.report.tables import Show
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT
from hwpscan.usecases.scale_settings import (
    DEFAULT_BATCH,
    DEFAULT_WORKER_WAIT,
    Executor,
    url_from_argument,
)

if TYPE_CHECKING:
    from hwpscan.cli.input_order import InputOrder
    from hwpscan.cli.scan_view import TerminalObserver
    from hwpscan.history.records import OptionValue, RunArgs
    from hwpscan.models import FileResult
    from hwpscan.usecases.run_fetch import FetchReport
    from hwpscan.usecases.run_scan import MatrixSettings, ScanOutcome, ScanSettings
    from hwpscan.usecases.scale_settings import ScaleSettings


class OutputFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"
    junit = "junit"


class SortOrder(str, enum.Enum):
    input = "input"
    completion = "completion"


@dataclass(frozen=True)
class OutputOptions:
    """Where rows go and how they look."""

    PANEL: ClassVar[str] = "Output"

    fmt: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            "-f",
            help="table for people; json (one document), jsonl, csv or junit for tools.",
        ),
    ] = OutputFormat.table
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the json/jsonl/csv/junit results here instead of stdout ('-': stdout).",
        ),
    ] = None
    report_dir: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write report.html, files.csv, pivot.csv, summary.md and junit.xml to "
            "this folder ('{run}' becomes the run id).",
        ),
    ] = None
    show: Annotated[
        Show | None,
        typer.Option(
            help="File rows in the table: all, problems (not clean) or none "
            "(default: all up to 50 files, problems above).",
            show_default=False,
        ),
    ] = None
    bom: Annotated[
        bool,
        typer.Option(
            "--bom/--no-bom",
            help="Start --format csv with a UTF-8 byte-order mark, so spreadsheets read it "
            "as UTF-8.",
        ),
    ] = True
    sort: Annotated[
        SortOrder,
        typer.Option(
            help="jsonl/csv rows in input order, the same on every run (written as "
            "files complete, a bounded number held back), or in completion order (each "
            "row has its input 'index').",
        ),
    ] = SortOrder.input
    progress: ProgressOpt = True

    @property
    def streamed(self) -> bool:
        return self.fmt in (OutputFormat.jsonl, OutputFormat.csv)

    def standard(self) -> OutputOptions:
        """These options with ``--output -`` as standard output (a file named ``-``: ``./-``)."""
        return replace(self, output=None) if self.output == STDOUT_NAME else self

    def check(self) -> None:
        """Refuse what cannot work before anything is scanned (exit 2): a table to a
        results file, a report folder or a json/junit file that cannot be written."""
        formats = "json, jsonl, csv or junit"
        if self.fmt is OutputFormat.table:
            check_results_file(self.output, "table", formats)
        if self.report_dir is not None:  # fail now, not after the whole scan
            check_writable_folder(Path(str(self.report_dir).split("{run}")[0] or "."), "--report")
        if not self.streamed:  # json and junit: written at the end
            check_results_file(self.output, self.fmt.value, formats)


@dataclass(frozen=True)
class ScanOptions:
    """How the files are scanned and what fails the run."""

    PANEL: ClassVar[str] = "Scanning"

    jobs: JobsOpt = 0
    fail_on: Annotated[
        list[str],
        typer.Option(
            help="Exit 1 when a file is 'contaminated' or 'unreadable' ('error' is an alias), "
            "or holds a defect class (split_pairs, lone_halves, folded_symbols, pdf_folded, "
            "old_hangul_pua, unmapped_pua; 'defects' for any); with no document at all, "
            "exit 2 (repeatable, or comma-separated).",
        ),
    ] = field(default_factory=list)
    emit_repaired: Annotated[
        Path | None, typer.Option(help="Write each body's repaired UTF-8 text below this folder.")
    ] = None
    file_timeout: FileTimeoutOpt = DEFAULT_FILE_TIMEOUT
    record: RecordOpt = True


@dataclass(frozen=True)
class MatrixOptions:
    """The parser matrix: which extractors to compare with the strict view."""

    PANEL: ClassVar[str] = "Parser comparison"

    parser: Annotated[
        list[str],
        typer.Option(
            help="Also run these extractors on every file and compare them with the strict "
            "view: codeunit, strict, pyhwp, module:function (repeatable, or comma-separated).",
        ),
    ] = field(default_factory=list)
    parser_cmd: Annotated[
        list[str],
        typer.Option(
            help="Also run a command extractor: NAME='tool {path}' (repeatable; one command "
            "each, as a command line may itself hold commas).",
        ),
    ] = field(default_factory=list)
    parser_timeout: ParserTimeoutOpt = 30.0
    strict_markup: Annotated[
        bool,
        typer.Option(
            "--strict-markup",
            help="Parser matrix: count markup, placeholders and replaced or extra text as guilt "
            "too (by default only leaked or lost text and failures are).",
        ),
    ] = False

    def settings(self) -> MatrixSettings | None:
        """The matrix to run, or None when no extractor is named (exit 2 on a bad one)."""
        from hwpscan.usecases.run_scan import MatrixSettings

        names = ",".join(split_list(self.parser)) or None
        if names is None and not self.parser_cmd:
            return None
        from hwpscan.matrix import parse_parser_options  # the matrix: only with --parser

        try:
            specs = parse_parser_options(names, self.parser_cmd)
        except UsageError as exc:
            raise fail(str(exc), ExitCode.USAGE) from None
        return MatrixSettings(tuple(specs), self.parser_timeout, self.strict_markup)


@dataclass(frozen=True)
class ScaleOptions:
    """Where the files are scanned: this machine, or a Dask cluster."""

    PANEL: ClassVar[str] = "Dask cluster"

    executor: Annotated[
        Executor,
        typer.Option(
            help="local: this machine's processes; dask: a Dask cluster "
            "(pip install 'hwpscan\\[dask]').",
        ),
    ] = Executor.local
    scheduler: Annotated[
        str | None,
        typer.Option(
            envvar="HWPSCAN_DASK_SCHEDULER",
            help="Dask scheduler (tcp://HOST:8786); without it a local cluster on 127.0.0.1.",
            show_default=False,
        ),
    ] = None
    batch_size: Annotated[int, typer.Option(min=1, help="Files per Dask task.")] = DEFAULT_BATCH
    resume: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Scanning",
            help="Skip files this run (id, prefix, 'latest') already holds with the same "
            "size; its rows are carried into the new run.",
            show_default=False,
        ),
    ] = None
    worker_wait: Annotated[
        float,
        typer.Option(
            min=0,
            help="Stop (exit 3, rows kept) when the Dask scheduler has said for this many "
            "seconds that it has no worker; raise it for a cluster that starts workers "
            "slowly, 0: wait for ever.",
        ),
    ] = DEFAULT_WORKER_WAIT

    def settings(self) -> ScaleSettings:
        from hwpscan.usecases.scale_settings import ScaleSettings

        scheduler = self.scheduler if self.executor is Executor.dask else None
        return ScaleSettings(
            self.executor, scheduler, self.batch_size, self.resume, self.worker_wait
        )


@dataclass(frozen=True)
class RangeOptions:
    """``--from``/``--to``: fetch a date range first (cache first), then scan it."""

    PANEL: ClassVar[str] = "Fetch a date range first"

    start: Annotated[
        str | None,
        typer.Option("--from", help="Fetch releases from this day (YYYY-MM-DD), then scan them."),
    ] = None
    end: Annotated[
        str | None, typer.Option("--to", help="Last day to fetch (YYYY-MM-DD, inclusive).")
    ] = None

    folder: Annotated[
        Path | None,
        typer.Option(
            "--out", help="With --from/--to: keep attachments here (default: state folder)."
        ),
    ] = None

    @property
    def given(self) -> bool:
        if (self.start is None) != (self.end is None):
            raise fail("--from and --to go together", ExitCode.USAGE)
        if self.start is None and self.folder is not None:  # it would be ignored
            raise fail(
                "--out is where --from/--to keeps the attachments it fetches: give a range "
                "with it (the results file is -o/--output)",
                ExitCode.USAGE,
            )
        return self.start is not None


@app.command(
    rich_help_panel="Scan files",
    epilog=epilog(
        [
            ("hwpscan scan press/", "scan a folder; verdict, date x format table, problems"),
            (
                "hwpscan scan press/ -f jsonl -o results.jsonl --fail-on contaminated",
                "one JSON line per file for tools; exit 1 on contamination",
            ),
        ],
        ENV_FETCH,
        [
            "0  scanned (findings do not fail the run without --fail-on)",
            "1  a file matched --fail-on (or an extractor disagreed)",
            EXIT_USAGE,
            "3  with --from/--to: the API or its limits stopped the fetch",
        ],
    ),
)
@options_from_dataclasses
def scan(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Files and folders (searched recursively).", show_default=False),
    ] = None,
    *,
    out: OutputOptions,
    how: ScanOptions,
    matrix: MatrixOptions,
    scale: ScaleOptions,
    when: RangeOptions,
    fetch: FetchOptions,
) -> None:
    """Scan attachments for surrogate code points, private-use characters and UTF-8 failures.

    Give files and folders, or --from/--to to fetch a date range first (cache first,
    within the API's daily quota).
    """
    from hwpscan.cli.scan_view import stopped_after

    out = out.standard()
    out.check()
    settings = _settings(list(paths or []), out, how, matrix, scale)
    fetched = _fetch(when, fetch, settings, progress=out.progress)
    if fetched is not None:
        settings = replace(settings, paths=(*settings.paths, *fetched.paths))
    api_url = fetch.api.api_url if fetched is not None else None
    args = _record_args(settings, out, matrix, when, api_url)
    outcome = _scan_to(out, settings, args, fetched)
    try:
        _render(outcome, out, settings)
    except KeyboardInterrupt:
        raise stopped_after(outcome) from None
    _exit(outcome, fetched)


def _scan_to(
    out: OutputOptions, settings: ScanSettings, args: RunArgs, fetched: FetchReport | None
) -> ScanOutcome:
    """The scan, its rows streamed to the results file (or stdout) as they come; a stop
    says what the file holds and how to go on."""
    from hwpscan.cli.scan_view import open_output, said_stopped, scan_shown, stopped_after
    from hwpscan.usecases.run_scan import ScanInterrupted

    results_file = out.output if out.streamed else None
    written: int | None = None  # rows in the results file when stopped, if not all
    outcome: ScanOutcome | None = None
    order: InputOrder | None = None
    try:
        with open_output(results_file, keep_partial=out.streamed) as stream:
            observer, order = _observer(out, stream, settings)
            try:
                outcome = scan_shown(settings, observer, args, fetched)
            except ScanInterrupted:  # every row made reaches the file, held ones too
                written = order.written + order.flush_held() if order is not None else None
                raise
            if order is not None:  # rows held past the bound: from the run's store
                order.finish(outcome.results)
    except ScanInterrupted as stopped:  # the file is kept by now: say what it holds
        raise said_stopped(stopped, settings, results_file, out.streamed, written=written) from None
    except KeyboardInterrupt:
        if outcome is None or order is None:
            raise
        # the run is whole; the rows held past the bound were being written
        raise stopped_after(outcome, results_file, order.written) from None
    return outcome


def _observer(
    out: OutputOptions, stream: IO[str], settings: ScanSettings
) -> tuple[TerminalObserver, InputOrder | None]:
    """Bars and messages, and what writes the jsonl/csv rows to *stream*: in input order
    (``--sort input``), else as files complete, as always on the scaled path (URLs, Dask,
    --resume), whose inputs are listed as it goes (each row has its input 'index')."""
    from hwpscan.cli.input_order import InputOrder, InputOrderObserver
    from hwpscan.cli.scan_view import TerminalObserver

    matrix = settings.matrix
    shown: dict[str, Any] = {
        "progress": out.progress,
        "matrix_stream": None,
        "strict_markup": bool(matrix and matrix.strict_markup),
    }
    if matrix is not None and out.fmt is OutputFormat.jsonl:
        from hwpscan.matrix.render import jsonl_row_writer  # the matrix: only with --parser

        shown["matrix_stream"] = jsonl_row_writer(stream, strict_markup=matrix.strict_markup)
    if not out.streamed:
        return TerminalObserver(**shown), None
    from hwpscan.report.export import csv_sink, jsonl_bytes_sink

    lines = jsonl_bytes_sink(stream) if out.fmt is OutputFormat.jsonl else None
    rows = csv_sink(stream, bom=out.bom) if lines is None else None
    if out.sort is SortOrder.input and not settings.scaled:
        order = InputOrder(lines=lines, results=rows)
        return InputOrderObserver(order, **shown), order
    return TerminalObserver(stream=rows, lines=lines, **shown), None


def _settings(
    paths: list[Path],
    out: OutputOptions,
    how: ScanOptions,
    matrix: MatrixOptions,
    scale: ScaleOptions,
) -> ScanSettings:
    from hwpscan.usecases.run_scan import RepairSettings, ScanSettings

    if how.emit_repaired is not None:
        check_writable_folder(how.emit_repaired, "--emit-repaired")
    try:
        return ScanSettings(
            paths=tuple(paths),
            jobs=how.jobs,
            file_timeout=how.file_timeout,
            fail_on=tuple(split_list(how.fail_on)),
            repair=RepairSettings(how.emit_repaired) if how.emit_repaired else None,
            matrix=matrix.settings(),
            scale=scale.settings(),
            report_dir=out.report_dir,
            record=how.record,
        )
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


def _fetch(
    when: RangeOptions, fetch: FetchOptions, settings: ScanSettings, *, progress: bool
) -> FetchReport | None:
    """With --from/--to: the fetch's report (nothing listed and stopped: exit 3 now)."""
    if not when.given:
        if not settings.paths:
            raise fail("give files or folders to scan, or --from and --to", ExitCode.USAGE)
        return None
    assert when.start is not None and when.end is not None
    from hwpscan.cli.fetch_view import fetch_for_scan, raise_for_report  # only with --from

    settings_ = fetch.settings(out_dir=when.folder) if when.folder else fetch.settings()
    _, report = fetch_for_scan(
        when.start,
        when.end,
        settings_,
        show_progress=progress,
        any_key_length=fetch.any_key_length,
    )
    # The download folder is shared by every range fetched: scan what this fetch
    # listed (a file an earlier fetch left behind is not part of this range).
    if not report.paths:
        raise_for_report(report)  # nothing fetched and the fetch stopped: say why
    return report


def _record_args(
    settings: ScanSettings,
    out: OutputOptions,
    matrix: MatrixOptions,
    when: RangeOptions,
    api_url: str | None,
) -> RunArgs:
    """What the run store keeps of what was asked (names of command extractors only)."""
    from hwpscan.history.records import RunArgs, arg_text

    given = [] if when.given else [url_from_argument(p) or str(p) for p in settings.paths]
    options: dict[str, OptionValue] = {
        "paths": given,
        "format": out.fmt.value,
        "output": arg_text(out.output),
        "jobs": settings.jobs,
        "fail_on": list(settings.fail_on),
        "emit_repaired": arg_text(settings.repair.out) if settings.repair else None,
        "report": arg_text(out.report_dir),
        "parser": ",".join(split_list(matrix.parser)) or None,
        "parser_cmd": [v.partition("=")[0] for v in matrix.parser_cmd] or None,  # names only
        "strict_markup": matrix.strict_markup,
        "executor": settings.scale.executor,
        "scheduler": settings.scale.scheduler,
        "resume": settings.scale.resume,
        "file_timeout": settings.file_timeout,
    }
    return RunArgs(start=when.start, end=when.end, api_url=api_url, options=options)


def _render(outcome: ScanOutcome, out: OutputOptions, settings: ScanSettings) -> None:
    """Tables (or the junit or json file), the summary line, the matrix and its verdict."""
    from hwpscan.cli.scan_view import open_output, render_tables
    from hwpscan.report.tables import summary_line
    from hwpscan.usecases.run_scan import named, no_documents

    if outcome.stop is not None:
        err_console.print(f"error: {outcome.stop.reason}", markup=False, highlight=False)
    if outcome.nothing is None and outcome.stop is None and no_documents(outcome.results):
        # exit 0 all the same: --fail-on decides (over no file at all: exit 2)
        where = named(settings.paths, outcome.display_root)
        err_console.print(f"warning: no documents found in {where}", markup=False)
    if out.fmt is OutputFormat.table:
        render_tables(outcome.results, root=outcome.display_root, show=out.show)
    elif out.fmt is OutputFormat.junit:
        _write_junit(outcome, out, settings)
    elif out.fmt is OutputFormat.json:
        with open_output(out.output, keep_partial=False) as stream:
            write_json_document(stream, outcome.results)
    if out.output is not None and out.fmt is not OutputFormat.table:
        # markup off: a path's [brackets] are shown, not taken for styles
        err_console.print(f"{summary_line(outcome.results)}; written to {out.output}", markup=False)
    if settings.repair is not None:
        err_console.print(f"repaired text written below {settings.repair.out}", markup=False)
    matrix = settings.matrix
    if matrix is None or outcome.nothing is not None or out.fmt is OutputFormat.jsonl:
        return  # jsonl: the matrix rows went to the stream
    from hwpscan.matrix import matrix_table  # the matrix: only with --parser
    from hwpscan.matrix.render import verdict_lines  # the matrix: only with --parser

    # csv keeps stdout for its rows: the matrix goes to stderr
    shown = console if out.fmt is OutputFormat.table else err_console
    rows = outcome.matrix_rows
    shown.print(matrix_table(rows, strict_markup=matrix.strict_markup, width=shown.width))
    for line in verdict_lines(rows, strict_markup=matrix.strict_markup):
        shown.print(line, markup=False, highlight=False)


#: The shape and version of ``scan --format json``: its rows are the JSON Lines rows.
SCAN_SCHEMA = "hwpscan.scan/1"


def write_json_document(stream: IO[str], results: Sequence[FileResult]) -> None:
    """``--format json``: one document, ``schema``, ``files``, ``counts`` (files per
    status) and ``rows``, the JSON Lines rows in input order (each its own line, as
    ``--format jsonl --sort input`` writes them).

    >>> import io, json
    >>> from hwpscan.models import FileResult, Format, Status
    >>> buffer = io.StringIO()
    >>> write_json_document(buffer, [FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN)])
    >>> doc = json.loads(buffer.getvalue())
    >>> doc["schema"], doc["files"], doc["counts"], doc["rows"][0]["path"]
    ('hwpscan.scan/1', 1, {'clean': 1}, 'a.pdf')
    """
    counts = Counter(r.status.value for r in results)
    head = {"schema": SCAN_SCHEMA, "files": len(results), "counts": dict(sorted(counts.items()))}
    write_rows_document(stream, head, results)


def _write_junit(outcome: ScanOutcome, out: OutputOptions, settings: ScanSettings) -> None:
    from hwpscan.report.junit import write_junit
    from hwpscan.usecases.run_scan import nothing_under

    gate = settings.fail_on
    nothing = None
    if gate:  # why a suite of no test case fails: "no documents under ..."
        nothing = outcome.nothing or nothing_under(settings.paths, outcome.display_root)
    write_junit(outcome.results, out.output, gate=gate, empty_reason=nothing)


def _exit(outcome: ScanOutcome, fetched: FetchReport | None) -> None:
    """Exit 3 when the fetch stopped (after showing what was kept), else the outcome's code."""
    if fetched is not None:
        from hwpscan.cli.fetch_view import raise_for_report  # a fetch ran: its view is loaded

        raise_for_report(fetched)
    if outcome.nothing is not None:
        raise fail(outcome.nothing, ExitCode.USAGE)
    raise typer.Exit(code=outcome.exit_code)
