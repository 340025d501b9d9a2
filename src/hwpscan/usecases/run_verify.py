"""The verify use case: :func:`verify_dates` fetches the chosen dates' attachments again
(one API call per span of ``window_days``), scans them, runs the deployed code and returns
a verdict per date with its evidence (:class:`VerifyOutcome`). Nothing is printed here.

>>> days = [date(2025, 7, 21), date(2025, 7, 30), date(2025, 9, 1)]
>>> [f"{a}..{b}" for a, b in group_dates(days, 21)]
['2025-07-21..2025-07-30', '2025-09-01..2025-09-01']
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from hwpscan.api import FetchSettings
from hwpscan.errors import UsageError
from hwpscan.history.records import OptionValue, RunArgs, arg_text
from hwpscan.matrix import MatrixRow, ParserSpec, parse_parser_options
from hwpscan.matrix.runner import run_matrix
from hwpscan.models import ExitCode, FileResult
from hwpscan.usecases.run_fetch import FetchReport, fetch_range, stop_message
from hwpscan.verify.checked_files import scan_files, with_positions
from hwpscan.verify.date_verdicts import (
    EXPECTATIONS,
    FAIL,
    INCONCLUSIVE,
    PASS,
    DateVerdict,
    Listing,
    exit_code,
    judge,
)
from hwpscan.verify.tool import ToolOutcome, parse_tool_cmd, run_tool, tool_environment

__all__ = [
    "FetchTotals",
    "Fetcher",
    "VerifyHooks",
    "VerifyOutcome",
    "VerifySettings",
    "group_dates",
    "verify_dates",
]

#: Fetch one span of dates: ``(first, last, settings) -> report``.
Fetcher = Callable[[date, date, FetchSettings], FetchReport]


def group_dates(days: Iterable[date], window_days: int) -> list[tuple[date, date]]:
    """Fewest API windows covering *days*: consecutive days join a window while it
    stays within ``window_days`` (both ends counted), so nearby dates cost one call.

    >>> group_dates([date(2025, 7, 21)], 21)
    [(datetime.date(2025, 7, 21), datetime.date(2025, 7, 21))]
    >>> len(group_dates([date(2025, 7, 1), date(2025, 7, 21), date(2025, 7, 22)], 21))
    2
    """
    out: list[tuple[date, date]] = []
    for day in sorted(set(days)):
        if out and (day - out[-1][0]).days < window_days:
            out[-1] = (out[-1][0], day)
        else:
            out.append((day, day))
    return out


@dataclass(frozen=True, slots=True)
class VerifySettings:
    """What to verify and how (the fetch apart); :class:`UsageError` when the
    combination cannot prove anything. ``parser`` and ``parser_cmd`` have ``scan``'s
    syntax without its built-ins; ``tool_cmd`` is ``'CMD {date}'``, ``tool_env`` the
    variables passed to it although they look secret; ``after`` the run compared with.

    >>> VerifySettings("fixed", parser_cmd=("x=tool {path}",)).extractors
    ('x',)
    >>> VerifySettings("clean", tool_cmd="t {date}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: --expect clean judges the published files; ...
    """

    expect: str
    dates: tuple[date, ...] = ()
    parser: str | None = None
    parser_cmd: tuple[str, ...] = ()
    parser_timeout: float = 30.0
    tool_cmd: str | None = None
    tool_timeout: float = 120.0
    tool_env: tuple[str, ...] = ()
    cached: bool = False
    after: str | None = None
    jobs: int | None = None
    specs: tuple[ParserSpec, ...] = field(init=False, repr=False, compare=False)
    tool_argv: tuple[str, ...] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.expect not in EXPECTATIONS:
            raise UsageError(f"--expect must be one of {', '.join(EXPECTATIONS)}")
        object.__setattr__(self, "specs", tuple(_specs(self.parser, self.parser_cmd)))
        argv = parse_tool_cmd(self.tool_cmd) if self.tool_cmd is not None else None
        object.__setattr__(self, "tool_argv", argv)
        has_code = bool(self.specs) or argv is not None
        if self.expect == "fixed" and not has_code:
            raise UsageError(
                "--expect fixed needs the deployed code: --parser, --parser-cmd "
                "NAME='tool {path}' or --tool-cmd 'tool {date}'"
            )
        if self.expect != "fixed" and has_code:
            raise UsageError(
                f"--expect {self.expect} judges the published files; --parser, --parser-cmd "
                "and --tool-cmd go with --expect fixed"
            )

    @property
    def extractors(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs)

    def days(self, before: Mapping[str, str] | None = None) -> list[str]:
        """The dates to verify, ``YYYY-MM-DD``: those given, else the earlier run's."""
        days = {d.isoformat() for d in self.dates} or set(before or {})
        if not days:
            raise UsageError(
                "give at least one --date YYYY-MM-DD (or --after RUN to re-check its dates)"
            )
        return sorted(days)


def _specs(parser: str | None, parser_cmd: Sequence[str]) -> list[ParserSpec]:
    """``scan``'s --parser/--parser-cmd, without the built-ins scan adds by default."""
    if parser is None and not parser_cmd:
        return []
    specs = parse_parser_options(parser or "strict", parser_cmd)
    return specs if parser is not None else [s for s in specs if s.name != "strict"]


@dataclass(frozen=True, slots=True)
class FetchTotals:
    """What the fetches of one verify cost: API calls, and files fetched or reused."""

    calls_made: int = 0
    calls_cached: int = 0
    files_fetched: int = 0  # new or changed
    files_reused: int = 0  # unchanged on the server (or, with cached, not asked for)

    def add(self, report: FetchReport) -> FetchTotals:
        return FetchTotals(
            self.calls_made + report.calls_made,
            self.calls_cached + report.calls_cached,
            self.files_fetched + report.files_downloaded,
            self.files_reused + report.files_skipped,
        )


@dataclass(frozen=True, slots=True)
class VerifyHooks:
    """A caller's own fetch (default: a quiet ``fetch_range``), and a word once it is done."""

    fetch: Fetcher | None = None
    on_fetched: Callable[[FetchTotals], None] | None = None


@dataclass(frozen=True, slots=True)
class VerifyOutcome:
    """A verdict per date, the evidence in each, what it cost, and the exit code."""

    settings: VerifySettings
    verdicts: tuple[DateVerdict, ...]
    results: tuple[FileResult, ...]  # the raw scan of every attachment of the dates
    fetch: FetchTotals
    stopped: str | None  # why the API or its quota stopped, if it did
    api_url: str
    folder: Path | None  # where the attachments are

    @property
    def exit_code(self) -> ExitCode:
        return exit_code(self.verdicts, stopped=self.stopped is not None)

    def tally(self) -> dict[str, int]:
        return {k: sum(v.verdict == k for v in self.verdicts) for k in (PASS, FAIL, INCONCLUSIVE)}

    def to_json(self) -> dict[str, Any]:
        """The ``--format json`` document."""
        return {
            "schema": "hwpscan.verify/1",
            "expect": self.settings.expect,
            "exit_code": int(self.exit_code),
            "stopped": self.stopped,
            "fetch": asdict(self.fetch),
            "dates": [v.to_json() for v in self.verdicts],
        }

    def record_args(self) -> RunArgs:
        """The run's arguments, as the run store keeps them."""
        s = self.settings
        options: dict[str, OptionValue] = {
            "dates": [v.date for v in self.verdicts],
            "expect": s.expect,
            "parser": s.parser,
            "parser_cmd": list(s.parser_cmd),
            "tool_cmd": s.tool_cmd,
            "cached": s.cached,
            "after": s.after,
        }
        return RunArgs(api_url=self.api_url, out=arg_text(self.folder), options=options)

    def summary(self) -> dict[str, Any]:
        """The run's summary, as the run store keeps it."""
        return {
            "verdicts": {v.date: v.to_json() for v in self.verdicts},
            "fetch": asdict(self.fetch),
            "stopped": self.stopped,
        }


@dataclass
class _Fetched:
    """What the fetches of the chosen dates gave, span by span."""

    folder: Path | None
    totals: FetchTotals = FetchTotals()
    paths: list[Path] = field(default_factory=list)  # only what these fetches listed
    listed: set[str] = field(default_factory=set)
    empty_weekdays: list[str] = field(default_factory=list)
    missing: Counter[str] = field(default_factory=Counter)  # listed, not on disk
    stopped: str | None = None

    def take(self, report: FetchReport, group: Sequence[str]) -> None:
        self.folder = report.out_dir
        self.totals = self.totals.add(report)
        self.paths.extend(report.paths)
        lost = (e.date for e in report.entries if e.status in ("failed", "refused") and e.date)
        self.missing.update(lost)
        if report.error is not None:
            self.stopped = stop_message(report)
            return
        self.listed.update(group)
        if not report.releases_listed:  # nothing at all: a holiday, or a silent refusal
            self.empty_weekdays += [d for d in group if date.fromisoformat(d).weekday() < 5]

    def listing(self, day: str) -> Listing:
        return Listing(day in self.listed, self.missing[day], day in self.empty_weekdays)

    def stop_reason(self) -> str | None:
        if self.stopped is None and self.empty_weekdays:
            return (
                f"the API listed no release at all for {', '.join(self.empty_weekdays)} "
                "(weekday): a holiday, or a silent quota refusal; run again later"
            )
        return self.stopped


def verify_dates(
    settings: VerifySettings,
    fetch: FetchSettings,
    *,
    key: str,
    before: Mapping[str, str] | None = None,
    hooks: VerifyHooks | None = None,
) -> VerifyOutcome:
    """Verify the dates of *settings* (none: those of *before*, the ``after`` run's) with
    attachments fetched as *fetch* says; :class:`UsageError` only when there is no date."""
    hooks = hooks or VerifyHooks()
    wanted = settings.days(before)
    fetcher = hooks.fetch or partial(fetch_range, key=key)
    got = _Fetched(fetch.out_dir)  # span by span, fresh unless cached, the dates' files only
    for first, last in group_dates([date.fromisoformat(d) for d in wanted], fetch.window_days):
        group = [d for d in wanted if first.isoformat() <= d <= last.isoformat()]
        only = frozenset(group)
        span = replace(fetch, out_dir=got.folder, fresh=not settings.cached, only_dates=only)
        got.take(fetcher(first, last, span), group)
        if got.stopped is not None:  # the API or its quota stopped: no more spans
            break
    if hooks.on_fetched is not None:
        hooks.on_fetched(got.totals)
    results, on_disk = scan_files(got.paths, wanted, jobs=settings.jobs)
    rows: list[MatrixRow] = []  # the deployed extractors on every attachment
    if settings.specs and results:
        chosen = [on_disk[r.path] for r in results]
        jobs = settings.jobs or os.cpu_count() or 1
        rows = list(run_matrix(chosen, settings.specs, timeout=settings.parser_timeout, jobs=jobs))
    by_name = {s.name: s for s in settings.specs}

    def verdict(day: str) -> DateVerdict:
        listing = got.listing(day)
        tool: ToolOutcome | None = None  # the deployed tool: for a listed date with files
        if (
            settings.tool_argv is not None
            and listing.listed
            and any(r.date == day for r in results)
        ):
            env = tool_environment(settings.tool_env)
            tool = run_tool(settings.tool_argv, day, timeout=settings.tool_timeout, env=env)
        found = judge(
            day,
            settings.expect,
            results,
            listing=listing,
            rows=rows,
            extractors=settings.extractors,
            tool=tool,
            before=(before or {}).get(day),
        )
        if found.verdict != FAIL:
            return found
        return with_positions(found, by_name, on_disk, timeout=settings.parser_timeout)

    verdicts = tuple(map(verdict, wanted))
    return VerifyOutcome(
        settings, verdicts, tuple(results), got.totals, got.stop_reason(), fetch.api_url, got.folder
    )
