"""The committed fixture corpus: what each file holds, and what a correct scan must say.

Each :class:`Fixture` carries its bytes and the counts computed from the input text (never
by reading the file back), so ``expected.jsonl`` is an oracle independent of the scanner.
HWP 5 text counts as UTF-16 code units (:func:`utf16_counts`), HWPX and PDF text as the
``str`` an extractor returns (:func:`str_counts`); ``pua`` merges pairs.

>>> utf16_counts(["가" + chr(0xF02B1), chr(0xDB80) + "나"]).as_dict()
{'surrogates': 3, 'pairs': 1, 'orphans': 1, 'utf8_ok': False, 'pua': {'U+F02B1': 1}}
>>> str_counts(["가" + chr(0xF02B1)]).as_dict()
{'surrogates': 0, 'pairs': 0, 'orphans': 0, 'utf8_ok': True, 'pua': {'U+F02B1': 1}}
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hwpscan.formats import hwp5_spec as spec
from hwpscan.rehearsal.synth.hwp5_writer import Placed

EXPECTED_NAME = "expected.jsonl"
#: How many of the first locations ``expected.jsonl`` gives.
LOCATION_SAMPLE = 5


def _is_pua(cp: int) -> bool:
    return 0xE000 <= cp <= 0xF8FF or 0xF0000 <= cp <= 0xFFFFD or 0x100000 <= cp <= 0x10FFFD


@dataclass(frozen=True, slots=True)
class Counts:
    """The forensic counts of one text channel (body, preview or DocInfo strings)."""

    surrogates: int = 0
    pairs: int = 0
    orphans: int = 0
    pua: dict[str, int] = field(default_factory=dict)

    @property
    def utf8_ok(self) -> bool:
        return self.surrogates == 0

    def as_dict(self) -> dict[str, Any]:
        counts = {"surrogates": self.surrogates, "pairs": self.pairs, "orphans": self.orphans}
        return {**counts, "utf8_ok": self.utf8_ok, "pua": dict(self.pua)}


def _points(units: Sequence[int]) -> Iterator[tuple[int, int, int]]:
    """(index, code point, surrogate units: 2 for a pair, 1 for a lone half, else 0)."""
    i = 0
    while i < len(units):
        unit, nxt = units[i], units[i + 1] if i + 1 < len(units) else -1
        if 0xD800 <= unit <= 0xDBFF and 0xDC00 <= nxt <= 0xDFFF:
            yield i, 0x10000 + ((unit - 0xD800) << 10) + (nxt - 0xDC00), 2
            i += 2
        else:
            yield i, unit, int(0xD800 <= unit <= 0xDFFF)
            i += 1


def _counts(sequences: Iterable[Sequence[int]]) -> Counts:
    pua: Counter[str] = Counter()
    surrogates = pairs = 0
    for points in sequences:
        for _, cp, halves in _points(points):
            surrogates += halves
            pairs += halves == 2
            if halves != 1 and _is_pua(cp):
                pua[f"U+{cp:04X}"] += 1
    return Counts(surrogates, pairs, surrogates - 2 * pairs, dict(sorted(pua.items())))


def utf16_counts(texts: Iterable[str]) -> Counts:
    """Counts for text stored as UTF-16 code units; a pair never spans two texts.

    >>> utf16_counts([chr(0xDEB1) + chr(0xDB80)]).orphans   # reversed halves: no pair
    2
    """
    return _counts([_code_units(text) for text in texts])


def _code_units(text: str) -> list[int]:
    raw = text.encode("utf-16-le", "surrogatepass")
    return list(struct.unpack(f"<{len(raw) // 2}H", raw))


def str_counts(texts: Iterable[str]) -> Counts:
    """Counts for text an extractor returned as a ``str`` (one code point per character).

    >>> str_counts(["a" + chr(0xDB80) + "b", chr(0xE000)]).as_dict()["orphans"]
    1
    """
    return _counts([[ord(c) for c in text] for text in texts])


def strict_chars(texts: Iterable[str]) -> int:
    """The scan's ``chars`` of *texts*: pairs merged, lone halves one each, line ends not
    counted.

    >>> strict_chars(["가" + chr(0xDB80) + chr(0xDEB1), chr(0xDEB1) + chr(0xDB80) + "\\t\\n"])
    5
    """
    total = 0
    for t in texts:
        strict = t.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        total += len(strict) - strict.count("\n") - strict.count("\r")
    return total


def _units(p: Placed) -> list[tuple[int, int]]:
    """(code-unit offset, unit) of a placed paragraph; a TAB (an 8-unit control) is -1."""
    out: list[tuple[int, int]] = []
    at = p.offset
    for ch in p.text:
        if ch == "\t":
            out.append((at, -1))
            at += spec.CONTROL_UNITS
            continue
        for unit in _code_units(ch):
            out.append((at, unit))
            at += 1
    return out


def unit_locations(placed: Iterable[Placed], limit: int = LOCATION_SAMPLE) -> list[list[Any]]:
    """The first *limit* ``[stream, paragraph, offset, codepoint]`` locations of an HWP 5
    body: pairs (at the high half) and lone halves in stream order, then BMP PUA.

    >>> from hwpscan.rehearsal.synth.hwp5_writer import hwp5_layout
    >>> placed = hwp5_layout(["a\\t" + chr(0xDB80) + chr(0xF02B1), chr(0xE000)])
    >>> [loc[1:] for loc in unit_locations(placed)]  # after 16 units of controls
    [[0, 25, 'U+DB80'], [0, 26, 'U+F02B1'], [1, 0, 'U+E000']]
    """
    defects: list[list[Any]] = []
    pua: list[list[Any]] = []
    for p in placed:
        units = _units(p)
        for i, cp, halves in _points([unit for _, unit in units]):
            where = [p.stream, p.paragraph, units[i][0], f"U+{cp:04X}"]
            if halves:
                defects.append(where)
            elif 0xE000 <= cp <= 0xF8FF:
                pua.append(where)
    return (defects + pua)[:limit]


@dataclass(frozen=True, slots=True)
class Fixture:
    """One corpus file and the scan result it must give (``body=None``: counts not asserted;
    ``chars`` and ``locations``: HWP 5 only)."""

    path: str
    data: bytes
    format: str
    status: str
    note: str
    body: Counts | None = field(default_factory=Counts)
    preview: Counts | None = None
    meta: Counts | None = None
    warnings: bool = False
    chars: int | None = None
    locations: list[list[Any]] | None = None
    partial: bool = False  # read in part: the counts are those of what was read


def expected_record(fixture: Fixture) -> dict[str, Any]:
    """The ``expected.jsonl`` line of *fixture* (keys as in the JSON Lines contract)."""
    record: dict[str, Any] = {
        "path": fixture.path,
        "format": fixture.format,
        "status": fixture.status,
    }
    if fixture.body is None:
        record.update(dict.fromkeys(("surrogates", "pairs", "orphans", "utf8_ok", "pua")))
    else:
        record.update(fixture.body.as_dict())
    unread = fixture.status not in ("clean", "contaminated") and not fixture.partial
    if unread and fixture.body == Counts():
        # nothing of the body can be read: the contract reports its counts as null
        record["body_read"] = False
    optional = {
        "chars": fixture.chars,
        "locations": fixture.locations,
        "preview": fixture.preview and fixture.preview.as_dict(),
        "meta": fixture.meta and fixture.meta.as_dict(),
        "warnings": fixture.warnings or None,
    }
    record.update((key, value) for key, value in optional.items() if value is not None)
    record["bytes"] = len(fixture.data)
    record["note"] = fixture.note
    return record
