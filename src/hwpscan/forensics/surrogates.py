"""Counting surrogates, pairs, orphans and private-use characters.

The *codeunit view* of a text (every UTF-16 code unit as one code point) holds a
character outside the BMP as two surrogates; the *strict view* merges adjacent halves
back, leaving only orphans. Test strings are built with ``chr()``: literal surrogates in
source files break tools.

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

import operator
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import accumulate, count, islice

from hwpscan.models import Location, Segment, TextStats

#: Any surrogate code point (a lone half in a Python str).
SURROGATE_RE = re.compile("[\ud800-\udfff]")
#: A high half immediately followed by a low half: one repairable pair.
PAIR_RE = re.compile("[\ud800-\udbff][\udc00-\udfff]")
#: Private-use code points: BMP PUA, supplementary PUA-A and PUA-B.
PUA_RE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
#: One notable item, what makes a text worth a closer look: a high+low pair (paired as
#: the UTF-16 codec pairs them: left to right, a high half with the low half right after
#: it), else one half or private-use character (surrogates and the BMP's private use are
#: one range, U+D800-U+F8FF).
_NOTABLE_ITEM_RE = re.compile(
    "[\ud800-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]"
    "(?:(?<=[\ud800-\udbff])[\udc00-\udfff])?"
)
#: Runs of what a context snippet shows escaped: controls, surrogates, private use, U+FFFD.
_ESCAPE_RUN_RE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff\ufffd]+"
)

#: Runs of surrogates.
_SURROGATE_RUN_RE = re.compile("[\ud800-\udfff]+")
#: A high+low pair, else one half: the defects in the order a location list names them
#: (one class first, so a search skips ahead in C).
PAIR_OR_HALF_RE = re.compile("[\ud800-\udfff](?:(?<=[\ud800-\udbff])[\udc00-\udfff])?")

MAX_LOCATIONS = 20
_PARAGRAPH = operator.itemgetter(1)
_TEXT = operator.itemgetter(3)
_CONTEXT = 12
#: Characters :func:`count_surrogates` encodes at a time.
_BIG_TEXT = 1 << 20


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
    # the UTF-16 codec joins each high+low pair and passes lone halves through
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


#: Merge one high+low pair; the same few pairs recur, so the round-trip is cached.
pair_char = lru_cache(maxsize=4096)(merge_pairs)


def escape_snippet(text: str) -> str:
    r"""Make a snippet printable and safe: controls, surrogates and PUA become escapes.

    >>> escape_snippet("가" + chr(0xDB80) + "\n")
    '가\\udb80\\n'
    >>> escape_snippet(chr(0xF02B1))
    '\\U000f02b1'
    """
    # a printable text without U+FFFD is its own escape; where only surrogates need it,
    # the UTF-8 codec writes each as \udb80
    if text.isprintable() and "\ufffd" not in text:
        return text
    shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if shown.isprintable() and "\ufffd" not in shown:
        return shown
    return _ESCAPE_RUN_RE.sub(
        lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text
    )


def join_segments(segments: Iterable[Segment]) -> str:
    """The text a pipeline would hand on: paragraphs joined by newlines.

    >>> join_segments([Segment("s", 0, 0, "a"), Segment("s", 0, 1, "b"), Segment("s", 1, 0, "c")])
    'ab\\nc'
    """
    return "\n".join(_paragraph_groups(list(segments))[0])


def utf8_error(text: str) -> str | None:
    """The exact message ``text.encode("utf-8")`` raises, or None when it encodes.

    >>> utf8_error("clean 한글") is None
    True
    >>> utf8_error("ab" + chr(0xDC00))
    "'utf-8' codec can't encode character '\\\\udc00' in position 2: surrogates not allowed"
    """
    run = _SURROGATE_RUN_RE.search(text)
    if run is None:  # a str fails UTF-8 only on surrogates
        return None
    # the codec's words for its first run of surrogates, without encoding the text
    start, end = run.span()
    if end - start == 1:
        where = f"character '\\u{ord(text[start]):04x}' in position {start}"
    else:
        where = f"characters in position {start}-{end - 1}"
    return f"'utf-8' codec can't encode {where}: surrogates not allowed"


def _paragraph_groups(segments: Sequence[Segment]) -> tuple[list[str], list[int]]:
    """Each paragraph's text, its runs joined, and where each paragraph's segments
    start (one more entry at the end: ``len(segments)``); C-level maps when no two
    neighbours share a paragraph (the common case).

    >>> _paragraph_groups([Segment("s", 0, 0, "a"), Segment("s", 1, 0, "b")])
    (['a', 'b'], [0, 1, 2])
    >>> a, b, c = Segment("s", 0, 0, "a"), Segment("s", 0, 2, "b"), Segment("t", 0, 0, "c")
    >>> _paragraph_groups([a, b, c])
    (['ab', 'c'], [0, 2, 3])
    """
    numbers = list(map(_PARAGRAPH, segments))
    if not any(map(operator.eq, numbers, islice(numbers, 1, None))):
        return list(map(_TEXT, segments)), list(range(len(segments) + 1))
    texts: list[str] = []
    starts: list[int] = []
    key: tuple[str, int] | None = None
    for i, (stream, paragraph, _offset, text) in enumerate(segments):
        if (stream, paragraph) == key:
            texts[-1] += text
        else:
            texts.append(text)
            starts.append(i)
            key = (stream, paragraph)
    starts.append(len(segments))
    return texts, starts


def _notable_counts(blob: str) -> tuple[int, int, dict[str, int], bool]:
    """(surrogates, pairs, private use of the strict view by character, whether *blob*
    itself holds private use): what :func:`analyze` counts, from one count of the
    blob's notable items (:data:`_NOTABLE_ITEM_RE`); the private use of the strict view
    is the blob's own plus the pairs that merge into it.

    >>> surrogates, pairs, pua, own = _notable_counts("a" + chr(0xDB80) + chr(0xDEB1) + chr(0xE000))
    >>> surrogates, pairs, sorted(map(codepoint, pua)), own
    (2, 1, ['U+E000', 'U+F02B1'], True)
    """
    halves = pairs = 0
    pua: Counter[str] = Counter()
    own = False
    for item, n in Counter(_NOTABLE_ITEM_RE.findall(blob)).items():
        if len(item) == 2:  # a pair: a document repeats the same few
            pairs += n
            char = pair_char(item)
            if PUA_RE.match(char):
                pua[char] += n
        elif item <= "\udfff":  # a lone half
            halves += n
        else:
            pua[item] += n
            own = True
    return 2 * pairs + halves, pairs, pua, own


def analyze(segments: Sequence[Segment], *, max_locations: int = MAX_LOCATIONS) -> TextStats:
    """Forensic counts over segments in their codeunit view, judged as a pipeline gets
    the text (:func:`join_segments`): a few C-level passes, locations only up to
    *max_locations*.

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
    whole = "".join(map(_TEXT, segments))
    # the common case: nothing to count (surrogates and private use are unprintable)
    if whole.isprintable() or _NOTABLE_ITEM_RE.search(whole) is None:
        return TextStats(
            chars=len(whole) - whole.count("\n") - whole.count("\r"),
            replacement_chars=whole.count("\ufffd"),
        )
    del whole
    texts, starts = _paragraph_groups(segments)
    blob = "\n".join(texts)
    surrogates, pairs, pua, own_pua = _notable_counts(blob)
    # private use made of pairs is located as the pair
    locations: tuple[Location, ...] = ()
    if (surrogates or own_pua) and max_locations > 0:
        locations = _locations(
            segments,
            texts,
            starts,
            blob,
            surrogates=bool(surrogates),
            pua=own_pua,
            limit=max_locations,
        )
    return TextStats(
        # each pair is one character of the strict view
        chars=len(blob) - pairs - blob.count("\n") - blob.count("\r"),
        surrogates=surrogates,
        pairs=pairs,
        orphans=surrogates - 2 * pairs,
        utf8_ok=not surrogates,  # a str fails UTF-8 exactly when it holds a surrogate
        utf8_error=utf8_error(blob) if surrogates else None,
        pua={codepoint(ch): n for ch, n in sorted(pua.items())},
        replacement_chars=blob.count("\ufffd"),
        locations=locations,
    )


def count_surrogates(text: str) -> int:
    """How many surrogates *text* holds: UTF-8 encodes each as ``?`` under ``replace``
    and as nothing under ``ignore`` (a slice at a time, to keep the bytes small).

    >>> count_surrogates("a" + chr(0xDC00) + "한" + chr(0xD800) + chr(0xDFFF))
    3
    """
    pieces = (text[i : i + _BIG_TEXT] for i in range(0, len(text), _BIG_TEXT))
    return sum(len(p.encode("utf-8", "replace")) - len(p.encode("utf-8", "ignore")) for p in pieces)


def _locations(
    segments: Sequence[Segment],
    texts: list[str],
    starts: list[int],
    blob: str,
    *,
    surrogates: bool,
    pua: bool,
    limit: int,
) -> tuple[Location, ...]:
    """The first defects (surrogates, then private use), with context, *limit* in all:
    found in *blob* (the paragraphs' *texts* joined) and mapped back to their paragraph
    by a bisect (*starts*: see :func:`_paragraph_groups`)."""
    matches: list[re.Match[str]] = []
    if surrogates:
        matches += islice(PAIR_OR_HALF_RE.finditer(blob), limit)
    last = matches[-1].start() if matches else 0  # each kind is found in text order
    if pua and len(matches) < limit:
        matches += islice(PUA_RE.finditer(blob), limit - len(matches))
        last = max(last, matches[-1].start()) if matches else 0
    # paragraph k begins after the k texts and newlines before it (up to the last defect)
    reach = blob.count("\n", 0, last) + 1
    begins = list(map(operator.add, accumulate(map(len, islice(texts, reach)), initial=0), count()))
    found: list[Location] = []
    for match in matches:
        chars = match.group()
        i = match.start()
        k = bisect_right(begins, i) - 1
        at, lo, hi = begins[k], starts[k], starts[k + 1]
        seg = segments[lo]
        # a paragraph of one run has consecutive stored offsets
        offset = seg.offset + i - at if hi - lo == 1 else _run_offset(segments[lo:hi], i - at)
        cp, kind, units = _info(chars)
        # the context: up to _CONTEXT characters each side, within the paragraph
        left, end, right = i - _CONTEXT, at + len(texts[k]), i + len(chars) + _CONTEXT
        shown = escape_snippet(blob[left if left > at else at : right if right < end else end])
        found.append(Location(seg.stream, seg.paragraph, offset, cp, kind, units, shown))
    return tuple(found)


def _run_offset(runs: Sequence[Segment], j: int) -> int:
    """The stored offset of position *j* in the joined text of a paragraph's *runs*
    (a control code between two runs takes stored units but no text)."""
    begins = list(accumulate((len(run.text) for run in runs[:-1]), initial=0))
    r = bisect_right(begins, j) - 1
    return runs[r].offset + j - begins[r]


@lru_cache(maxsize=4096)  # a document repeats the same few characters
def _info(chars: str) -> tuple[str, str, str]:
    """What a location says of *chars*: a high+low pair (named by the character it
    encodes), one orphan half, or one private-use character."""
    units = chars.encode("utf-16-be", "surrogatepass").hex(" ", 2).upper()
    if len(chars) == 2:
        return codepoint(pair_char(chars)), "pair", units
    kind = "orphan" if "\ud800" <= chars <= "\udfff" else "pua"
    return codepoint(chars), kind, units
