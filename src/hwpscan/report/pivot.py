"""The long-form date x format counts (``pivot.csv``, the report's heatmap) as a data frame.

Its cells as the tables show them, counted without pandas, are
:func:`hwpscan.report.cells.contamination_cells`.

>>> from hwpscan.models import FileResult, Format, Status
>>> rows = [
...     FileResult("a.hwp", "", 1, Format.HWP5, Status.CONTAMINATED, date="2025-07-21"),
...     FileResult("b.hwp", "", 1, Format.HWP5, Status.CLEAN, date="2025-07-21"),
...     FileResult("c.pdf", "", 1, Format.PDF, Status.CLEAN, date="2025-07-21"),
... ]
>>> pivot_counts(rows)[["date", "format", "files", "contaminated"]].values.tolist()
[['2025-07-21', 'hwp5', 2, 1], ['2025-07-21', 'pdf', 1, 0]]
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from hwpscan.models import FileResult, Status
from hwpscan.report.cells import UNKNOWN_DATE

__all__ = ["pivot_counts"]

_COLUMNS = ["date", "format", "files", "contaminated", "clean", "unreadable", "lossy"]


def pivot_counts(results: Iterable[FileResult]) -> pd.DataFrame:
    """One row per (date, format), dates in order (``unknown`` last), with the files,
    contaminated, clean, unreadable and lossy (clean, characters shown as others)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for r in results:
        cell = counts.setdefault((r.date or UNKNOWN_DATE, r.format.value), [0, 0, 0, 0, 0])
        clean = r.status is Status.CLEAN
        found = (1, r.status is Status.CONTAMINATED, clean, not r.status.scanned, clean and r.lossy)
        for i, n in enumerate(found):
            cell[i] += n
    keys = sorted(counts, key=lambda k: (k[0] == UNKNOWN_DATE, k))
    return pd.DataFrame([[*k, *counts[k]] for k in keys], columns=_COLUMNS)
