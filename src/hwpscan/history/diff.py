"""Comparing two sets of results (pure: no database): files and dates that changed
verdict. Files are matched by path, then by date and file name, so two fetches into
different folders still compare.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from hwpscan.history.records import file_name
from hwpscan.models import FileResult, Status

__all__ = [
    "CHANGE_KINDS",
    "DATE_STATES",
    "DateChange",
    "FileChange",
    "RunDiff",
    "change_kind",
    "date_state",
    "date_states",
    "diff_results",
    "pair_files",
]


#: The states of a date, the first that holds: a file contaminated; every file read and
#: clean; some read and some not (what was not read proves nothing); none read.
DATE_STATES = ("contaminated", "clean", "partial", "unreadable")
#: How the pivot labels undated files; those are no date of their own.
_UNDATED = "unknown"

#: File change kinds, in the order ``diff`` shows them.
CHANGE_KINDS = ("became_contaminated", "became_clean", "status_changed", "appeared", "vanished")


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file whose verdict differs between two runs (``None``: absent from that run)."""

    kind: str
    path: str
    date: str | None
    before: str | None
    after: str | None
    surrogates_before: int | None = None  # None: absent from that run, or body not read
    surrogates_after: int | None = None


@dataclass(frozen=True, slots=True)
class DateChange:
    """One date whose state differs: one of :data:`DATE_STATES`, or None (absent)."""

    kind: str
    date: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class RunDiff:
    """What changed from run ``a`` to run ``b``."""

    a: str
    b: str
    files: tuple[FileChange, ...]
    dates: tuple[DateChange, ...]
    unchanged: int

    def of_kind(self, kind: str) -> tuple[FileChange, ...]:
        return tuple(c for c in self.files if c.kind == kind)

    def dates_of_kind(self, kind: str) -> tuple[DateChange, ...]:
        return tuple(c for c in self.dates if c.kind == kind)

    @property
    def empty(self) -> bool:
        return not self.files and not self.dates


def change_kind(before: str | None, after: str | None) -> str | None:
    """How a verdict moved; None when it did not.

    >>> change_kind("contaminated", "clean"), change_kind(None, "clean")
    ('became_clean', 'appeared')
    >>> change_kind("clean", "clean") is None
    True
    >>> change_kind("corrupt", "contaminated"), change_kind("clean", "corrupt")
    ('became_contaminated', 'status_changed')
    """
    if before == after:
        return None
    if before is None:
        return "appeared"
    if after is None:
        return "vanished"
    if after == Status.CONTAMINATED.value:
        return "became_contaminated"
    if before == Status.CONTAMINATED.value and after == Status.CLEAN.value:
        return "became_clean"
    return "status_changed"


def pair_files(
    a: Iterable[FileResult], b: Iterable[FileResult]
) -> list[tuple[FileResult | None, FileResult | None]]:
    """Match files of two runs by path; files left over are matched by (date, name)
    when that is unique on both sides (two fetches into different folders).

    >>> from hwpscan.models import Format
    >>> f = lambda p: FileResult(p, "", 0, Format.PDF, Status.CLEAN, date="2025-07-21")
    >>> pairs = pair_files([f("o1/a.pdf")], [f("o2/a.pdf"), f("o2/b.pdf")])
    >>> [(x and x.path, y and y.path) for x, y in pairs]
    [('o1/a.pdf', 'o2/a.pdf'), (None, 'o2/b.pdf')]
    """
    left = {r.path: r for r in a}
    right = {r.path: r for r in b}
    pairs: list[tuple[FileResult | None, FileResult | None]] = [
        (left[p], right[p]) for p in left if p in right
    ]
    only_a = [r for p, r in left.items() if p not in right]
    only_b = [r for p, r in right.items() if p not in left]
    key_a, key_b = _unique_by_name(only_a), _unique_by_name(only_b)
    for r in only_a:
        k = (r.date, file_name(r.path))
        pairs.append((r, key_b.pop(k, None) if k in key_a else None))
    paired = {y.path for _, y in pairs if y is not None}
    pairs.extend((None, r) for r in only_b if r.path not in paired)
    return pairs


def _unique_by_name(results: list[FileResult]) -> dict[tuple[str | None, str], FileResult]:
    """The files by (date, name), those that share theirs with another left out."""
    keys = [(r.date, file_name(r.path)) for r in results]
    seen = Counter(keys)
    return {k: r for k, r in zip(keys, results, strict=True) if seen[k] == 1}


def date_state(statuses: Iterable[Status]) -> str:
    """One date's state from its files' statuses (see :data:`DATE_STATES`).

    >>> C, K, E = Status.CLEAN, Status.CONTAMINATED, Status.ENCRYPTED
    >>> date_state([C, K, E]), date_state([C, C]), date_state([C, E]), date_state([E])
    ('contaminated', 'clean', 'partial', 'unreadable')
    """
    seen = set(statuses)
    if Status.CONTAMINATED in seen:
        return "contaminated"
    read = any(s.scanned for s in seen)
    unread = any(not s.scanned for s in seen)
    if read and not unread:
        return "clean"
    return "partial" if read else "unreadable"


def date_states(results: Iterable[FileResult]) -> dict[str, str]:
    """Each date's state (:func:`date_state`), in date order; undated files are left out.

    >>> from hwpscan.models import Format
    >>> f = lambda d, s: FileResult("a", "", 1, Format.PDF, s, date=d)
    >>> date_states([f("2025-07-22", Status.CLEAN), f("2025-07-21", Status.CORRUPT),
    ...              f("2025-07-22", Status.ERROR), f(None, Status.CLEAN)])
    {'2025-07-21': 'unreadable', '2025-07-22': 'partial'}
    """
    per_date: dict[str, list[Status]] = {}
    for r in results:
        if r.date and r.date != _UNDATED:
            per_date.setdefault(r.date, []).append(r.status)
    return {day: date_state(per_date[day]) for day in sorted(per_date)}


def _surrogates(r: FileResult | None) -> int | None:
    return r.body.surrogates if r is not None and r.body_read else None


def diff_results(a_id: str, a: Iterable[FileResult], b_id: str, b: Iterable[FileResult]) -> RunDiff:
    """The changes between two result sets (pure: no database)."""
    a, b = list(a), list(b)
    pairs = pair_files(a, b)
    changes = []
    for x, y in pairs:
        before, after = (x.status.value if x else None), (y.status.value if y else None)
        kind, ref = change_kind(before, after), y or x
        if kind is not None and ref is not None:
            changes.append(
                FileChange(kind, ref.path, ref.date, before, after, _surrogates(x), _surrogates(y))
            )
    changes.sort(key=lambda c: (CHANGE_KINDS.index(c.kind), c.date or "", c.path))
    old, new = date_states(a), date_states(b)
    moved = ((day, change_kind(old.get(day), new.get(day))) for day in sorted({*old, *new}))
    dates = [DateChange(kind, day, old.get(day), new.get(day)) for day, kind in moved if kind]
    return RunDiff(a_id, b_id, tuple(changes), tuple(dates), len(pairs) - len(changes))
