"""The parser matrix for people (a rich table) and for tools (JSON Lines)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import IO

from rich.table import Table
from rich.text import Text

from hwpscan.matrix.rows import MatrixRow, summarize, verdict

__all__ = ["matrix_table", "verdict_lines", "write_matrix_jsonl"]

_STATUS_STYLE = {
    "ok": "green",
    "empty": "bold red",
    "timeout": "bold red",
    "crashed": "bold red",
    "error": "red",
    "not-installed": "dim",
}
_COUNTS = (
    ("surrogates", "surrogates"),
    ("U+FFFD", "replacement_chars"),
    ("dropped", "dropped_chars"),
    ("changed", "changed_chars"),
    ("extra", "extra_chars"),
    ("bad bytes", "invalid_bytes"),
)


def matrix_table(rows: Sequence[MatrixRow]) -> Table:
    """One line per file and extractor; guilty extractors in red, the file named once."""
    table = Table(title="Parser matrix (compared with the strict view)", title_justify="left")
    table.add_column("file", overflow="fold")
    table.add_column("parser")
    table.add_column("status")
    table.add_column("chars", justify="right")
    for label, _ in _COUNTS:
        table.add_column(label, justify="right")
    table.add_column("s", justify="right")
    table.add_column("verdict / first example", overflow="fold")
    last: str | None = None
    for row in rows:
        shown = row.path if row.path != last else ""
        if row.path != last and last is not None:
            table.add_section()
        last = row.path
        guilty = row.guilty
        name_style = "bold red" if guilty else ("green" if row.status == "ok" else "dim")
        counts = [_count(getattr(row, attr)) for _, attr in _COUNTS]
        table.add_row(
            shown,
            Text(row.parser, style=name_style),
            Text(row.status, style=_STATUS_STYLE.get(row.status, "")),
            f"{row.chars:,}" if row.status in ("ok", "empty") else "",
            *counts,
            f"{row.seconds:.2f}",
            _note(row),
        )
    return table


def _count(value: int) -> Text:
    return Text(f"{value:,}", style="bold red") if value else Text("0", style="dim")


def _note(row: MatrixRow) -> Text:
    faults = row.faults()
    parts: list[str] = []
    if faults:
        parts.append("GUILTY: " + "; ".join(faults))
    if row.reason:
        parts.append(row.reason)
    if row.reference_surrogates and row.status == "ok":
        n = row.reference_surrogates
        parts.append(f"the document itself holds {n:,} lone surrogate{'s' if n != 1 else ''}")
    if row.examples:
        parts.append(row.examples[0])
    if not parts:
        return Text("matches the reference", style="green")
    return Text(" | ".join(parts), style="red" if faults else "dim")


def verdict_lines(rows: Sequence[MatrixRow]) -> list[str]:
    """Plain sentences naming the guilty extractors, e.g. for the end of the table.

    >>> rows = [MatrixRow("a.hwp", "codeunit", "ok", surrogates=2, compared=True),
    ...         MatrixRow("a.hwp", "strict", "ok", compared=True),
    ...         MatrixRow("a.hwp", "pyhwp", "not-installed", reason="command not found: x"),
    ...         MatrixRow("b.hwp", "strict", "error", reason="encrypted")]
    >>> for line in verdict_lines(rows):
    ...     print(line)
    codeunit: guilty on 1 of 1 readable files
    strict: clean on all 1 readable files (1 file without a reference)
    pyhwp: command not found: x
    a.hwp: codeunit
    """
    lines = []
    for s in summarize(rows):
        if s.not_installed == s.files:
            lines.append(f"{s.parser}: {s.missing_reason or 'not installed'}")
            continue
        if s.guilty:
            line = f"{s.parser}: guilty on {s.guilty:,} of {s.judged:,} readable files"
        else:
            line = f"{s.parser}: clean on all {s.judged:,} readable files"
        unjudged = s.files - s.judged - s.not_installed
        if unjudged:
            line += f" ({unjudged:,} file{'s' if unjudged != 1 else ''} without a reference)"
        lines.append(line)
    lines.extend(f"{path}: {', '.join(names)}" for path, names in verdict(rows).items())
    return lines


def write_matrix_jsonl(rows: Iterable[MatrixRow], out: IO[str]) -> int:
    """One JSON object per file and extractor; returns how many were written.

    >>> import io
    >>> buf = io.StringIO()
    >>> write_matrix_jsonl([MatrixRow("a.hwp", "strict", "ok")], buf)
    1
    >>> json.loads(buf.getvalue())["parser"]
    'strict'
    """
    count = 0
    for row in rows:
        out.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
        count += 1
    return count
