"""The run history with the terminal, for every command that records or reads runs:
warnings printed, the report bundle written after a run, exit 2 for a run that cannot
be loaded."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from hwpscan.cli.app import err_console, fail, warn
from hwpscan.errors import RunNotFoundError, StateDirError, StoreError
from hwpscan.history import Run, default_store
from hwpscan.history.recording import Recording, recorded_run
from hwpscan.history.records import RunArgs, RunSummary
from hwpscan.models import ExitCode, FileResult


@contextmanager
def reported_run(
    kind: str,
    args: RunArgs,
    *,
    report_dir: Path | None = None,
    also: Callable[[FileResult], None] | None = None,
    record: bool = True,
) -> Iterator[Recording]:
    """:func:`~hwpscan.history.recording.recorded_run` with the terminal; on a normal
    exit the report bundle (*report_dir*, ``{run}``: the run id) is written and the run
    id told. Raise ``typer.Exit`` after the block: inside, the run is recorded as
    interrupted. Without *record* the rows go to a temporary database."""
    if not record:
        recording = Recording(None, also=also, on_warning=warn)
        yield recording
    else:
        with recorded_run(kind, args, also=also, on_warning=warn) as recording:
            yield recording
    written: Sequence[Path] = ()
    if report_dir is not None:
        from hwpscan.report.bundle import write_run_report  # pandas: only for a report

        found = recording.summary.verify
        verify = dict(found) if found is not None and "verdicts" in found else None
        try:
            written = write_run_report(
                recording.results,
                report_dir,
                run=recording.info,
                matrix=recording.matrix,
                verify=verify,
            )
        except OSError as exc:
            message = f"--report {report_dir}: the report could not be written ({exc})"
            raise fail(message, ExitCode.USAGE) from None
    said_recorded(written, recording.info.id if recording.info is not None else None)


def said_recorded(report: Sequence[Path], run_id: str | None) -> None:
    """Where a run went: its report bundle (its first file, then how many more) and its
    id in the history, each when there is one."""
    if report:  # a path's [brackets] shown as they are
        shown = f"report written: {report[0]} (+{len(report) - 1} files)"
        err_console.print(shown, markup=False, highlight=False)
    if run_id is not None:
        err_console.print(f"run recorded: {run_id}", highlight=False)


def record_and_report(
    results: Sequence[FileResult],
    *,
    kind: str,
    args: RunArgs,
    report_dir: Path | None = None,
    summary: RunSummary | None = None,
    record: bool = True,
) -> str | None:
    """Record a finished run and (with *report_dir*) write its report bundle; the run
    id, or None when not recorded (*record* off, or the history could not be written)."""
    with reported_run(kind, args, report_dir=report_dir, record=record) as recording:
        if summary is not None:
            recording.summary = summary
        for result in results:
            recording(result)
    return recording.info.id if recording.info else None


def load_or_fail(ref: str) -> Run:
    """The stored run *ref* (id, prefix, ``latest``) with file results, or exit 2 saying
    why; a fetch run, which holds downloads and no scan results, is refused."""
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
