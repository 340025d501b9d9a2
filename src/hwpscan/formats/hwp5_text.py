"""HWP 5 records and PARA_TEXT decoding: pure functions on bytes, tuned for speed.

A section stream is a chain of records (spec §4.1). :func:`walk_paragraphs` finds the
PARA_HEADER and PARA_TEXT records; :func:`section_segments` joins all PARA_TEXT payloads
and decodes them once, in the *codeunit view* (one code point per UTF-16 code unit, so
a pair split across two records stays two halves either way). A segment's
``paragraph`` counts every PARA_HEADER record at any level in stream order: empty
paragraphs and those without PARA_TEXT keep their numbers, and the paragraphs of a
table cell, note, text box or header follow the paragraph holding the control.

>>> payload = "가".encode("utf-16-le") + bytes.fromhex("80dbb1de") + b"\\r\\x00"
>>> empty = bytes.fromhex("42000000")  # a PARA_HEADER (no payload here) without text
>>> data = empty + empty + bytes.fromhex("42000000 43048000") + payload
>>> out, warnings = [], []
>>> section_segments(data, "BodyText/Section0", out, warnings)
3
>>> out[0].text == "가" + chr(0xDB80) + chr(0xDEB1), out[0].paragraph, out[0].offset, warnings
(True, 2, 0, [])
"""

from __future__ import annotations

import codecs
import re
import struct
import warnings
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from hwpscan.errors import CorruptFileError
from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import Segment

__all__ = [
    "MAX_PARAGRAPHS",
    "MAX_RECORDS",
    "MAX_SEGMENTS",
    "MAX_TEXT_UNITS",
    "MAX_WARNINGS",
    "Budget",
    "SectionText",
    "WarningList",
    "codeunit_view",
    "inflate",
    "section_segments",
    "section_text",
    "text_runs",
    "text_segments",
    "utf16_decode",
    "walk_paragraphs",
]

_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
_CONTROL_RE = re.compile("[\x00-\x1f]")
_U32 = struct.Struct("<I")
#: The UTF-16LE decoder itself, as ``bytes.decode("utf-16-le", errors)`` calls it (with
#: ``final``) after a codec lookup and a Python wrapper in :mod:`encodings`.
utf16_decode = codecs.utf_16_le_decode
_KEPT = frozenset(spec.CHAR_REPLACEMENTS)
_TRANSLATE = dict(spec.CHAR_REPLACEMENTS)
_WIDE = spec.INLINE_CONTROLS | spec.EXTENDED_CONTROLS
#: ``_new(Segment, (stream, paragraph, offset, text))`` is ``Segment(...)`` without the
#: named tuple's Python-level ``__new__`` (a segment per paragraph adds up).
_new = tuple.__new__
_PARA_HEADER = spec.PARA_HEADER
_PARA_TEXT = spec.PARA_TEXT


#: Code units with astral characters in them are widened this many at a time (see
#: :func:`codeunit_view`).
_VIEW_CHUNK = 1 << 20


def _wide_chars() -> array[str] | None:
    """An empty array of 4-byte characters (copied by :func:`_widened`), or None: "w"
    (Python 3.13 and later), else "u" where ``wchar_t`` has 4 bytes ("u" is deprecated
    from 3.13 and to be removed)."""
    for code in ("w", "u"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                chars = array(code)  # type: ignore[call-overload,unused-ignore]
        except ValueError:  # no such type code in this Python
            continue
        if chars.itemsize == 4:
            return chars  # type: ignore[return-value,unused-ignore]
    return None


_WCHARS = _wide_chars()

#: Per-document budgets on the objects a section walk makes, not only on bytes: a small
#: deflated stream can hold millions of tiny records. A long real document (a 1,000-page
#: report) is of the order of 10^4-10^5 paragraphs and records and a few million code
#: units of text; each default is well above that. A document over any of them is
#: ``unsupported`` with the budget named in its reason, the text before it counted.
MAX_RECORDS = 4_000_000
MAX_PARAGRAPHS = 400_000
MAX_SEGMENTS = 1_000_000
MAX_TEXT_UNITS = 16 * 2**20
#: Warnings kept per file; the rest are counted in one last "and N more" line.
MAX_WARNINGS = 50


class WarningList(list[str]):
    """A list of warnings that keeps the first *cap* and counts the rest.

    ``total`` counts every warning given, kept or not; :meth:`final` is the kept ones
    and, when some were dropped, one line saying how many.

    >>> w = WarningList(cap=2)
    >>> w.extend(["a", "b", "c", "d"]); w.append("e")
    >>> w.final(), w.total
    (('a', 'b', 'and 3 more warnings'), 5)
    """

    def __init__(self, *, cap: int = MAX_WARNINGS) -> None:
        super().__init__()
        self.cap = cap
        self.total = 0

    def append(self, item: str) -> None:
        self.total += 1
        if len(self) < self.cap:
            super().append(item)

    def extend(self, items: Iterable[str]) -> None:
        for item in items:
            self.append(item)

    def final(self) -> tuple[str, ...]:
        dropped = self.total - len(self)
        more = (f"and {dropped} more warning{'s' if dropped != 1 else ''}",) if dropped else ()
        return (*self, *more)


@dataclass
class Budget:
    """What one document's section walk may still make; ``exceeded`` says what ran out.

    Shared by the sections of a document: each section takes from what the ones before
    it left.
    """

    records: int = MAX_RECORDS
    paragraphs: int = MAX_PARAGRAPHS
    segments: int = MAX_SEGMENTS
    units: int = MAX_TEXT_UNITS
    exceeded: str | None = None

    def __post_init__(self) -> None:
        self._caps = {
            "records": self.records,
            "paragraphs": self.paragraphs,
            "text segments": self.segments,
            "code units of text": self.units,
        }

    def spend(self, what: str, stream: str) -> None:
        """Note that *what* ran out in *stream* (the first to run out is the reason)."""
        cap = self._caps[what]
        if self.exceeded is None:
            self.exceeded = (
                f"{stream}: more than {cap:,} {what} in the document, over the per-file budget "
                "(a hostile file?); the rest is not read"
            )


def codeunit_view(raw: bytes) -> str:
    """UTF-16LE bytes as one code point per code unit (pairs stay two halves).

    Decoding merges valid pairs; only when the text holds astral characters are the
    units widened to 32 bits instead, which never pairs halves, :data:`_VIEW_CHUNK`
    units at a time (slice assignments into a ``wchar_t`` array, all in C).

    >>> bullet = b"\\x80\\xdb\\xb1\\xde"  # U+F02B1 as the pair DB80 DEB1
    >>> codeunit_view("가".encode("utf-16-le") + bullet) == "가" + chr(0xDB80) + chr(0xDEB1)
    True
    >>> codeunit_view(b"\\x00\\xdc") == chr(0xDC00)
    True
    """
    text = utf16_decode(raw, "surrogatepass", True)[0]
    if _ASTRAL_RE.search(text) is None:
        return text
    del text
    step = 2 * _VIEW_CHUNK
    return "".join(_widened(raw[i : i + step]) for i in range(0, len(raw) & ~1, step))


def _widened(chunk: bytes) -> str:
    wide = bytearray(2 * len(chunk))
    wide[0::4] = chunk[0::2]
    wide[1::4] = chunk[1::2]
    if _WCHARS is not None:  # a 4-byte character array takes surrogates as they are
        units = _WCHARS[:]  # a copy: no deprecation warning to silence per call
        units.frombytes(wide)
        return units.tounicode()
    return wide.decode("utf-32-le", "surrogatepass")  # slower: an error handler per half


def inflate(raw: bytes, name: str, cap: int) -> tuple[bytes, str | None]:
    """Raw deflate with an output cap; returns the data and a warning if it ended early.

    Raises :class:`CorruptFileError` for bad deflate data or output over *cap*.

    >>> c = zlib.compressobj(6, zlib.DEFLATED, -15)
    >>> inflate(c.compress(b"abc" * 10) + c.flush(), "s", 100)
    (b'abcabcabcabcabcabcabcabcabcabc', None)
    >>> inflate(b"\\xff\\xff", "s", 100)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hwpscan.errors.CorruptFileError: s: not valid deflate data (Error -3 ...: invalid block type)
    """
    d = zlib.decompressobj(-15)
    try:
        out = d.decompress(raw, cap + 1)
        if not d.unconsumed_tail and len(out) <= cap:
            out += d.flush()
    except zlib.error as exc:
        raise CorruptFileError(f"{name}: not valid deflate data ({exc})") from exc
    if len(out) > cap or d.unconsumed_tail:
        raise CorruptFileError(f"{name}: inflates past the {cap}-byte cap")
    if not d.eof:
        return out, f"{name}: deflate data ends early after {len(raw)} bytes; read what was there"
    return out, None


def walk_paragraphs(
    data: bytes, stream: str, warnings: list[str], budget: Budget | None = None
) -> tuple[list[tuple[int, int, int]], int]:
    """(start, end, paragraph) of the payload of every PARA_TEXT record of a section
    stream, and the stream's paragraph count.

    Paragraphs are numbered by their PARA_HEADER records (any level) in stream order,
    from 0. A PARA_TEXT record with no PARA_HEADER of its own (a damaged stream) is
    counted as a paragraph of its own, so no two records share a number. Damage goes to
    *warnings*: such records, and a record header cut short or a size running past the
    end of *data* (the walk stops there).

    >>> header, text = bytes.fromhex("42000000"), bytes.fromhex("43042000") + b"ab"
    >>> warnings = []
    >>> walk_paragraphs(header + header + text + header + bytes.fromhex("4300f000"), "s", warnings)
    ([(12, 14, 1)], 3)
    >>> warnings
    ['s: record at byte 18 (tag 67) claims 15 bytes, only 0 left; rest of the stream skipped']
    >>> walk_paragraphs(text + header + text + text, "s", warnings)
    ([(4, 6, 0), (14, 16, 1), (20, 22, 2)], 3)
    >>> warnings[-1]
    's: 2 PARA_TEXT record(s) without a PARA_HEADER (first: paragraph 0), each counted'
    """
    records, paragraphs = (budget.records, budget.paragraphs) if budget else (-1, -1)
    hits, count, lone, pos, walked = _scan(data, len(data), records, paragraphs)
    if pos > len(data):  # damaged: number what comes before the first bad record
        stop, note = _damage(data, stream)
        warnings.append(note)
        hits, count, lone, pos, walked = _scan(data, stop, records, paragraphs)
    if budget is not None:
        budget.records -= walked
        budget.paragraphs -= count
        if pos < 0:
            if budget.records <= 0:
                budget.spend("records", stream)
            else:
                budget.spend("paragraphs", stream)
    if lone:
        warnings.append(
            f"{stream}: {len(lone)} PARA_TEXT record(s) without a PARA_HEADER "
            f"(first: paragraph {lone[0]}), each counted"
        )
    return hits, count


def _scan(
    data: bytes, end: int, max_records: int = -1, max_paragraphs: int = -1
) -> tuple[list[tuple[int, int, int]], int, list[int], int, int]:
    """The loop of :func:`walk_paragraphs` over ``data[:end]``: hits, paragraph count,
    paragraphs numbered for a PARA_TEXT without header, where it stopped (``end`` when
    every record fitted, past it on damage, ``-1`` when a budget ran out; bounds are
    checked once, after the loop) and how many records it walked. It stops before the
    record that would pass ``max_records`` records or start paragraph number
    ``max_paragraphs`` (``-1``: no limit)."""
    hits: list[tuple[int, int, int]] = []
    add = hits.append
    unpack = _U32.unpack_from
    lone: list[int] = []
    para = -1
    stop_at = max_paragraphs - 1 if max_paragraphs >= 0 else -2  # never reached when -2
    has_text = True  # the current paragraph has its PARA_TEXT already (or there is none)
    pos = 0
    left = max_records
    try:
        while pos < end:
            if left == 0:
                pos = -1
                break
            left -= 1
            (head,) = unpack(data, pos)
            size = head >> 20
            if size == 0xFFF:
                (size,) = unpack(data, pos + 4)
                pos += 4
            tag = head & 0x3FF
            if tag == _PARA_HEADER:
                if para == stop_at:
                    pos = -1
                    break
                para += 1
                has_text = False
            elif tag == _PARA_TEXT:
                if has_text:
                    if para == stop_at:
                        pos = -1
                        break
                    para += 1
                    lone.append(para)
                add((pos + 4, pos + 4 + size, para))
                has_text = True
            pos += 4 + size
    except struct.error:
        pos = end + 1
    walked = max_records - left if max_records >= 0 else 0
    return hits, para + 1, lone, pos, walked


def _damage(data: bytes, stream: str) -> tuple[int, str]:
    """Where the first broken record of a damaged stream starts, and what is wrong."""
    pos = 0
    end = len(data)
    while True:
        at = pos
        if pos + 4 > end:
            return at, f"{stream}: record header cut short at byte {at}"
        (head,) = _U32.unpack_from(data, pos)
        size = head >> spec.SIZE_SHIFT
        pos += 4
        if size == spec.EXTENDED_SIZE:
            if pos + 4 > end:
                return at, f"{stream}: record header cut short at byte {at}"
            (size,) = _U32.unpack_from(data, pos)
            pos += 4
        if pos + size > end:
            return at, (
                f"{stream}: record at byte {at} (tag {head & spec.TAG_MASK}) claims {size} bytes, "
                f"only {end - pos} left; rest of the stream skipped"
            )
        pos += size


def text_runs(
    text: str,
    stream: str,
    para: int,
    out: list[Segment],
    warnings: list[str],
    limit: int = -1,
) -> bool:
    """Append the runs of one paragraph's codeunit text to *out*, decoding controls.

    Returns False when *out* reached *limit* segments (``-1``: no limit) before the
    paragraph's end (what came before is kept).

    >>> out = []
    >>> tab = "\\t" + "\\x00" * 6 + "\\t"
    >>> text_runs("a" + tab + "b\\nc\\r", "s", 0, out, [])
    True
    >>> [(s.offset, s.text) for s in out]
    [(0, 'a'), (1, '\\t'), (9, 'b\\nc')]
    """
    end = len(text)
    start = skip = 0
    kept = False
    for m in _CONTROL_RE.finditer(text):
        i = m.start()
        if i < skip:  # inside an 8-unit control's parameters
            continue
        code = ord(text[i])
        if code in _KEPT:
            kept = True
            continue
        if 0 <= limit <= len(out):
            return False
        if i > start:
            run = text[start:i]
            out.append(
                _new(Segment, (stream, para, start, run.translate(_TRANSLATE) if kept else run))
            )
        kept = False
        if code in _WIDE:
            if i + spec.CONTROL_UNITS > end:
                warnings.append(
                    f"{stream}: paragraph {para} ends inside an 8-unit control at unit {i}"
                )
                return True
            if code == spec.TAB:
                if 0 <= limit <= len(out):  # the run before it took the last segment
                    return False
                out.append(_new(Segment, (stream, para, i, "\t")))
            start = skip = i + spec.CONTROL_UNITS
        else:
            start = skip = i + 1
    if start < end:
        if len(out) >= limit >= 0:
            return False
        run = text[start:]
        out.append(_new(Segment, (stream, para, start, run.translate(_TRANSLATE) if kept else run)))
    return True


def section_segments(
    data: bytes,
    stream: str,
    out: list[Segment],
    warnings: list[str],
    budget: Budget | None = None,
) -> int:
    """Append the text of every PARA_TEXT record of a section stream to *out*, numbered
    by :func:`walk_paragraphs`. Returns the stream's paragraph count (PARA_HEADER
    records at every level); damage goes to *warnings*.

    With a *budget*, the walk stops where records, paragraphs, code units of text or
    segments run out (``budget.exceeded`` says which; the text before it is kept).
    """
    text = section_text(data, stream, warnings, budget)
    if text.hits:
        text_segments(text, stream, out, warnings, budget)
    return text.paragraphs


class SectionText(NamedTuple):
    """A section's walk: its paragraph count (``paragraphs``), the PARA_TEXT payloads
    kept (``hits`` as :func:`walk_paragraphs` gives them, ``sizes`` in code units) and
    those payloads joined (``raw``, odd last bytes left out)."""

    paragraphs: int
    hits: list[tuple[int, int, int]]
    sizes: list[int]
    raw: bytes


def section_text(
    data: bytes, stream: str, warnings: list[str], budget: Budget | None = None
) -> SectionText:
    """The first half of :func:`section_segments`: walk the records, take the budget's
    code units, join the payloads (an odd byte count is a warning)."""
    hits, count = walk_paragraphs(data, stream, warnings, budget)
    if budget is not None and hits:
        hits = _within_units(hits, stream, budget)
    if not hits:
        return SectionText(count, hits, [], b"")
    view = memoryview(data)
    parts = [view[s:e] for s, e, _ in hits]
    sizes = [(e - s) >> 1 for s, e, _ in hits]
    if sum(map(len, parts)) != 2 * sum(sizes):  # some payload has an odd byte count
        for i in _odd_payloads(hits, stream, warnings):
            parts[i] = parts[i][:-1]
    return SectionText(count, hits, sizes, b"".join(parts))


def _odd_payloads(hits: list[tuple[int, int, int]], stream: str, warnings: list[str]) -> list[int]:
    """The hits with an odd byte count (each one a warning: its last byte is left out)."""
    odd = [i for i, (s, e, _) in enumerate(hits) if (e - s) & 1]
    warnings.extend(
        f"{stream}: paragraph {hits[i][2]} has an odd byte count; last byte ignored" for i in odd
    )
    return odd


def text_segments(
    text: SectionText,
    stream: str,
    out: list[Segment],
    warnings: list[str],
    budget: Budget | None = None,
) -> None:
    """The second half of :func:`section_segments`: one decode, then the segments."""
    limit = -1
    if budget is not None:
        limit = len(out) + max(0, budget.segments)
    big = codeunit_view(text.raw)
    before = len(out)
    done = _paragraph_runs(big, text, stream, out, warnings, limit)
    if budget is not None:
        budget.segments -= len(out) - before
        if 0 <= limit <= len(out) and done < len(big):
            budget.spend("text segments", stream)


def _paragraph_runs(
    big: str, text: SectionText, stream: str, out: list[Segment], warnings: list[str], limit: int
) -> int:
    """Append each paragraph's runs of *big* (the section's decoded payloads); returns
    how many units were handed out before *limit* segments stopped it."""
    a = 0
    for (_, _, para), n in zip(text.hits, text.sizes, strict=True):
        if 0 <= limit <= len(out) or not text_runs(
            big[a : a + n], stream, para, out, warnings, limit
        ):
            break
        a += n
    return a


def _within_units(
    hits: list[tuple[int, int, int]], stream: str, budget: Budget
) -> list[tuple[int, int, int]]:
    """The hits whose text fits in what is left of the budget's code units (the one
    that does not fit is cut to what is left)."""
    left = 2 * max(0, budget.units)
    total = 0
    for i, (s, e, para) in enumerate(hits):
        total += e - s
        if total > left:
            budget.units = 0
            budget.spend("code units of text", stream)
            room = (e - s) - (total - left)
            return hits[:i] + ([(s, s + room, para)] if room > 0 else [])
    budget.units -= total // 2
    return hits
