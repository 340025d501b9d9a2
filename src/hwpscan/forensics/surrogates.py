"""Counting surrogates, pairs, orphans and private-use characters.

The *codeunit view* of a text is what a parser produces when it turns every UTF-16
code unit into one code point: a character outside the BMP becomes two surrogate code
points. The *strict view* merges adjacent high+low halves back into the character
they encode; only halves without a partner (orphans) remain.

Test strings are built with ``chr()``: literal surrogates in source files break tools.

>>> bullet = chr(0xDB80) + chr(0xDEB1)          # U+F02B1 as the defective parser left it
>>> stats = analyze([Segment("BodyText/Section0", 0, 0, "가" + bullet + "나")])
>>> stats.surrogates, stats.pairs, stats.orphans, stats.utf8_ok
(2, 1, 0, False)
>>> stats.utf8_error
"'utf-8' codec can't encode characters in position 1-2: surrogates not allowed"
>>> stats.pua
{'U+F02B1': 1}
"""

from __future__ import annotations

import re
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
_ESCAPE_RE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff\ufffd]"
)

MAX_LOCATIONS = 20
_CONTEXT = 12


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
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


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
    parts: list[str] = []
    last: tuple[str, int] | None = None
    for seg in segments:
        key = (seg.stream, seg.paragraph)
        if last is not None and key != last:
            parts.append("\n")
        parts.append(seg.text)
        last = key
    return "".join(parts)


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


def analyze(segments: Sequence[Segment]) -> TextStats:
    """Forensic counts over segments given in their codeunit view.

    >>> orphan = chr(0xDEB1)
    >>> s = analyze([Segment("p", 0, 0, "x" + orphan), Segment("p", 1, 0, chr(0xE000))])
    >>> (s.surrogates, s.pairs, s.orphans, s.chars, s.pua)
    (1, 0, 1, 3, {'U+E000': 1})
    >>> [(loc.kind, loc.codepoint, loc.paragraph, loc.offset) for loc in s.locations]
    [('orphan', 'U+DEB1', 0, 1), ('pua', 'U+E000', 1, 0)]
    """
    chars = surrogates = pairs = fffd = 0
    pua: Counter[str] = Counter()
    defects: list[Location] = []
    pua_locations: list[Location] = []
    for seg in segments:
        text = seg.text
        has_surrogates = SURROGATE_RE.search(text) is not None
        strict = merge_pairs(text) if has_surrogates else text
        chars += len(strict)
        if "\ufffd" in strict:
            fffd += strict.count("\ufffd")
        if has_surrogates:
            n, p = _count_surrogates(seg, defects)
            surrogates += n
            pairs += p
        if PUA_RE.search(strict) is not None:
            for m in PUA_RE.finditer(strict):
                pua[codepoint(m.group())] += 1
                # PUA-A/B in an HWP body is already reported through its pair
                if len(pua_locations) < MAX_LOCATIONS and not (
                    has_surrogates and ord(m.group()) > 0xFFFF
                ):
                    pua_locations.append(_location(seg, strict, m.start(), m.group(), "pua"))
    error = utf8_error(join_segments(segments)) if surrogates else None
    locations = (defects + pua_locations)[:MAX_LOCATIONS]
    return TextStats(
        chars=chars,
        surrogates=surrogates,
        pairs=pairs,
        orphans=surrogates - 2 * pairs,
        utf8_ok=error is None,
        utf8_error=error,
        pua=dict(sorted(pua.items())),
        replacement_chars=fffd,
        locations=tuple(locations),
    )


def _count_surrogates(seg: Segment, defects: list[Location]) -> tuple[int, int]:
    text = seg.text
    count = pairs = 0
    pos = 0
    for m in SURROGATE_RE.finditer(text):
        i = m.start()
        count += 1
        if i < pos:  # the low half of a pair already counted
            continue
        unit = ord(text[i])
        nxt = ord(text[i + 1]) if i + 1 < len(text) else 0
        if 0xD800 <= unit <= 0xDBFF and 0xDC00 <= nxt <= 0xDFFF:
            pairs += 1
            pos = i + 2
            if len(defects) < MAX_LOCATIONS:
                ch = text[i : i + 2].encode("utf-16-le", "surrogatepass").decode("utf-16-le")
                defects.append(
                    Location(
                        stream=seg.stream,
                        paragraph=seg.paragraph,
                        offset=seg.offset + i,
                        codepoint=codepoint(ch),
                        kind="pair",
                        units=f"{unit:04X} {nxt:04X}",
                        context=_context(text, i, 2),
                    )
                )
        elif len(defects) < MAX_LOCATIONS:
            defects.append(_location(seg, text, i, text[i], "orphan"))
    return count, pairs


def _location(seg: Segment, text: str, i: int, ch: str, kind: str) -> Location:
    units = ch.encode("utf-16-be", "surrogatepass").hex().upper()
    return Location(
        stream=seg.stream,
        paragraph=seg.paragraph,
        offset=seg.offset + i,
        codepoint=codepoint(ch),
        kind=kind,
        units=" ".join(units[k : k + 4] for k in range(0, len(units), 4)),
        context=_context(text, i, len(ch)),
    )


def _context(text: str, i: int, width: int) -> str:
    return escape_snippet(text[max(0, i - _CONTEXT) : i + width + _CONTEXT])
