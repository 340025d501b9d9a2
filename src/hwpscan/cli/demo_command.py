"""``hwpscan demo``: the whole job on the bundled API emulator
(:mod:`hwpscan.rehearsal.demo_session`), for a first look."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hwpscan.api import defaults
from hwpscan.cli.app import ENV_LOCAL, EXIT_USAGE, app, check_writable_folder, epilog, err_console
from hwpscan.cli.machine import (
    MachineFormat,
    MachineFormatOpt,
    ResultsOutOpt,
    check_results_file,
    write_rows_document,
)
from hwpscan.cli.options import DownloadsOpt, RecordOpt

if TYPE_CHECKING:
    from hwpscan.rehearsal.demo_session import DemoSettings
    from hwpscan.usecases.run_scan import ScanOutcome


@app.command(
    rich_help_panel="Fetch from the API",
    epilog=epilog(
        [
            ("hwpscan demo", "the whole job on a local emulator; recorded as a demo run"),
            ("hwpscan demo --out demo/ --report demo-report/", "keep the files and a report"),
        ],
        ENV_LOCAL,
        ["0  the demo ran", EXIT_USAGE, "3  the emulated fetch failed"],
    ),
)
def demo(
    out: Annotated[
        Path | None, typer.Option(help="Keep the downloaded files here (default: a temp folder).")
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Scan processes (0: one per core).")
    ] = 0,
    downloads: DownloadsOpt = defaults.DEFAULT_DOWNLOADS,
    report_dir: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write report.html, files.csv, pivot.csv, summary.md and junit.xml here.",
        ),
    ] = None,
    fmt: MachineFormatOpt = MachineFormat.table,
    output: ResultsOutOpt = None,
    record: RecordOpt = True,
) -> None:
    """Run the whole job on a local API emulator: fetch 2025-07-21..2025-08-11, scan, tabulate.

    The fetch uses a throwaway key and state; the scan is recorded in your run history,
    marked as a demo, so `hwpscan history` and `hwpscan report` work right after it.
    """
    output = check_results_file(output, fmt.value, "json")
    if report_dir is not None:  # fail now, not after the whole demo
        check_writable_folder(report_dir, "--report")
    from hwpscan.rehearsal.demo_session import DemoSettings

    settings = DemoSettings(out=out, downloads=downloads, jobs=jobs, report_dir=report_dir)
    _run(settings, fmt, output, record)
    if out is None:
        _say("the downloads above were temporary: pass --out DIR to keep them")


#: ``demo --format json``: the emulator's counts, then ``scan --format json``'s keys.
DEMO_SCHEMA = "hwpscan.demo/1"


def _run(
    settings: DemoSettings, fmt: MachineFormat, output: Path | None, record: bool = True
) -> None:
    """Fetch the incident's range from the emulator, then scan and tabulate it."""
    from hwpscan.cli.fetch_view import raise_for_report, run_fetch
    from hwpscan.cli.scan_view import (
        TerminalObserver,
        render_tables,
        said_stopped,
        scan_shown,
        stopped_after,
    )
    from hwpscan.rehearsal.demo_session import DEMO_RANGE, demo_api, demo_record_args
    from hwpscan.usecases.run_scan import ScanInterrupted, ScanSettings

    with demo_api(settings) as api:
        _say(
            f"API emulator on {api.url} (throwaway key and state; the bundled catalogue is "
            "from 2025, so the other-year warning is expected)"
        )
        first, last = DEMO_RANGE
        fetch = api.fetch_settings()
        report = run_fetch(first, last, fetch, key=api.key, show_progress=True)
        stats = api.stats()
        _say(
            f"emulator counted {stats.calls_total} API call(s) "
            f"and {stats.downloads_total} download(s)"
        )
        raise_for_report(report, api.key)
        scanned = ScanSettings(
            (api.folder,), settings.jobs, report_dir=settings.report_dir, record=record
        )
        args = demo_record_args(settings)
        try:
            outcome = scan_shown(scanned, TerminalObserver(), args, report)
        except ScanInterrupted as stopped:
            raise said_stopped(stopped, scanned, command="demo") from None
        if fmt is MachineFormat.json:
            _write_json(outcome, stats, output)
        else:
            try:
                render_tables(outcome.results, root=api.folder)
            except KeyboardInterrupt:
                raise stopped_after(outcome) from None


def _write_json(outcome: ScanOutcome, stats: Any, output: Path | None) -> None:
    """``demo --format json``: the emulator's counts, the run and its rows."""
    from hwpscan.cli.scan_view import open_output
    from hwpscan.history.stored_rows import status_counts

    counts = {s.value: n for s, n in status_counts(outcome.results).items() if n}
    head: dict[str, object] = {
        "schema": DEMO_SCHEMA,
        "calls": stats.calls_total,
        "downloads": stats.downloads_total,
        "run": outcome.run_id,
        "files": len(outcome.results),
        "counts": dict(sorted(counts.items())),
    }
    with open_output(output) as stream:
        write_rows_document(stream, head, outcome.results)


def _say(message: str) -> None:
    err_console.print(message, highlight=False)
