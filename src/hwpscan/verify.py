"""Post-deploy verification of chosen dates: PASS, FAIL or INCONCLUSIVE per date.

What a date is checked against is always explicit (``expect``):

- ``fixed``: the date's raw attachments still reproduce the defect (at least one file
  is contaminated in the codeunit view, else the date proves nothing), **and** every
  deployed extractor's text of every attachment of the date is whole (the parser
  matrix finds nothing against the strict view, and the text holds no lone surrogate,
  so it encodes as UTF-8), and/or the deployed tool's output for the date passes the
  ``check-json`` check string by string;
- ``clean`` / ``contaminated``: the raw attachments' own state (a publisher-side fix,
  or confirming the defect is still there).

A verdict is ``PASS`` only when something was proven, ``FAIL`` with the evidence (file,
extractor, first bad position and its context, or the JSON path), and ``INCONCLUSIVE``
with the reason otherwise (the date was never listed, it has no attachments, or under
``fixed`` none of them is contaminated). :func:`exit_code` turns verdicts into the exit
code. Apart from :func:`run_tool` (a subprocess) and :func:`locate_in_output` (which
runs one extractor again) this module is pure; the CLI fetches, prints and exits.

>>> days = [_d("2025-07-21"), _d("2025-07-30"), _d("2025-09-01")]
>>> [f"{a}..{b}" for a, b in group_dates(days, 21)]
['2025-07-21..2025-07-30', '2025-09-01..2025-09-01']
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwpscan.errors import UsageError
from hwpscan.matrix.runner import kill_group
from hwpscan.models import (
    VERIFY_PRECEDENCE,
    ExitCode,
    FileResult,
    Status,
    combine_exit_codes,
)
from hwpscan.redaction import API_KEY_ENV, redact_credentials, redact_params, redact_text

if TYPE_CHECKING:
    from hwpscan.forensics.checkjson import JsonCheck
    from hwpscan.matrix import MatrixRow, ParserSpec

__all__ = [
    "EXPECTATIONS",
    "FAIL",
    "INCONCLUSIVE",
    "PASS",
    "DateVerdict",
    "Evidence",
    "ToolOutcome",
    "exit_code",
    "group_dates",
    "judge",
    "locate_in_output",
    "parse_tool_cmd",
    "run_tool",
    "scan_files",
]

EXPECTATIONS = ("fixed", "clean", "contaminated")
PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
DATE_FIELD = "{date}"
NOT_LISTED = "the API or its quota stopped before this date was listed"
NO_FILES = "no attachments for this date: nothing to verify"
EMPTY_ANSWER = (
    "the API listed no release at all on this weekday: a holiday, or a silent quota refusal"
)
_CONTEXT = 20
_STDERR_TAIL = 300


def _d(text: str) -> date:
    return date.fromisoformat(text)


def group_dates(days: Iterable[date], window_days: int) -> list[tuple[date, date]]:
    """Fewest API windows covering *days*: consecutive days join a window while it
    stays within ``window_days`` (both ends counted), so nearby dates cost one call.

    >>> group_dates([_d("2025-07-21")], 21)
    [(datetime.date(2025, 7, 21), datetime.date(2025, 7, 21))]
    >>> len(group_dates([_d("2025-07-01"), _d("2025-07-21"), _d("2025-07-22")], 21))
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
class Evidence:
    """Why a date failed (or could not be judged): one file or tool output, and where.

    >>> Evidence("a.hwp", "codeunit", "2 surrogates", position=4, context="x").line_text()
    'a.hwp [codeunit] at 4: 2 surrogates: x'
    """

    file: str | None
    source: str  # "raw" (the published file), an extractor's name, or "tool"
    problem: str
    position: int | None = None  # character index in the extractor's text, or the string's
    context: str | None = None  # escaped
    json_path: str | None = None
    json_line: int | None = None  # the tool output's line where the JSON document starts

    def line_text(self) -> str:
        where = self.file or ""
        if self.json_path:
            where += f"{' ' if where else ''}{self.json_path}"
        bits = [f"{where} [{self.source}]" if where else f"[{self.source}]"]
        if self.position is not None:
            bits[0] += f" at {self.position}"
        bits.append(self.problem)
        if self.context:
            bits.append(self.context)
        return ": ".join(bits)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "source": self.source,
            "problem": self.problem,
            "position": self.position,
            "context": self.context,
            "json_path": self.json_path,
            "json_line": self.json_line,
        }


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What ``--tool-cmd`` gave for one date: the check, or why there is none."""

    date: str
    command: str  # shown (the template with the date filled in)
    failure: str | None = None  # it failed, hung or printed no JSON
    check: JsonCheck | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None and self.check is not None and self.check.ok

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": self.command, "ok": self.ok, "failure": self.failure}
        if self.check is not None:
            out.update(
                documents=self.check.documents,
                strings=self.check.strings,
                bad=len(self.check.bad),
                skipped=len(self.check.skipped),
            )
        return out


@dataclass(frozen=True, slots=True)
class DateVerdict:
    """What ``verify`` concluded for one date."""

    date: str
    verdict: str  # PASS, FAIL or INCONCLUSIVE
    reason: str  # one line: what was proven, or why not
    expected: str
    files: int = 0
    contaminated: int = 0
    unreadable: int = 0
    raw: str = "not listed"  # contaminated, clean, unreadable, no files, not listed
    extractors: tuple[str, ...] = ()
    rows_checked: int = 0
    tool: ToolOutcome | None = None
    evidence: tuple[Evidence, ...] = ()
    before: str | None = None  # the date's state in the --after run, if given

    def to_json(self) -> dict[str, Any]:
        return {
            "date": self.date,
            "verdict": self.verdict,
            "reason": self.reason,
            "expected": self.expected,
            "files": self.files,
            "contaminated": self.contaminated,
            "unreadable": self.unreadable,
            "raw": self.raw,
            "extractors": list(self.extractors),
            "rows_checked": self.rows_checked,
            "tool": self.tool.to_json() if self.tool is not None else None,
            "evidence": [e.to_json() for e in self.evidence],
            "before": self.before,
        }


def _raw_state(mine: Sequence[FileResult]) -> str:
    if not mine:
        return "no files"
    if any(r.status is Status.CONTAMINATED for r in mine):
        return Status.CONTAMINATED.value
    if any(r.status.scanned for r in mine):
        return Status.CLEAN.value
    return "unreadable"


def _raw_evidence(r: FileResult) -> Evidence:
    loc = r.body.locations[0] if r.body.locations else None
    problem = f"{r.body.surrogates} surrogate code points in the published file"
    if loc is None:
        return Evidence(r.path, "raw", problem)
    where = f"{loc.stream} paragraph {loc.paragraph} offset {loc.offset}"
    return Evidence(
        r.path, "raw", f"{problem} (first: {loc.codepoint} at {where})", loc.offset, loc.context
    )


def _row_evidence(row: MatrixRow) -> Evidence | None:
    """The matrix row's fault, or None when the extractor gave whole, encodable text."""
    faults = list(row.faults())
    if row.status == "ok" and row.surrogates and not any("surrogate" in f for f in faults):
        n = row.surrogates
        faults.append(f"{n} lone surrogate{'s' if n != 1 else ''}: not UTF-8 encodable")
    if not faults:
        return None
    problem = "; ".join(faults)
    if row.reason and row.status != "ok":
        problem += f" ({row.reason})"
    context = row.examples[0] if row.examples else None
    return Evidence(row.path, row.parser, problem, context=context)


def judge(
    day: str,
    expect: str,
    results: Sequence[FileResult],
    *,
    listed: bool = True,
    rows: Sequence[MatrixRow] = (),
    extractors: Sequence[str] = (),
    tool: ToolOutcome | None = None,
    before: str | None = None,
    missing: int = 0,
    empty_answer: bool = False,
) -> DateVerdict:
    """The verdict for one date from its scan results, matrix rows and tool outcome.

    *listed* is False when the API never listed the date (the fetch stopped first);
    *missing* counts its attachments listed but not downloaded (a PASS becomes
    INCONCLUSIVE: what was not read proves nothing); *empty_answer* says the API listed
    nothing at all on this weekday (a holiday, or a silent quota refusal).

    >>> judge("2025-07-26", "clean", [], listed=False).verdict
    'INCONCLUSIVE'
    >>> judge("2025-07-26", "clean", []).reason
    'no attachments for this date: nothing to verify'
    """
    if expect not in EXPECTATIONS:
        raise ValueError(f"expect must be one of {EXPECTATIONS}, not {expect!r}")
    mine = [r for r in results if r.date == day]
    bad = [r for r in mine if r.status is Status.CONTAMINATED]
    unreadable = [r for r in mine if not r.status.scanned]
    base: dict[str, Any] = {
        "date": day,
        "expected": expect,
        "files": len(mine),
        "contaminated": len(bad),
        "unreadable": len(unreadable),
        "raw": _raw_state(mine) if listed else "not listed",
        "extractors": tuple(extractors),
        "tool": tool,
        "before": before,
    }
    if not listed:
        return DateVerdict(verdict=INCONCLUSIVE, reason=NOT_LISTED, **base)
    if not mine and empty_answer:
        return DateVerdict(verdict=INCONCLUSIVE, reason=EMPTY_ANSWER, **base)
    if not mine:
        reason = NO_FILES if not missing else f"none of its {missing} attachments was downloaded"
        return DateVerdict(verdict=INCONCLUSIVE, reason=reason, **base)
    found = _judge(expect, mine, bad, unreadable, rows, tool, base)
    if missing and found.verdict == PASS:
        reason = f"{missing} attachment(s) could not be downloaded; the rest: {found.reason}"
        return replace(found, verdict=INCONCLUSIVE, reason=reason)
    return found


def _judge(
    expect: str,
    mine: Sequence[FileResult],
    bad: Sequence[FileResult],
    unreadable: Sequence[FileResult],
    rows: Sequence[MatrixRow],
    tool: ToolOutcome | None,
    base: dict[str, Any],
) -> DateVerdict:
    unread_ev = tuple(
        Evidence(r.path, "raw", f"{r.status.value}: {r.reason or 'not read'}") for r in unreadable
    )
    if expect == "contaminated":
        if bad:
            reason = f"{len(bad)} of {len(mine)} attachments contaminated, as expected"
            return DateVerdict(verdict=PASS, reason=reason, **base)
        if unreadable:
            reason = f"no readable attachment is contaminated; {len(unreadable)} could not be read"
            return DateVerdict(verdict=INCONCLUSIVE, reason=reason, evidence=unread_ev, **base)
        return DateVerdict(verdict=FAIL, reason="expected contaminated, found clean", **base)
    if expect == "clean":
        if bad:
            reason = f"expected clean, found {len(bad)} of {len(mine)} attachments contaminated"
            ev = tuple(_raw_evidence(r) for r in bad)
            return DateVerdict(verdict=FAIL, reason=reason, evidence=ev, **base)
        if unreadable:  # a file not read in full is never clean
            reason = f"{len(unreadable)} of {len(mine)} attachments could not be read"
            return DateVerdict(verdict=INCONCLUSIVE, reason=reason, evidence=unread_ev, **base)
        return DateVerdict(verdict=PASS, reason=f"all {len(mine)} attachments clean", **base)
    return _judge_fixed(mine, bad, rows, tool, base)


def _judge_fixed(
    mine: Sequence[FileResult],
    bad: Sequence[FileResult],
    rows: Sequence[MatrixRow],
    tool: ToolOutcome | None,
    base: dict[str, Any],
) -> DateVerdict:
    paths = {r.path for r in mine}
    rows = [row for row in rows if row.path in paths]
    base["rows_checked"] = len(rows)
    if not bad:
        reason = "no raw attachment is contaminated: the date cannot show the fix works"
        return DateVerdict(verdict=INCONCLUSIVE, reason=reason, **base)
    evidence: list[Evidence] = []
    missing: list[Evidence] = []
    for row in rows:
        if row.status == "not-installed":
            missing.append(Evidence(row.path, row.parser, row.reason or "not installed"))
            continue
        found = _row_evidence(row)
        if found is not None:
            evidence.append(found)
    if tool is not None:
        evidence.extend(_tool_evidence(tool))
    if evidence:
        return DateVerdict(
            verdict=FAIL, reason=_fail_reason(evidence), evidence=tuple(evidence), **base
        )
    if missing:
        reason = f"an extractor could not run: {missing[0].problem}"
        return DateVerdict(verdict=INCONCLUSIVE, reason=reason, evidence=tuple(missing), **base)
    judged = [r for r in rows if r.compared]
    contaminated_judged = {r.path for r in judged} & {r.path for r in bad}
    if rows and not contaminated_judged and tool is None:
        reason = "no contaminated attachment could be compared with the strict view"
        return DateVerdict(verdict=INCONCLUSIVE, reason=reason, **base)
    proven = []
    if rows:
        names = ", ".join(dict.fromkeys(r.parser for r in rows))
        proven.append(
            f"{names}: whole on {len({r.path for r in rows})} attachments "
            f"({len(bad)} contaminated in the raw view)"
        )
    if tool is not None and tool.check is not None:
        proven.append(f"tool: {tool.check.strings} strings in {tool.check.documents} documents OK")
    return DateVerdict(verdict=PASS, reason="; ".join(proven), **base)


def _fail_reason(evidence: Sequence[Evidence]) -> str:
    """One line: who failed, and the first problem (the evidence lines give the rest).

    >>> _fail_reason([Evidence("d/a.hwp", "x", "2 surrogates", 5), Evidence(None, "tool", "no")])
    '2 problems (x, tool); first: a.hwp [x] at 5: 2 surrogates'
    """
    first = evidence[0]
    short = replace(first, file=Path(first.file).name if first.file else None, context=None)
    sources = ", ".join(dict.fromkeys(e.source for e in evidence))
    n = len(evidence)
    return f"{n} problem{'s' if n != 1 else ''} ({sources}); first: {short.line_text()}"


def scrub_tool_text(text: str) -> str:
    """What the deployed tool printed, safe to show and store: the API key (in any
    spelling), cloud credentials and secret-named parameters redacted.

    >>> scrub_tool_text("GET /api?authKey=abc123 failed")
    'GET /api?authKey=REDACTED failed'
    """
    key = os.environ.get(API_KEY_ENV)
    text = redact_credentials(redact_params(text))
    return redact_text(text, [key]) if key else text


def _tool_evidence(tool: ToolOutcome) -> list[Evidence]:
    if tool.failure is not None:
        return [Evidence(None, "tool", tool.failure)]
    assert tool.check is not None
    return [
        Evidence(
            None,
            "tool",
            b.message,
            position=b.position,
            context=scrub_tool_text(b.snippet),
            json_path=b.path + (" (key)" if b.kind == "key" else ""),
            json_line=b.line,
        )
        for b in tool.check.bad
    ]


#: What one date's verdict says on its own (any other verdict is inconclusive).
_VERDICT_CODES = {PASS: ExitCode.OK, FAIL: ExitCode.FINDINGS}


def exit_code(verdicts: Iterable[DateVerdict], *, stopped: bool = False) -> ExitCode:
    """FINDINGS (1) on any FAIL; else API (3) when the API or its quota stopped the
    fetch; else INCONCLUSIVE (4) when a date proved nothing; OK (0) only when every
    date passed (and there was a date).

    >>> v = lambda s: DateVerdict("2025-07-21", s, "", "clean")
    >>> [int(exit_code(x)) for x in ([v(PASS)], [v(PASS), v(FAIL)], [v(INCONCLUSIVE)], [])]
    [0, 1, 4, 4]
    >>> int(exit_code([v(INCONCLUSIVE)], stopped=True)), int(exit_code([v(FAIL)], stopped=True))
    (3, 1)
    """
    found = list(verdicts)
    codes = [_VERDICT_CODES.get(v.verdict, ExitCode.INCONCLUSIVE) for v in found]
    if stopped:
        codes.append(ExitCode.API)
    if not found:
        codes.append(ExitCode.INCONCLUSIVE)
    return ExitCode(combine_exit_codes(*codes, precedence=VERIFY_PRECEDENCE))


# -- the deployed tool -------------------------------------------------------------------


def parse_tool_cmd(template: str) -> tuple[str, ...]:
    """The argv template of ``--tool-cmd``; it must hold ``{date}``.

    >>> parse_tool_cmd("curl -s 'http://h/tool?d={date}'")
    ('curl', '-s', 'http://h/tool?d={date}')
    >>> parse_tool_cmd("tool")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: --tool-cmd 'tool': the command must contain {date} ...
    """
    try:
        argv = tuple(shlex.split(template))
    except ValueError as exc:
        raise UsageError(f"--tool-cmd {template!r}: {exc}") from exc
    if not argv:
        raise UsageError("--tool-cmd is empty: give a command such as 'mytool {date}'")
    if not any(DATE_FIELD in arg for arg in argv):
        raise UsageError(
            f"--tool-cmd {template!r}: the command must contain {DATE_FIELD} where the "
            "date (YYYY-MM-DD) goes"
        )
    return argv


def _tail(stderr: bytes) -> str:
    from hwpscan.forensics.surrogates import escape_snippet

    lines = [s for s in stderr.decode("utf-8", "backslashreplace").splitlines() if s.strip()]
    last = escape_snippet(lines[-1].strip()) if lines else ""
    return last if len(last) <= _STDERR_TAIL else "..." + last[-_STDERR_TAIL:]


def run_tool(argv: Sequence[str], day: str, *, timeout: float) -> ToolOutcome:
    """Run the tool command for *day* (no shell; its own process group, killed whole
    after *timeout* seconds) and check what it printed as ``check-json`` does.

    Never raises for what the command does: a failure is the outcome's ``failure``.
    """
    from hwpscan.forensics.checkjson import check_json_bytes
    from hwpscan.forensics.surrogates import escape_snippet

    args = [a.replace(DATE_FIELD, day) for a in argv]
    shown = scrub_tool_text(escape_snippet(shlex.join(args)))
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=os.name == "posix",
        )
    except OSError as exc:
        return ToolOutcome(day, shown, f"cannot run the tool command: {exc.strerror or exc}")
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        proc.communicate()
        return ToolOutcome(day, shown, f"the tool command did not finish within {timeout:g} s")
    if proc.returncode != 0:
        what = (
            f"killed by signal {-proc.returncode}"
            if proc.returncode < 0
            else f"exited with status {proc.returncode}"
        )
        tail = scrub_tool_text(_tail(err))
        return ToolOutcome(day, shown, f"the tool command {what}" + (f": {tail}" if tail else ""))
    check = check_json_bytes(out)
    if check.empty:
        return ToolOutcome(
            day,
            shown,
            f"the tool command printed no JSON ({len(check.skipped)} line(s) skipped)",
            check,
        )
    return ToolOutcome(day, shown, None, check)


# -- evidence from an extractor's own text ------------------------------------------------


def locate_in_output(spec: ParserSpec, path: Path, *, timeout: float) -> tuple[int, str] | None:
    """Run one extractor on one file again and find its first lone surrogate: the
    character position and an escaped context. None when there is none (or it fails)."""
    from hwpscan.forensics.guard import check_utf8
    from hwpscan.forensics.surrogates import escape_snippet
    from hwpscan.matrix.runner import run_extractor

    with tempfile.TemporaryDirectory(prefix="hwpscan-verify-") as tmp:
        got = run_extractor(spec, path, timeout=timeout, workdir=Path(tmp))
    if got.status != "ok" or got.text is None:
        return None
    check = check_utf8(got.text)
    if check.ok or check.start is None:
        return None
    i = check.start
    return i, escape_snippet(got.text[max(0, i - _CONTEXT) : i + _CONTEXT])


def with_positions(
    verdict: DateVerdict,
    specs: Mapping[str, ParserSpec],
    files: Mapping[str, Path],
    *,
    timeout: float,
) -> DateVerdict:
    """Fill in the position and context of the first surrogate fault of each extractor."""
    done: set[str] = set()
    out: list[Evidence] = []
    for ev in verdict.evidence:
        spec = specs.get(ev.source)
        path = files.get(ev.file) if ev.file is not None else None
        found = None
        if (
            spec is not None
            and path is not None
            and ev.source not in done
            and ev.position is None
            and "surrogate" in ev.problem
        ):
            done.add(ev.source)
            found = locate_in_output(spec, path, timeout=timeout)
        out.append(ev if found is None else replace(ev, position=found[0], context=found[1]))
    if out == list(verdict.evidence):  # nothing located: the verdict stands as it was
        return verdict
    reason = _fail_reason(out) if verdict.verdict == FAIL else verdict.reason
    return replace(verdict, evidence=tuple(out), reason=reason)


def scan_files(
    paths: Iterable[Path], days: Sequence[str], *, jobs: int | None = None
) -> tuple[list[FileResult], dict[str, Path]]:
    """Scan the given files (those a fetch listed) that are dated on one of *days*.

    Files are dated by the fetch manifest (else their path), as ``scan`` dates them.
    Only the files given are looked at: an earlier fetch's file left in the same folder
    does not count. Returns the results and, for each result's ``path``, the file.
    """
    from hwpscan.scan import resolve_dates, scan_paths

    files = [p for p in dict.fromkeys(paths) if p.is_file()]
    dates = resolve_dates(files)
    wanted = set(days)
    chosen = [p for p in files if dates.get(p) in wanted]
    results = list(scan_paths(chosen, jobs=jobs, dates=dates))
    return results, {r.path: p for r, p in zip(results, chosen, strict=True)}
