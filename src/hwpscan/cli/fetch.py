"""``hwpscan plan`` and ``hwpscan fetch``: options in, core calls, rendering out.

The fetch on the terminal (key, bars, messages, exit codes), which ``scan --from/--to``,
``verify`` and ``demo`` share, is in :mod:`hwpscan.cli.fetch_view`; the options in
:mod:`hwpscan.cli.options`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hwpscan.cli.app import ApiUrlOpt, app
from hwpscan.cli.fetch_view import (
    fail_redacted,
    get_key,
    parse_dates,
    raise_for_report,
    render_plan,
    run_fetch,
)
from hwpscan.cli.machine import MachineFormat, plan_json, print_json
from hwpscan.cli.options import (
    API_RETRIES,
    CONNECT_TIMEOUT,
    DAILY_LIMIT,
    DOWNLOADS,
    MAX_ATTACHMENTS,
    MAX_FILES,
    MAX_ITEMS,
    MAX_MB,
    MAX_TOTAL_MB,
    READ_TIMEOUT,
    RESET_HOUR,
    RETRIES,
    WINDOW_DAYS,
    AllowHostOpt,
    ApiRetriesOpt,
    ConnectTimeoutOpt,
    DownloadPathOpt,
    DownloadsOpt,
    FromOpt,
    LimitOpt,
    MaxAttachmentsOpt,
    MaxFilesOpt,
    MaxItemsOpt,
    MaxMbOpt,
    MaxTotalMbOpt,
    OldOutOpt,
    ProgressOpt,
    ReadTimeoutOpt,
    ResetOpt,
    RetriesOpt,
    ToOpt,
    WindowOpt,
    YesOpt,
    deprecated,
    fetch_options,
    limits_option,
)
from hwpscan.errors import UsageError
from hwpscan.fetch import (
    DEFAULT_API_URL,
    FetchSettings,
    plan_range,
)
from hwpscan.fetch.keys import resolve_key
from hwpscan.fetch.urls import check_api_url
from hwpscan.home import state_dir
from hwpscan.models import ExitCode


@app.command(rich_help_panel="Fetch from the API")
def plan(
    start: FromOpt,
    end: ToOpt,
    api_url: ApiUrlOpt = DEFAULT_API_URL,
    window_days: WindowOpt = WINDOW_DAYS,
    daily_limit: LimitOpt = DAILY_LIMIT,
    reset_hour: ResetOpt = RESET_HOUR,
    fmt: Annotated[
        MachineFormat,
        typer.Option("--format", "-f", help="table for people; json: one document for tools."),
    ] = MachineFormat.table,
) -> None:
    """Show the calls a fetch of the range needs, without any network access."""
    first, last = parse_dates(start, end)
    try:
        check_api_url(api_url)  # the same check fetch makes, so plan cannot promise more
    except UsageError as exc:
        raise fail_redacted(str(exc), ExitCode.USAGE) from None
    try:
        key = resolve_key(state_dir())
    except UsageError:
        key = None
    settings = FetchSettings(
        api_url=api_url, window_days=window_days, daily_limit=daily_limit, reset_hour=reset_hour
    )
    result = plan_range(first, last, settings, key=key)
    if fmt is MachineFormat.json:
        print_json(plan_json(result))
    else:
        render_plan(result)


@app.command(rich_help_panel="Fetch from the API")
def fetch(
    start: FromOpt,
    end: ToOpt,
    api_url: ApiUrlOpt = DEFAULT_API_URL,
    out: Annotated[
        Path, typer.Option("--out", help="Folder for attachments and manifest.jsonl.")
    ] = Path("hwpscan-downloads"),
    out_old: OldOutOpt = None,
    allow_host: AllowHostOpt = [],  # noqa: B006 - typer needs a literal default
    download_path: DownloadPathOpt = [],  # noqa: B006
    window_days: WindowOpt = WINDOW_DAYS,
    daily_limit: LimitOpt = DAILY_LIMIT,
    reset_hour: ResetOpt = RESET_HOUR,
    connect_timeout: ConnectTimeoutOpt = CONNECT_TIMEOUT,
    read_timeout: ReadTimeoutOpt = READ_TIMEOUT,
    retries: RetriesOpt = RETRIES,
    max_mb: MaxMbOpt = MAX_MB,
    downloads: DownloadsOpt = DOWNLOADS,
    jobs_old: Annotated[int | None, typer.Option("--jobs", "-j", min=1, hidden=True)] = None,
    show_progress: ProgressOpt = True,
    max_items: MaxItemsOpt = MAX_ITEMS,
    max_attachments: MaxAttachmentsOpt = MAX_ATTACHMENTS,
    max_files: MaxFilesOpt = MAX_FILES,
    max_total_mb: MaxTotalMbOpt = MAX_TOTAL_MB,
    api_retries: ApiRetriesOpt = API_RETRIES,
    yes: YesOpt = False,
) -> None:
    """Fetch press releases and their attachments for a date range (cache first)."""
    out = deprecated(out_old, out, "-o for a folder is deprecated: use --out")
    downloads = deprecated(
        jobs_old, downloads, "--jobs for downloads is deprecated: use --downloads"
    )
    first, last = parse_dates(start, end)
    key = get_key()
    report = run_fetch(
        first,
        last,
        key=key,
        out_dir=out,
        api_url=api_url,
        show_progress=show_progress,
        assume_yes=yes,
        downloads=downloads,
        **fetch_options(
            window_days=window_days,
            daily_limit=daily_limit,
            reset_hour=reset_hour,
            allow_host=allow_host,
            download_path=download_path,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            retries=retries,
            max_mb=max_mb,
        ),
        **limits_option(
            max_items=max_items,
            max_attachments=max_attachments,
            max_files=max_files,
            max_total_mb=max_total_mb,
            api_retries=api_retries,
        ),
    )
    from hwpscan.cli.runs_view import record_and_report
    from hwpscan.runs.recording import fetch_summary

    record_and_report(
        [],
        kind="fetch",
        args={"start": start, "end": end, "api_url": api_url, "out": out, "allow_host": allow_host},
        summary=fetch_summary(report),
    )
    raise_for_report(report, key)


__all__ = ["fetch", "plan"]
