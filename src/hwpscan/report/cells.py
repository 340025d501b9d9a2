"""The cells of the date x format contamination table, counted without pandas.

The terminal (:func:`hwpscan.report.tables.pivot_table`) and ``summary.md`` draw them;
counting is a loop over the rows, so a table scan does not load pandas (a quarter of a
second, more than the rest of its start-up). The long form (``pivot.csv``, the page's
heatmap) is a data frame: :func:`pivot_counts`.

>>> from hwpscan.models import FileResult, Format, Status
>>> rows = [
...     FileResult("a.hwp", "", 1, Format.HWP5, Status.CONTAMINATED, date="2025-07-21"),
...     FileResult("b.hwp", "", 1, Format.HWP5, Status.CLEAN, date="2025-07-21"),
...     FileResult("c.pdf", "", 1, Format.PDF, Status.CLEAN),
... ]
>>> columns, rows = contamination_cells(rows)
>>> columns
['hwp5', 'pdf']
>>> rows
[('2025-07-21', ['1/2 contaminated', '—']), ('unknown', ['—', '0/1 contaminated'])]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import FileResult, Format, Status

if TYPE_CHECKING:
    import pandas as pd

UNKNOWN_DATE = "unknown"
#: Every format, documents first, then what could not be read.
FORMAT_ORDER = [f.value for f in Format]
#: The document formats get a column each; everything else shares ``other``.
DOCUMENT_FORMATS = (Format.HWP5.value, Format.HWPX.value, Format.PDF.value)
OTHER = "other"
PIVOT_COLUMNS = [*DOCUMENT_FORMATS, OTHER]
EMPTY_CELL = "—"
#: A cell of the table: (date, format).
_Cell = tuple[str, str]


def cell_text(files: int, contaminated: int, unreadable: int, lossy: int = 0) -> str:
    """How one cell reads (*lossy*: clean files whose characters are shown as others).

    >>> cell_text(3, 2, 0), cell_text(2, 0, 1), cell_text(1, 0, 1), cell_text(0, 0, 0)
    ('2/3 contaminated', '0/2 contaminated, 1 unreadable', '1 unreadable', '—')
    >>> cell_text(2, 0, 0, 1)
    '0/2 contaminated, 1 lossy'
    """
    if files == 0:
        return EMPTY_CELL
    if unreadable == files:
        return f"{unreadable} unreadable"
    text = f"{contaminated}/{files} contaminated"
    if lossy:
        text += f", {lossy} lossy"
    return f"{text}, {unreadable} unreadable" if unreadable else text


def contamination_cells(
    results: Iterable[FileResult],
) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The columns (formats) and the rows (a date and its cells) of the table.

    HWP 5, HWPX and PDF get a column each when a file of theirs was scanned, files of
    any other kind are counted together under ``other``; dates in order, ``unknown``
    last; a day without a file of a format shows :data:`EMPTY_CELL`. No result: nothing.
    """
    counts = _counts(results, documents_only=True)
    columns = sorted({fmt for _, fmt in counts}, key=PIVOT_COLUMNS.index)
    dates = sorted({day for day, _ in counts}, key=lambda d: (d == UNKNOWN_DATE, d))
    empty = [0] * 5
    cells = [(day, [_cell(counts.get((day, fmt), empty)) for fmt in columns]) for day in dates]
    return columns, cells


def _cell(counts: list[int]) -> str:
    files, contaminated, _, unreadable, lossy = counts
    return cell_text(files, contaminated, unreadable, lossy)


def _counts(results: Iterable[FileResult], *, documents_only: bool) -> dict[_Cell, list[int]]:
    """Files, contaminated, clean, unreadable and lossy (clean, characters shown as
    others) per date and format (*documents_only*: any other format is ``other``)."""
    counts: dict[_Cell, list[int]] = {}
    for r in results:
        fmt = r.format.value
        if documents_only and fmt not in DOCUMENT_FORMATS:
            fmt = OTHER
        cell = counts.setdefault((r.date or UNKNOWN_DATE, fmt), [0, 0, 0, 0, 0])
        clean = r.status is Status.CLEAN
        found = (1, r.status is Status.CONTAMINATED, clean, not r.status.scanned, clean and r.lossy)
        for i, n in enumerate(found):
            cell[i] += n
    return counts


def pivot_counts(results: Iterable[FileResult]) -> pd.DataFrame:
    """One row per (date, format), dates in order (``unknown`` last), with the files,
    contaminated, clean, unreadable and lossy (clean, characters shown as others).

    >>> rows = [FileResult("a.hwp", "", 1, Format.HWP5, Status.CONTAMINATED, date="2025-07-21"),
    ...         FileResult("c.pdf", "", 1, Format.PDF, Status.CLEAN, date="2025-07-21")]
    >>> pivot_counts(rows)[["date", "format", "files", "contaminated"]].values.tolist()
    [['2025-07-21', 'hwp5', 1, 1], ['2025-07-21', 'pdf', 1, 0]]
    """
    import pandas as pd  # the report bundle's, not the terminal's

    counts = _counts(results, documents_only=False)
    keys = sorted(counts, key=lambda k: (k[0] == UNKNOWN_DATE, k))
    columns = ["date", "format", "files", "contaminated", "clean", "unreadable", "lossy"]
    return pd.DataFrame([[*k, *counts[k]] for k in keys], columns=columns)


def md_cell(text: str) -> str:
    """Text safe inside a markdown table cell: one line, pipes escaped, no live HTML, and
    control characters (ESC, C1...) shown as escapes such as ``\\x1b``, not sent."""
    text = escape_snippet(" ".join(text.split()))
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(text.split())
