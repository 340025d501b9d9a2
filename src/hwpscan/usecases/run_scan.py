"""The scan use case (``hwpscan scan`` and ``repair`` without the terminal): list and date
the files, scan them, run the parser matrix when asked, record the run as it happens and
decide the exit code, telling a :class:`ScanObserver` along the way.

>>> from hwpscan.models import ExitCode
>>> settings = ScanSettings(paths=(Path("fixtures/clean"),), fail_on=("contaminated",))
>>> settings.jobs, settings.record, settings.matrix is None
(0, True, True)
>>> ScanSettings(paths=(), fail_on=("sometimes",))  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
hwpscan.errors.UsageError: --fail-on takes contaminated, unreadable, ... (...), not sometimes
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hwpscan.errors import ReportWriteError, UsageError
from hwpscan.execution.child_limits import DEFAULT_MEMORY_MB
from hwpscan.history.recording import Recording, fetch_summary, recorded_run
from hwpscan.history.records import RunArgs
from hwpscan.history.stored_rows import rows_exit_code, status_counts
from hwpscan.locations import shown_url, url_from_argument
from hwpscan.models import ExitCode, FileResult, Format, Status, combine_exit_codes
from hwpscan.scanning.exit_gate import FAIL_ON_ALIASES, FAIL_ON_CHOICES
from hwpscan.scanning.inputs import collect_listed
from hwpscan.scanning.many_files import PoolSettings, scan_row_batches
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT
from hwpscan.scanning.repaired_text import RepairSettings
from hwpscan.scanning.row_handoff import Row
from hwpscan.usecases.scale_settings import ScaleSettings

if TYPE_CHECKING:  # the matrix, the fetch engine and the scaled path load only when used
    from hwpscan.matrix import MatrixRow, ParserSpec
    from hwpscan.usecases.run_fetch import FetchReport
    from hwpscan.usecases.scan_at_scale import Resumed, ScaledStop

__all__ = [
    "MatrixSettings",
    "RepairSettings",
    "Row",
    "ScanInterrupted",
    "ScanObserver",
    "ScanOutcome",
    "ScanSettings",
    "check_fail_on",
    "named",
    "no_documents",
    "nothing_under",
    "scan",
]


def check_fail_on(values: Sequence[str]) -> tuple[str, ...]:
    """The gate, each value checked, with ``error`` read as its newer name ``unreadable``.

    >>> check_fail_on(["error", "contaminated", "unreadable"])
    ('unreadable', 'contaminated')
    """
    bad = [v for v in values if v not in FAIL_ON_CHOICES]
    if bad:
        names = ", ".join(c for c in FAIL_ON_CHOICES if c not in FAIL_ON_ALIASES)
        raise UsageError(
            f"--fail-on takes {names} ('error' is another name for 'unreadable'), "
            f"not {', '.join(bad)}"
        )
    return tuple(dict.fromkeys(FAIL_ON_ALIASES.get(v, v) for v in values))


@dataclass(frozen=True, slots=True)
class MatrixSettings:
    """The parser matrix: these extractors on every file, against the strict view
    (``strict_markup``: markup, placeholders, replaced or extra text are guilt too)."""

    parsers: tuple[ParserSpec, ...]
    timeout: float = 30.0
    strict_markup: bool = False


@dataclass(frozen=True, slots=True)
class ScanSettings:
    """What to scan and how. ``paths`` are files, folders or fsspec URLs; ``jobs``,
    ``file_timeout`` and ``memory_mb`` 0: one worker per core, no limit, no budget;
    ``fail_on`` is the gate; ``record`` keeps the run as ``kind``; ``report_dir`` also
    writes the report."""

    paths: tuple[Path, ...]
    jobs: int = 0
    file_timeout: float = DEFAULT_FILE_TIMEOUT
    memory_mb: int = DEFAULT_MEMORY_MB
    fail_on: tuple[str, ...] = ()
    repair: RepairSettings | None = None
    matrix: MatrixSettings | None = None
    scale: ScaleSettings = field(default_factory=ScaleSettings)
    report_dir: Path | None = None
    record: bool = True
    kind: str = "scan"

    def __post_init__(self) -> None:
        object.__setattr__(self, "fail_on", check_fail_on(self.fail_on))

    @property
    def scaled(self) -> bool:
        """True when the files go through the scaled path (URLs, Dask, ``--resume``)."""
        return self.scale.needed(self.paths)


class ScanObserver:
    """What :func:`scan` tells its caller as it runs (every method here does nothing)."""

    def started(self, phase: str, total: int | None) -> None:
        """A phase (``"scan"`` or ``"matrix"``) begins; *total* steps (None: unknown)."""

    def result(self, result: FileResult) -> None:
        """A file's row, the moment it exists (in completion order)."""

    def row(self, row: Row) -> None:
        """A file's row as the pool gave it: :meth:`result` of its result, built only for
        an observer that has its own :meth:`result`."""
        if type(self).result is not ScanObserver.result:
            self.result(row.result)

    def rows(self, rows: Sequence[Row]) -> None:
        """A batch of rows as the pool gave them (a worker's message): :meth:`row` of each."""
        for row in rows:
            self.row(row)

    def matrix_row(self, row: MatrixRow) -> None:
        """A parser-matrix row, the moment it exists."""

    def finished(self, phase: str) -> None:
        """The phase is over (its progress display can go)."""

    def note(self, message: str) -> None:
        """Something worth a line: the run recorded, rows carried over."""

    def warn(self, message: str) -> None:
        """Something went wrong that does not stop the scan (the history, a listing)."""


@dataclass(frozen=True)
class ScanOutcome:
    """What :func:`scan` gave: rows in input order (read back from the run store as asked
    for), matrix rows, the run and exit code; ``nothing`` says "no documents under ..."
    when a gate found none; ``stop`` is the scaled path's early stop."""

    results: Sequence[FileResult]
    matrix_rows: list[MatrixRow]
    run_id: str | None
    exit_code: int
    display_root: Path | str | None = None
    stop: ScaledStop | None = None
    nothing: str | None = None
    report: list[Path] = field(default_factory=list)


class ScanInterrupted(KeyboardInterrupt):
    """A scan stopped by Ctrl-C or SIGTERM, with what it kept: *done* rows of *total*,
    run *run_id* (None: not recorded), the partial *report* files (or *report_error*)."""

    def __init__(
        self,
        run_id: str | None,
        done: int,
        total: int | None,
        report: Sequence[Path] = (),
        report_error: str | None = None,
    ) -> None:
        super().__init__(f"interrupted after {done} files")
        self.run_id, self.done, self.total = run_id, done, total
        self.report, self.report_error = list(report), report_error


def _recording(
    settings: ScanSettings, record_args: RunArgs | None, observer: ScanObserver
) -> AbstractContextManager[Recording]:
    """The run's record; an unrecorded run keeps its rows in a temporary database."""
    if not settings.record:
        return nullcontext(Recording(None, also_rows=observer.rows))
    return recorded_run(
        settings.kind, record_args or RunArgs(), on_warning=observer.warn, also_rows=observer.rows
    )


def _scan_here(
    settings: ScanSettings, files: list[str], dates: dict[str, str], record: Recording
) -> Sequence[FileResult]:
    """This machine's pool: rows reach the record's store as files complete."""
    pool = PoolSettings(
        jobs=settings.jobs or None,
        dates=dates,
        repair=settings.repair,
        file_timeout=settings.file_timeout,
        ordered=False,
        memory_mb=settings.memory_mb or None,
    )
    for batch in scan_row_batches(files, pool):
        record.take(batch)
    return record.results.in_input_order()


def scan(
    settings: ScanSettings,
    *,
    observer: ScanObserver | None = None,
    record_args: RunArgs | None = None,
    fetched: FetchReport | None = None,
) -> ScanOutcome:
    """Scan ``settings.paths`` and return the outcome; never raises for a bad file, but
    :class:`UsageError` for settings that cannot work, before any file is read. The run
    keeps *record_args* and *fetched*'s figures (a run that found no document is not
    kept); a stop raises :class:`ScanInterrupted` once rows and a partial report are out.
    """
    observer = observer or ScanObserver()
    _check(settings, fetched)
    resumed = None
    if settings.scale.resume:
        from hwpscan.usecases.scan_at_scale import load_resume  # the scaled path: for --resume

        resumed = load_resume(settings.scale.resume)
    record: Recording | None = None
    total: int | None = None
    try:
        with _recording(settings, record_args, observer) as record:
            if fetched is not None:
                record.summary = replace(record.summary, fetch=fetch_summary(fetched))
            stop: ScaledStop | None = None
            results: Sequence[FileResult]
            problems: list[str] = []  # manifest lines that date nothing: said, not skipped
            files, dates = (
                (None, {}) if settings.scaled else collect_listed(settings.paths, problems)
            )
            for problem in problems:
                observer.warn(problem)
            total = None if files is None else len(files)
            observer.started("scan", total)
            if files is None:
                results, stop = _run_scaled(settings, resumed, record, observer)
            else:
                results = _scan_here(settings, files, dates, record)
            observer.finished("scan")
            if stop is None and not _any_document(results):  # nothing worth a run
                record.forget()
            # the matrix is local only (the scaled path refuses it), over the files scanned
            rows = _run_matrix(settings, files, record, observer) if files is not None else []
            if settings.matrix:
                record.summary = replace(record.summary, matrix_rows=len(rows))
        written = _write_report(settings, record, rows)
    except ScanInterrupted:
        raise
    except KeyboardInterrupt:
        raise _interrupted(settings, record, total) from None
    root = fetched.out_dir if fetched is not None else _display_root(settings.paths)
    run_id = record.info.id if record.info is not None else None
    return replace(_outcome(settings, results, rows, run_id, stop, root), report=written)


def _check(settings: ScanSettings, fetched: FetchReport | None) -> None:
    if not settings.paths and fetched is None:
        raise UsageError("give files or folders to scan, or --from and --to")
    if settings.scaled:
        # the scaled path (fsspec listings, executors): only for URLs, Dask or --resume
        from hwpscan.usecases.scan_at_scale import check_scaled_options

        check_scaled_options(
            settings.paths,
            settings.scale.executor,
            repair=settings.repair is not None,
            parser=settings.matrix is not None,
        )
    # (a URL is checked when listed)
    missing = [p for p in settings.paths if url_from_argument(p) is None and not p.exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(map(str, missing))}")


def _any_document(results: Sequence[FileResult]) -> bool:
    """Whether a scan found a document (or a file that looked like one: a failed
    download is worth its run), not only files that are none (a README).

    >>> from hwpscan.models import Format, Status
    >>> readme = FileResult("README.md", "", 9, Format.UNKNOWN, Status.UNSUPPORTED)
    >>> _any_document([]), _any_document([readme])
    (False, False)
    >>> _any_document([readme, FileResult("a.pdf", "", 9, Format.PDF, Status.CLEAN)])
    True
    """
    return not no_documents(results) or any(r.format is not Format.UNKNOWN for r in results)


def _interrupted(
    settings: ScanSettings, record: Recording | None, total: int | None
) -> ScanInterrupted:
    """What a stopped scan kept: its rows, its run, and with ``report_dir`` a partial report."""
    if record is None:  # stopped before the run was opened
        return ScanInterrupted(None, 0, total)
    done, run_id = len(record.results), record.run_id
    if settings.report_dir is None or not done:  # no report folder for nothing
        return ScanInterrupted(run_id, done, total)
    from hwpscan.report.bundle import partial_banner, write_run_report  # pandas: a report

    info = record.stored_info()
    try:
        written = write_run_report(
            record.results, settings.report_dir, run=info, partial=partial_banner(done, total)
        )
    except OSError as exc:
        return ScanInterrupted(run_id, done, total, report_error=str(exc))
    return ScanInterrupted(run_id, done, total, written)


def _write_report(settings: ScanSettings, record: Recording, rows: list[MatrixRow]) -> list[Path]:
    """The report bundle, after the run is recorded (so ``{run}`` is its id)."""
    if settings.report_dir is None:
        return []
    from hwpscan.report.bundle import write_run_report  # pandas: only for a report

    try:
        return write_run_report(record.results, settings.report_dir, run=record.info, matrix=rows)
    except OSError as exc:
        raise ReportWriteError(
            f"--report {settings.report_dir}: the report could not be written ({exc})"
        ) from None


def _run_scaled(
    settings: ScanSettings, resumed: Resumed | None, record: Recording, observer: ScanObserver
) -> tuple[list[FileResult], ScaledStop | None]:
    # the scaled path (fsspec listings, executors): only for URLs, Dask or --resume
    from hwpscan.usecases.scan_at_scale import run_scaled

    ran = run_scaled(
        settings.paths,
        settings.scale,
        resumed=resumed,
        take=record,
        jobs=settings.jobs,
        file_timeout=settings.file_timeout or None,  # 0: no limit, as for the local pool
        memory_mb=settings.memory_mb or None,
    )
    if resumed is not None:
        observer.note(
            f"resumed: {ran.carried:,} files carried over from run {resumed.run_id}, "
            f"{len(ran.rows) - ran.carried:,} scanned"
        )
    if ran.stop is not None:  # its reason is the outcome's to show
        why = "the run stopped early (see the error above)"
        record.summary = replace(record.summary, stopped=why)
    return ran.rows, ran.stop


def _run_matrix(
    settings: ScanSettings, files: list[str], record: Recording, observer: ScanObserver
) -> list[MatrixRow]:
    """Every extractor on every file; each row to the run store and the observer."""
    if settings.matrix is None:
        return []
    from hwpscan.matrix import run_matrix  # the matrix: only when asked for

    matrix = settings.matrix
    observer.started("matrix", len(files) * len(matrix.parsers))  # rows: files x extractors

    def on_row(row: MatrixRow) -> None:
        record.matrix_row(row)  # kept in record.matrix, and in the run store
        observer.matrix_row(row)

    jobs = settings.jobs or os.cpu_count() or 1
    paths = [Path(f) for f in files]
    for _ in run_matrix(paths, matrix.parsers, timeout=matrix.timeout, jobs=jobs, on_row=on_row):
        pass
    observer.finished("matrix")
    return record.matrix


def _outcome(
    settings: ScanSettings,
    results: Sequence[FileResult],
    rows: list[MatrixRow],
    run_id: str | None,
    stop: ScaledStop | None,
    root: Path | str | None,
) -> ScanOutcome:
    """The exit code: the gate over the rows, the matrix's gate, an early stop."""
    gate = settings.fail_on
    if gate and not results:  # a gate over nothing would pass on nothing
        nothing = nothing_under(settings.paths, root)
        return ScanOutcome(results, rows, run_id, ExitCode.USAGE, root, stop, nothing)
    # no row read back: the tallies of statuses and of defect classes decide
    code: int = rows_exit_code(results, gate)
    if settings.matrix is not None:
        from hwpscan.matrix import matrix_exit_code  # the matrix: only when asked for

        # the matrix calls an extractor that failed on a readable file an 'error'
        matrix_gate = ["error" if f == "unreadable" else f for f in gate]
        strict = settings.matrix.strict_markup
        code = combine_exit_codes(code, matrix_exit_code(rows, matrix_gate, strict_markup=strict))
    if stop is not None:
        code = combine_exit_codes(code, stop.code)
    return ScanOutcome(results, rows, run_id, code, root, stop)


def _display_root(paths: Sequence[Path]) -> Path | str | None:
    """The folder or the URL to show paths relative to, if only one was scanned.

    >>> _display_root([Path("s3://u:p@b/k/")]), _display_root([Path("a"), Path("b")])
    ('s3://b/k', None)
    """
    if len(paths) != 1:
        return None
    if (url := url_from_argument(paths[0])) is not None:
        return shown_url(url).rstrip("/")
    return paths[0] if paths[0].is_dir() else None


def nothing_under(paths: Sequence[Path], root: Path | str | None) -> str:
    """Why a gate over no document fails: "no documents under" what was named.

    >>> nothing_under([Path("a"), Path("s3://u:p@bucket/x")], None)
    'no documents under a, s3://bucket/x'
    >>> nothing_under([], Path("downloads"))
    'no documents under downloads'
    """
    return f"no documents under {named(paths, root)}"


def named(paths: Sequence[Path], root: Path | str | None) -> str:
    """What was named to scan, as said to a person (a URL's userinfo never shown)."""
    shown = (shown_url(url) if (url := url_from_argument(p)) else str(p) for p in paths)
    return ", ".join(shown) or str(root or "the fetched range")


def no_documents(results: Sequence[FileResult]) -> bool:
    """True when nothing scanned was a document: no file, or only files of no format
    hwpscan reads (a README, an image). Counted from the tally, no row read back."""
    counts = status_counts(results)
    return all(status is Status.UNSUPPORTED for status, n in counts.items() if n)
