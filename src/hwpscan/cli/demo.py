"""``hwpscan demo``: the whole job on the bundled API emulator, for a first look."""

from __future__ import annotations

import os
import secrets
import tempfile
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from hwpscan.cli.app import app, check_writable_folder, err_console
from hwpscan.cli.fetch_view import raise_for_report, run_fetch
from hwpscan.cli.options import OldOutOpt, deprecated


@app.command(rich_help_panel="Fetch from the API")
def demo(
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Keep the downloaded files here (default: a temp folder)."),
    ] = None,
    out_old: OldOutOpt = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Scan processes (0: one per core).")
    ] = 0,
    report_dir: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write report.html, files.csv, pivot.csv, summary.md and junit.xml here.",
        ),
    ] = None,
) -> None:
    """Run the whole job on a local API emulator: fetch 2025-07-21..2025-08-11, scan, tabulate.

    The fetch uses a throwaway key and state; the scan is recorded in your run history,
    marked as a demo, so `hwpscan history` and `hwpscan report` work right after it.
    """
    from hwpscan.cli.scan import render_tables, run_scan
    from hwpscan.rehearsal.emulator.server import serve_in_thread

    out = deprecated(out_old, out, "-o for a folder is deprecated: use --out")

    first, last = date(2025, 7, 21), date(2025, 8, 11)
    if report_dir is not None:  # fail now, not after the whole demo
        check_writable_folder(report_dir, "--report")
    old_home = os.environ.get("HWPSCAN_HOME")
    with tempfile.TemporaryDirectory(prefix="hwpscan-demo-") as tmp:
        os.environ["HWPSCAN_HOME"] = str(Path(tmp) / "home")
        try:
            key = "DEMO" + secrets.token_hex(14)
            folder = out or Path(tmp) / "downloads"
            with serve_in_thread() as emulator:
                err_console.print(
                    f"API emulator on {emulator.url} (throwaway key and state; the bundled "
                    "catalogue is from 2025, so the other-year warning is expected)",
                    highlight=False,
                )
                report = run_fetch(
                    first,
                    last,
                    key=key,
                    out_dir=folder,
                    api_url=emulator.api_url,
                    show_progress=True,
                    assume_yes=True,  # the bundled catalogue's year is expected
                )
                stats = emulator.stats()
            err_console.print(
                f"emulator counted {stats.calls_total} API call(s) "
                f"and {stats.downloads_total} download(s)",
                highlight=False,
            )
            raise_for_report(report, key)
            results = run_scan([folder], jobs=jobs, progress=True)
            render_tables(results, root=folder)
            if out is None:
                err_console.print(
                    "the downloads above were temporary: pass --out DIR to keep them",
                    highlight=False,
                )
        finally:
            if old_home is None:
                os.environ.pop("HWPSCAN_HOME", None)
            else:
                os.environ["HWPSCAN_HOME"] = old_home
        # back in the user's state: the demo's scan joins their history, marked as a demo
        from hwpscan.cli.runs_view import record_and_report
        from hwpscan.runs.recording import fetch_summary

        record_and_report(
            results,
            kind="scan",
            args={"demo": True, "start": first.isoformat(), "end": last.isoformat(), "out": out},
            report_dir=report_dir,
            summary={"demo": True, **fetch_summary(report)},
        )


__all__ = ["demo"]
