"""What ``plan``, ``fetch`` and the fetches of ``scan``/``verify`` print.

The plan table, the progress bars fed by :class:`~hwpscan.fetch.ProgressEvent`, the
summary of a :class:`~hwpscan.fetch.FetchReport`, and warnings made safe to print
(no key, no accidental rich markup).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from hwpscan.cli.app import console, err_console
from hwpscan.fetch.dates import with_weekday
from hwpscan.fetch.keys import ENV_VAR
from hwpscan.fetch.plan import Plan
from hwpscan.redaction import redact_text

if TYPE_CHECKING:  # the fetch engine (httpx) loads when a fetch runs, not for --help
    from hwpscan.fetch import ProgressEvent
    from hwpscan.fetch.run import FetchReport

__all__ = [
    "plain",
    "progress_bars",
    "range_line",
    "render_plan",
    "render_report",
    "retry_line",
    "warn",
]


def range_line(start: date, end: date) -> str:
    """The range asked for, with weekdays and its length in days.

    >>> range_line(date(2025, 7, 21), date(2025, 7, 21))
    'range 2025-07-21 (Mon) .. 2025-07-21 (Mon), 1 day (Korea time)'
    """
    days = (end - start).days + 1
    plural = "s" if days != 1 else ""
    return f"range {with_weekday(start)} .. {with_weekday(end)}, {days} day{plural} (Korea time)"


def plain(message: str, secret: str | None) -> str:
    """Message text made safe to print: no key, no accidental rich markup."""
    return escape(redact_text(message, [secret]) if secret else message)


def warn(message: str, secret: str | None = None) -> None:
    """A yellow warning on stderr, *secret* redacted."""
    text = plain(message, secret)
    err_console.print(f"[yellow]warning:[/] {text}", markup=True, highlight=False, soft_wrap=True)


def render_plan(plan: Plan) -> None:
    """Windows, calls needed and cached, and today's quota."""
    table = Table(title="Calls", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("from")
    table.add_column("to")
    table.add_column("days", justify="right")
    table.add_column("cached")
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
        warn(warning)


def retry_line(message: str) -> None:
    """One dim line on stderr when a call or a download is tried again."""
    err_console.print(f"retry: {escape(message)}", style="dim", highlight=False, soft_wrap=True)


@contextmanager
def progress_bars(enabled: bool = True) -> Iterator[Callable[[ProgressEvent], None]]:
    """Two rich bars (API calls, downloads) fed by :class:`ProgressEvent` callbacks."""
    if not enabled:

        def retries_only(event: ProgressEvent) -> None:
            if event.kind == "retry":
                retry_line(event.message)

        yield retries_only
        return
    bars = Progress(
        TextColumn("{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[last]}", style="dim", markup=False),
        console=err_console,
        transient=True,
    )
    tasks: dict[str, TaskID] = {}

    def on_event(event: ProgressEvent) -> None:
        if event.kind == "retry":  # a line above the bars, so a stall has its reason
            retry_line(event.message)
            return
        if event.kind not in tasks:
            label = "calls" if event.kind == "calls" else "downloads"
            tasks[event.kind] = bars.add_task(label, total=0, last="")
        task = tasks[event.kind]
        if event.total:
            current = bars.tasks[tasks[event.kind]].total or 0
            bars.update(
                task, total=current + event.total if event.kind == "downloads" else event.total
            )
        if event.advance:
            bars.update(task, advance=event.advance, last=event.message[:40])

    with bars:
        yield on_event


def render_report(
    report: FetchReport, key: str | None = None, *, shown: tuple[str, ...] = ()
) -> None:
    """The summary of a fetch on stderr, warnings first (but not those in ``shown``,
    already printed before the first call)."""
    for warning in report.warnings:
        if warning not in shown:
            warn(warning, key)
    err_console.print(
        f"calls: {report.calls_made} made, {report.calls_cached} from cache; "
        f"releases: {report.releases}; files: {report.files_downloaded} downloaded, "
        f"{report.files_skipped} already there, {report.files_failed} failed, "
        f"{report.files_refused} refused",
        highlight=False,
    )
    err_console.print(f"manifest: {report.manifest_path}", markup=False, highlight=False)
