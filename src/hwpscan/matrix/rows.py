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
from dataclasses import dataclass
from typing import Any, Literal

from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.matrix.compare import (
    compare,
    count_chars,
    count_replacement,
    count_surrogates,
    describe,
    significant,
)
from hwpscan.models import ExitCode

__all__ = [
    "STATUSES",
    "Extraction",
    "MatrixRow",
    "ParserSummary",
    "RowStatus",
    "build_row",
    "matrix_exit_code",
    "summarize",
    "verdict",
]

RowStatus = Literal["ok", "empty", "timeout", "crashed", "error", "not-installed"]
STATUSES: tuple[str, ...] = ("ok", "empty", "timeout", "crashed", "error", "not-installed")
#: Statuses that mean the extractor failed on a file our reader could read.
FAILED = frozenset({"empty", "timeout", "crashed", "error"})


@dataclass(frozen=True, slots=True)
class Extraction:
    """What running one extractor on one file gave, before any comparison.

    ``status`` is ``ok`` (``text`` holds the text, lone surrogates included), or
    ``timeout``, ``crashed``, ``error``, ``not-installed`` with a ``reason``.
    ``invalid_bytes`` counts bytes of a command's output that were not UTF-8.
    """

    status: RowStatus
    text: str | None = None
    reason: str | None = None
    invalid_bytes: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class MatrixRow:
    """One file run through one extractor, compared with the reference view.

    ``chars`` (line ends not counted, as in the scan: :func:`.compare.count_chars`),
    ``surrogates`` and ``replacement_chars`` count what the extractor returned;
    ``dropped_chars``, ``changed_chars`` and ``extra_chars`` come from the alignment
    with the reference (see :mod:`hwpscan.matrix.compare`); ``compared`` says
    whether there was a reference to align with. ``reference_surrogates`` and
    ``reference_replacement_chars`` are the document's own (truly lone halves, U+FFFD
    typed by its author): an extractor is blamed only for what it adds to those.
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

    def faults(self) -> tuple[str, ...]:
        """What this extractor did wrong on this file, in words (empty: nothing).

        A failure (empty, timeout, crash, error) counts against the extractor only when
        our reader could read the file: an encrypted file is nobody's fault.
        """
        out: list[str] = []
        if self.status in FAILED and self.compared:
            out.append(self.status)
        counts = describe(
            [
                ("surrogates", max(0, self.surrogates - self.reference_surrogates)),
                ("U+FFFD", max(0, self.replacement_chars - self.reference_replacement_chars)),
                ("dropped", self.dropped_chars),
                ("changed", self.changed_chars),
                ("extra", self.extra_chars),
                ("invalid bytes", self.invalid_bytes),
            ]
        )
        if counts:
            out.append(counts)
        return tuple(out)

    @property
    def guilty(self) -> bool:
        """True when this extractor mangled (or failed on) this file."""
        return bool(self.faults())

    def to_json(self) -> dict[str, Any]:
        """The JSON Lines record (one per file and extractor)."""
        return {
            "path": self.path,
            "parser": self.parser,
            "status": self.status,
            "reason": self.reason,
            "guilty": self.guilty,
            "chars": self.chars,
            "surrogates": self.surrogates,
            "replacement_chars": self.replacement_chars,
            "dropped_chars": self.dropped_chars,
            "extra_chars": self.extra_chars,
            "changed_chars": self.changed_chars,
            "invalid_bytes": self.invalid_bytes,
            "compared": self.compared,
            "reference_surrogates": self.reference_surrogates,
            "reference_replacement_chars": self.reference_replacement_chars,
            "examples": list(self.examples),
            "seconds": round(self.seconds, 4),
        }


def build_row(
    path: str, parser: str, got: Extraction, reference: str | None, *, ref_reason: str | None = None
) -> MatrixRow:
    """Judge one extraction against *reference* (None: the reference could not be read;
    *ref_reason* says why)."""
    reason = _safe(got.reason)
    if reference is None:
        why = _safe(ref_reason) or "unreadable"
        if reason and why in reason:  # the extractor failed for the same reason: say it once
            reason = f"{reason} (no reference text either)"
        else:
            note = f"no reference text ({why})"
            reason = f"{reason}; {note}" if reason else note
    if got.status != "ok" or got.text is None:
        return MatrixRow(
            path,
            parser,
            got.status,
            reason,
            invalid_bytes=got.invalid_bytes,
            seconds=got.seconds,
            compared=reference is not None,
        )
    text = got.text
    status: RowStatus = "ok"
    if not significant(text) and (reference is None or significant(reference)):
        status = "empty"
        shown = f"{count_chars(reference):,}" if reference is not None else "unknown"
        empty_note = f"returned no text (the reference has {shown} characters)"
        reason = f"{empty_note}; {reason}" if reason else empty_note
    diff = compare(reference, text) if reference is not None and status == "ok" else None
    return MatrixRow(
        path=path,
        parser=parser,
        status=status,
        reason=reason,
        chars=count_chars(text),
        surrogates=count_surrogates(text),
        replacement_chars=count_replacement(text),
        dropped_chars=diff.dropped if diff else 0,
        extra_chars=diff.extra if diff else 0,
        changed_chars=diff.changed if diff else 0,
        invalid_bytes=got.invalid_bytes,
        examples=diff.examples if diff else (),
        seconds=got.seconds,
        compared=reference is not None,
        reference_surrogates=count_surrogates(reference or ""),
        reference_replacement_chars=count_replacement(reference or ""),
    )


def _safe(text: str | None) -> str | None:
    """Reasons come from foreign code: make them one printable, UTF-8-safe line."""
    return None if text is None else escape_snippet(text.strip())


def verdict(rows: Iterable[MatrixRow]) -> dict[str, tuple[str, ...]]:
    """The guilty extractors per file (files where none is guilty are left out)."""
    out: dict[str, list[str]] = {}
    for row in rows:
        if row.guilty:
            out.setdefault(row.path, []).append(row.parser)
    return {path: tuple(parsers) for path, parsers in out.items()}


@dataclass(frozen=True, slots=True)
class ParserSummary:
    """How one extractor did over a run: files seen, judged (a reference existed and the
    extractor is installed), guilty, and why it did not run when it is missing."""

    parser: str
    files: int = 0
    judged: int = 0
    guilty: int = 0
    not_installed: int = 0
    missing_reason: str | None = None


def summarize(rows: Iterable[MatrixRow]) -> list[ParserSummary]:
    """One summary per extractor, in first-seen order.

    >>> ok = MatrixRow("a", "p", "ok", compared=True)
    >>> summarize([ok, MatrixRow("b", "p", "timeout", compared=True), MatrixRow("c", "p", "error")])
    [ParserSummary(parser='p', files=3, judged=2, guilty=1, not_installed=0, missing_reason=None)]
    """
    tallies: dict[str, dict[str, Any]] = {}
    for row in rows:
        t = tallies.setdefault(row.parser, {"files": 0, "judged": 0, "guilty": 0, "missing": 0})
        t["files"] += 1
        if row.status == "not-installed":
            t["missing"] += 1
            t.setdefault("reason", row.reason)
        elif row.compared:
            t["judged"] += 1
            t["guilty"] += row.guilty
    return [
        ParserSummary(name, t["files"], t["judged"], t["guilty"], t["missing"], t.get("reason"))
        for name, t in tallies.items()
    ]


def matrix_exit_code(rows: Iterable[MatrixRow], fail_on: Iterable[str] = ()) -> ExitCode:
    """FINDINGS when ``--fail-on contaminated`` and an extractor is guilty on a file, or
    ``--fail-on error`` and an extractor failed (timeout, crash, error, empty).

    >>> matrix_exit_code([MatrixRow("a", "p", "crashed")], ["error"])
    <ExitCode.FINDINGS: 1>
    >>> matrix_exit_code([MatrixRow("a", "p", "ok")], ["contaminated", "error"])
    <ExitCode.OK: 0>
    """
    wanted = set(fail_on)
    for row in rows:
        if "contaminated" in wanted and row.guilty:
            return ExitCode.FINDINGS
        if "error" in wanted and row.status in FAILED:
            return ExitCode.FINDINGS
    return ExitCode.OK
