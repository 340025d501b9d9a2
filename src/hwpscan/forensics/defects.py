"""Every way HWP text goes wrong, counted per class (:class:`~hwpscan.models.Defects`):
the surrogate counts tell split pairs and lone halves; folded symbols (HWP 5), PDF folds
and private use (old Hangul, or unmapped) hide in text that encodes as UTF-8.

>>> from hwpscan.models import Format, Segment
>>> from hwpscan.forensics.surrogates import analyze
>>> segs = [Segment("BodyText/Section0", 0, 0, "과제" + chr(0xA2B1) + " 점검")]
>>> found = count_defects(Format.HWP5, segs, analyze(segs))
>>> found.defects.folded_symbols, [loc.kind for loc in found.locations]
(1, ['folded'])
>>> found.locations[0].codepoint, found.locations[0].units
('U+F02B1', 'A2B1')
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from operator import itemgetter
from typing import NamedTuple

from hwpscan.forensics.pua import (
    HANYANG_FIRST,
    HANYANG_LAST,
    display_of,
    folded_units,
    hanyang_jamo,
    pdf_folds,
)
from hwpscan.forensics.surrogates import MAX_LOCATIONS, codepoint, escape_snippet
from hwpscan.models import NO_DEFECTS, Defects, Format, Location, Segment, TextStats

#: Where a folded unit can be at all (the rule's bound; see ``pua_data.json``): one
#: C-level search tells a text without any.
_FOLD_BLOCK_RE = re.compile("[\ua000-\ua8ff]")
_CONTEXT = 12
_TEXT = itemgetter(3)  # a Segment's text


class Found(NamedTuple):
    """The defect counts of a body, and the locations of its folded symbols."""

    defects: Defects
    locations: tuple[Location, ...]


@functools.cache
def _folded_re() -> re.Pattern[str]:
    return re.compile("[" + "".join(map(chr, sorted(folded_units()))) + "]")


@functools.cache
def _unfold_table() -> dict[int, str]:
    """Folded unit -> its plane-15 symbol, for ``str.translate``."""
    return {unit: chr(symbol) for unit, symbol in folded_units().items()}


def folded_in(text: str) -> Counter[str]:
    """Each folded unit in *text* (the codeunit view of HWP 5 body text), counted.

    >>> dict(folded_in("a" + chr(0xA2B1) * 2 + chr(0xA2B0) + "가"))
    {'ꊱ': 2}
    """
    if _FOLD_BLOCK_RE.search(text) is None:
        return Counter()
    return Counter(_folded_re().findall(text))


def unfold(text: str) -> tuple[str, int]:
    """*text* with every folded unit turned back into the plane-15 symbol it stands
    for, and how many were: lossless, the keep of ``repair --pua keep``.

    >>> text, n = unfold("a" + chr(0xA2B1))
    >>> text == "a" + chr(0xF02B1), n
    (True, 1)
    """
    found = folded_in(text)
    if not found:
        return text, 0
    return text.translate(_unfold_table()), sum(found.values())


def count_defects(fmt: Format, segments: Sequence[Segment], body: TextStats) -> Found:
    """The defect classes of a body read as *segments* (its codeunit view) and counted
    as *body*; folded symbols only in HWP 5, PDF folds only in PDF.

    >>> from hwpscan.forensics.surrogates import analyze
    >>> segs = [Segment("p", 0, 0, chr(0xF000) + chr(0xFFFF) + chr(0xE0BC) + chr(0xF0FFF))]
    >>> found = count_defects(Format.PDF, segs, analyze(segs)).defects
    >>> found.pdf_folded, found.old_hangul_pua, found.unmapped_pua, found.present()
    (2, 1, 1, ('pdf_folded', 'old_hangul_pua', 'unmapped_pua'))
    """
    folded: Counter[str] = Counter()
    pdf_folded = 0
    if segments and fmt in (Format.HWP5, Format.PDF):
        # one join and one search in C tell the usual body, which holds neither
        whole = "".join(map(_TEXT, segments))
        if fmt is Format.HWP5:
            folded = folded_in(whole)
        else:
            pdf_folded = sum(whole.count(ch) for ch in pdf_folds())
    old_hangul, unmapped = _private_use(body.pua, pdf=fmt is Format.PDF)
    unmapped += _unmapped_folds(folded)
    locations: tuple[Location, ...] = ()
    if folded:
        locations = _folded_locations(segments, MAX_LOCATIONS - len(body.locations))
    if not (body.pairs or body.orphans or folded or pdf_folded or old_hangul or unmapped):
        return Found(NO_DEFECTS, locations)
    defects = Defects(
        split_pairs=body.pairs,
        lone_halves=body.orphans,
        folded_symbols=sum(folded.values()),
        pdf_folded=pdf_folded,
        old_hangul_pua=old_hangul,
        unmapped_pua=unmapped,
    )
    return Found(defects, locations)


def _private_use(pua: dict[str, int], *, pdf: bool) -> tuple[int, int]:
    """(old Hangul, unmapped) among a body's private-use counts by ``U+XXXX`` label; in
    a PDF its folds are neither (they are counted as PDF folds)."""
    kinds: Counter[str | None] = Counter()
    for label, n in pua.items():
        kinds[_pua_kind(label, pdf)] += n
    return kinds["old_hangul"], kinds["unmapped"]


@functools.lru_cache(maxsize=4096)  # the labels a corpus holds repeat from file to file
def _pua_kind(label: str, pdf: bool) -> str | None:
    """What :func:`_private_use` counts a private-use ``U+XXXX`` label as: unmapped (no
    display equivalent), old Hangul (Hanyang with standard jamo), or neither (a PDF's
    folds, which are counted as PDF folds, and mapped characters).

    >>> [_pua_kind(f"U+{c:04X}", False) for c in (0xF0FFF, 0xE0BC, 0xF02B1)]
    ['unmapped', 'old_hangul', None]
    """
    ch = chr(int(label[2:], 16))
    if pdf and ch in pdf_folds():
        return None
    if display_of(ch) is None:
        return "unmapped"
    if HANYANG_FIRST <= ord(ch) <= HANYANG_LAST and hanyang_jamo(ch) is not None:
        return "old_hangul"
    return None


def _unmapped_folds(folded: Counter[str]) -> int:
    """The folded units whose plane-15 symbol has no display equivalent."""
    if not folded:
        return 0
    symbols = folded_units()
    return sum(n for u, n in folded.items() if display_of(chr(symbols[ord(u)])) is None)


def _folded_locations(segments: Sequence[Segment], limit: int) -> tuple[Location, ...]:
    """The first folded units, located as the symbol they stand for (*limit* at most)."""
    if limit <= 0:
        return ()
    symbols = folded_units()
    pattern = _folded_re()
    out: list[Location] = []
    for seg in segments:
        if _FOLD_BLOCK_RE.search(seg.text) is None:
            continue
        for match in pattern.finditer(seg.text):
            i = match.start()
            unit = ord(match.group())
            context = escape_snippet(seg.text[max(0, i - _CONTEXT) : i + 1 + _CONTEXT])
            symbol = codepoint(chr(symbols[unit]))
            where = (seg.stream, seg.paragraph, seg.offset + i)
            out.append(Location(*where, symbol, "folded", f"{unit:04X}", context))
            if len(out) >= limit:
                return tuple(out)
    return tuple(out)
