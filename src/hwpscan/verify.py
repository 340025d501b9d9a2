"""Post-deploy verification of chosen dates: the verdict per date, from scan results.

For each date asked for: the raw extraction's state (any contaminated attachment?),
whether the repaired text is UTF-8 clean (each readable file's body is read again,
repaired with :func:`hwpscan.forensics.guard.repair_text` and encoded), and whether
that matches what the operator expected. Pure apart from reading the files named in
the results; the CLI fetches, prints and exits.

>>> days = [_d("2025-07-21"), _d("2025-07-30"), _d("2025-09-01")]
>>> [f"{a}..{b}" for a, b in group_dates(days, 21)]
['2025-07-21..2025-07-30', '2025-09-01..2025-09-01']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from hwpscan.models import FileResult, Status

__all__ = [
    "EXPECTATIONS",
    "DateVerdict",
    "group_dates",
    "repaired_is_clean",
    "scan_files",
    "verdicts",
]

EXPECTATIONS = ("contaminated", "clean")
NO_FILES = "no files"
UNREADABLE = "unreadable"


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


def repaired_is_clean(path: Path) -> tuple[bool, str | None]:
    """Read a file again, repair its body text, and check it encodes as UTF-8.

    Returns ``(ok, why_not)``. A file that cannot be read again (gone, unreadable, or a
    format error) counts as not clean; any other exception is a bug and propagates.
    """
    from hwpscan.errors import FormatError
    from hwpscan.forensics.guard import check_utf8, repair_text
    from hwpscan.forensics.surrogates import join_segments
    from hwpscan.formats import read_document

    try:
        doc = read_document(path.read_bytes())
    except (OSError, FormatError) as exc:
        return False, f"could not read it again: {type(exc).__name__}: {exc}"
    if doc.status is not None:  # the reader's own verdict: encrypted, corrupt...
        return False, f"could not read it again: {doc.status.value}: {doc.reason}"
    repaired = repair_text(join_segments(doc.body)).text
    check = check_utf8(repaired)
    return check.ok, check.message


@dataclass(frozen=True, slots=True)
class DateVerdict:
    """What ``verify`` concluded for one date."""

    date: str
    files: int
    contaminated: int
    unreadable: int
    raw: str  # "contaminated", "clean", "unreadable" or "no files"
    repaired_clean: bool | None  # None when no file could be read
    expected: str | None
    before: str | None = None  # the date's state in the --after run, if given
    problems: tuple[str, ...] = ()  # files whose repaired text still fails, and why

    @property
    def matches(self) -> bool:
        """True when the date is what was expected and its repaired text is clean.

        >>> DateVerdict("2025-07-21", 2, 1, 0, "contaminated", True, "contaminated").matches
        True
        >>> DateVerdict("2025-07-21", 2, 1, 0, "contaminated", True, "clean").matches
        False
        >>> DateVerdict("2025-07-26", 0, 0, 0, NO_FILES, None, None).matches
        False
        """
        if self.raw in (NO_FILES, UNREADABLE) or self.repaired_clean is not True:
            return False
        return self.expected is None or self.raw == self.expected

    @property
    def reason(self) -> str:
        """Why a date does not match ('' when it does)."""
        if self.raw == NO_FILES:
            return "no attachments for this date: nothing to verify"
        if self.raw == UNREADABLE:
            return "no attachment of this date could be read"
        if self.repaired_clean is not True:
            return "repaired text is still not UTF-8 clean"
        if self.expected is not None and self.raw != self.expected:
            return f"expected {self.expected}, found {self.raw}"
        return ""


def verdicts(
    days: Sequence[str],
    results: Sequence[FileResult],
    files: Mapping[str, Path],
    *,
    expect: str | None = None,
    before: Mapping[str, str] | None = None,
) -> list[DateVerdict]:
    """One verdict per date in *days*, in the order given.

    *files* maps each result's ``path`` to the file on disk, so the repaired text can
    be checked by repairing it for real; *before* is each date's state in an earlier
    run (see :func:`hwpscan.store.date_states`).
    """
    if expect is not None and expect not in EXPECTATIONS:
        raise ValueError(f"expect must be one of {EXPECTATIONS}, not {expect!r}")
    out = []
    for day in days:
        mine = [r for r in results if r.date == day]
        bad = sum(r.status is Status.CONTAMINATED for r in mine)
        readable = [r for r in mine if r.status.scanned]
        raw = (
            NO_FILES
            if not mine
            else UNREADABLE
            if not readable
            else Status.CONTAMINATED.value
            if bad
            else Status.CLEAN.value
        )
        problems = []
        for r in readable:
            # the counts say repair can succeed (every surrogate is half of a pair or an
            # orphan it drops); repairing the text for real proves it
            b = r.body
            if b.surrogates != 2 * b.pairs + b.orphans:
                problems.append(
                    f"{r.path}: counts do not add up ({b.surrogates} surrogates, "
                    f"{b.pairs} pairs, {b.orphans} orphans)"
                )
            ok, why = (
                (False, "not on disk") if r.path not in files else repaired_is_clean(files[r.path])
            )
            if not ok:
                problems.append(f"{r.path}: {why}")
        out.append(
            DateVerdict(
                date=day,
                files=len(mine),
                contaminated=bad,
                unreadable=len(mine) - len(readable),
                raw=raw,
                repaired_clean=(not problems) if readable else None,
                expected=expect,
                before=(before or {}).get(day),
                problems=tuple(problems),
            )
        )
    return out


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
