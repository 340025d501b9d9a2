"""``hwpscan plan`` and ``hwpscan fetch``; the fetch on the terminal, shared with other
commands, is :mod:`hwpscan.cli.fetch_view`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import typer

from hwpscan.cli.app import ENV_FETCH, EXIT_API, EXIT_USAGE, app, epilog, warn
from hwpscan.cli.machine import (
    EntriesFormat,
    MachineFormat,
    MachineFormatOpt,
    ResultsOutOpt,
    check_results_file,
    plan_json,
    print_json,
    write_entries,
)
from hwpscan.cli.options import (
    ApiOptions,
    FetchOptions,
    FromOpt,
    ProgressOpt,
    RecordOpt,
    ToOpt,
)
from hwpscan.cli.params import options_from_dataclasses
from hwpscan.errors import UsageError
from hwpscan.models import ExitCode

if TYPE_CHECKING:
    from hwpscan.usecases.run_fetch import FetchReport


@dataclass(frozen=True)
class FetchResults:
    """How a fetch's results are given: a summary for people, or a document for tools."""

    PANEL: ClassVar[str] = "Output"
    fmt: Annotated[
        EntriesFormat,
        typer.Option(
            "--format",
            "-f",
            help="table for people; json: one document for tools; jsonl: one attachment per line.",
        ),
    ] = EntriesFormat.table
    output: ResultsOutOpt = None


@app.command(
    rich_help_panel="Fetch from the API",
    epilog=epilog(
        [
            ("hwpscan plan --from 2025-07-21 --to 2025-08-11", "calls needed, cached, quota"),
            (
                "hwpscan plan --from 2025-07-01 --to 2025-07-31 --window-days 7",
                "the same with week-long windows",
            ),
        ],
        ENV_FETCH,
        ["0  plan shown (no network)", EXIT_USAGE],
    ),
)
@options_from_dataclasses
def plan(
    start: FromOpt,
    end: ToOpt,
    api: ApiOptions,
    fmt: MachineFormatOpt = MachineFormat.table,
    output: ResultsOutOpt = None,
) -> None:
    """Show the calls a fetch of the range needs, without any network access."""
    from hwpscan.api import plan_range
    from hwpscan.api.keys import resolve_key
    from hwpscan.api.urls import check_api_url
    from hwpscan.cli.fetch_view import fail_redacted, parse_dates, render_plan
    from hwpscan.home import state_dir

    output = check_results_file(output, fmt.value, "json")
    first, last = parse_dates(start, end)
    try:
        check_api_url(api.api_url)  # the same check fetch makes, so plan cannot promise more
    except UsageError as exc:
        raise fail_redacted(str(exc), ExitCode.USAGE) from None
    try:
        key = resolve_key(state_dir())
    except UsageError:
        key = None
    result = plan_range(first, last, api.settings(), key=key)
    if fmt is MachineFormat.json:
        print_json(plan_json(result), output)
    else:
        render_plan(result)


@app.command(
    rich_help_panel="Fetch from the API",
    epilog=epilog(
        [
            (
                "hwpscan fetch --from 2025-07-21 --to 2025-07-25 --out press/",
                "releases and attachments, cache first",
            ),
            (
                "HWPSCAN_API_KEY=... hwpscan fetch --from 2025-07-21 --to 2025-07-21",
                "one day, the key from the environment",
            ),
        ],
        ENV_FETCH,
        ["0  every attachment fetched or cached", EXIT_USAGE, EXIT_API],
    ),
)
@options_from_dataclasses
def fetch(
    start: FromOpt,
    end: ToOpt,
    options: FetchOptions,
    results: FetchResults,
    out: Annotated[Path, typer.Option(help="Folder for attachments and manifest.jsonl.")] = Path(
        "hwpscan-downloads"
    ),
    # --jobs for downloads, before it meant scan processes everywhere (one release)
    jobs_old: Annotated[int | None, typer.Option("--jobs", "-j", min=1, hidden=True)] = None,
    show_progress: ProgressOpt = True,
    record: RecordOpt = True,
) -> None:
    """Fetch press releases and their attachments for a date range (cache first)."""
    from hwpscan.cli.fetch_view import get_key, parse_dates, raise_for_report, run_fetch
    from hwpscan.cli.runs_view import record_and_report
    from hwpscan.history.recording import fetch_summary
    from hwpscan.history.records import RunArgs, RunSummary, arg_text

    fmt = results.fmt
    output = check_results_file(results.output, fmt.value, "json or jsonl")
    downloads = options.downloads
    if jobs_old is not None:  # hidden from --help; kept for one release
        warn("--jobs for downloads is deprecated: use --downloads")
        downloads = jobs_old
    first, last = parse_dates(start, end)
    key = get_key(any_length=options.any_key_length)
    settings = options.settings(out_dir=out, downloads=downloads)
    report = run_fetch(first, last, settings, key=key, show_progress=show_progress)
    args = RunArgs(
        start=start,
        end=end,
        api_url=settings.api_url,
        out=arg_text(out),
        options={"allow_host": list(options.allow_host)},
    )
    summary = RunSummary(fetch=fetch_summary(report))
    record_and_report([], kind="fetch", args=args, summary=summary, record=record)
    if fmt is EntriesFormat.json:  # the table is the fetch's own lines, already shown
        print_json(_fetch_json(report, summary.to_json()), output)
    elif fmt is EntriesFormat.jsonl:
        write_entries(report.entries, output)
    raise_for_report(report, key)


def _fetch_json(report: FetchReport, summary: dict[str, Any]) -> dict[str, Any]:
    """``fetch --format json``: the run's counts (as its history records them), where the
    files are, and the current entry of each attachment of the range."""
    return {
        "schema": "hwpscan.api/1",
        "start": report.start.isoformat(),
        "end": report.end.isoformat(),
        **{k: v for k, v in summary.items() if k != "range"},
        "warnings": list(report.warnings),
        "out": str(report.out_dir),
        "manifest": str(report.manifest_path),
        "entries": [entry.to_json() for entry in report.entries],
    }
