"""The date x format contamination table, built with pandas.

Its cells without pandas (what the terminal draws), the constants and
:func:`cell_text` are :mod:`hwpscan.report.cells`.

>>> from hwpscan.models import FileResult, Format, Status
>>> rows = [
...     FileResult("a.hwp", "", 1, Format.HWP5, Status.CONTAMINATED, date="2025-07-21"),
...     FileResult("b.hwp", "", 1, Format.HWP5, Status.CLEAN, date="2025-07-21"),
...     FileResult("c.pdf", "", 1, Format.PDF, Status.CLEAN, date="2025-07-21"),
... ]
>>> contamination_pivot(rows).loc["2025-07-21", "hwp5"]
'1/2 contaminated'
>>> pivot_counts(rows)[["date", "format", "files", "contaminated"]].values.tolist()
[['2025-07-21', 'hwp5', 2, 1], ['2025-07-21', 'pdf', 1, 0]]
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from hwpscan.models import FileResult, Status
from hwpscan.report.cells import (
    DOCUMENT_FORMATS,
    EMPTY_CELL,
    OTHER,
    PIVOT_COLUMNS,
    UNKNOWN_DATE,
    cell_text,
)

__all__ = [
    "contaminated_dates",
    "contamination_pivot",
    "pivot_counts",
    "results_frame",
]

_COLUMNS = ["date", "format", "files", "contaminated", "clean", "unreadable", "lossy"]


def results_frame(results: Iterable[FileResult]) -> pd.DataFrame:
    """One row per file with the fields the pivots need."""
    rows = [
        {
            "date": r.date or UNKNOWN_DATE,
            "format": r.format.value,
            "status": r.status.value,
            "contaminated": r.status is Status.CONTAMINATED,
            "clean": r.status is Status.CLEAN,
            "unreadable": not r.status.scanned,
            "lossy": r.status is Status.CLEAN and r.lossy,
        }
        for r in results
    ]
    return pd.DataFrame(
        rows, columns=["date", "format", "status", "contaminated", "clean", "unreadable", "lossy"]
    )


def pivot_counts(results: Iterable[FileResult]) -> pd.DataFrame:
    """Long form: one row per (date, format) with files, contaminated, clean, unreadable."""
    frame = results_frame(results)
    if frame.empty:
        return pd.DataFrame(columns=_COLUMNS)
    grouped = (
        frame.groupby(["date", "format"], sort=True)
        .agg(
            files=("status", "size"),
            contaminated=("contaminated", "sum"),
            clean=("clean", "sum"),
            unreadable=("unreadable", "sum"),
            lossy=("lossy", "sum"),
        )
        .reset_index()
    )
    for col in ("files", "contaminated", "clean", "unreadable", "lossy"):
        grouped[col] = grouped[col].astype(int)
    return grouped.sort_values(["date", "format"], key=_date_key).reset_index(drop=True)


def _date_key(col: pd.Series) -> pd.Series:
    # keep "unknown" after every real date
    return col.map(lambda v: "9999" if v == UNKNOWN_DATE else v) if col.name == "date" else col


def contamination_pivot(results: Iterable[FileResult]) -> pd.DataFrame:
    """Dates as rows, formats as columns, cells like ``2/3 contaminated``.

    HWP 5, HWPX and PDF get a column each; files of any other kind (HTML error pages,
    HWP 3, empty downloads...) are counted together under ``other``.
    """
    counts = pivot_counts(results)
    if counts.empty:
        return pd.DataFrame()
    counts["format"] = counts["format"].where(counts["format"].isin(DOCUMENT_FORMATS), OTHER)
    counts = counts.groupby(["date", "format"], as_index=False)[
        ["files", "contaminated", "clean", "unreadable", "lossy"]
    ].sum()
    counts["cell"] = [
        cell_text(f, c, u, n)
        for f, c, u, n in zip(
            counts["files"],
            counts["contaminated"],
            counts["unreadable"],
            counts["lossy"],
            strict=True,
        )
    ]
    table = counts.pivot(index="date", columns="format", values="cell").fillna(EMPTY_CELL)
    order = sorted(table.index, key=lambda d: (d == UNKNOWN_DATE, d))
    columns = sorted(table.columns, key=PIVOT_COLUMNS.index)
    table = table.loc[order, columns]
    table.columns.name = None
    return table


def contaminated_dates(results: Iterable[FileResult]) -> list[str]:
    """Dates with at least one contaminated file, sorted."""
    frame = results_frame(results)
    hit = frame[frame["contaminated"]]["date"].unique().tolist()
    return sorted(d for d in hit if d != UNKNOWN_DATE)
