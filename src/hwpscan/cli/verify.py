"""``hwpscan verify``: fetch chosen dates (cache first), scan them, a verdict per date.

What an operator runs after a deploy. The verdicts come from :mod:`hwpscan.verify`;
this module parses options, drives the fetch and renders.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from hwpscan.cli.app import ApiUrlOpt, app, console, err_console, fail
from hwpscan.cli.fetch import fetch_for_scan, stop_message
from hwpscan.cli.options import (
    CONNECT_TIMEOUT,
    DAILY_LIMIT,
    MAX_MB,
    READ_TIMEOUT,
    RESET_HOUR,
    RETRIES,
    WINDOW_DAYS,
    AllowHostOpt,
    ConnectTimeoutOpt,
    DownloadPathOpt,
    LimitOpt,
    MaxMbOpt,
    ProgressOpt,
    ReadTimeoutOpt,
    ResetOpt,
    RetriesOpt,
    WindowOpt,
    fetch_options,
)
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
    api_url: ApiUrlOpt = DEFAULT_API_URL,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Folder for attachments (default: the scan cache)."),
    ] = None,
    allow_host: AllowHostOpt = [],  # noqa: B006
    download_path: DownloadPathOpt = [],  # noqa: B006
    window_days: WindowOpt = WINDOW_DAYS,
    daily_limit: LimitOpt = DAILY_LIMIT,
    reset_hour: ResetOpt = RESET_HOUR,
    max_mb: MaxMbOpt = MAX_MB,
    connect_timeout: ConnectTimeoutOpt = CONNECT_TIMEOUT,
    read_timeout: ReadTimeoutOpt = READ_TIMEOUT,
    retries: RetriesOpt = RETRIES,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Scan processes (0: one per core).")
    ] = 0,
    show_progress: ProgressOpt = True,
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
    options = fetch_options(
        window_days=window_days,
        daily_limit=daily_limit,
        reset_hour=reset_hour,
        allow_host=allow_host,
        download_path=download_path,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        retries=retries,
        max_mb=max_mb,
    )
    folder: Path | None = out
    stopped: str | None = None
    listed: list[Path] = []  # only what these fetches listed, not older files in the folder
    for first, last in group_dates(days, window_days):
        folder, fetched = fetch_for_scan(
            first.isoformat(),
            last.isoformat(),
            api_url=api_url,
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
        "api_url": api_url,
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
