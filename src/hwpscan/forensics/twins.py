"""What a PDF lost against the HWP it was made from.

A release often carries one document twice: as HWP (5 or X) and as the PDF Hancom
Office exported from it. The PDF's text layer folds Hancom's symbols into U+F000 and
U+FFFF (see :mod:`hwpscan.forensics.defects`), so a pipeline fed the PDF gets no
symbol at all where the HWP has one it can name. Twins are told by their place: the
same folder and the same name but for the extension.

>>> from hwpscan.models import Defects, FileResult, Format, Status, TextStats
>>> hwp = FileResult("d/a.hwp", "", 1, Format.HWP5, Status.CLEAN,
...                  body=TextStats(pua={"U+F02B1": 3}), defects=Defects(folded_symbols=1))
>>> pdf = FileResult("d/a.pdf", "", 1, Format.PDF, Status.CLEAN,
...                  body=TextStats(pua={"U+F000": 2}), defects=Defects(pdf_folded=3))
>>> [loss.line() for loss in pdf_losses([hwp, pdf])]
['d/a.pdf lost 4 symbols of d/a.hwp (U+F02B1×3, 1 folded), 3 written as U+F000/U+FFFF']
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import NamedTuple

from hwpscan.models import NO_DEFECTS, FileResult, Format

_SOURCES = (Format.HWP5, Format.HWPX)


class PdfLoss(NamedTuple):
    """One PDF against its HWP twin: the symbols the HWP holds that the PDF does not."""

    pdf: str
    source: str
    lost: dict[str, int]  # private-use symbols of the source missing from the PDF
    folded: int  # the source's HWP 5 folded symbols (a PDF never carries them as such)
    pdf_folded: int  # what the PDF wrote in their place (U+F000, U+FFFF)

    @property
    def total(self) -> int:
        return sum(self.lost.values()) + self.folded

    def line(self) -> str:
        """One sentence for a terminal or a report."""
        parts = [f"{cp}×{n}" for cp, n in sorted(self.lost.items(), key=lambda kv: -kv[1])[:4]]
        if len(self.lost) > 4:
            parts.append(f"+{len(self.lost) - 4} more")
        if self.folded:
            parts.append(f"{self.folded} folded")
        text = f"{self.pdf} lost {self.total} symbols of {self.source} ({', '.join(parts)})"
        if self.pdf_folded:
            text += f", {self.pdf_folded} written as U+F000/U+FFFF"
        return text


def _key(path: str) -> tuple[str, str]:
    folder, name = posixpath.split(path.replace("\\", "/"))
    stem, _dot, _ext = name.rpartition(".")
    return folder, (stem or name).casefold()


def pdf_losses(results: Iterable[FileResult]) -> list[PdfLoss]:
    """Each PDF whose HWP twin holds symbols the PDF lost, in path order.

    Only files whose body was read are compared; a PDF that kept every symbol (or
    whose twin has none) is not listed.
    """
    sources: dict[tuple[str, str], FileResult] = {}
    pdfs: list[FileResult] = []
    for r in results:
        if not r.body_read:
            continue
        if r.format in _SOURCES:
            sources.setdefault(_key(r.path), r)
        elif r.format is Format.PDF:
            pdfs.append(r)
    out: list[PdfLoss] = []
    for pdf in sorted(pdfs, key=lambda r: r.path):
        source = sources.get(_key(pdf.path))
        if source is None:
            continue
        lost = {
            cp: n - pdf.body.pua.get(cp, 0)
            for cp, n in source.body.pua.items()
            if n > pdf.body.pua.get(cp, 0)
        }
        folded = (source.defect_counts() or NO_DEFECTS).folded_symbols
        pdf_folded = (pdf.defect_counts() or NO_DEFECTS).pdf_folded
        loss = PdfLoss(pdf.path, source.path, lost, folded, pdf_folded)
        if loss.total:
            out.append(loss)
    return out
