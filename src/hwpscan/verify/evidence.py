"""What a verdict shows for itself: one :class:`Evidence` per file, extractor or JSON path.

>>> fail_reason([Evidence("d/a.hwp", "x", "2 surrogates", 5), Evidence(None, "tool", "no")])
'2 problems (x, tool); first: a.hwp [x] at 5: 2 surrogates'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwpscan.models import FileResult

if TYPE_CHECKING:
    from hwpscan.matrix import MatrixRow


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
        where = " ".join(filter(None, (self.file, self.json_path)))
        head = f"{where} [{self.source}]" if where else f"[{self.source}]"
        if self.position is not None:
            head += f" at {self.position}"
        return ": ".join([head, self.problem] + ([self.context] if self.context else []))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def raw_evidence(r: FileResult) -> Evidence:
    """A contaminated published file: how many surrogates, and the first one."""
    loc = r.body.locations[0] if r.body.locations else None
    problem = f"{r.body.surrogates} surrogate code points in the published file"
    if loc is None:
        return Evidence(r.path, "raw", problem)
    where = f"{loc.stream} paragraph {loc.paragraph} offset {loc.offset}"
    return Evidence(
        r.path, "raw", f"{problem} (first: {loc.codepoint} at {where})", loc.offset, loc.context
    )


def unread_evidence(r: FileResult) -> Evidence:
    """A published file that could not be read (in full): its status and why."""
    return Evidence(r.path, "raw", f"{r.status.value}: {r.reason or 'not read'}")


def row_evidence(row: MatrixRow) -> Evidence | None:
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


def fail_reason(evidence: Sequence[Evidence]) -> str:
    """One line: who failed, and the first problem (the evidence lines give the rest)."""
    first = evidence[0]
    short = replace(first, file=Path(first.file).name if first.file else None, context=None)
    sources = ", ".join(dict.fromkeys(e.source for e in evidence))
    n = len(evidence)
    return f"{n} problem{'s' if n != 1 else ''} ({sources}); first: {short.line_text()}"
