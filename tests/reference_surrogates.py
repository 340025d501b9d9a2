"""The counting of hwpscan.forensics.surrogates as it was before its fast path: the reference
the differential tests hold the fast path to (kept unchanged; do not optimise it).
"""

from __future__ import annotations

import re
import warnings
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence

from hwpscan.models import Location, Segment, TextStats

#: Any surrogate code point (a lone half in a Python str).
SURROGATE_RE = re.compile("[\ud800-\udfff]")
#: A high half immediately followed by a low half: one repairable pair.
PAIR_RE = re.compile("[\ud800-\udbff][\udc00-\udfff]")
#: Private-use code points: BMP PUA, supplementary PUA-A and PUA-B.
PUA_RE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
#: Characters a context snippet shows escaped.
_ESCAPE_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff\ufffd]")

#: Runs of surrogates, and of everything not private-use (removed to count the rest).
_SURROGATE_RUN_RE = re.compile("[\ud800-\udfff]+")
_NOT_PUA_RE = re.compile("[^\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]+")

MAX_LOCATIONS = 20
_CONTEXT = 12
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
#: Texts longer than this are merged through a wchar array (see :func:`_merge_big`).
_BIG_TEXT = 1 << 20
with warnings.catch_warnings():  # the "u" type code is deprecated from Python 3.13
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        _WCHAR4 = array("u").itemsize == 4
    except ValueError:  # a Python without the "u" type code (its removal is planned)
        _WCHAR4 = False


def _count_chars(text: str) -> Counter[str]:
    """How often each character occurs (``str.count`` per character when there are few
    distinct ones, which is all C; a Counter otherwise)."""
    distinct = set(text[:4096])
    if len(distinct) <= 64:
        counts = Counter({ch: text.count(ch) for ch in distinct})
        if counts.total() == len(text):  # no other character further on
            return counts
    return Counter(text)


def codepoint(ch: str) -> str:
    """``U+XXXX`` notation for one character.

    >>> codepoint("A"), codepoint(chr(0xF02B1))
    ('U+0041', 'U+F02B1')
    """
    return f"U+{ord(ch):04X}"


def merge_pairs(text: str) -> str:
    """The strict view: merge adjacent surrogate halves, keep orphans.

    >>> merge_pairs("a" + chr(0xDB80) + chr(0xDEB1)) == "a" + chr(0xF02B1)
    True
    >>> merge_pairs(chr(0xDC00) + "b") == chr(0xDC00) + "b"
    True
    """
    if SURROGATE_RE.search(text) is None:
        return text
    if _WCHAR4 and len(text) > _BIG_TEXT:
        return _merge_big(text)
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _merge_big(text: str) -> str:
    """:func:`merge_pairs` for long texts: an encoder's error handler runs once per
    surrogate (seconds for millions), so the code points are narrowed to 16-bit units
    by slicing the 4-byte wchar array instead, and only decoding merges pairs."""
    out: list[str] = []
    for i in range(0, len(text), _BIG_TEXT):
        piece = text[i : i + _BIG_TEXT]
        if _ASTRAL_RE.search(piece) is not None:  # no 16-bit unit for these: keep them
            out.append(
                piece.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
            )
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            wide = array("u", piece).tobytes()
        narrow = bytearray(len(wide) // 2)
        narrow[0::2] = wide[0::4]
        narrow[1::2] = wide[1::4]
        out.append(bytes(narrow).decode("utf-16-le", "surrogatepass"))
    return "".join(out)


def escape_snippet(text: str) -> str:
    r"""Make a snippet printable and safe: controls, surrogates and PUA become escapes.

    >>> escape_snippet("가" + chr(0xDB80) + "\n")
    '가\\udb80\\n'
    >>> escape_snippet(chr(0xF02B1))
    '\\U000f02b1'
    """
    return _ESCAPE_RE.sub(_escape_one, text)


def _escape_one(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape", "backslashreplace").decode("ascii")


def join_segments(segments: Iterable[Segment]) -> str:
    """The text a pipeline would hand on: paragraphs joined by newlines.

    >>> join_segments([Segment("s", 0, 0, "a"), Segment("s", 0, 1, "b"), Segment("s", 1, 0, "c")])
    'ab\\nc'
    """
    return "\n".join(_paragraph_texts(list(segments)))


def utf8_error(text: str) -> str | None:
    """The exact message ``text.encode("utf-8")`` raises, or None when it encodes.

    >>> utf8_error("clean 한글") is None
    True
    >>> utf8_error("ab" + chr(0xDC00))
    "'utf-8' codec can't encode character '\\\\udc00' in position 2: surrogates not allowed"
    """
    if SURROGATE_RE.search(text) is None:  # a str fails UTF-8 only on surrogates
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return str(exc)
    return None  # pragma: no cover - unreachable: a surrogate always fails


class _Paragraph:
    """One paragraph's text as a pipeline sees it: its segments joined, controls gone.

    ``offset(i)`` maps a position in the joined text back to the code-unit offset in
    the stored paragraph, so a location points at the real units even when a control
    code stood between two runs.
    """

    __slots__ = ("_offsets", "_starts", "paragraph", "stream", "text")

    def __init__(self, segments: Sequence[Segment]) -> None:
        first = segments[0]
        self.stream, self.paragraph = first.stream, first.paragraph
        self.text = "".join([seg.text for seg in segments])
        self._starts: list[int] = []
        self._offsets: list[int] = []
        at = 0
        for seg in segments:
            self._starts.append(at)
            self._offsets.append(seg.offset)
            at += len(seg.text)

    def offset(self, i: int) -> int:
        k = bisect_right(self._starts, i) - 1
        return self._offsets[k] + i - self._starts[k]


def paragraphs(segments: Sequence[Segment]) -> list[_Paragraph]:
    """Consecutive segments of the same (stream, paragraph) joined into one paragraph."""
    out: list[_Paragraph] = []
    run: list[Segment] = []
    for seg in segments:
        if run and (seg.stream != run[0].stream or seg.paragraph != run[0].paragraph):
            out.append(_Paragraph(run))
            run = []
        run.append(seg)
    if run:
        out.append(_Paragraph(run))
    return out


def _paragraph_texts(segments: Sequence[Segment]) -> list[str]:
    """Each paragraph's text, its runs joined (the cheap form of :func:`paragraphs`)."""
    texts: list[str] = []
    key: tuple[str, int] | None = None
    for stream, paragraph, _offset, text in segments:
        if (stream, paragraph) == key:
            texts[-1] += text
        else:
            texts.append(text)
            key = (stream, paragraph)
    return texts


def analyze(segments: Sequence[Segment], *, max_locations: int = MAX_LOCATIONS) -> TextStats:
    """Forensic counts over segments given in their codeunit view.

    The text is judged as a pipeline receives it: the runs of a paragraph joined (the
    control codes between them are not text), paragraphs separated by newlines, exactly
    :func:`join_segments`. Counting is a few C-level passes over that text, so a clean
    file costs one join and two regex searches; locations are gathered only for
    paragraphs that hold something, and only up to :data:`MAX_LOCATIONS`.

    >>> orphan = chr(0xDEB1)
    >>> s = analyze([Segment("p", 0, 0, "x" + orphan), Segment("p", 1, 0, chr(0xE000))])
    >>> (s.surrogates, s.pairs, s.orphans, s.chars, s.pua)
    (1, 0, 1, 3, {'U+E000': 1})
    >>> [(loc.kind, loc.codepoint, loc.paragraph, loc.offset) for loc in s.locations]
    [('orphan', 'U+DEB1', 0, 1), ('pua', 'U+E000', 1, 0)]

    Two halves with a control code between them are adjacent in the extracted text, so
    they are the pair a repair restores; the location still names the stored offset.

    >>> s = analyze([Segment("p", 0, 0, "a" + chr(0xDB80)), Segment("p", 0, 10, chr(0xDEB1))])
    >>> s.pairs, s.orphans, s.locations[0].offset
    (1, 0, 1)
    """
    if not segments:
        return TextStats()
    texts = _paragraph_texts(segments)
    blob = "\n".join(texts)
    surrogates = pairs = 0
    strict = blob
    if SURROGATE_RE.search(blob) is not None:
        # Counted by what removing them leaves, never by listing them: a findall makes
        # one string object per code unit, gigabytes for a hostile file.
        surrogates = len(blob) - len(_SURROGATE_RUN_RE.sub("", blob))
        strict = merge_pairs(blob)
        pairs = len(blob) - len(strict)  # each pair became one character
    has_pua = PUA_RE.search(strict) is not None
    pua = _count_chars(_NOT_PUA_RE.sub("", strict)) if has_pua else Counter()
    locations: tuple[Location, ...] = ()
    if surrogates or has_pua:
        locations = _locations(
            paragraphs(segments), surrogates=bool(surrogates), pua=has_pua, limit=max_locations
        )
    error = utf8_error(blob) if surrogates else None
    return TextStats(
        chars=len(strict) - strict.count("\n") - strict.count("\r"),
        surrogates=surrogates,
        pairs=pairs,
        orphans=surrogates - 2 * pairs,
        utf8_ok=error is None,
        utf8_error=error,
        pua={codepoint(ch): n for ch, n in sorted(pua.items())},
        replacement_chars=strict.count("\ufffd"),
        locations=locations,
    )


def _locations(
    paras: Sequence[_Paragraph], *, surrogates: bool, pua: bool, limit: int
) -> tuple[Location, ...]:
    """The first defects (surrogates first, then private-use characters), with context."""
    defects: list[Location] = []
    pua_found: list[Location] = []
    for para in paras:
        text = para.text
        if surrogates and len(defects) < limit and SURROGATE_RE.search(text):
            _surrogate_locations(para, defects, limit)
        if pua and len(pua_found) < limit and PUA_RE.search(text):
            for m in PUA_RE.finditer(text):
                pua_found.append(_location(para, m.start(), m.group(), "pua"))
                if len(pua_found) >= limit:
                    break
        if len(defects) >= limit and (not pua or len(pua_found) >= limit):
            break
    return tuple((defects + pua_found)[:limit])


def _surrogate_locations(para: _Paragraph, defects: list[Location], limit: int) -> None:
    """Append the paragraph's pairs (at their high half) and orphans, up to the cap."""
    text = para.text
    pos = 0
    for m in SURROGATE_RE.finditer(text):
        if len(defects) >= limit:
            return
        i = m.start()
        if i < pos:  # the low half of a pair already reported
            continue
        unit = ord(text[i])
        nxt = ord(text[i + 1]) if i + 1 < len(text) else 0
        if 0xD800 <= unit <= 0xDBFF and 0xDC00 <= nxt <= 0xDFFF:
            pos = i + 2
            char = chr(0x10000 + ((unit - 0xD800) << 10) + (nxt - 0xDC00))
            defects.append(_location(para, i, text[i : i + 2], "pair", codepoint(char)))
        else:
            defects.append(_location(para, i, text[i], "orphan"))


def _location(para: _Paragraph, i: int, chars: str, kind: str, cp: str | None = None) -> Location:
    units = chars.encode("utf-16-be", "surrogatepass").hex().upper()
    return Location(
        stream=para.stream,
        paragraph=para.paragraph,
        offset=para.offset(i),
        codepoint=cp or codepoint(chars),
        kind=kind,
        units=" ".join(units[k : k + 4] for k in range(0, len(units), 4)),
        context=_context(para.text, i, len(chars)),
    )


def _context(text: str, i: int, width: int) -> str:
    return escape_snippet(text[max(0, i - _CONTEXT) : i + width + _CONTEXT])
