"""``hwpscan plan`` and ``hwpscan fetch``: options in, core calls, rendering out.

:func:`fetch_for_scan` is the same fetch with progress bars and messages, for
``scan --from/--to`` and ``verify``. What they print is in
:mod:`hwpscan.cli.fetch_view`; the options they share in :mod:`hwpscan.cli.options`.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer

from hwpscan.cli.app import ApiUrlOpt, app, err_console, fail
from hwpscan.cli.fetch_view import (
    progress_bars,
    range_line,
    render_plan,
    render_report,
    warn,
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
    FetchReport,
    FetchSettings,
    fetch_range,
    plan_range,
    stop_message,
)
from hwpscan.fetch.dates import parse_range, year_warning
from hwpscan.fetch.keys import ENV_VAR, check_key, check_key_length, config_path, resolve_key
from hwpscan.fetch.urls import check_api_url
from hwpscan.home import state_dir
from hwpscan.models import ExitCode
from hwpscan.redaction import redact_text


def _dates(start: str, end: str) -> tuple[date, date]:
    try:
        return parse_range(start, end)
    except UsageError as exc:
        raise _fail(str(exc), ExitCode.USAGE) from None


def _fail(message: str, code: int, secret: str | None = None) -> typer.Exit:
    return fail(redact_text(message, [secret]) if secret else message, code)  # fail escapes


def get_key(*, prompt: bool = True) -> str:
    """The API key: ``HWPSCAN_API_KEY``, the config file, or a hidden prompt on a TTY."""
    state = state_dir()
    try:
        key = resolve_key(state)
    except UsageError as exc:
        raise _fail(str(exc), ExitCode.USAGE) from None
    if not key and prompt and sys.stdin.isatty():
        key = typer.prompt("API key (input hidden)", hide_input=True, err=True)
    if not key:
        raise _fail(
            f'no API key: set {ENV_VAR}, or write api_key = "..." in {config_path(state)}',
            ExitCode.USAGE,
        )
    try:
        return check_key_length(check_key(key))
    except UsageError as exc:
        raise _fail(str(exc), ExitCode.USAGE, key) from None


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
    first, last = _dates(start, end)
    try:
        check_api_url(api_url)  # the same check fetch makes, so plan cannot promise more
    except UsageError as exc:
        raise _fail(str(exc), ExitCode.USAGE) from None
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


def _run_fetch(
    first: date,
    last: date,
    settings: FetchSettings | None = None,
    *,
    key: str,
    show_progress: bool,
    assume_yes: bool = False,
    **fields: Any,
) -> FetchReport:
    settings = replace(settings or FetchSettings(), **fields)
    out_dir = settings.out_folder()
    err_console.print(range_line(first, last), highlight=False)
    shown = check_year(first, last, assume_yes=assume_yes)
    try:
        with progress_bars(show_progress and err_console.is_terminal) as on_event:
            report = fetch_range(first, last, settings, key=key, progress=on_event)
    except UsageError as exc:
        raise _fail(str(exc), ExitCode.USAGE, key) from None
    except KeyboardInterrupt:
        err_console.print(
            f"interrupted: files and answers fetched so far are kept in {out_dir}; "
            "run the same command again to resume",
            markup=False,
        )
        raise typer.Exit(130) from None
    render_report(report, key, shown=shown)
    return report


def check_year(first: date, last: date, *, assume_yes: bool) -> tuple[str, ...]:
    """Say so before any call when the range lies in another year; on a terminal, ask.

    ``--yes`` (``assume_yes``) and a stdin that is not a terminal go on after the
    warning. Returns the warning shown, so the summary does not repeat it.
    """
    warning = year_warning(first, last)
    if warning is None:
        return ()
    warn(warning)
    ask = not assume_yes and sys.stdin.isatty() and err_console.is_terminal
    if ask and not typer.confirm("fetch this range anyway?", default=False, err=True):
        raise _fail("stopped before any call: fix --from/--to", ExitCode.USAGE)
    return (warning,)


def raise_for_report(report: FetchReport, key: str | None = None) -> None:
    """Exit 3 with the reason when the fetch stopped or left files behind; else return.

    ``scan --from/--to`` calls this after scanning what was kept.
    """
    message = stop_message(report)
    if message:
        raise _fail(message, ExitCode.API, key)


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
    first, last = _dates(start, end)
    key = get_key()
    report = _run_fetch(
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
    from hwpscan.cli.report import fetch_summary, record_and_report

    record_and_report(
        [],
        kind="fetch",
        args={"start": start, "end": end, "api_url": api_url, "out": out, "allow_host": allow_host},
        summary=fetch_summary(report),
    )
    raise_for_report(report, key)


def fetch_for_scan(
    start: str,
    end: str,
    settings: FetchSettings | None = None,
    *,
    show_progress: bool = True,
    assume_yes: bool = False,
    **fields: Any,
) -> tuple[Path, FetchReport]:
    """Fetch (cache first) for ``scan --from/--to`` and ``verify``: key, bars, messages.

    Exits 2 on bad dates or no key. Returns the folder to scan and the report; when
    ``report.exit_code`` is not OK the caller scans what was kept, then exits with it
    (after printing :func:`stop_message`). ``assume_yes`` goes on without asking when
    the range lies in another year. ``fields`` replace fields of ``settings``.
    """
    first, last = _dates(start, end)
    key = get_key()
    settings = replace(settings or FetchSettings(), **fields)
    report = _run_fetch(
        first, last, settings, key=key, show_progress=show_progress, assume_yes=assume_yes
    )
    return report.out_dir, report


__all__ = [
    "fetch",
    "fetch_for_scan",
    "get_key",
    "plan",
    "raise_for_report",
    "render_plan",
    "render_report",
    "stop_message",
]
