"""The run history as commands use it: recorded runs with terminal messages, stored runs.

Not a command module: ``scan``, ``fetch``, ``verify``, ``demo`` and ``report`` share
these. The recording itself is :func:`hwpscan.history.recording.recorded_run`; here the
history's warnings are printed, the report bundle written after the run, and a stored
run that cannot be loaded becomes a message and exit 2.
"""

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
    """:func:`~hwpscan.history.recording.recorded_run` with the terminal: warnings
    printed, and on a normal exit the report bundle (*report_dir*, ``{run}`` becomes
    the run id) written and the run id told. Raise ``typer.Exit`` after the ``with``
    block, not inside it (inside, the run is recorded as interrupted). Without *record*
    (``--no-record``) the rows go to a temporary database, the report is still written."""
    if not record:
        recording = Recording(None, also=also, on_warning=warn)
        yield recording
    else:
        with recorded_run(kind, args, also=also, on_warning=warn) as recording:
            yield recording
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
        err_console.print(
            f"report written: {written[0]} (+{len(written) - 1} files)", highlight=False
        )
    if recording.info is not None:
        err_console.print(f"run recorded: {recording.info.id}", highlight=False)


def record_and_report(
    results: Sequence[FileResult],
    *,
    kind: str,
    args: RunArgs,
    report_dir: Path | None = None,
    summary: RunSummary | None = None,
    record: bool = True,
) -> str | None:
    """Record a finished run and (with *report_dir*) write its report bundle.

    Returns the run id, or None when the history could not be written (a warning says
    why; the command's own outcome does not change), or when *record* is off.
    """
    with reported_run(kind, args, report_dir=report_dir, record=record) as recording:
        if summary is not None:
            recording.summary = summary
        for result in results:
            recording(result)
    return recording.info.id if recording.info else None


def load_or_fail(ref: str) -> Run:
    """The stored run *ref* (id, prefix, ``latest``) with file results, or exit 2 saying why.

    A fetch run records its downloads, not scan results: reporting or diffing one would
    show nothing (or everything "appeared"), so it is refused with a pointer.
    """
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
