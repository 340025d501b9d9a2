"""HWP 5 records and PARA_TEXT decoding: pure functions on bytes, tuned for speed.

A section stream is a chain of records (spec §4.1). :func:`walk_paragraphs` finds the
PARA_HEADER and PARA_TEXT records; :func:`section_segments` decodes all PARA_TEXT
payloads in one go: they are joined and decoded once, so the work per paragraph is a
slice and a :class:`~hwpscan.models.Segment`. The text is the *codeunit view* (one code
point per UTF-16 code unit); a pair split across two records stays two halves either
way, so joining cannot change it.

A segment's ``paragraph`` is the paragraph's index in its section stream: every
PARA_HEADER record at any level counts, in stream (document) order, so empty paragraphs
and paragraphs without a PARA_TEXT record (Hancom writes none for a paragraph holding
only its end mark) keep their numbers, and the paragraphs of a table cell, footnote,
text box or header follow the paragraph that holds the control.

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

import re
import struct
import zlib
from bisect import bisect_left

from hwpscan.errors import CorruptFileError
from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import Segment

__all__ = [
    "codeunit_view",
    "inflate",
    "section_segments",
    "text_runs",
    "walk_paragraphs",
]

_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
_ASTRAL_SPLIT_RE = re.compile("([\U00010000-\U0010ffff])")
_CONTROL_RE = re.compile("[\x00-\x1f]")
_U32 = struct.Struct("<I")
_KEPT = frozenset(spec.CHAR_REPLACEMENTS)
_TRANSLATE = dict(spec.CHAR_REPLACEMENTS)
_WIDE = spec.INLINE_CONTROLS | spec.EXTENDED_CONTROLS
_PARA_END = chr(spec.PARA_BREAK)
_PARA_HEADER = spec.PARA_HEADER
_PARA_TEXT = spec.PARA_TEXT


_HALVES: dict[str, str] = {}
_HALVES_MAX = 4096


def _halves(ch: str) -> str:
    """The two surrogate code points of an astral character (cached per character)."""
    c = ord(ch) - 0x10000
    pair = chr(0xD800 | c >> 10) + chr(0xDC00 | c & 0x3FF)
    if len(_HALVES) < _HALVES_MAX:  # bounded: a hostile file cannot grow it without end
        _HALVES[ch] = pair
    return pair


def codeunit_view(raw: bytes) -> str:
    """UTF-16LE bytes as one code point per code unit (pairs stay two halves).

    Decoding merges valid pairs; only when the text holds astral characters are they
    split back (a C-level split and join, no Python call per unit).

    >>> bullet = b"\\x80\\xdb\\xb1\\xde"  # U+F02B1 as the pair DB80 DEB1
    >>> codeunit_view("가".encode("utf-16-le") + bullet) == "가" + chr(0xDB80) + chr(0xDEB1)
    True
    >>> codeunit_view(b"\\x00\\xdc") == chr(0xDC00)
    True
    """
    text = raw.decode("utf-16-le", "surrogatepass")
    if _ASTRAL_RE.search(text) is None:
        return text
    parts = _ASTRAL_SPLIT_RE.split(text)
    parts[1::2] = [_HALVES.get(ch) or _halves(ch) for ch in parts[1::2]]
    return "".join(parts)


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
    data: bytes, stream: str, warnings: list[str]
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
    hits, count, lone, pos = _scan(data, len(data))
    if pos != len(data):  # damaged: number what comes before the first bad record
        stop, note = _damage(data, stream)
        warnings.append(note)
        hits, count, lone, _ = _scan(data, stop)
    if lone:
        warnings.append(
            f"{stream}: {len(lone)} PARA_TEXT record(s) without a PARA_HEADER "
            f"(first: paragraph {lone[0]}), each counted"
        )
    return hits, count


def _scan(data: bytes, end: int) -> tuple[list[tuple[int, int, int]], int, list[int], int]:
    """The hot loop of :func:`walk_paragraphs` over ``data[:end]``: hits, paragraph
    count, paragraphs numbered for a PARA_TEXT without header, and where it stopped
    (``end`` when every record fitted; bounds are checked once, after the loop)."""
    hits: list[tuple[int, int, int]] = []
    add = hits.append
    unpack = _U32.unpack_from
    lone: list[int] = []
    para = -1
    has_text = True  # the current paragraph has its PARA_TEXT already (or there is none)
    pos = 0
    try:
        while pos < end:
            (head,) = unpack(data, pos)
            size = head >> 20
            if size == 0xFFF:
                (size,) = unpack(data, pos + 4)
                pos += 4
            tag = head & 0x3FF
            if tag == _PARA_HEADER:
                para += 1
                has_text = False
            elif tag == _PARA_TEXT:
                if has_text:
                    para += 1
                    lone.append(para)
                add((pos + 4, pos + 4 + size, para))
                has_text = True
            pos += 4 + size
    except struct.error:
        pos = end + 1
    return hits, para + 1, lone, pos


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


def text_runs(text: str, stream: str, para: int, out: list[Segment], warnings: list[str]) -> None:
    """Append the runs of one paragraph's codeunit text to *out*, decoding controls.

    >>> out = []
    >>> tab = "\\t" + "\\x00" * 6 + "\\t"
    >>> text_runs("a" + tab + "b\\nc\\r", "s", 0, out, [])
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
        if i > start:
            run = text[start:i]
            out.append(Segment(stream, para, start, run.translate(_TRANSLATE) if kept else run))
        kept = False
        if code in _WIDE:
            if i + spec.CONTROL_UNITS > end:
                warnings.append(
                    f"{stream}: paragraph {para} ends inside an 8-unit control at unit {i}"
                )
                return
            if code == spec.TAB:
                out.append(Segment(stream, para, i, "\t"))
            start = skip = i + spec.CONTROL_UNITS
        else:
            start = skip = i + 1
    if start < end:
        run = text[start:]
        out.append(Segment(stream, para, start, run.translate(_TRANSLATE) if kept else run))


def section_segments(data: bytes, stream: str, out: list[Segment], warnings: list[str]) -> int:
    """Append the text of every PARA_TEXT record of a section stream to *out*, numbered
    by :func:`walk_paragraphs`. Returns the stream's paragraph count (PARA_HEADER
    records at every level); damage goes to *warnings*."""
    hits, count = walk_paragraphs(data, stream, warnings)
    if not hits:
        return count
    parts = [data[s:e] for s, e, _ in hits]
    sizes = [(e - s) >> 1 for s, e, _ in hits]
    if sum(map(len, parts)) != 2 * sum(sizes):  # some payload has an odd byte count
        for i, (s, e, para) in enumerate(hits):
            if (e - s) & 1:
                warnings.append(
                    f"{stream}: paragraph {para} has an odd byte count; last byte ignored"
                )
                parts[i] = parts[i][:-1]
    big = codeunit_view(b"".join(parts))
    controls = [m.start() for m in _CONTROL_RE.finditer(big)]
    controls.append(len(big))  # sentinel
    a = k = 0
    for (_, _, para), n in zip(hits, sizes, strict=True):
        b = a + n
        c = controls[k]
        if c == b - 1 and big[c] == _PARA_END:  # the common case: text, then paragraph end
            if c > a:
                out.append(Segment(stream, para, 0, big[a:c]))
            k += 1
        elif c >= b:  # no control at all
            if b > a:
                out.append(Segment(stream, para, 0, big[a:b]))
        else:
            text_runs(big[a:b], stream, para, out, warnings)
            k = bisect_left(controls, b, k)
        a = b
    return count
