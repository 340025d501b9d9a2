"""A fetch on the terminal, for every command that fetches (``fetch``, ``scan
--from/--to``, ``verify``, ``demo``): the key, the other-year warning, progress bars,
messages, the plan table, and the exit when the fetch stopped (:func:`raise_for_report`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Column, Table

from hwpscan.api import FetchSettings, ProgressEvent
from hwpscan.api.dates import parse_range, with_weekday, year_warning
from hwpscan.api.keys import (
    ENV_VAR,
    check_key,
    check_key_length,
    config_path,
    key_length_problem,
    resolve_key,
)
from hwpscan.api.plan import Plan
from hwpscan.cli.app import console, err_console, fail, warn
from hwpscan.cli.stop import command_line, interrupted
from hwpscan.errors import UsageError
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.home import state_dir
from hwpscan.manifest import MANIFEST_NAME, read_entries
from hwpscan.models import ExitCode
from hwpscan.redaction import redact_text

if TYPE_CHECKING:
    from hwpscan.usecases.run_fetch import FetchReport


def range_line(start: date, end: date) -> str:
    """The range asked for, with weekdays and its length in days.

    >>> range_line(date(2025, 7, 21), date(2025, 7, 21))
    'range 2025-07-21 (Mon) .. 2025-07-21 (Mon), 1 day (Korea time)'
    """
    days = (end - start).days + 1
    plural = "s" if days != 1 else ""
    return f"range {with_weekday(start)} .. {with_weekday(end)}, {days} day{plural} (Korea time)"


def plain(message: str, secret: str | None = None) -> str:
    """Message text made safe to print: no key, no accidental rich markup, no control
    character (a server's name or subject with ESC in it is shown as ``\\x1b``)."""
    return escape(escape_snippet(redact_text(message, [secret]) if secret else message))


def render_plan(plan: Plan) -> None:
    """Windows, calls needed and cached, and today's quota."""
    table = Table(title="Calls", title_justify="left")
    for name in ("#", "from", "to", "days", "cached"):
        table.add_column(name, justify="right" if name in ("#", "days") else "left")
    for index, item in enumerate(plan.windows, 1):
        w = item.window
        table.add_row(
            str(index),
            with_weekday(w.start),
            with_weekday(w.end),
            str(w.days),
            "yes" if item.cached else "[bold]call[/]",
        )
    console.print(range_line(plan.start, plan.end))
    console.print(table)
    console.print(f"calls needed: {plan.calls_needed}, already cached: {plan.calls_cached}")
    if plan.quota is None:
        console.print(f"quota left today: unknown (no key: set {ENV_VAR})")
    else:
        console.print(f"quota left today: {plan.quota.describe()}")
        if not plan.fits_quota:
            warn(
                f"the plan needs {plan.calls_needed} calls but only "
                f"{plan.quota.remaining} are left: "
                "the fetch will stop when the quota is used and keep what it got"
            )
    for warning in plan.warnings:
        warn(plain(warning))


@contextmanager
def progress_bars(enabled: bool = True) -> Iterator[Callable[[ProgressEvent], None]]:
    """Two rich bars (API calls, downloads) fed by :class:`ProgressEvent` callbacks; a
    retry is a line above them, so a stall has its reason (without bars: the line only)."""
    bars = Progress(  # what, how far, and the file last fetched (folded, never cut)
        TextColumn("{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "{task.fields[last]}",
            style="dim",
            markup=False,
            table_column=Column(overflow="fold", ratio=1),
        ),
        console=err_console,
        transient=True,
    )
    tasks: dict[str, TaskID] = {}

    def on_event(event: ProgressEvent) -> None:
        if event.kind == "retry":
            err_console.print(f"retry: {escape(event.message)}", style="dim", highlight=False)
            return
        if not enabled:
            return
        if event.kind not in tasks:
            label = "calls" if event.kind == "calls" else "downloads"
            tasks[event.kind] = bars.add_task(label, total=0, last="")
        task = tasks[event.kind]
        if event.total:
            current = bars.tasks[task].total or 0
            bars.update(
                task, total=current + event.total if event.kind == "downloads" else event.total
            )
        if event.advance:
            bars.update(task, advance=event.advance, last=event.message[:40])

    with bars if enabled else contextlib.nullcontext():
        yield on_event


def render_report(
    report: FetchReport, key: str | None = None, *, shown: tuple[str, ...] = ()
) -> None:
    """The summary of a fetch on stderr, warnings first (not those already ``shown``)."""
    for warning in report.warnings:
        if warning not in shown:
            warn(plain(warning, key))
    err_console.print(
        f"calls: {report.calls_made} made, {report.calls_cached} from cache; "
        f"releases: {report.releases}; files: {report.files_downloaded} downloaded, "
        f"{report.files_skipped} already there, {report.files_failed} failed, "
        f"{report.files_refused} refused",
        highlight=False,
    )
    err_console.print(f"manifest: {report.manifest_path}", markup=False, highlight=False)


def fail_redacted(message: str, code: int, secret: str | None = None) -> typer.Exit:
    """:func:`hwpscan.cli.app.fail` with ``secret`` (the key) taken out of the message."""
    return fail(redact_text(message, [secret]) if secret else message, code)  # fail escapes


def parse_dates(start: str, end: str) -> tuple[date, date]:
    """``--from``/``--to`` as dates; exit 2 with the reason when they are not valid."""
    try:
        return parse_range(start, end)
    except UsageError as exc:
        raise fail_redacted(str(exc), ExitCode.USAGE) from None


def get_key(*, any_length: bool = False) -> str:
    """The API key: ``HWPSCAN_API_KEY``, the config file, or a hidden prompt on a TTY.

    A key that is not 32 characters long exits 2, unless *any_length*
    (``--any-key-length``): then it is sent after a warning.
    """
    state = state_dir()
    try:
        key = resolve_key(state)
    except UsageError as exc:
        raise fail_redacted(str(exc), ExitCode.USAGE) from None
    if not key and sys.stdin.isatty():
        key = typer.prompt("API key (input hidden)", hide_input=True, err=True)
    if not key:
        raise fail_redacted(
            f'no API key: set {ENV_VAR}, or write api_key = "..." in {config_path(state)}',
            ExitCode.USAGE,
        )
    try:
        key = check_key_length(check_key(key), any_length=any_length)
    except UsageError as exc:
        raise fail_redacted(str(exc), ExitCode.USAGE, key) from None
    problem = key_length_problem(key)
    if problem is not None:
        warn(plain(f"{problem} (sent anyway: --any-key-length)"))
    return key


def run_fetch(
    first: date, last: date, settings: FetchSettings, *, key: str, show_progress: bool
) -> FetchReport:
    """:func:`hwpscan.api.fetch_range` with the range line, the other-year warning,
    progress bars and the summary; exit 2 on bad settings, 130 on Ctrl-C (what was
    fetched is kept)."""
    from hwpscan.usecases.run_fetch import fetch_range  # the fetch engine: for a fetch only

    err_console.print(range_line(first, last), highlight=False)
    # another year: warned before any call, never asked (the dates are typed whole)
    warning = year_warning(first, last)
    if warning is not None:
        warn(plain(warning))
    shown = (warning,) if warning is not None else ()
    try:
        with progress_bars(show_progress and err_console.is_terminal) as on_event:
            report = fetch_range(first, last, settings, key=key, progress=on_event)
    except UsageError as exc:
        raise fail_redacted(str(exc), ExitCode.USAGE, key) from None
    except KeyboardInterrupt:
        raise fetch_stopped(settings.out_folder()) from None
    render_report(report, key, shown=shown)
    return report


def fetch_stopped(folder: Path) -> typer.Exit:
    """What a stopped fetch kept and the command that goes on; the exit to raise (130)."""
    try:
        files = sum(1 for e in read_entries(folder / MANIFEST_NAME) if e.status == "downloaded")
    except (OSError, ValueError):
        files = 0
    kept = [
        f"files and answers fetched so far are kept in {folder} ({files:,} file"
        f"{'s' * (files != 1)} downloaded there, by its manifest); run the same command "
        "again to resume: it fetches only what is missing"
    ]
    return interrupted(kept, command_line())


def fetch_for_scan(
    start: str,
    end: str,
    settings: FetchSettings | None = None,
    *,
    show_progress: bool = True,
    any_key_length: bool = False,
    **fields: Any,
) -> tuple[Path, FetchReport]:
    """Fetch (cache first) for ``scan --from/--to``: the folder to scan and the report
    (exit 2 on bad dates or no key). The caller scans what was kept, then calls
    :func:`raise_for_report`. ``fields`` replace fields of ``settings``.
    """
    first, last = parse_dates(start, end)
    key = get_key(any_length=any_key_length)
    settings = replace(settings or FetchSettings(), **fields)
    report = run_fetch(first, last, settings, key=key, show_progress=show_progress)
    return report.out_dir, report


def raise_for_report(report: FetchReport, key: str | None = None) -> None:
    """Exit 3 with the reason when the fetch stopped or left files behind; else return."""
    from hwpscan.usecases.run_fetch import stop_message  # the fetch engine: loaded by a fetch

    message = stop_message(report)
    if message:
        raise fail_redacted(message, ExitCode.API, key)
