"""``hwpscan demo``: the whole job on the bundled API emulator, for a first look.

The work is :mod:`hwpscan.rehearsal.demo` (the emulator, a throwaway key and state) and
the scan use case; this module maps the options and shows what happens.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hwpscan.cli.app import ENV_LOCAL, EXIT_USAGE, app, check_writable_folder, epilog, err_console
from hwpscan.cli.fetch_view import raise_for_report, run_fetch
from hwpscan.cli.options import DOWNLOADS, DownloadsOpt
from hwpscan.cli.runs_view import RecordOpt
from hwpscan.cli.scan_view import (
    TerminalObserver,
    render_tables,
    said_stopped,
    scan_shown,
    stopped_after,
)
from hwpscan.usecases.scan import ScanInterrupted, ScanSettings

if TYPE_CHECKING:  # the emulator loads when the demo runs, not for --help
    from hwpscan.rehearsal.demo import DemoSettings

__all__ = ["demo"]


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
        Path | None,
        typer.Option("--out", help="Keep the downloaded files here (default: a temp folder)."),
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Scan processes (0: one per core).")
    ] = 0,
    downloads: DownloadsOpt = DOWNLOADS,
    report_dir: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write report.html, files.csv, pivot.csv, summary.md and junit.xml here.",
        ),
    ] = None,
    record: RecordOpt = True,
) -> None:
    """Run the whole job on a local API emulator: fetch 2025-07-21..2025-08-11, scan, tabulate.

    The fetch uses a throwaway key and state; the scan is recorded in your run history,
    marked as a demo, so `hwpscan history` and `hwpscan report` work right after it.
    """
    if report_dir is not None:  # fail now, not after the whole demo
        check_writable_folder(report_dir, "--report")
    from hwpscan.rehearsal.demo import DemoSettings  # the emulator: not for --help

    _run(DemoSettings(out=out, downloads=downloads, jobs=jobs, report_dir=report_dir), record)
    if out is None:
        _say("the downloads above were temporary: pass --out DIR to keep them")


def _run(settings: DemoSettings, record: bool = True) -> None:
    """Fetch the incident's range from the emulator, then scan and tabulate it."""
    from hwpscan.rehearsal.demo import (  # the emulator: not for --help
        DEMO_RANGE,
        demo_api,
        demo_record_args,
    )

    with demo_api(settings) as api:
        _say(
            f"API emulator on {api.url} (throwaway key and state; the bundled catalogue is "
            "from 2025, so the other-year warning is expected)"
        )
        first, last = DEMO_RANGE
        fetch = api.fetch_settings()
        report = run_fetch(first, last, fetch, key=api.key, show_progress=True, assume_yes=True)
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
        try:
            render_tables(outcome.results, root=api.folder)
        except KeyboardInterrupt:
            raise stopped_after(outcome) from None


def _say(message: str) -> None:
    err_console.print(message, highlight=False)
