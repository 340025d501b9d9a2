"""``summary.md``: the figures, the date x format table and the bad files, for tickets and PRs.

>>> md_cell("a|b\\nc")
'a\\\\|b c'
>>> md_cell("<img src=x>&")
'&lt;img src=x&gt;&amp;'
>>> print(md_cell("a" + chr(27) + "[2Jb"))
a\\\\x1b[2Jb
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hwpscan.forensics.pua import pua_summary
from hwpscan.forensics.twins import pdf_losses
from hwpscan.history.stored_rows import defect_files
from hwpscan.matrix.matrix_rows import MatrixRow
from hwpscan.models import FileResult, Status
from hwpscan.report.cells import UNKNOWN_DATE, contamination_cells, md_cell
from hwpscan.report.matrix_report import ranking_markdown

TITLE = "hwpscan 보고서"
#: Rows of the contaminated and unreadable lists shown before "and N more".
LIST_LIMIT = 200


@dataclass(frozen=True, slots=True)
class Figures:
    """The headline numbers of a set of results."""

    files: int
    contaminated: int
    clean: int
    unreadable: int
    surrogates: int
    pairs: int
    orphans: int
    pua: int
    bytes: int
    dates: int
    contaminated_dates: tuple[str, ...]
    #: Files per defect class (classes no file has left out), and the clean files whose
    #: characters are shown as others (folded symbols, PDF folds).
    defects: tuple[tuple[str, int], ...] = ()
    lossy: int = 0


def figures(results: Sequence[FileResult]) -> Figures:
    """Count what the reports headline.

    >>> from hwpscan.models import Format, TextStats
    >>> f = figures([FileResult("a", "", 10, Format.HWP5, Status.CONTAMINATED, date="2025-07-21",
    ...                         body=TextStats(surrogates=2, pairs=1, pua={"U+F02B1": 1}))])
    >>> f.contaminated, f.surrogates, f.pua, f.contaminated_dates
    (1, 2, 1, ('2025-07-21',))
    """
    contaminated = sum(r.status is Status.CONTAMINATED for r in results)
    clean = sum(r.status is Status.CLEAN for r in results)
    return Figures(
        files=len(results),
        contaminated=contaminated,
        clean=clean,
        unreadable=len(results) - contaminated - clean,
        surrogates=sum(r.body.surrogates for r in results),
        pairs=sum(r.body.pairs for r in results),
        orphans=sum(r.body.orphans for r in results),
        pua=sum(sum(r.body.pua.values()) for r in results),
        bytes=sum(r.bytes for r in results),
        dates=len({r.date for r in results if r.date}),
        contaminated_dates=tuple(
            sorted({d for r in results if r.contaminated and (d := r.date) and d != UNKNOWN_DATE})
        ),
        defects=tuple(defect_files(results).items()),
        lossy=sum(r.status is Status.CLEAN and r.lossy for r in results),
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return out


def summary_markdown(
    results: Sequence[FileResult],
    *,
    run_id: str | None = None,
    matrix: Sequence[MatrixRow] = (),
    strict_markup: bool = False,
    lead: Sequence[str] = (),
) -> str:
    """The whole ``summary.md`` (with the extractor ranking when *matrix* has rows);
    *lead* lines (a verify run's verdicts, a partial run's note) come first."""
    f = figures(results)
    lines = [f"# {TITLE}", ""]
    if run_id:
        lines += [f"Run `{run_id}`", ""]
    lines += lead
    verdict = (
        f"**{f.contaminated} of {f.files} files contaminated**"
        if f.contaminated
        else f"**No contaminated file** among {f.files}"
    )
    lines += [
        f"{verdict}: {f.clean} clean, {f.unreadable} unreadable; "
        f"{f.surrogates:,} surrogate code points ({f.pairs:,} pairs, {f.orphans:,} orphans), "
        f"{f.pua:,} private-use characters, {f.bytes:,} bytes over {f.dates} dates.",
        "",
    ]
    if f.contaminated_dates:
        lines += ["Dates with contaminated attachments: " + ", ".join(f.contaminated_dates), ""]
    lines += _defect_lines(results, f)
    columns, cells = contamination_cells(results)
    if cells:
        lines += ["## Contamination by date and format", ""]
        lines += _table(["date", *columns], [[day, *row] for day, row in cells])
        lines.append("")
    if matrix:
        lines += ranking_markdown(matrix, strict_markup=strict_markup)
    bad = [r for r in results if r.status is Status.CONTAMINATED]
    if bad:
        lines += ["## Contaminated files", ""]
        lines += _table(
            ["file", "date", "format", "surrogates", "pairs", "orphans", "PUA", "first defect"],
            [
                [
                    r.path,
                    r.date or "—",
                    r.format.value,
                    str(r.body.surrogates),
                    str(r.body.pairs),
                    str(r.body.orphans),
                    pua_summary(r.body.pua),
                    _first_defect(r),
                ]
                for r in bad[:LIST_LIMIT]
            ],
        )
        lines += _more(len(bad))
    broken = [r for r in results if not r.status.scanned]
    if broken:
        lines += ["## Unreadable files", ""]
        lines += _table(
            ["file", "date", "format", "status", "reason"],
            [
                [r.path, r.date or "—", r.format.value, r.status.value, r.reason or ""]
                for r in broken[:LIST_LIMIT]
            ],
        )
        lines += _more(len(broken))
    return "\n".join(lines).rstrip() + "\n"


def _defect_lines(results: Sequence[FileResult], f: Figures) -> list[str]:
    """Files per defect class, and what each PDF lost against its HWP twin."""
    lines: list[str] = []
    if f.defects:
        classes = ", ".join(f"`{k}` {n:,}" for k, n in f.defects)
        lossy = f" ({f.lossy:,} of them clean as UTF-8 but lossy)" if f.lossy else ""
        lines += [f"Files by defect class{lossy}: {classes}", ""]
    losses = pdf_losses(results)
    if losses:
        lines += ["## What the PDFs lost", ""]
        lines += [f"- {md_cell(loss.line())}" for loss in losses[:LIST_LIMIT]]
        lines += _more(len(losses))
    return lines


def _first_defect(r: FileResult) -> str:
    if not r.body.locations:
        return ""
    loc = r.body.locations[0]
    return f"{loc.stream} ¶{loc.paragraph} @{loc.offset} {loc.codepoint} ({loc.kind})"


def _more(n: int) -> list[str]:
    return ["", f"… and {n - LIST_LIMIT} more (see files.csv)", ""] if n > LIST_LIMIT else [""]
