"""What a scan (``scan``, ``repair``, ``demo``) shows on the terminal: progress, notes,
tables, what a stop kept, and where machine output goes."""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer
from rich.markup import escape

from hwpscan.atomic import TEMP_PREFIX, shared_mode
from hwpscan.cli.app import console, err_console, fail, warn
from hwpscan.cli.runs_view import said_recorded
from hwpscan.cli.stop import command_line, interrupted
from hwpscan.errors import UsageError
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import ExitCode, FileResult
from hwpscan.usecases.run_scan import (
    Row,
    ScanInterrupted,
    ScanObserver,
    ScanOutcome,
    ScanSettings,
    scan,
)

if TYPE_CHECKING:
    from hwpscan.history.records import RunArgs
    from hwpscan.report.tables import Show
    from hwpscan.usecases.run_fetch import FetchReport


MIN_BAR = 20  # files below which a bar would only flicker


class TerminalObserver(ScanObserver):
    """Progress bars on stderr (when it is a terminal; a running count when the total is
    not known), notes and warnings. *stream* gets each row as it comes, or *lines* its
    JSON line; *matrix_stream* each parser-matrix row."""

    def __init__(
        self,
        *,
        progress: bool = True,
        stream: Callable[[FileResult], None] | None = None,
        matrix_stream: Callable[[Any], None] | None = None,
        strict_markup: bool = False,
        lines: Callable[[bytes], None] | None = None,
    ) -> None:
        self.enabled = progress and err_console.is_terminal
        self.stream = stream
        self.lines = lines
        self.matrix_stream = matrix_stream
        self.strict_markup = strict_markup
        self._bar: Any = None
        self._task: Any = None
        self._status: Any = None
        self._count = 0
        self._guilty = 0
        self._started = time.monotonic()
        self._last = 0.0

    def started(self, phase: str, total: int | None) -> None:
        self._count, self._started = 0, time.monotonic()
        if not self.enabled or (total is not None and total < (MIN_BAR if phase == "scan" else 1)):
            return
        if total is None:  # a lazily listed source: a running count instead of a bar
            self._status = err_console.status("scanning")
            self._status.start()
            return
        self._bar = _bar(phase)
        self._bar.start()
        self._task = self._bar.add_task("", total=total, guilty=0)

    def result(self, result: FileResult) -> None:
        if self.stream is not None:
            self.stream(result)
        self._tick()

    def row(self, row: Row) -> None:
        self.rows((row,))

    def rows(self, rows: Sequence[Row]) -> None:
        if self.lines is not None:  # JSON lines hold no newline: one write for the batch
            self.lines(b"\n".join([row.data for row in rows]))
        elif self.stream is not None:
            for row in rows:
                self.stream(row.result)
        self._tick(len(rows))  # without a stream the result is not built here

    def matrix_row(self, row: Any) -> None:
        if self.matrix_stream is not None:
            self.matrix_stream(row)
        self._guilty += row.is_guilty(strict_markup=self.strict_markup)
        if self._bar is not None:
            name = escape_snippet(Path(row.path).name)[:40]
            self._bar.update(self._task, advance=1, guilty=self._guilty, description=name)

    def finished(self, phase: str) -> None:
        if self._bar is not None:
            self._bar.stop()
        if self._status is not None:
            self._status.stop()
        self._bar = self._status = None

    def note(self, message: str) -> None:
        err_console.print(escape_snippet(message), markup=False, highlight=False)

    def warn(self, message: str) -> None:
        warn(escape(escape_snippet(message)))  # a name's ESC shown, never sent

    def _tick(self, done: int = 1) -> None:
        self._count += done
        if self._bar is not None:
            self._bar.advance(self._task, done)
            return
        now = time.monotonic()
        if self._status is not None and now - self._last > 0.2:
            self._last = now
            rate = self._count / max(now - self._started, 1e-9)
            self._status.update(f"scanning: {self._count:,} files ({rate:,.0f}/s)")


def _bar(phase: str) -> Any:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns: list[Any] = [
        TextColumn("scanning" if phase == "scan" else "parser matrix"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    ]
    if phase == "matrix":  # rows done of files x extractors, guilty so far, the current file
        columns.append(TextColumn("{task.fields[guilty]} guilty · {task.description}"))
    return Progress(*columns, console=err_console, transient=True)


def scan_shown(
    settings: ScanSettings,
    observer: TerminalObserver,
    args: RunArgs,
    fetched: FetchReport | None,
) -> ScanOutcome:
    """The scan use case, exit 2 on settings that cannot work; then where the run went."""
    try:
        outcome = scan(settings, observer=observer, record_args=args, fetched=fetched)
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    said_recorded(outcome.report, outcome.run_id)
    return outcome


def said_stopped(
    stopped: ScanInterrupted,
    settings: ScanSettings,
    output: Path | None = None,
    streamed: bool = True,
    *,
    command: str = "scan",
    written: int | None = None,
) -> typer.Exit:
    """What a stopped scan kept and how to go on, on stderr; the exit to raise (130).
    *output* is the results file, *streamed* whether it got its rows as they came,
    *written* how many it got when fewer than the files scanned."""
    of = f" of {stopped.total:,}" if stopped.total is not None else ""
    done = f"{stopped.done:,}{of} files scanned"
    run = stopped.run_id
    kept = [f"{done}, recorded as run {run}" if run else f"{done} (not recorded in the history)"]
    if output is not None:
        if streamed:
            count = stopped.done if written is None else written
            their = "their" if count == stopped.done else "the first"
            kept.append(f"{output} holds {their} {count:,} row{'' if count == 1 else 's'}")
        else:
            kept.append(f"{output} was not written (its rows are written at the end)")
    if settings.repair is not None and stopped.done:
        kept.append(f"the repaired text of the files read is below {settings.repair.out}")
    if stopped.report:
        more = len(stopped.report) - 1
        kept.append(f"partial report written: {stopped.report[0]} (+{more} files)")
    elif stopped.report_error is not None:
        kept.append(f"the partial report could not be written ({stopped.report_error})")
    resumable = command == "scan" and settings.repair is None and settings.matrix is None
    if run is not None and resumable and stopped.done:
        go_on = command_line(drop=["--resume"], add=["--resume", run])
    else:
        go_on = command_line()  # the same command again: nothing is carried over
    report = f"hwpscan report {run}" if run is not None and stopped.done else None
    return interrupted(kept, go_on, report)


def stopped_after(outcome: ScanOutcome, output: Path | None = None, written: int = 0) -> typer.Exit:
    """A stop after the scan, while the tables were shown or while *output* got its last
    rows from the run's store (it holds *written*): every row is kept; say so (exit 130)."""
    done = len(outcome.results)
    run = outcome.run_id
    where = f", recorded as run {run}" if run else " (not recorded in the history)"
    doing = "showing the results" if output is None else f"writing {output}"
    kept = [f"stopped while {doing}: all {done:,} files were scanned{where}"]
    if output is not None:
        kept.append(f"{output} holds the first {written:,} row{'' if written == 1 else 's'}")
    return interrupted(kept, None, f"hwpscan report {run}" if run else None)


def render_tables(
    results: Sequence[FileResult], *, root: Path | str | None = None, show: Show | None = None
) -> None:
    """Verdict, date x format table, the file rows *show* asks for, verdict again."""
    from hwpscan.report.tables import scan_view

    shown_root = str(root) if root is not None else None
    for part in scan_view(results, root=shown_root, width=console.width, show=show):
        console.print(part, soft_wrap=False)  # wrapped to the width, piped or not


@contextmanager
def open_output(output: Path | None, *, keep_partial: bool = True) -> Iterator[IO[str]]:
    """The stream for machine output, in UTF-8 whatever the terminal's encoding.

    A results file is a temp file renamed over *output* when the block ends (a reader
    never sees a mix), and on a stop too when *keep_partial*. A device or pipe is
    written directly.
    """
    if output is None:
        with _stdout_utf8() as out:
            yield out
        return
    if output.exists() and not output.is_file():  # a device or a pipe: nothing to rename
        try:
            handle = output.open("w", encoding="utf-8", newline="")
        except OSError as exc:
            raise fail(f"cannot write {output}: {exc.strerror or exc}", ExitCode.USAGE) from None
        with handle:
            yield handle
        return
    target = output.resolve() if output.is_symlink() else output  # the file it names
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".part", dir=target.parent)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}", ExitCode.USAGE) from None
    tmp = Path(name)
    os.fchmod(fd, shared_mode())  # as open() would make it under the umask
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            try:
                yield handle
            except KeyboardInterrupt:
                if not keep_partial:
                    raise
                handle.flush()
                os.replace(tmp, target)
                raise
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def _stdout_utf8() -> Iterator[IO[str]]:
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
