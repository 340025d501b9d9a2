"""``hwpscan verify``: ask the API again for chosen dates, run the deployed code, judge.

What an operator runs after a deploy. The verdicts come from :mod:`hwpscan.verify`;
this module parses options, drives the fetch, the parser matrix and the tool command,
renders and exits.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from hwpscan.cli.app import ApiUrlOpt, app, console, err_console, fail
from hwpscan.cli.fetch_view import fetch_for_scan, stop_message
from hwpscan.cli.options import (
    CONNECT_TIMEOUT,
    DAILY_LIMIT,
    DOWNLOADS,
    MAX_MB,
    READ_TIMEOUT,
    RESET_HOUR,
    RETRIES,
    WINDOW_DAYS,
    AllowHostOpt,
    ConnectTimeoutOpt,
    DownloadPathOpt,
    DownloadsOpt,
    LimitOpt,
    MaxMbOpt,
    OldOutOpt,
    ProgressOpt,
    ReadTimeoutOpt,
    ResetOpt,
    RetriesOpt,
    WindowOpt,
    YesOpt,
    deprecated,
    fetch_options,
    split_list,
)
from hwpscan.cli.runs_view import load_or_fail, record_and_report
from hwpscan.errors import UsageError
from hwpscan.fetch import DEFAULT_API_URL
from hwpscan.fetch.dates import parse_date, with_weekday
from hwpscan.matrix import ParserSpec, parse_parser_options
from hwpscan.models import ExitCode
from hwpscan.runs import date_states
from hwpscan.verify import (
    FAIL,
    PASS,
    DateVerdict,
    ToolOutcome,
    exit_code,
    group_dates,
    judge,
    parse_tool_cmd,
    run_tool,
    scan_files,
    with_positions,
)

__all__ = ["render_verdicts", "verify"]

USAGE_HINT = (
    "verify needs --expect: fixed (with --parser-cmd NAME='tool {path}' or --tool-cmd "
    "'tool {date}'), clean or contaminated"
)
_STYLE = {PASS: "bold green", FAIL: "bold red"}


class Expect(str, enum.Enum):
    fixed = "fixed"
    clean = "clean"
    contaminated = "contaminated"


class VerifyFormat(str, enum.Enum):
    table = "table"
    json = "json"


def _parse_days(values: Sequence[str]) -> list[date]:
    try:
        return [parse_date(v, what="--date") for v in values]
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


def _specs(parser: str | None, parser_cmd: Sequence[str]) -> list[ParserSpec]:
    """``scan``'s --parser/--parser-cmd, without the built-ins scan adds by default
    (the ``codeunit`` view is the defect itself: it is no deployed extractor)."""
    if parser is None and not parser_cmd:
        return []
    try:
        specs = parse_parser_options(parser or "strict", parser_cmd)
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    return specs if parser is not None else [s for s in specs if s.name != "strict"]


def render_verdicts(verdicts: Sequence[DateVerdict], *, show_before: bool) -> None:
    """The verdict table, then each date's evidence."""
    table = Table(title="Verification", title_justify="left")
    cols = ("date", "files", "raw", "expected", *(("before",) if show_before else ()), "verdict")
    for col in cols:
        table.add_column(col, justify="right" if col == "files" else "left", overflow="fold")
    for v in verdicts:
        raw = (
            Text(f"contaminated ({v.contaminated}/{v.files})", style="red")
            if v.raw == "contaminated"
            else Text(v.raw, style="green" if v.raw == "clean" else "yellow")
        )
        table.add_row(
            with_weekday(date.fromisoformat(v.date)),
            str(v.files),
            raw,
            v.expected,
            *((v.before or "—",) if show_before else ()),
            Text(f"{v.verdict}: {v.reason}", style=_STYLE.get(v.verdict, "bold yellow")),
        )
    console.print(table)
    for v in verdicts:
        for ev in v.evidence[:5]:
            console.print(Text(f"{v.date}: {ev.line_text()}"), soft_wrap=True)
        if len(v.evidence) > 5:
            console.print(f"{v.date}: ... and {len(v.evidence) - 5} more (see --format json)")


@app.command(rich_help_panel="Fetch from the API")
def verify(
    dates: Annotated[
        list[str],
        typer.Option(
            "--date",
            "-d",
            help="A day to verify, YYYY-MM-DD (repeatable, or comma-separated).",
            show_default=False,
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    expect: Annotated[
        Expect | None,
        typer.Option(
            "--expect",
            help="fixed: the raw files still show the defect and the deployed extractor or "
            "tool gives whole text; clean / contaminated: the raw files' own state.",
            show_default=False,
        ),
    ] = None,
    parser: Annotated[
        list[str],
        typer.Option(
            "--parser",
            help="Deployed extractors to run on every attachment, as in scan: "
            "module:function, strict, pyhwp (repeatable, or comma-separated).",
        ),
    ] = [],  # noqa: B006 - typer needs a literal default
    parser_cmd: Annotated[
        list[str],
        typer.Option(
            "--parser-cmd",
            help="A deployed command extractor: NAME='tool {path}' (repeatable; one command "
            "each, as a command line may itself hold commas).",
        ),
    ] = [],  # noqa: B006
    parser_timeout: Annotated[
        float,
        typer.Option("--parser-timeout", min=0.1, help="Seconds before an extractor is killed."),
    ] = 30.0,
    tool_cmd: Annotated[
        str | None,
        typer.Option(
            "--tool-cmd",
            help="A command printing the deployed tool's output for one date (JSON, JSON "
            "Lines or SSE): 'CMD {date}'.",
        ),
    ] = None,
    tool_timeout: Annotated[
        float, typer.Option("--tool-timeout", min=0.1, help="Seconds before the tool is killed.")
    ] = 120.0,
    cached: Annotated[
        bool,
        typer.Option(
            "--cached",
            help="Use cached answers and files already downloaded (default: ask the API "
            "again and re-download files that changed).",
        ),
    ] = False,
    fmt: Annotated[
        VerifyFormat,
        typer.Option("--format", "-f", help="table for people; json: one document for tools."),
    ] = VerifyFormat.table,
    after: Annotated[
        str | None,
        typer.Option("--after", help="Compare with this earlier run (id, prefix or 'latest')."),
    ] = None,
    api_url: ApiUrlOpt = DEFAULT_API_URL,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for attachments (default: the scan cache)."),
    ] = None,
    out_old: OldOutOpt = None,
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
        int, typer.Option("--jobs", "-j", min=0, help="Worker processes (0: one per core).")
    ] = 0,
    downloads: DownloadsOpt = DOWNLOADS,
    yes: YesOpt = False,
    show_progress: ProgressOpt = True,
) -> None:
    """Ask the API again for chosen dates, run the deployed code on them, and give each
    date PASS, FAIL or INCONCLUSIVE.

    Exit 0 when every date passed, 1 when any failed, 2 on bad options, 3 when the API
    or its quota stopped (or answered a weekday with nothing), 4 when no date failed but
    some proved nothing.
    """
    out = deprecated(out_old, out, "-o for a folder is deprecated: use --out")
    if expect is None:
        raise fail(USAGE_HINT, ExitCode.USAGE)
    parser_names = ",".join(split_list(parser)) or None
    specs = _specs(parser_names, parser_cmd)
    try:
        tool_argv = parse_tool_cmd(tool_cmd) if tool_cmd is not None else None
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    if expect is Expect.fixed and not specs and tool_argv is None:
        raise fail(
            "--expect fixed needs the deployed code: --parser, --parser-cmd NAME='tool {path}' "
            "or --tool-cmd 'tool {date}'",
            ExitCode.USAGE,
        )
    if expect is not Expect.fixed and (specs or tool_argv is not None):
        raise fail(
            f"--expect {expect.value} judges the published files; --parser, --parser-cmd and "
            "--tool-cmd go with --expect fixed",
            ExitCode.USAGE,
        )
    days = _parse_days(split_list(dates))
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
    options["downloads"] = downloads
    options["assume_yes"] = yes
    wanted = sorted({d.isoformat() for d in days})
    folder: Path | None = out
    stopped: str | None = None
    listed_days: set[str] = set()
    empty_weekdays: list[str] = []
    listed: list[Path] = []  # only what these fetches listed, not older files in the folder
    missing: dict[str, int] = {}  # attachments listed but not on disk (failed, refused)
    fetch_totals = {"calls_made": 0, "calls_cached": 0, "files_fetched": 0, "files_reused": 0}
    for first, last in group_dates(days, window_days):
        group = [d for d in wanted if first.isoformat() <= d <= last.isoformat()]
        folder, fetched = fetch_for_scan(
            first.isoformat(),
            last.isoformat(),
            api_url=api_url,
            out_dir=folder,
            show_progress=show_progress,
            fresh=not cached,
            only_dates=frozenset(group),
            **options,
        )
        fetch_totals["calls_made"] += fetched.calls_made
        fetch_totals["calls_cached"] += fetched.calls_cached
        fetch_totals["files_fetched"] += fetched.files_downloaded
        fetch_totals["files_reused"] += fetched.files_skipped
        listed.extend(fetched.paths)
        for entry in fetched.entries:
            if entry.status in ("failed", "refused") and entry.date:
                missing[entry.date] = missing.get(entry.date, 0) + 1
        if fetched.error is None:
            listed_days.update(group)
            if not fetched.releases_listed:  # nothing at all: a holiday, or a silent refusal
                empty_weekdays += [d for d in group if date.fromisoformat(d).weekday() < 5]
        else:
            stopped = stop_message(fetched)
            break
    reused, again = fetch_totals["files_reused"], fetch_totals["files_fetched"]
    err_console.print(
        f"{fetch_totals['calls_made']} API call(s) made, {fetch_totals['calls_cached']} answered "
        f"from the cache; {again} file(s) fetched (new or changed), {reused} reused unchanged"
        + (" (--cached: files on disk not asked for again)" if cached else ""),
        highlight=False,
    )
    results, on_disk = scan_files(listed, wanted, jobs=jobs or None)
    rows: list[Any] = []
    if specs and results:
        from hwpscan.matrix import run_matrix

        chosen = [on_disk[r.path] for r in results]
        rows = list(
            run_matrix(chosen, specs, timeout=parser_timeout, jobs=jobs or os.cpu_count() or 1)
        )
    found: list[DateVerdict] = []
    by_name = {s.name: s for s in specs}
    for day in wanted:
        tool: ToolOutcome | None = None
        has_files = any(r.date == day for r in results)
        if tool_argv is not None and day in listed_days and has_files:
            tool = run_tool(tool_argv, day, timeout=tool_timeout)
        verdict = judge(
            day,
            expect.value,
            results,
            listed=day in listed_days,
            rows=rows,
            extractors=[s.name for s in specs],
            tool=tool,
            before=(before or {}).get(day),
            missing=missing.get(day, 0),
            empty_answer=day in empty_weekdays,
        )
        if verdict.verdict == FAIL:
            verdict = with_positions(verdict, by_name, on_disk, timeout=parser_timeout)
        found.append(verdict)
    if empty_weekdays and stopped is None:
        stopped = (
            f"the API listed no release at all for {', '.join(empty_weekdays)} (weekday): a "
            "holiday, or a silent quota refusal; run again later"
        )
    args = {
        "dates": wanted,
        "expect": expect.value,
        "parser": parser_names,
        "parser_cmd": list(parser_cmd),
        "tool_cmd": tool_cmd,
        "cached": cached,
        "after": after,
        "api_url": api_url,
        "out": folder,
    }
    summary = {
        "verdicts": {v.date: v.to_json() for v in found},
        "fetch": fetch_totals,
        "stopped": stopped,
    }
    record_and_report(results, kind="verify", args=args, summary=summary)
    code = exit_code(found, stopped=stopped is not None)
    if fmt is VerifyFormat.json:
        doc = {
            "expect": expect.value,
            "exit_code": int(code),
            "stopped": stopped,
            "fetch": fetch_totals,
            "dates": [v.to_json() for v in found],
        }
        console.out(json.dumps(doc, ensure_ascii=False, indent=2), highlight=False)
    else:
        render_verdicts(found, show_before=before is not None)
        tally = {k: sum(v.verdict == k for v in found) for k in (PASS, FAIL, "INCONCLUSIVE")}
        console.print(
            f"{tally[PASS]} of {len(found)} dates PASS"
            + (f", {tally[FAIL]} FAIL" if tally[FAIL] else "")
            + (f", {tally['INCONCLUSIVE']} INCONCLUSIVE" if tally["INCONCLUSIVE"] else "")
        )
    if stopped:
        err_console.print(f"[bold red]error:[/] {escape(stopped)}", markup=True, highlight=False)
    raise typer.Exit(code=code)
