"""``hwpscan repair``: the scan of ``hwpscan scan`` with each readable file's repaired
text written below ``--out`` (:class:`~hwpscan.usecases.run_scan.RepairSettings`)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, ClassVar

import typer

from hwpscan.cli.app import (
    ENV_LOCAL,
    EXIT_USAGE,
    app,
    check_writable_folder,
    console,
    epilog,
    err_console,
    fail,
)
from hwpscan.cli.machine import ResultsOutOpt, check_results_file, write_rows_document
from hwpscan.cli.options import FileTimeoutOpt, JobsOpt, ProgressOpt, PuaChoice
from hwpscan.cli.params import options_from_dataclasses
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import ExitCode
from hwpscan.scanning.one_file import DEFAULT_FILE_TIMEOUT

if TYPE_CHECKING:
    from hwpscan.forensics.guard import PuaMode
    from hwpscan.models import FileResult
    from hwpscan.usecases.run_scan import RepairSettings, ScanOutcome, ScanSettings


class OrphanPolicy(str, enum.Enum):
    # upper-case names: a member called ``replace`` would shadow str.replace
    DROP = "drop"
    REPLACE = "replace"
    ESCAPE = "escape"
    BOX = "box"


@dataclass(frozen=True)
class RepairTextOptions:
    """What ``repair`` does with lone halves and private use."""

    PANEL: ClassVar[str] = "Repair"

    orphans: Annotated[
        OrphanPolicy | None,
        typer.Option(
            help="What to do with halves that have no partner: drop, replace (U+FFFD), "
            "escape (\\udc00), box (U+25A1, as Hancom's HWPX export). Default: drop, or "
            "box with --pua map or placeholder.",
            show_default=False,
        ),
    ] = None
    pua: Annotated[
        PuaChoice,
        typer.Option(
            help="Private use: keep (lossless; HWP 5 folded symbols restored to their "
            "plane-15 code point), map (display equivalents, jamo for old Hangul; unmapped "
            "kept and listed), placeholder (U+25A1 for each), drop (removed, and listed).",
        ),
    ] = PuaChoice.KEEP
    pua_map: Annotated[bool, typer.Option("--pua-map", hidden=True)] = False

    def settings(self, out: Path) -> RepairSettings:
        """The repair policy: ``--pua-map`` read as ``--pua map``, the orphans' default
        by the mode."""
        from hwpscan.usecases.run_scan import RepairSettings

        mode: PuaMode = self.pua.value
        if self.pua_map:  # the older spelling of --pua map
            if self.pua not in (PuaChoice.KEEP, PuaChoice.MAP):
                message = f"--pua-map is --pua map: it cannot go with --pua {self.pua.value}"
                raise fail(message, ExitCode.USAGE)
            err_console.print("warning: --pua-map is deprecated: use --pua map", markup=False)
            mode = "map"
        orphans = self.orphans
        if orphans is None:
            orphans = OrphanPolicy.BOX if mode in ("map", "placeholder") else OrphanPolicy.DROP
        return RepairSettings(out, orphans.value, pua=mode)


class RepairFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    csv = "csv"


RepairFormatOpt = Annotated[
    RepairFormat,
    typer.Option(
        "--format",
        "-f",
        help="table for people; json (one document), jsonl or csv: a row per file.",
    ),
]


@app.command(
    rich_help_panel="Scan files",
    epilog=epilog(
        [
            ("hwpscan repair press/ --out repaired/", "UTF-8 text with pairs restored"),
            (
                "hwpscan repair a.hwp --out out/ --orphans replace --pua map",
                "orphans as U+FFFD, Hancom PUA as standard characters",
            ),
        ],
        ENV_LOCAL,
        ["0  every file written or reported", EXIT_USAGE],
    ),
)
@options_from_dataclasses
def repair(
    paths: Annotated[
        list[Path], typer.Argument(help="Files and folders to repair.", show_default=False)
    ],
    out: Annotated[
        Path | None, typer.Option(help="Folder for the repaired .txt files.", show_default=False)
    ] = None,
    *,
    text: RepairTextOptions,
    jobs: JobsOpt = 0,
    progress: ProgressOpt = True,
    file_timeout: FileTimeoutOpt = DEFAULT_FILE_TIMEOUT,
    fmt: RepairFormatOpt = RepairFormat.table,
    output: ResultsOutOpt = None,
) -> None:
    """Write each file's body text as UTF-8 with surrogate pairs restored and orphans removed.

    The table (or the rows of --format) says, per file, where its text went and what was
    restored or removed; the last line how many files were written below --out.
    """
    from hwpscan.cli.scan_view import open_output
    from hwpscan.report.tables import repair_table
    from hwpscan.usecases.run_scan import ScanSettings

    results_file = check_results_file(output, fmt.value, "json, jsonl or csv")
    out = _repair_folder(out)
    policy = text.settings(out)
    settings = ScanSettings(tuple(paths), jobs, file_timeout, repair=policy, record=False)
    outcome = _scan_or_stop(settings, results_file, progress=progress)
    if fmt is RepairFormat.table:
        root = str(outcome.display_root) if outcome.display_root else None
        console.print(repair_table(outcome.results, out=out, root=root, pua=policy.pua))
        shown = console
    else:
        with open_output(results_file, keep_partial=False) as stream:
            _write_repair_rows(stream, fmt, outcome.results, out)
        shown = err_console
    for warning in not_written(outcome.results):
        err_console.print(f"warning: {warning}", markup=False, highlight=False)
    shown.print(repaired_line(outcome.results, out), markup=False, highlight=False)
    raise typer.Exit(code=ExitCode.OK)


def _scan_or_stop(
    settings: ScanSettings, results_file: Path | None, *, progress: bool
) -> ScanOutcome:
    """The scan that writes the text; a stop says what was kept (exit 130)."""
    from hwpscan.cli.scan_view import TerminalObserver, said_stopped, scan_shown
    from hwpscan.history.records import RunArgs
    from hwpscan.usecases.run_scan import ScanInterrupted

    try:
        return scan_shown(settings, TerminalObserver(progress=progress), RunArgs(), None)
    except ScanInterrupted as stopped:
        raise said_stopped(stopped, settings, results_file, False, command="repair") from None


#: ``repair --format json``: its rows are scan rows, each with its ``repair`` object.
REPAIR_SCHEMA = "hwpscan.repair/1"


def _write_repair_rows(
    stream: IO[str], fmt: RepairFormat, results: Sequence[FileResult], out: Path
) -> None:
    from hwpscan.history.stored_rows import row_lines
    from hwpscan.report.export import csv_sink

    if fmt is RepairFormat.csv:
        write = csv_sink(stream, repair=True)
        for result in results:
            write(result)
    elif fmt is RepairFormat.jsonl:
        for line in row_lines(results):
            stream.write(line + "\n")
    else:
        written = sum(1 for r in results if r.repair is not None)
        head = {"schema": REPAIR_SCHEMA, "out": str(out), "files": len(results)}
        write_rows_document(stream, {**head, "repaired": written}, results)


def repaired_line(results: Sequence[FileResult], out: Path) -> str:
    """The last line of ``repair``: how many files got their text written, and where;
    the others counted by why (no text read, or the write failed).

    >>> from hwpscan.models import FileResult, Format, RepairSummary, Status
    >>> done = FileResult("a.hwp", "", 1, Format.HWP5, Status.CLEAN, repair=RepairSummary())
    >>> unread = FileResult("b.hwp", "", 1, Format.HWP5, Status.ENCRYPTED)
    >>> failed = FileResult("c.hwp", "", 1, Format.HWP5, Status.CLEAN)
    >>> repaired_line([done, unread], Path("out"))
    '1 file repaired, written below out (1 not: no text read)'
    >>> repaired_line([done, unread, failed], Path("out"))
    '1 file repaired, written below out (2 not: 1 no text read, 1 not written)'
    """
    written = sum(1 for r in results if r.repair is not None)
    unread = sum(1 for r in results if r.repair is None and not r.status.scanned)
    failed = len(results) - written - unread
    shown = escape_snippet(str(out))
    line = f"{written:,} file{'s' * (written != 1)} repaired, written below {shown}"
    if unread and not failed:
        line += f" ({unread:,} not: no text read)"
    elif failed:
        why = f"{unread:,} no text read, " if unread else ""
        line += f" ({unread + failed:,} not: {why}{failed:,} not written)"
    return line


def not_written(results: Sequence[FileResult]) -> list[str]:
    """The warnings of files read whole whose repaired text could not be written."""
    return [
        escape_snippet(w)
        for r in results
        if r.repair is None and r.status.scanned
        for w in r.warnings
        if w.startswith("repaired text not written")
    ]


def _repair_folder(out: Path | None) -> Path:
    if out is None:
        raise fail("repair needs --out FOLDER for the repaired .txt files", ExitCode.USAGE)
    check_writable_folder(out, "--out")
    return out
