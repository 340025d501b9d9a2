"""``hwpscan verify``, run after a deploy: options to the use case, verdicts rendered
(what they prove: :mod:`hwpscan.verify`)."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.text import Text

from hwpscan.cli.app import ENV_FETCH, EXIT_USAGE, app, console, epilog, err_console, fail
from hwpscan.cli.machine import ResultsOutOpt, check_results_file, print_json
from hwpscan.cli.options import (
    FetchOptions,
    ParserTimeoutOpt,
    ProgressOpt,
    RecordOpt,
    split_list,
)
from hwpscan.cli.params import options_from_dataclasses
from hwpscan.cli.stop import command_line, interrupted
from hwpscan.errors import UsageError
from hwpscan.models import ExitCode

if TYPE_CHECKING:
    from hwpscan.api import FetchSettings
    from hwpscan.usecases.run_fetch import FetchReport
    from hwpscan.usecases.run_verify import (
        FetchTotals,
        VerifyHooks,
        VerifyOutcome,
        VerifySettings,
    )
    from hwpscan.verify import DateVerdict


USAGE_HINT = (
    "verify needs --expect: fixed (with --parser-cmd NAME='tool {path}' or --tool-cmd "
    "'tool {date}'), clean or contaminated"
)
_SHOWN_EVIDENCE = 5


class Expect(str, enum.Enum):
    fixed = "fixed"
    clean = "clean"
    contaminated = "contaminated"


class VerifyFormat(str, enum.Enum):
    table = "table"
    json = "json"
    junit = "junit"


@dataclass(frozen=True)
class VerifyOptions:
    """What to verify: ``verify``'s own options (the fetch options are apart)."""

    dates: Annotated[
        list[str],
        typer.Option(
            "--date",
            "-d",
            help="A day to verify, YYYY-MM-DD (repeatable, or comma-separated).",
            show_default=False,
        ),
    ] = field(default_factory=list)
    expect: Annotated[
        Expect | None,
        typer.Option(
            help="fixed: the raw files still show the defect and the deployed extractor or "
            "tool gives whole text; clean / contaminated: the raw files' own state.",
            show_default=False,
        ),
    ] = None
    parser: Annotated[
        list[str],
        typer.Option(
            help="Deployed extractors to run on every attachment, as in scan: "
            "module:function, strict, pyhwp (repeatable, or comma-separated).",
        ),
    ] = field(default_factory=list)
    parser_cmd: Annotated[
        list[str],
        typer.Option(
            help="A deployed command extractor: NAME='tool {path}' (repeatable; one command "
            "each, as a command line may itself hold commas).",
        ),
    ] = field(default_factory=list)
    parser_timeout: ParserTimeoutOpt = 30.0
    tool_cmd: Annotated[
        str | None,
        typer.Option(
            help="A command printing the deployed tool's output for one date (JSON, JSON "
            "Lines or SSE): 'CMD {date}'. It runs without the API key and other "
            "secret-looking variables (see --tool-env).",
        ),
    ] = None
    tool_timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds before the tool is killed.")
    ] = 120.0
    tool_env: Annotated[
        list[str],
        typer.Option(
            help="Pass this environment variable to --tool-cmd although its name looks "
            "secret (repeatable, or comma-separated).",
        ),
    ] = field(default_factory=list)
    cached: Annotated[
        bool,
        typer.Option(
            "--cached",
            help="Use cached answers and files already downloaded (default: ask the API "
            "again and re-download files that changed).",
        ),
    ] = False
    after: Annotated[
        str | None, typer.Option(help="Compare with this earlier run (id, prefix or 'latest').")
    ] = None
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Worker processes (0: one per core).")
    ] = 0

    def settings(self) -> VerifySettings:
        """The use case's settings; :class:`UsageError` on a bad date or combination."""
        from hwpscan.api.dates import parse_date
        from hwpscan.usecases.run_verify import VerifySettings

        if self.expect is None:
            raise UsageError(USAGE_HINT)
        return VerifySettings(
            self.expect.value,
            dates=tuple(parse_date(v, what="--date") for v in split_list(self.dates)),
            parser=",".join(split_list(self.parser)) or None,
            parser_cmd=tuple(self.parser_cmd),
            parser_timeout=self.parser_timeout,
            tool_cmd=self.tool_cmd,
            tool_timeout=self.tool_timeout,
            tool_env=tuple(split_list(self.tool_env)),
            cached=self.cached,
            after=self.after,
            jobs=self.jobs or None,
        )


VerifyFormatOpt = Annotated[
    VerifyFormat,
    typer.Option(
        "--format",
        "-f",
        help="table for people; json: one document for tools; junit: one case per date.",
    ),
]
VerifyOutOpt = Annotated[
    Path | None, typer.Option("--out", help="Folder for attachments (default: the scan cache).")
]
VerifyReportOpt = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="Write the report here (report.html and summary.md lead with the verdicts, "
        "junit.xml has one case per date); {run} becomes the run id.",
        show_default=False,
    ),
]


def _hooks(key: str, *, show_progress: bool, cached: bool) -> VerifyHooks:
    """The fetch on the terminal, then the totals of every fetch once: not after a single
    range, whose own summary said it all (unless ``--cached`` has something to add)."""
    from hwpscan.cli.fetch_view import run_fetch
    from hwpscan.usecases.run_verify import VerifyHooks

    fetches = 0

    def fetch(first: date, last: date, settings: FetchSettings) -> FetchReport:
        nonlocal fetches
        fetches += 1
        return run_fetch(first, last, settings, key=key, show_progress=show_progress)

    def fetched(totals: FetchTotals) -> None:
        if fetches == 1 and not cached:
            return
        err_console.print(
            f"{totals.calls_made} API call(s) made, {totals.calls_cached} answered from the "
            f"cache; {totals.files_fetched} file(s) fetched (new or changed), "
            f"{totals.files_reused} reused unchanged"
            + (" (--cached: files on disk not asked for again)" if cached else ""),
            highlight=False,
        )

    return VerifyHooks(fetch, fetched)


def render_verdicts(verdicts: Sequence[DateVerdict], *, show_before: bool) -> None:
    """The verdict table (the verdict a whole word, readable without colour), then each
    date's evidence."""
    from rich.table import Table

    from hwpscan.api.dates import with_weekday
    from hwpscan.verify import FAIL, INCONCLUSIVE, PASS

    style = {PASS: "bold green", FAIL: "bold red"}
    table = Table(title="Verification", title_justify="left")
    cols = ("date", "files", "raw", "expected", *(("before",) if show_before else ()))
    for col in cols:
        table.add_column(col, justify="right" if col == "files" else "left", overflow="fold")
    table.add_column("verdict", no_wrap=True, min_width=len(INCONCLUSIVE))
    table.add_column("why", overflow="fold")
    for v in verdicts:
        table.add_row(
            with_weekday(date.fromisoformat(v.date)),
            str(v.files),
            _raw_cell(v),
            v.expected,
            *((v.before or "—",) if show_before else ()),
            Text(v.verdict, style=style.get(v.verdict, "bold yellow")),
            Text(v.reason),
        )
    console.print(table)
    for v in verdicts:
        for ev in v.evidence[:_SHOWN_EVIDENCE]:
            console.print(Text(f"{v.date}: {ev.line_text()}"), soft_wrap=True)
        if len(v.evidence) > _SHOWN_EVIDENCE:
            more = len(v.evidence) - _SHOWN_EVIDENCE
            console.print(f"{v.date}: ... and {more} more (see --format json)")


def _raw_cell(v: DateVerdict) -> Text:
    if v.raw == "contaminated":
        return Text(f"contaminated ({v.contaminated}/{v.files})", style="red")
    if v.raw == "partial":
        return Text(f"partial ({v.unreadable}/{v.files} unread)", style="yellow")
    return Text(v.raw, style="green" if v.raw == "clean" else "yellow")


def _render(outcome: VerifyOutcome, fmt: VerifyFormat, output: Path | None) -> None:
    from hwpscan.verify import FAIL, INCONCLUSIVE, PASS

    if fmt is VerifyFormat.json:
        print_json(outcome.to_json(), output)
    elif fmt is VerifyFormat.junit:
        _write_junit(outcome, output)
    else:
        render_verdicts(outcome.verdicts, show_before=outcome.settings.after is not None)
        tally = outcome.tally()
        console.print(
            f"{tally[PASS]} of {len(outcome.verdicts)} dates PASS"
            + (f", {tally[FAIL]} FAIL" if tally[FAIL] else "")
            + (f", {tally[INCONCLUSIVE]} INCONCLUSIVE" if tally[INCONCLUSIVE] else "")
        )
    if outcome.stopped:
        err_console.print(
            f"[bold red]error:[/] {escape(outcome.stopped)}", markup=True, highlight=False
        )


def _write_junit(outcome: VerifyOutcome, output: Path | None) -> None:
    """``--format junit``: the report's junit.xml, one test case per date."""
    from hwpscan.report.junit import write_xml  # junit output only
    from hwpscan.report.verify_report import date_verdicts, verdicts_junit

    xml = verdicts_junit(date_verdicts(outcome.summary()["verdicts"]), stopped=outcome.stopped)
    write_xml(xml, output)


def _prepare(opts: VerifyOptions) -> tuple[VerifySettings, dict[str, str] | None]:
    """The settings and the date states of the ``--after`` run; exit 2 on bad options,
    no such run or no date, before any call."""
    from hwpscan.cli.runs_view import load_or_fail
    from hwpscan.history import date_states

    try:
        settings = opts.settings()
        after = settings.after
        before = date_states(load_or_fail(after).results) if after is not None else None
        settings.days(before)
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    return settings, before


@app.command(
    rich_help_panel="Fetch from the API",
    epilog=epilog(
        [
            (
                "hwpscan verify -d 2025-07-21 -d 2025-07-30 --expect fixed \\\n"
                "    --parser-cmd ours='python -m our_pipeline.extract {path}'",
                "after a deploy: the deployed extractor reads the broken days whole",
            ),
            (
                "hwpscan verify -d 2025-07-21 --expect clean",
                "after the publisher re-issued the files: the raw files are clean",
            ),
        ],
        ENV_FETCH,
        [
            "0  every date PASS",
            "1  a date FAILED (evidence shown)",
            EXIT_USAGE,
            "3  the API or its quota stopped before every date was listed",
            "4  no date failed, but some proved nothing (INCONCLUSIVE)",
        ],
    ),
)
@options_from_dataclasses
def verify(
    opts: VerifyOptions,
    fetch: FetchOptions,
    out: VerifyOutOpt = None,
    report: VerifyReportOpt = None,
    show_progress: ProgressOpt = True,
    fmt: VerifyFormatOpt = VerifyFormat.table,
    output: ResultsOutOpt = None,
    record: RecordOpt = True,
) -> None:
    """Ask the API again for chosen dates, run the deployed code on them, and give each
    date PASS, FAIL or INCONCLUSIVE.

    Exit 0 when every date passed, 1 when any failed, 2 on bad options, 3 when the API
    or its quota stopped (or answered a weekday with nothing), 4 when no date failed but
    some proved nothing.
    """
    from hwpscan.cli.fetch_view import get_key
    from hwpscan.cli.runs_view import record_and_report
    from hwpscan.history.records import RunSummary

    output = check_results_file(output, fmt.value, "json or junit")
    settings, before = _prepare(opts)
    key = get_key(any_length=fetch.any_key_length)
    hooks = _hooks(key, show_progress=show_progress, cached=settings.cached)
    outcome = _verify_or_stop(settings, fetch.settings(out_dir=out), key, before, hooks)
    record_and_report(
        list(outcome.results),
        kind="verify",
        args=outcome.record_args(),
        summary=RunSummary(verify=outcome.summary()),
        report_dir=report,
        record=record,
    )
    _render(outcome, fmt, output)
    raise typer.Exit(code=outcome.exit_code)


def _verify_or_stop(
    settings: VerifySettings,
    fetch: FetchSettings,
    key: str,
    before: Mapping[str, str] | None,
    hooks: VerifyHooks,
) -> VerifyOutcome:
    """The verification; a stop after the fetch says what was kept (exit 130)."""
    from hwpscan.usecases.run_verify import verify_dates

    try:
        return verify_dates(settings, fetch, key=key, before=before, hooks=hooks)
    except KeyboardInterrupt:
        raise interrupted(
            [
                "no verdict yet, nothing recorded; the files fetched so far are kept in "
                f"{fetch.out_folder()}, so running the same command again fetches only "
                "what is missing"
            ],
            command_line(),
        ) from None
