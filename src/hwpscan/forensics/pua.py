"""What Hancom's private-use characters (bullets, boxed numbers, brackets: mostly plane
15) are, and their standard replacements, from ``pua_data.json`` beside this module (a
name, what it renders as, a replacement where one is established, the sources). Nothing
is guessed from ranges: an unknown character stays.

>>> pua_name(0xF02B1)
'HANCOM SQUARED DIGIT ONE'
>>> pua_info(0xF0850).replacement is None
True
>>> text, counts = apply_pua_map(chr(0xF0854) + "법" + chr(0xF0855) + chr(0xF0FFF))
>>> text == "『법』" + chr(0xF0FFF), dict(counts)
(True, {'U+F0854': 1, 'U+F0855': 1, 'U+F0FFF': 1})
"""

from __future__ import annotations

import functools
import json
import pkgutil
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple

from hwpscan.forensics.surrogates import PUA_RE, codepoint

_DATA = "pua_data.json"


@dataclass(frozen=True, slots=True)
class PuaInfo:
    """One known private-use code point."""

    codepoint: int
    name: str
    renders_as: str | None  # what Hancom draws, as text or a description
    replacement: str | None  # the standard character(s) to use, None when not established
    sources: tuple[str, ...]  # keys into the table's ``sources`` (citations)
    note: str | None = None

    @property
    def label(self) -> str:
        """``U+XXXXX`` notation.

        >>> pua_info(0xF02B1).label
        'U+F02B1'
        """
        return codepoint(chr(self.codepoint))


@functools.cache
def _raw() -> dict[str, Any]:
    # read by the package's loader, as importlib.resources would, without the zipfile
    # and resource readers that module loads: a worker's first file pays for those
    data = pkgutil.get_data("hwpscan.forensics", _DATA)
    assert data is not None  # a regular package: its loader reads files
    raw: dict[str, Any] = json.loads(data.decode("utf-8"))
    return raw


def _cp(label: str) -> int:
    return int(label.removeprefix("U+"), 16)


@functools.cache
def _load() -> tuple[dict[int, PuaInfo], dict[str, str]]:
    raw = _raw()
    table: dict[int, PuaInfo] = {}
    for entry in raw["entries"]:
        cp = _cp(entry["codepoint"])
        optional = {k: entry.get(k) for k in ("renders_as", "replacement", "note")}
        table[cp] = PuaInfo(cp, entry["name"], sources=tuple(entry["sources"]), **optional)
    return table, dict(raw["sources"])


def pua_info(cp: int) -> PuaInfo | None:
    """The table entry for code point ``cp``, or None when it is not known.

    >>> pua_info(0xF0854).replacement
    '『'
    >>> pua_info(0x41) is None
    True
    """
    return _load()[0].get(cp)


def pua_name(cp: int) -> str | None:
    """The name of a known private-use code point (for scan tables), else None.

    >>> pua_name(0xF0855)
    'HANCOM RIGHT DOUBLE CORNER BRACKET'
    >>> pua_name(0xE000) is None
    True
    """
    info = pua_info(cp)
    return None if info is None else info.name


class PuaMapped(NamedTuple):
    """What :func:`apply_pua_map` made of a text."""

    text: str
    counts: Counter[str]  # by ``U+XXXX`` label, every private-use character met


def apply_pua_map(text: str) -> PuaMapped:
    """Replace known PUA characters by their standard equivalents; the text (the same
    object when it has none) and a count of every private-use character met.

    >>> apply_pua_map("plain")
    PuaMapped(text='plain', counts=Counter())
    >>> text, counts = apply_pua_map(chr(0xF02B2) + " 과제")
    >>> text, counts["U+F02B2"]
    ('② 과제', 1)
    """
    counts: Counter[str] = Counter()
    if PUA_RE.search(text) is None:
        return PuaMapped(text, counts)
    table = _load()[0]

    def swap(match: re.Match[str]) -> str:
        ch = match.group()
        counts[codepoint(ch)] += 1
        info = table.get(ord(ch))
        return ch if info is None or info.replacement is None else info.replacement

    return PuaMapped(PUA_RE.sub(swap, text), counts)


def pua_summary(pua: dict[str, int], *, limit: int = 3) -> str:
    """``U+F02B1×3 U+F0854×1`` (most frequent first), ``+N`` when cut.

    >>> pua_summary({"U+F0854": 1, "U+F02B1": 3})
    'U+F02B1×3 U+F0854×1'
    >>> pua_summary({})
    ''
    """
    items = sorted(pua.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = " ".join(f"{cp}×{n}" for cp, n in items[:limit])
    return f"{shown} +{len(items) - limit}" if len(items) > limit else shown


#: The Hanyang private-use range of old Hangul (KTUG's table; see :func:`hanyang_jamo`).
HANYANG_FIRST = 0xE0BC
HANYANG_LAST = 0xF8F7


@functools.cache
def folded_units() -> dict[int, int]:
    """HWP 5 code units that stand for a plane-15 symbol: unit -> symbol.

    The measured set of ``pua_data.json`` (``0xA000|X`` for ``U+F0000|X``), not a
    range: a unit outside it is text as it stands.

    >>> hex(folded_units()[0xA2B1]), hex(folded_units()[0xA12B]), len(folded_units())
    ('0xf02b1', '0xf012b', 53)
    >>> 0xA813 in folded_units(), 0xAC00 in folded_units()
    (False, False)
    """
    return {_cp(e["unit"]): _cp(e["symbol"]) for e in _raw()["folded"]["measured"]}


@functools.cache
def pdf_folds() -> frozenset[str]:
    """The characters Hancom's PDF export writes for a symbol it could not map.

    >>> sorted(map(ord, pdf_folds()))
    [61440, 65535]
    """
    return frozenset(chr(_cp(label)) for label in _raw()["pdf_folds"]["codepoints"])


@functools.lru_cache(maxsize=4096)
def hanyang_jamo(ch: str) -> str | None:
    """The KS X 1026-1 jamo sequence of a Hanyang private-use character (old Hangul),
    from KTUG's public-domain table as ``hypua2jamo`` packages it; None for any other
    character, or where that package is not installed.

    >>> hanyang_jamo(chr(0xE0BC)) == "\u115f\u1161\u11ae"
    True
    >>> hanyang_jamo(chr(0xF000)) is None, hanyang_jamo("가") is None
    (True, True)
    """
    if len(ch) != 1 or not HANYANG_FIRST <= ord(ch) <= HANYANG_LAST:
        return None
    try:
        from hypua2jamo import translate  # the table: loaded on the first old Hangul met
    except ImportError:  # pragma: no cover - a dependency; kept optional for embedders
        return None
    jamo = translate(ch)
    return None if jamo == ch else str(jamo)


def display_of(ch: str) -> str | None:
    """What ``repair --pua map`` writes for one private-use character: the table's
    standard equivalent, else the jamo of old Hangul, else None (unmapped).

    >>> display_of(chr(0xF02B1)), display_of(chr(0xF0850)) is None
    ('①', True)
    """
    info = _load()[0].get(ord(ch)) if len(ch) == 1 else None
    if info is not None and info.replacement is not None:
        return info.replacement
    return hanyang_jamo(ch)
