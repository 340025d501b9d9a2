"""The report folder: ``report.html``, ``files.csv``, ``pivot.csv``, ``summary.md``, ``junit.xml``.

Each file is written to a temporary name and renamed into place, so a report folder
never holds half a file. :func:`write_report` writes a folder; :func:`write_run_report`
is what a command calls after a run (``--report reports/{run}``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hwpscan.atomic import atomic_file, atomic_write
from hwpscan.history.records import RunInfo
from hwpscan.matrix.matrix_rows import MatrixRow
from hwpscan.models import FileResult
from hwpscan.report.cells import pivot_counts
from hwpscan.report.export import BOM, write_csv
from hwpscan.report.html import html_chunks
from hwpscan.report.junit import junit_xml
from hwpscan.report.summary import summary_markdown
from hwpscan.report.verify_report import (
    date_verdicts,
    partial_html,
    partial_note,
    verdicts_html,
    verdicts_junit,
    verdicts_markdown,
)

REPORT_FILES = ("report.html", "files.csv", "pivot.csv", "summary.md", "junit.xml")


def pivot_csv(results: Sequence[FileResult]) -> str:
    """The long-form pivot (date, format, files, contaminated, clean, unreadable, and
    lossy: clean files whose characters are shown as others) as CSV.

    >>> pivot_csv([]).strip()
    'date,format,files,contaminated,clean,unreadable,lossy'
    """
    buf = io.StringIO()
    pivot_counts(results).to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue()


def _files_csv(results: Sequence[FileResult]) -> str:
    buf = io.StringIO()
    write_csv(results, buf)
    return buf.getvalue()


def _write(path: Path, data: str | bytes) -> Path:
    atomic_write(path, data, shared=True)  # a report is for people: 0644, as open() makes
    return path


def _write_chunks(path: Path, chunks: Iterable[str]) -> Path:
    """Write text as it is made: a large page is never one string in memory."""
    with atomic_file(path, shared=True) as handle:
        for chunk in chunks:
            handle.write(chunk.encode("utf-8"))
    return path


def partial_banner(done: int, total: int | None) -> str:
    """The banner of the report a stopped run writes: how far it got.

    >>> partial_banner(12, 40).split(";")[0]
    'Partial: stopped after 12 of 40 files'
    >>> partial_banner(1, None).split(";")[0]
    'Partial: stopped after 1 file'
    """
    of = f" of {total:,}" if total is not None else ""
    files = "file" if total is None and done == 1 else "files"
    return (
        f"Partial: stopped after {done:,}{of} {files}; the run was interrupted, so this "
        "report holds only those"
    )


def report_order(result: FileResult) -> tuple[bool, str, str]:
    """Files by date (undated last), then path: how every report lists them.

    >>> from hwpscan.models import Format, Status
    >>> rows = [FileResult(p, "", 1, Format.HWP5, Status.CLEAN, date=d)
    ...         for p, d in [("b", "2025-08-11"), ("c", None), ("a", "2025-08-11"),
    ...                      ("z", "2025-07-21")]]
    >>> [r.path for r in sorted(rows, key=report_order)]
    ['z', 'a', 'b', 'c']
    """
    return (result.date is None, result.date or "", result.path)


def write_report(
    results: Sequence[FileResult],
    out_dir: Path,
    *,
    run: RunInfo | None = None,
    matrix: Sequence[MatrixRow] = (),
    verify: Mapping[str, Any] | None = None,
    partial: str | None = None,
) -> list[Path]:
    """Write the five report files into *out_dir* (created), files in :func:`report_order`,
    and return their paths. *matrix* rows add the extractor table and ranking; a verify
    run (its summary's ``verdicts``, or *verify*) leads with each date's verdict and has
    a junit.xml case per date; *partial* (:func:`partial_banner`) heads a stopped run's."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = sorted(results, key=report_order)  # a list of references: no copy of a row
    run_id = run.id if run else None
    strict = bool(run.args.get("strict_markup")) if run else False
    if verify is None and run is not None and run.kind == "verify":
        verify = run.summary
    stored = verify.get("verdicts") if verify is not None else None
    rows = date_verdicts(stored) if isinstance(stored, Mapping) and stored else None
    stopped = str(verify["stopped"]) if verify is not None and verify.get("stopped") else None
    partial = partial or partial_note(run)
    lead = (partial_html(partial) if partial else "") + (verdicts_html(rows) if rows else "")
    md_lead = ([f"**{partial}.**", ""] if partial else []) + (
        verdicts_markdown(rows, stopped=stopped) if rows else []
    )
    page = html_chunks(results, run=run, matrix=matrix, strict_markup=strict, lead=lead)
    junit = (
        verdicts_junit(rows, partial=partial, stopped=stopped)
        if rows
        else junit_xml(results, interrupted=partial)
    )
    return [
        _write_chunks(out_dir / "report.html", page),
        _write(out_dir / "files.csv", _files_csv(results)),
        _write(out_dir / "pivot.csv", BOM + pivot_csv(results)),  # BOM: for spreadsheets
        _write(
            out_dir / "summary.md",
            summary_markdown(
                results, run_id=run_id, matrix=matrix, strict_markup=strict, lead=md_lead
            ),
        ),
        _write(out_dir / "junit.xml", junit),
    ]


def report_folder(report_dir: Path, run: RunInfo | None) -> Path:
    """*report_dir* with ``{run}`` replaced by the run's id (``unrecorded`` without one).

    >>> report_folder(Path("reports/{run}"), None).as_posix()
    'reports/unrecorded'
    """
    return Path(str(report_dir).replace("{run}", run.id if run else "unrecorded"))


def write_run_report(
    results: Sequence[FileResult],
    report_dir: Path,
    *,
    run: RunInfo | None = None,
    matrix: Sequence[MatrixRow] = (),
    verify: Mapping[str, Any] | None = None,
    partial: str | None = None,
) -> list[Path]:
    """The report bundle of a run that just ended, in :func:`report_folder` (*verify*:
    a verify run's summary, for its verdicts even when the history could not keep it).
    Returns the paths written; an :class:`OSError` says why it could not."""
    folder = report_folder(report_dir, run)
    return write_report(results, folder, run=run, matrix=matrix, verify=verify, partial=partial)
