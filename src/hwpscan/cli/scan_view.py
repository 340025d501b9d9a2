"""What a scan shows on the terminal: progress, notes, tables, and where machine output goes.

Shared by ``scan``, ``repair`` and ``demo`` (a non-command module, so no command module
imports another). :class:`TerminalObserver` is the terminal's
:class:`hwpscan.usecases.scan.ScanObserver`: a progress bar per phase on a terminal
(a running count when the total is not known), notes and warnings on stderr, and each
row passed on to the streamed output.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich.markup import escape

from hwpscan.cli.app import console, err_console, fail
from hwpscan.errors import UsageError
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import ExitCode, FileResult
from hwpscan.report.tables import Show, scan_view
from hwpscan.usecases.scan import Row, ScanObserver, ScanOutcome, ScanSettings, scan

if TYPE_CHECKING:
    from hwpscan.fetch.run import FetchReport

__all__ = ["TerminalObserver", "open_output", "render_tables", "scan_shown", "show_recorded"]

MIN_BAR = 20  # files below which a bar would only flicker


class TerminalObserver(ScanObserver):
    """Progress bars on stderr (when it is a terminal), notes and warnings, streamed rows.

    *stream* gets each row the moment it exists (``--format jsonl/csv`` as files
    complete), or *lines* its JSON line in UTF-8 when that is all the output needs;
    *matrix_stream* each parser-matrix row; *strict_markup* is what the matrix bar
    counts as guilty.
    """

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
        shown = escape(escape_snippet(message))  # a name's ESC shown, never sent
        err_console.print(f"[yellow]warning:[/] {shown}", highlight=False)

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
    args: dict[str, Any],
    fetched: FetchReport | None,
) -> ScanOutcome:
    """The scan use case with the terminal: exit 2 on settings that cannot work (saying
    why), then where the run and its report went."""
    try:
        outcome = scan(settings, observer=observer, record_args=args, fetched=fetched)
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    show_recorded(outcome)
    return outcome


def show_recorded(outcome: ScanOutcome) -> None:
    """Where the run went: the report bundle written, the run id in the history."""
    if outcome.report:
        more = len(outcome.report) - 1
        shown = f"report written: {outcome.report[0]} (+{more} files)"
        err_console.print(shown, markup=False, highlight=False)  # a path's [brackets] shown
    if outcome.run_id is not None:
        err_console.print(f"run recorded: {outcome.run_id}", highlight=False)


def render_tables(
    results: Sequence[FileResult], *, root: Path | str | None = None, show: Show | None = None
) -> None:
    """Verdict, date x format table, the file rows *show* asks for, verdict again."""
    shown_root = str(root) if root is not None else None
    for part in scan_view(results, root=shown_root, width=console.width, show=show):
        console.print(part, soft_wrap=False)  # wrapped to the width, piped or not


@contextmanager
def open_output(output: Path | None, *, append: bool = False) -> Iterator[IO[str]]:
    """The stream for machine output: always UTF-8, whatever the terminal's encoding."""
    if output is None:
        with _stdout_utf8() as out:
            yield out
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        handle = output.open("a" if append else "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}", ExitCode.USAGE) from None
    with handle:
        yield handle


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
