"""One date's verdict, PASS, FAIL or INCONCLUSIVE, from what was found for it (pure).

What a date is checked against is explicit (``expect``):

- ``fixed``: a raw attachment is still contaminated (else the date proves nothing),
  **and** every deployed extractor's text is whole, and/or the deployed tool's output
  passes ``check-json`` **and** holds the restored characters (else "characters dropped");
- ``clean`` / ``contaminated``: the raw attachments' own state.

``PASS`` only when something was proven; ``FAIL`` with the evidence (file, extractor,
first bad position and context, or JSON path); else ``INCONCLUSIVE`` with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from hwpscan.history.diff import date_state
from hwpscan.models import VERIFY_PRECEDENCE, ExitCode, FileResult, Status, combine_exit_codes
from hwpscan.verify.evidence import (
    Evidence,
    fail_reason,
    raw_evidence,
    row_evidence,
    unread_evidence,
)
from hwpscan.verify.tool import ToolOutcome, dropped_evidence, tool_evidence

if TYPE_CHECKING:
    from hwpscan.matrix import MatrixRow

EXPECTATIONS = ("fixed", "clean", "contaminated")
PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
NOT_LISTED = "the API or its quota stopped before this date was listed"
NO_FILES = "no attachments for this date: nothing to verify"
EMPTY_ANSWER = (
    "the API listed no release at all on this weekday: a holiday, or a silent quota refusal"
)
NO_DEFECT = "no raw attachment is contaminated: the date cannot show the fix works"
NOT_COMPARED = "no contaminated attachment could be compared with the strict view"
_NAMED = 3  # unreadable files named in a reason


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
    raw: str = "not listed"  # contaminated, clean, partial, unreadable, no files, not listed
    extractors: tuple[str, ...] = ()
    rows_checked: int = 0
    tool: ToolOutcome | None = None
    evidence: tuple[Evidence, ...] = ()
    before: str | None = None  # the date's state in the --after run, if given

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)} | {
            "extractors": list(self.extractors),
            "tool": self.tool.to_json() if self.tool is not None else None,
            "evidence": [e.to_json() for e in self.evidence],
        }


@dataclass(frozen=True, slots=True)
class Listing:
    """What the fetch said about one date: listed before it stopped, attachments not
    downloaded (a PASS then proves nothing), nothing listed at all on this weekday."""

    listed: bool = True
    missing: int = 0
    empty_answer: bool = False


class _Files:
    """One date's scan results, sorted by what they show."""

    def __init__(self, day: str, results: Iterable[FileResult]) -> None:
        self.mine = tuple(r for r in results if r.date == day)
        self.bad = tuple(r for r in self.mine if r.status is Status.CONTAMINATED)
        self.unreadable = tuple(r for r in self.mine if not r.status.scanned)

    def unread_reason(self) -> str:
        """How many could not be read, and which."""
        names = [r.path.rsplit("/", 1)[-1] for r in self.unreadable[:_NAMED]]
        more = len(self.unreadable) - len(names)
        listed = ", ".join(names) + (f" and {more} more" if more else "")
        return (
            f"{len(self.unreadable)} of {len(self.mine)} attachments could not be read ({listed})"
        )


def judge(
    day: str,
    expect: str,
    results: Sequence[FileResult],
    *,
    listing: Listing = Listing(),
    rows: Sequence[MatrixRow] = (),
    extractors: Sequence[str] = (),
    tool: ToolOutcome | None = None,
    before: str | None = None,
) -> DateVerdict:
    """The verdict for one date from its scan results, matrix rows and tool outcome.

    >>> judge("2025-07-26", "clean", [], listing=Listing(listed=False)).verdict
    'INCONCLUSIVE'
    >>> judge("2025-07-26", "clean", []).reason
    'no attachments for this date: nothing to verify'
    """
    if expect not in EXPECTATIONS:
        raise ValueError(f"expect must be one of {EXPECTATIONS}, not {expect!r}")
    files = _Files(day, results)
    base = DateVerdict(
        day,
        INCONCLUSIVE,
        "",
        expect,
        files=len(files.mine),
        contaminated=len(files.bad),
        unreadable=len(files.unreadable),
        # as the run history names a date's state: with a file not read, never clean
        raw=date_state(r.status for r in files.mine) if files.mine else "no files",
        extractors=tuple(extractors),
        tool=tool,
        before=before,
    )
    if not listing.listed:
        return replace(base, raw="not listed", reason=NOT_LISTED)
    if not files.mine:
        if listing.empty_answer:
            return replace(base, reason=EMPTY_ANSWER)
        if listing.missing:
            return replace(base, reason=f"none of its {listing.missing} attachments was downloaded")
        return replace(base, reason=NO_FILES)
    fixed = expect == "fixed"
    found = _judge_fixed(base, files, rows, tool) if fixed else _judge_raw(base, files, expect)
    if listing.missing and found.verdict == PASS:
        reason = (
            f"{listing.missing} attachment(s) could not be downloaded; the rest: {found.reason}"
        )
        return replace(found, verdict=INCONCLUSIVE, reason=reason)
    return found


def _judge_raw(base: DateVerdict, files: _Files, expect: str) -> DateVerdict:
    """``clean`` or ``contaminated``: the raw attachments' own state."""
    n, bad = len(files.mine), len(files.bad)
    unread = tuple(unread_evidence(r) for r in files.unreadable)
    if expect == "contaminated":
        if bad:
            return replace(
                base, verdict=PASS, reason=f"{bad} of {n} attachments contaminated, as expected"
            )
        if unread:
            reason = f"no readable attachment is contaminated; {files.unread_reason()}"
            return replace(base, reason=reason, evidence=unread)
        return replace(base, verdict=FAIL, reason="expected contaminated, found clean")
    if bad:
        reason = f"expected clean, found {bad} of {n} attachments contaminated"
        evidence = tuple(raw_evidence(r) for r in files.bad)
        return replace(base, verdict=FAIL, reason=reason, evidence=evidence)
    if unread:  # a file not read in full is never clean
        return replace(base, reason=files.unread_reason(), evidence=unread)
    return replace(base, verdict=PASS, reason=f"all {n} attachments clean")


def _judge_fixed(
    base: DateVerdict, files: _Files, rows: Sequence[MatrixRow], tool: ToolOutcome | None
) -> DateVerdict:
    paths = {r.path for r in files.mine}
    rows = [row for row in rows if row.path in paths]
    base = replace(base, rows_checked=len(rows))
    if not files.bad:
        return replace(base, reason=NO_DEFECT)
    evidence, not_run = _fixed_evidence(files, rows, tool)
    if evidence:
        return replace(base, verdict=FAIL, reason=fail_reason(evidence), evidence=tuple(evidence))
    if not_run:
        reason = f"an extractor could not run: {not_run[0].problem}"
        return replace(base, reason=reason, evidence=tuple(not_run))
    bad = {r.path for r in files.bad}
    if rows and tool is None and not any(r.compared and r.path in bad for r in rows):
        return replace(base, reason=NOT_COMPARED)
    return replace(base, verdict=PASS, reason=_proven(rows, files, tool))


def _fixed_evidence(
    files: _Files, rows: Sequence[MatrixRow], tool: ToolOutcome | None
) -> tuple[list[Evidence], list[Evidence]]:
    """What the extractors and the tool lost, and the extractors that could not run at all."""
    not_run = [
        Evidence(r.path, r.parser, r.reason or "not installed")
        for r in rows
        if r.status == "not-installed"
    ]
    evidence = [found for r in rows if r.status != "not-installed" and (found := row_evidence(r))]
    if tool is not None:
        evidence.extend(tool_evidence(tool) or dropped_evidence(tool, files.bad))
    return evidence, not_run


def _proven(rows: Sequence[MatrixRow], files: _Files, tool: ToolOutcome | None) -> str:
    """What a PASS under ``fixed`` proved, in one line."""
    proven = []
    if rows:
        names = ", ".join(dict.fromkeys(r.parser for r in rows))
        proven.append(
            f"{names}: whole on {len({r.path for r in rows})} attachments "
            f"({len(files.bad)} contaminated in the raw view)"
        )
    if tool is not None and tool.check is not None:
        proven.append(f"tool: {tool.check.strings} strings in {tool.check.documents} documents OK")
    return "; ".join(proven)


def exit_code(verdicts: Iterable[DateVerdict], *, stopped: bool = False) -> ExitCode:
    """FINDINGS (1) on any FAIL; else API (3) when the API or its quota stopped the fetch;
    else INCONCLUSIVE (4) when a date proved nothing; OK (0) only when every date passed.
    """
    found = list(verdicts)
    own = {PASS: ExitCode.OK, FAIL: ExitCode.FINDINGS}  # any other verdict: inconclusive
    codes = [own.get(v.verdict, ExitCode.INCONCLUSIVE) for v in found]
    if stopped:
        codes.append(ExitCode.API)
    if not found:
        codes.append(ExitCode.INCONCLUSIVE)
    return ExitCode(combine_exit_codes(*codes, precedence=VERIFY_PRECEDENCE))
