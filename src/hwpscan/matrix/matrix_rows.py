"""One row of the parser matrix per file and extractor, and the verdict over rows.

A row is built from what an extractor returned (:class:`Extraction`) and the reference
text, our strict view of the document. Pure: no processes, no terminal.

>>> ref = "가" + chr(0xF02B1) + "나"
>>> row = build_row("a.hwp", "strict", Extraction("ok", ref), ref)
>>> row.status, row.guilty
('ok', False)
>>> leaked = "가" + chr(0xDB80) + chr(0xDEB1) + "나"
>>> bad = build_row("a.hwp", "codeunit", Extraction("ok", leaked), ref)
>>> bad.surrogates, bad.guilty, bad.faults()
(2, True, ('2 surrogates',))
>>> verdict([row, bad])
{'a.hwp': ('codeunit',)}
>>> bad.to_json()["surrogates"], row.to_json()["guilty"]
(2, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from hwpscan.forensics.surrogates import SURROGATE_RE, count_surrogates, escape_snippet
from hwpscan.matrix.compare import (
    MAX_EXAMPLES,
    Comparison,
    compare,
    count_chars,
    describe,
    significant,
)
from hwpscan.models import ExitCode

RowStatus = Literal["ok", "empty", "timeout", "crashed", "error", "not-installed"]
#: Statuses that mean the extractor failed on a file our reader could read.
FAILED = frozenset({"empty", "timeout", "crashed", "error"})


@dataclass(frozen=True, slots=True)
class Extraction:
    """What running one extractor on one file gave: ``ok`` with its ``text`` (lone
    surrogates included), or a failure status with a ``reason``. ``invalid_bytes``
    counts bytes of a command's output that were not UTF-8."""

    status: RowStatus
    text: str | None = None
    reason: str | None = None
    invalid_bytes: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class MatrixRow:
    """One file run through one extractor, compared with the reference view.

    ``chars`` (line ends not counted: :func:`.compare.count_chars`), ``surrogates`` and
    ``replacement_chars`` count what the extractor returned. The classes (see
    :mod:`hwpscan.matrix.compare`): **leaked** is surrogates and U+FFFD beyond the
    document's own (``reference_*``), ``control_chars`` and ``invalid_bytes``; **lost**
    is ``dropped_chars`` (``lost_pua`` of them private-use); **replaced** is
    ``changed_chars`` (``replaced_pua``); then ``markup_chars`` and ``extra_chars``.

    ``guilty`` means leaked or lost (or a failure on a file our reader could read);
    with ``strict_markup`` replaced, markup and extra text count too. ``compared``: there
    was a reference; ``exact``: the alignment kept within its budget. ``examples`` are
    ordered by severity (surrogates and PUA first); ``class_examples`` holds up to five
    per class.
    """

    path: str
    parser: str
    status: RowStatus
    reason: str | None = None
    chars: int = 0
    surrogates: int = 0
    replacement_chars: int = 0
    dropped_chars: int = 0
    extra_chars: int = 0
    changed_chars: int = 0
    invalid_bytes: int = 0
    examples: tuple[str, ...] = ()
    seconds: float = 0.0
    compared: bool = False
    reference_surrogates: int = 0
    reference_replacement_chars: int = 0
    lost_pua: int = 0
    replaced_pua: int = 0
    markup_chars: int = 0
    control_chars: int = 0
    exact: bool = True
    class_examples: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """The extractor failed (empty, timeout, crash, error) on a file we could read."""
        return self.status in FAILED and self.compared

    @property
    def leaked_surrogates(self) -> int:
        return max(0, self.surrogates - self.reference_surrogates)

    @property
    def leaked_replacement(self) -> int:
        return max(0, self.replacement_chars - self.reference_replacement_chars)

    @property
    def leaked(self) -> int:
        """Leaked characters and bytes: surrogates, U+FFFD, control data, invalid bytes."""
        return (
            self.leaked_surrogates
            + self.leaked_replacement
            + self.control_chars
            + self.invalid_bytes
        )

    def counts(self) -> dict[str, int]:
        """The defect classes as numbers (``lost_pua``/``replaced_pua`` included).

        >>> MatrixRow("a", "p", "ok", dropped_chars=3, lost_pua=2).counts()["lost"]
        3
        """
        return {
            "leaked": self.leaked,
            "lost": self.dropped_chars,
            "lost_pua": self.lost_pua,
            "replaced": self.changed_chars,
            "replaced_pua": self.replaced_pua,
            "markup": self.markup_chars,
            "extra": self.extra_chars,
        }

    def faults(self, *, strict_markup: bool = False) -> tuple[str, ...]:
        """What this extractor did wrong on this file, in words (empty: nothing).

        A failure (empty, timeout, crash, error) counts against the extractor only when
        our reader could read the file: an encrypted file is nobody's fault. Replaced,
        markup and extra text count only with *strict_markup*.
        """
        out: list[str] = []
        if self.failed:
            out.append(self.status)
        counts = [
            ("surrogates", self.leaked_surrogates),
            ("U+FFFD", self.leaked_replacement),
            ("control-code chars", self.control_chars),
            ("invalid bytes", self.invalid_bytes),
            (f"lost ({self.lost_pua:,} PUA)" if self.lost_pua else "lost", self.dropped_chars),
        ]
        if strict_markup:
            replaced = f"replaced ({self.replaced_pua:,} PUA)" if self.replaced_pua else "replaced"
            counts += [(replaced, self.changed_chars), ("markup", self.markup_chars)]
            counts.append(("extra", self.extra_chars))
        text = describe(counts)
        if text:
            out.append(text)
        return tuple(out)

    def is_guilty(self, *, strict_markup: bool = False) -> bool:
        """True when this extractor leaked or lost text (or failed) on this file."""
        return bool(self.faults(strict_markup=strict_markup))

    @property
    def guilty(self) -> bool:
        """True when this extractor leaked or lost text (or failed) on this file."""
        return self.is_guilty()

    def to_json(self, *, strict_markup: bool = False) -> dict[str, Any]:
        """The JSON Lines record (one per file and extractor)."""
        return {
            "path": self.path,
            "parser": self.parser,
            "status": self.status,
            "reason": self.reason,
            "guilty": self.is_guilty(strict_markup=strict_markup),
            "chars": self.chars,
            "leaked": self.leaked,
            "lost": self.dropped_chars,
            "lost_pua": self.lost_pua,
            "replaced": self.changed_chars,
            "replaced_pua": self.replaced_pua,
            "markup": self.markup_chars,
            "surrogates": self.surrogates,
            "replacement_chars": self.replacement_chars,
            "control_chars": self.control_chars,
            "dropped_chars": self.dropped_chars,
            "extra_chars": self.extra_chars,
            "changed_chars": self.changed_chars,
            "invalid_bytes": self.invalid_bytes,
            "compared": self.compared,
            "exact": self.exact,
            "reference_surrogates": self.reference_surrogates,
            "reference_replacement_chars": self.reference_replacement_chars,
            "examples": list(self.examples),
            "class_examples": {k: list(v) for k, v in self.class_examples.items()},
            "seconds": round(self.seconds, 4),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatrixRow:
        """The row back from :meth:`to_json` (derived keys are recomputed).

        >>> row = MatrixRow("a", "p", "ok", dropped_chars=2, lost_pua=1, markup_chars=3,
        ...                 examples=("x",), class_examples={"lost": ("x",)})
        >>> MatrixRow.from_json(row.to_json()) == row
        True
        """
        names = {f.name for f in fields(cls)}
        kept = {k: v for k, v in data.items() if k in names}
        if "markup" in data:  # the record's name for markup_chars
            kept["markup_chars"] = data["markup"]
        kept["examples"] = tuple(kept.get("examples") or ())
        kept["class_examples"] = {
            k: tuple(v) for k, v in (kept.get("class_examples") or {}).items()
        }
        return cls(**kept)


def build_row(
    path: str, parser: str, got: Extraction, reference: str | None, *, ref_reason: str | None = None
) -> MatrixRow:
    """Judge one extraction against *reference* (None: the reference could not be read;
    *ref_reason* says why)."""
    reason = _reference_note(_safe(got.reason), reference, ref_reason)
    compared = reference is not None
    if got.status != "ok" or got.text is None:
        return MatrixRow(
            path,
            parser,
            got.status,
            reason,
            invalid_bytes=got.invalid_bytes,
            seconds=got.seconds,
            compared=compared,
        )
    text = got.text
    status, reason = _emptiness(text, reference, reason)
    diff = compare(reference, text) if reference is not None and status == "ok" else Comparison()
    surrogates = count_surrogates(text)
    ref_surrogates = count_surrogates(reference or "")
    examples, by_class = _leak_first(text, diff, leaked=surrogates > ref_surrogates)
    return MatrixRow(
        path=path,
        parser=parser,
        status=status,
        reason=reason,
        chars=count_chars(text),
        surrogates=surrogates,
        replacement_chars=text.count("\ufffd"),
        dropped_chars=diff.lost,
        extra_chars=diff.extra,
        changed_chars=diff.replaced,
        invalid_bytes=got.invalid_bytes,
        examples=examples,
        seconds=got.seconds,
        compared=compared,
        reference_surrogates=ref_surrogates,
        reference_replacement_chars=(reference or "").count("\ufffd"),
        lost_pua=diff.lost_pua,
        replaced_pua=diff.replaced_pua,
        markup_chars=diff.markup,
        control_chars=diff.leaked,
        exact=diff.exact,
        class_examples=by_class,
    )


def _reference_note(
    reason: str | None, reference: str | None, ref_reason: str | None
) -> str | None:
    """*reason*, plus why there is no reference text when there is none.

    >>> _reference_note("bad header", None, "bad header"), _reference_note(None, None, None)
    ('bad header (no reference text either)', 'no reference text (unreadable)')
    >>> _reference_note("timeout", None, "encrypted"), _reference_note("x", "text", None)
    ('timeout; no reference text (encrypted)', 'x')
    """
    if reference is not None:
        return reason
    why = _safe(ref_reason) or "unreadable"
    if reason and why in reason:  # the extractor failed for the same reason: say it once
        return f"{reason} (no reference text either)"
    note = f"no reference text ({why})"
    return f"{reason}; {note}" if reason else note


def _emptiness(
    text: str, reference: str | None, reason: str | None
) -> tuple[RowStatus, str | None]:
    """``empty`` (and why) when *text* has nothing to compare but the reference has.

    >>> _emptiness(" ", "가", None), _emptiness(" ", " ", None)[0], _emptiness("가", "가", "r")
    (('empty', 'returned no text (the reference has 1 characters)'), 'ok', ('ok', 'r'))
    """
    if significant(text) or (reference is not None and not significant(reference)):
        return "ok", reason
    shown = f"{count_chars(reference):,}" if reference is not None else "unknown"
    note = f"returned no text (the reference has {shown} characters)"
    return "empty", f"{note}; {reason}" if reason else note


def _leak_first(
    text: str, diff: Comparison, *, leaked: bool
) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The comparison's examples, led by where a surrogate leaked when one did."""
    examples = diff.examples
    by_class = dict(diff.by_class)
    if leaked:
        shown = _surrogate_example(text)
        examples = (shown, *examples)[:MAX_EXAMPLES]
        by_class["leaked"] = (shown, *by_class.get("leaked", ()))[:MAX_EXAMPLES]
    return examples, by_class


def _surrogate_example(text: str) -> str:
    """``leaked: before[\\udb80]after`` around the first surrogate of *text*."""
    match = SURROGATE_RE.search(text)
    assert match is not None
    start = match.start()
    end = start + 1
    while end < len(text) and end - start < 4 and SURROGATE_RE.match(text, end):
        end += 1
    before = significant(text[max(0, start - 24) : start])[-8:]
    after = significant(text[end : end + 24])[:8]
    return (
        f"leaked: {escape_snippet(before)}[{escape_snippet(text[start:end])}]"
        f"{escape_snippet(after)}"
    )


def _safe(text: str | None) -> str | None:
    """Reasons come from foreign code: make them one printable, UTF-8-safe line."""
    return None if text is None else escape_snippet(text.strip())


def verdict(
    rows: Iterable[MatrixRow], *, strict_markup: bool = False
) -> dict[str, tuple[str, ...]]:
    """The guilty extractors per file (files where none is guilty are left out)."""
    out: dict[str, list[str]] = {}
    for row in rows:
        if row.is_guilty(strict_markup=strict_markup):
            out.setdefault(row.path, []).append(row.parser)
    return {path: tuple(parsers) for path, parsers in out.items()}


#: The per-class tallies of a :class:`ParserSummary`, in the order tables show them.
SUMMARY_CLASSES = ("leaked", "lost", "lost_pua", "replaced", "replaced_pua", "markup", "extra")


@dataclass(frozen=True, slots=True)
class ParserSummary:
    """How one extractor did over a run: files seen, judged (a reference existed and the
    extractor is installed), guilty, failed, and why it did not run when it is missing;
    ``files_with`` counts judged files per defect class, ``totals`` the characters."""

    parser: str
    files: int = 0
    judged: int = 0
    guilty: int = 0
    not_installed: int = 0
    missing_reason: str | None = None
    failed: int = 0
    files_with: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    inexact: int = 0

    @property
    def rank_key(self) -> tuple[int, ...]:
        """Best extractor first: fewest guilty and failed files, then least leaked, lost
        (PUA first), replaced, markup; an extractor that never ran comes last."""
        t = self.totals
        return (
            int(self.judged == 0),
            self.guilty,
            self.failed,
            t.get("leaked", 0),
            t.get("lost_pua", 0),
            t.get("lost", 0),
            t.get("replaced", 0),
            t.get("markup", 0),
            t.get("extra", 0),
        )


def by_parser(rows: Iterable[MatrixRow]) -> dict[str, list[MatrixRow]]:
    """Each extractor's rows, the extractors in first-seen order.

    >>> rows = [MatrixRow("a", "p", "ok"), MatrixRow("a", "q", "ok"), MatrixRow("b", "p", "ok")]
    >>> {parser: [r.path for r in mine] for parser, mine in by_parser(rows).items()}
    {'p': ['a', 'b'], 'q': ['a']}
    """
    groups: dict[str, list[MatrixRow]] = {}
    for row in rows:
        groups.setdefault(row.parser, []).append(row)
    return groups


def summarize(rows: Iterable[MatrixRow], *, strict_markup: bool = False) -> list[ParserSummary]:
    """One summary per extractor, in first-seen order.

    >>> ok = MatrixRow("a", "p", "ok", compared=True)
    >>> late = MatrixRow("b", "p", "timeout", compared=True)
    >>> (s,) = summarize([ok, late, MatrixRow("c", "p", "error")])
    >>> s.files, s.judged, s.guilty, s.failed
    (3, 2, 1, 1)
    """
    out = []
    for name, mine in by_parser(rows).items():
        missing = [r for r in mine if r.status == "not-installed"]
        judged = [r for r in mine if r.status != "not-installed" and r.compared]
        counts = [r.counts() for r in judged]
        out.append(
            ParserSummary(
                name,
                files=len(mine),
                judged=len(judged),
                guilty=sum(r.is_guilty(strict_markup=strict_markup) for r in judged),
                not_installed=len(missing),
                missing_reason=missing[0].reason if missing else None,
                failed=sum(r.failed for r in judged),
                files_with={k: sum(bool(c[k]) for c in counts) for k in SUMMARY_CLASSES},
                totals={k: sum(c[k] for c in counts) for k in SUMMARY_CLASSES},
                inexact=sum(not r.exact for r in judged),
            )
        )
    return out


def ranking(rows: Iterable[MatrixRow], *, strict_markup: bool = False) -> list[ParserSummary]:
    """The extractors best first (see :attr:`ParserSummary.rank_key`)."""
    return sorted(summarize(rows, strict_markup=strict_markup), key=lambda s: s.rank_key)


def matrix_exit_code(
    rows: Iterable[MatrixRow], fail_on: Iterable[str] = (), *, strict_markup: bool = False
) -> ExitCode:
    """FINDINGS when ``--fail-on contaminated`` and an extractor is guilty on a file, or
    ``--fail-on error`` and an extractor failed (timeout, crash, error, empty).

    >>> matrix_exit_code([MatrixRow("a", "p", "crashed")], ["error"])
    <ExitCode.FINDINGS: 1>
    >>> matrix_exit_code([MatrixRow("a", "p", "ok")], ["contaminated", "error"])
    <ExitCode.OK: 0>
    >>> markup = MatrixRow("a", "p", "ok", markup_chars=3, compared=True)
    >>> matrix_exit_code([markup], ["contaminated"]), matrix_exit_code(
    ...     [markup], ["contaminated"], strict_markup=True)
    (<ExitCode.OK: 0>, <ExitCode.FINDINGS: 1>)
    """
    wanted = set(fail_on)
    for row in rows:
        if "contaminated" in wanted and row.is_guilty(strict_markup=strict_markup):
            return ExitCode.FINDINGS
        if "error" in wanted and row.status in FAILED:
            return ExitCode.FINDINGS
    return ExitCode.OK
