"""The parser matrix for people (a rich table and a closing list) and for tools (JSON Lines).

The table has one line per extractor and the defect classes as columns, so it fits a
100-column terminal whatever the number of files; the closing list groups the files
per extractor, worst first, with the most severe example of each.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import IO

from rich.text import Text

from hwpscan.matrix.matrix_rows import MatrixRow, ParserSummary, by_parser, summarize

#: Files listed per extractor in the closing list before "and N more".
LIST_FILES = 10


_COLUMNS = (
    ("files", None, ""),
    ("guilty", None, "bold red"),
    ("failed", None, "bold red"),
    ("leaked", "leaked", "bold red"),
    ("lost", "lost", "bold red"),
    ("PUA lost", "lost_pua", "bold red"),
    ("replaced", "replaced", "yellow"),
    ("markup", "markup", "cyan"),
)


def matrix_table(
    rows: Sequence[MatrixRow], *, strict_markup: bool = False, width: int = 100
) -> Text:
    """One line per extractor: files judged, guilty, failed, then characters per class.

    Fits *width* columns: the numbers take what they need, names are never cut; a name
    longer than the room left gets a line of its own, its numbers on the next.
    """
    summaries = summarize(rows, strict_markup=strict_markup)
    files = len({r.path for r in rows})
    values = [(s, _numbers(s)) for s in summaries]
    widths = [
        max([len(label)] + [len(f"{v[i]:,}") for _, v in values if v is not None])
        for i, (label, _, _) in enumerate(_COLUMNS)
    ]
    longest = max([len("extractor")] + [len(s.parser) for s in summaries])
    name_width = max(len("extractor"), min(longest, width - sum(w + 2 for w in widths)))
    out = Text()
    plural = "s" if files != 1 else ""
    out.append(
        f"Parser matrix: {files:,} file{plural}, compared with the strict view\n", style="bold"
    )
    out.append("extractor".ljust(name_width), style="bold")
    for (label, _, _), w in zip(_COLUMNS, widths, strict=True):
        out.append("  " + label.rjust(w), style="bold")
    out.append("\n")
    for s, numbers in values:
        _append_line(out, s, numbers, name_width, widths)
    guilt = "leaked, lost or failed" + (", or any replaced or markup text" if strict_markup else "")
    out.append(f"files judged; characters per class; guilty = {guilt}", style="dim")
    return out


def _numbers(s: ParserSummary) -> list[int] | None:
    """The numbers of one table line, in column order (None: never installed)."""
    if s.not_installed == s.files:
        return None
    numbers = [s.judged, s.guilty, s.failed]
    return numbers + [s.totals.get(key, 0) for _, key, _ in _COLUMNS[3:] if key is not None]


def _append_line(
    out: Text, s: ParserSummary, numbers: list[int] | None, name_width: int, widths: list[int]
) -> None:
    """One extractor's line: its name (on a line of its own when too long), its numbers."""
    style = "dim" if numbers is None else ("bold red" if s.guilty else "green")
    if len(s.parser) > name_width:
        out.append(s.parser + "\n", style=style)
        out.append(" " * name_width)
    else:
        out.append(s.parser.ljust(name_width), style=style)
    if numbers is None:
        out.append(f"  {s.files:,} file{'s' if s.files != 1 else ''}: not installed\n", style="dim")
        return
    for value, (_, _, cell_style), w in zip(numbers, _COLUMNS, widths, strict=True):
        out.append("  ")
        out.append(f"{value:,}".rjust(w), style=(cell_style if value else "dim"))
    out.append("\n")


def verdict_lines(rows: Sequence[MatrixRow], *, strict_markup: bool = False) -> list[str]:
    """Plain sentences: per extractor its verdict, then its guilty files (worst first).

    >>> rows = [MatrixRow("a.hwp", "codeunit", "ok", surrogates=2, compared=True),
    ...         MatrixRow("a.hwp", "strict", "ok", compared=True),
    ...         MatrixRow("a.hwp", "pyhwp", "not-installed", reason="command not found: x"),
    ...         MatrixRow("b.hwp", "strict", "error", reason="encrypted")]
    >>> for line in verdict_lines(rows):
    ...     print(line)
    codeunit: guilty on 1 of 1 readable files (leaked on 1)
      a.hwp: 2 surrogates
    strict: clean on all 1 readable files (1 file without a reference)
    pyhwp: command not found: x
    """
    lines: list[str] = []
    grouped = by_parser(rows)
    for s in summarize(rows, strict_markup=strict_markup):
        if s.not_installed == s.files:
            lines.append(f"{s.parser}: {s.missing_reason or 'not installed'}")
            continue
        lines.append(_headline(s, strict_markup))
        guilty = [r for r in grouped[s.parser] if r.is_guilty(strict_markup=strict_markup)]
        guilty.sort(key=_severity)
        lines.extend("  " + _file_line(row, strict_markup) for row in guilty[:LIST_FILES])
        if len(guilty) > LIST_FILES:
            lines.append(f"  … and {len(guilty) - LIST_FILES:,} more")
    own = sorted({r.path for r in rows if r.reference_surrogates and r.status == "ok"})
    if own:
        n = len(own)
        lines.append(
            f"{n:,} file{'s' if n != 1 else ''} hold{'s' if n == 1 else ''} lone surrogates of "
            f"{'its' if n == 1 else 'their'} own (the document's, not blamed on any extractor): "
            + ", ".join(own[:LIST_FILES])
            + (" …" if n > LIST_FILES else "")
        )
    return lines


#: The classes the headline notes without counting them as guilt (unless --strict-markup).
_NOTES = (("replaced", "replaced text"), ("markup", "markup"), ("extra", "extra text"))


def _headline(s: ParserSummary, strict_markup: bool) -> str:
    if s.guilty:
        line = f"{s.parser}: guilty on {s.guilty:,} of {s.judged:,} readable files"
    else:
        line = f"{s.parser}: clean on all {s.judged:,} readable files"
    parts = [
        f"{label} on {s.files_with[key]:,}"
        for key, label in (("leaked", "leaked"), ("lost", "lost"), ("lost_pua", "PUA lost"))
        if s.files_with.get(key)
    ]
    if s.failed:
        parts.append(f"failed on {s.failed:,}")
    unjudged = s.files - s.judged - s.not_installed
    if unjudged:
        parts.append(f"{unjudged:,} file{'s' if unjudged != 1 else ''} without a reference")
    if parts:
        line += f" ({', '.join(parts)})"
    notes = [
        f"{label} on {s.files_with[key]:,} ({s.totals[key]:,} chars)"
        for key, label in _NOTES
        if s.files_with.get(key)
    ]
    if notes:
        tail = "" if strict_markup else " — not counted as guilt (--strict-markup counts it)"
        line += "; " + ", ".join(notes) + tail
    if s.inexact:
        line += f"; {s.inexact:,} alignment{'s' if s.inexact != 1 else ''} cut short (budget)"
    return line


def _severity(row: MatrixRow) -> tuple[int, ...]:
    return (
        -int(row.failed),
        -row.leaked_surrogates,
        -row.lost_pua,
        -row.leaked,
        -row.dropped_chars,
        -row.changed_chars,
    )


def _file_line(row: MatrixRow, strict_markup: bool) -> str:
    text = f"{row.path}: {'; '.join(row.faults(strict_markup=strict_markup))}"
    if row.reason:
        text += f" — {row.reason}"
    if row.examples:
        text += f" — {row.examples[0]}"
    return text


def jsonl_row_writer(out: IO[str], *, strict_markup: bool = False) -> Callable[[MatrixRow], None]:
    """A callback writing each row as one JSON line and flushing it at once, so a run
    that is killed keeps every row written before."""

    def write(row: MatrixRow) -> None:
        out.write(json.dumps(row.to_json(strict_markup=strict_markup), ensure_ascii=False) + "\n")
        out.flush()

    return write
