"""``hwpscan verify``: fetch chosen dates (cache first), scan them, a verdict per date.

What an operator runs after a deploy. The verdicts come from :mod:`hwpscan.verify`;
this module parses options, drives the fetch and renders.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from hwpscan.cli.app import app, console, err_console, fail
from hwpscan.cli.fetch import fetch_for_scan, stop_message
from hwpscan.cli.report import load_or_fail, record_and_report
from hwpscan.errors import UsageError
from hwpscan.fetch import DEFAULT_API_URL
from hwpscan.fetch.dates import parse_date, with_weekday
from hwpscan.models import ExitCode
from hwpscan.store import date_states
from hwpscan.verify import DateVerdict, group_dates, scan_files, verdicts

__all__ = ["render_verdicts", "verify"]


class Expect(str, enum.Enum):
    contaminated = "contaminated"
    clean = "clean"


def _parse_days(values: Sequence[str]) -> list[date]:
    try:
        return [parse_date(v, what="--date") for v in values]
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


def render_verdicts(verdicts: Sequence[DateVerdict], *, show_before: bool) -> None:
    """The verdict table; the files behind a failed repair check go to stderr."""
    table = Table(title="Verification", title_justify="left")
    for col in (
        "date",
        "files",
        "raw extraction",
        "repaired text",
        "expected",
        *(("before",) if show_before else ()),
        "verdict",
    ):
        table.add_column(col, justify="right" if col == "files" else "left")
    for v in verdicts:
        raw = (
            Text(f"contaminated ({v.contaminated}/{v.files})", style="bold red")
            if v.raw == "contaminated"
            else Text(v.raw, style="green" if v.raw == "clean" else "yellow")
        )
        repaired = (
            Text("—", style="dim")
            if v.repaired_clean is None
            else Text("UTF-8 clean", style="green")
            if v.repaired_clean
            else Text("FAIL", style="bold red")
        )
        verdict = (
            Text("OK", style="bold green")
            if v.matches
            else Text(f"MISMATCH: {v.reason}", style="bold red")
        )
        table.add_row(
            with_weekday(date.fromisoformat(v.date)),
            str(v.files),
            raw,
            repaired,
            v.expected or "any",
            *((v.before or "—",) if show_before else ()),
            verdict,
        )
    console.print(table)
    for v in verdicts:
        for problem in v.problems:
            err_console.print(f"[red]{v.date}[/]: {problem}", highlight=False)


@app.command(rich_help_panel="Fetch from the API")
def verify(
    dates: Annotated[
        list[str],
        typer.Option(
            "--date", "-d", help="A day to verify, YYYY-MM-DD (repeatable).", show_default=False
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    expect: Annotated[
        Expect | None,
        typer.Option("--expect", help="What the raw extraction should show on every date."),
    ] = None,
    after: Annotated[
        str | None,
        typer.Option("--after", help="Compare with this earlier run (id, prefix or 'latest')."),
    ] = None,
    api_url: Annotated[
        str | None,
        typer.Option(
            "--api-url",
            envvar="HWPSCAN_API_URL",
            help="The listing endpoint (default: the real API).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for attachments (default: the scan cache)."),
    ] = None,
    allow_host: Annotated[
        list[str],
        typer.Option("--allow-host", help="Also download attachments from this host (repeatable)."),
    ] = [],  # noqa: B006
    download_path: Annotated[
        list[str],
        typer.Option(
            "--download-path",
            help="Accepted attachment path prefix (repeatable; replaces the default).",
        ),
    ] = [],  # noqa: B006
    window_days: Annotated[
        int, typer.Option("--window-days", min=1, help="Days per call, both ends counted.")
    ] = 21,
    daily_limit: Annotated[
        int | None,
        typer.Option("--daily-limit", min=0, help="Calls allowed per key per Korea-time day."),
    ] = None,
    reset_hour: Annotated[
        int | None,
        typer.Option("--reset-hour", min=0, max=23, help="Korea-time hour the daily quota resets."),
    ] = None,
    max_mb: Annotated[
        float | None, typer.Option("--max-mb", min=0.001, help="Size cap per attachment, MB.")
    ] = None,
    connect_timeout: Annotated[
        float, typer.Option("--connect-timeout", min=0.1, help="Seconds.")
    ] = 10.0,
    read_timeout: Annotated[
        float, typer.Option("--read-timeout", min=0.1, help="Seconds between bytes.")
    ] = 60.0,
    retries: Annotated[
        int, typer.Option("--retries", min=0, help="Retries on timeouts and 5xx.")
    ] = 3,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Scan processes (0: one per core).")
    ] = 0,
    show_progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bars.")
    ] = True,
) -> None:
    """Fetch chosen dates (cache first), scan them, and give a verdict per date.

    Exit 0 when every date matches, 1 on any mismatch, 2 on bad dates, 3 when the API
    or its limits stopped the fetch.
    """
    days = _parse_days(dates)
    before: dict[str, str] | None = None
    if after is not None:
        baseline = load_or_fail(after)
        before = date_states(baseline.results)
        if not days:
            days = sorted(date.fromisoformat(d) for d in before)
    if not days:
        raise fail(
            "give at least one --date YYYY-MM-DD (or --after RUN to re-check its dates)",
            ExitCode.USAGE,
        )
    url = api_url or DEFAULT_API_URL
    options: dict[str, Any] = {
        "window_days": window_days,
        "allow_hosts": tuple(allow_host),
        "connect_timeout": connect_timeout,
        "read_timeout": read_timeout,
        "retries": retries,
    }
    if daily_limit is not None:
        options["daily_limit"] = daily_limit
    if reset_hour is not None:
        options["reset_hour"] = reset_hour
    if max_mb is not None:
        options["max_bytes"] = int(max_mb * 1_000_000)
    if download_path:
        options["path_prefixes"] = tuple(download_path)
    folder: Path | None = out
    stopped: str | None = None
    listed: list[Path] = []  # only what these fetches listed, not older files in the folder
    for first, last in group_dates(days, window_days):
        folder, fetched = fetch_for_scan(
            first.isoformat(),
            last.isoformat(),
            api_url=url,
            out_dir=folder,
            show_progress=show_progress,
            **options,
        )
        listed.extend(fetched.paths)
        if fetched.exit_code is not ExitCode.OK:
            stopped = stop_message(fetched)
            break
    wanted = [d.isoformat() for d in days]
    results, on_disk = scan_files(listed, wanted, jobs=jobs or None)
    found = verdicts(
        wanted, results, on_disk, expect=expect.value if expect else None, before=before
    )
    render_verdicts(found, show_before=before is not None)
    args = {
        "dates": sorted(wanted),
        "expect": expect.value if expect else None,
        "after": after,
        "api_url": url,
        "out": folder,
    }
    record_and_report(
        results,
        kind="verify",
        args=args,
        summary={"verdicts": {v.date: ("ok" if v.matches else v.reason) for v in found}},
    )
    if stopped:
        raise fail(stopped, ExitCode.API)
    bad = [v for v in found if not v.matches]
    console.print(
        f"{len(found) - len(bad)} of {len(found)} dates as expected"
        + (f"; mismatch on {', '.join(v.date for v in bad)}" if bad else "")
    )
    raise typer.Exit(code=ExitCode.FINDINGS if bad else ExitCode.OK)
