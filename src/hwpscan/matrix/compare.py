"""Align an extractor's text with the reference view and count what it got wrong.

The reference is our *strict* view of the document body (surrogate pairs merged).
Whitespace and line layout are not compared: extractors legitimately differ in how
they join paragraphs, table cells and lines. Every other character counts:

- **dropped**: in the document, missing from the extractor's text (an extractor that
  silently loses private-use characters);
- **changed**: replaced by something else (a PUA character turned into U+FFFD or ``?``);
- **extra**: in the extractor's text but not in the document at all (control-code
  parameters decoded as text, placeholders).

Surrogates are not characters and are counted apart (``count_surrogates`` on the text
as returned). Before the alignment, adjacent halves are merged back into the character
they encode, so a character returned as a high+low pair is not counted as changed, and
lone halves are left out on both sides: a lone half carries no character, so an
extractor that returns only the high half of U+F02B1 has *dropped* that character, and
one that drops the document's own orphans has lost nothing.

Long texts are first cut at shared runs: common start and end, then *anchors*
(k-grams found exactly once in each text, in the same order, as in patience diff);
only the small regions between anchors are diffed character by character with
``difflib.SequenceMatcher`` (autojunk off). The cost follows the differences, not the
length of the text.

>>> c = compare("가" + chr(0xF02B1) + "나 다", "가나 다")
>>> c.dropped, c.changed, c.extra
(1, 0, 0)
>>> c.examples
('dropped: 가[\\\\U000f02b1]나다',)
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from hwpscan.forensics.surrogates import SURROGATE_RE, escape_snippet, merge_pairs

__all__ = [
    "Comparison",
    "compare",
    "content",
    "count_chars",
    "count_replacement",
    "count_surrogates",
    "significant",
]

#: Characters the comparison ignores: layout, not content. Not \x0b or \x0c: in HWP
#: those are control codes, and their leaking into text is exactly what we look for.
WHITESPACE_RE = re.compile("[\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
MAX_EXAMPLES = 5
#: Regions up to this many characters (both sides) are diffed character by character.
SMALL_REGION = 2_000
#: k-gram lengths tried, in order, to find anchors in larger regions.
ANCHOR_SIZES = (16, 6, 2)
#: Deeper than this, a region is counted rather than split further.
MAX_DEPTH = 60
_CONTEXT = 8
_SNIPPET = 24


@dataclass(frozen=True, slots=True)
class Comparison:
    """How an extractor's text differs from the reference (whitespace ignored)."""

    dropped: int = 0
    changed: int = 0
    extra: int = 0
    examples: tuple[str, ...] = ()

    @property
    def identical(self) -> bool:
        return not (self.dropped or self.changed or self.extra)


def significant(text: str) -> str:
    """The characters that are compared: *text* without whitespace.

    >>> significant(" 가 나\\t다\\n") == "가나다"
    True
    >>> significant("a\\x0bb")
    'a\\x0bb'
    """
    return WHITESPACE_RE.sub("", text)


def content(text: str) -> str:
    """What the alignment compares: pairs merged, lone halves and whitespace left out.

    >>> pair, orphan = chr(0xDB80) + chr(0xDEB1), chr(0xDC00)
    >>> content("가 " + pair + orphan + " 나") == "가" + chr(0xF02B1) + "나"
    True
    """
    merged = merge_pairs(significant(text))
    return SURROGATE_RE.sub("", merged) if SURROGATE_RE.search(merged) else merged


def count_chars(text: str) -> int:
    r"""The ``chars`` of a matrix row: code points of *text*, line ends not counted.

    The scan's ``chars`` counts the strict view of the body with the newlines that join
    its paragraphs left out; this is the same count for any extractor's text, whose
    paragraph ends we only see as line ends (``\n``, ``\r\n`` or ``\r``). Spaces and
    tabs count; a surrogate counts as one (a pair as two: what the extractor returned).
    A line break inside a paragraph (HWP control 10) is a line end too, so on a file
    that has one the strict row counts it one less than the scan does.

    >>> count_chars("가 나\n다\r\n" + chr(0xDB80) + chr(0xDEB1))
    6
    """
    return len(text) - text.count("\n") - text.count("\r")


def count_surrogates(text: str) -> int:
    """Surrogate code points in *text* (each half of a pair counts).

    >>> count_surrogates("a" + chr(0xDB80) + chr(0xDEB1) + chr(0xDC00))
    3
    """
    if SURROGATE_RE.search(text) is None:
        return 0
    return sum(1 for _ in SURROGATE_RE.finditer(text))


def count_replacement(text: str) -> int:
    """U+FFFD REPLACEMENT CHARACTERs in *text*.

    >>> count_replacement("a\\ufffdb\\ufffd")
    2
    """
    return text.count("\ufffd")


def compare(reference: str, text: str, *, max_examples: int = MAX_EXAMPLES) -> Comparison:
    """Align *text* with *reference*; count dropped, changed and extra characters.

    >>> compare("표 안의 글", "표안의글").identical
    True
    >>> c = compare("가나다", "가?다")
    >>> (c.dropped, c.changed, c.extra), c.examples
    ((0, 1, 0), ('changed: 가[나 -> ?]다',))
    >>> c = compare("본문", "본" + chr(0x0B) + "ctl문")
    >>> (c.dropped, c.changed, c.extra), c.examples
    ((0, 0, 4), ('extra: 본[+\\\\x0bctl]문',))
    >>> compare("a" + chr(0xF02B1), "a" + chr(0xDB80) + chr(0xDEB1)).identical
    True
    >>> compare("a" + chr(0xF02B1), "a" + chr(0xDB80)).dropped
    1
    """
    a = content(reference)
    b = content(text)
    if a == b:
        return Comparison()
    tally = _Tally(a, max_examples)
    _align(a, 0, len(a), b, 0, len(b), tally, depth=0)
    return Comparison(tally.dropped, tally.changed, tally.extra, tuple(tally.examples))


class _Tally:
    def __init__(self, reference: str, max_examples: int) -> None:
        self.reference = reference
        self.dropped = self.changed = self.extra = 0
        self.examples: list[str] = []
        self.max_examples = max_examples

    def add(self, a1: int, a2: int, added: str) -> None:
        """Reference characters a1:a2 became *added* (either side may be empty)."""
        removed = self.reference[a1:a2]
        common = min(len(removed), len(added))
        self.changed += common
        self.dropped += len(removed) - common
        self.extra += len(added) - common
        if len(self.examples) < self.max_examples and (removed or added):
            before = self.reference[max(0, a1 - _CONTEXT) : a1]
            after = self.reference[a2 : a2 + _CONTEXT]
            op = "delete" if not added else "insert" if not removed else "replace"
            self.examples.append(_example(op, removed, added, before, after))


def _align(a: str, a1: int, a2: int, b: str, b1: int, b2: int, tally: _Tally, depth: int) -> None:
    """Align a[a1:a2] with b[b1:b2]: trim what they share at both ends, then either
    diff character by character (small regions) or split at anchors, k-grams found
    exactly once on each side and in the same order (the patience-diff idea)."""
    n = _common_prefix(a, a1, a2, b, b1, b2)
    a1, b1 = a1 + n, b1 + n
    n = _common_suffix(a, a1, a2, b, b1, b2)
    a2, b2 = a2 - n, b2 - n
    if a1 == a2 or b1 == b2:
        if a1 != a2 or b1 != b2:
            tally.add(a1, a2, b[b1:b2])
        return
    if (a2 - a1) + (b2 - b1) <= SMALL_REGION:
        _char_diff(a, a1, a2, b, b1, b2, tally)
        return
    anchors = _anchors(a, a1, a2, b, b1, b2) if depth < MAX_DEPTH else []
    if not anchors:  # nothing in common worth aligning on: count, do not align
        tally.add(a1, a2, b[b1:b2])
        return
    for pa, pb in anchors:
        if pa < a1 or pb < b1:  # inside the equal run already consumed
            continue
        _align(a, a1, pa, b, b1, pb, tally, depth + 1)
        n = _common_prefix(a, pa, a2, b, pb, b2)
        a1, b1 = pa + n, pb + n
    _align(a, a1, a2, b, b1, b2, tally, depth + 1)


def _char_diff(a: str, a1: int, a2: int, b: str, b1: int, b2: int, tally: _Tally) -> None:
    matcher = SequenceMatcher(None, a[a1:a2], b[b1:b2], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            tally.add(a1 + i1, a1 + i2, b[b1 + j1 : b1 + j2])


def _anchors(a: str, a1: int, a2: int, b: str, b1: int, b2: int) -> list[tuple[int, int]]:
    """Positions (in a, in b) of k-grams unique on both sides, longest increasing chain.

    >>> _anchors("xxabcdefghijklmnopyy", 0, 20, "zabcdefghijklmnopw", 0, 18)
    [(2, 1)]
    """
    for k in ANCHOR_SIZES:
        if min(a2 - a1, b2 - b1) < k:
            continue
        in_a = _unique_grams(a, a1, a2, k)
        in_b = _unique_grams(b, b1, b2, k)
        pairs = sorted((pa, in_b[g]) for g, pa in in_a.items() if g in in_b)
        if pairs:
            return _increasing(pairs)
    return []


def _unique_grams(s: str, start: int, end: int, k: int) -> dict[str, int]:
    seen: dict[str, int] = {}
    repeated: set[str] = set()
    for i in range(start, end - k + 1):
        gram = s[i : i + k]
        if gram in seen:
            repeated.add(gram)
        else:
            seen[gram] = i
    for gram in repeated:
        del seen[gram]
    return seen


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest chain of *pairs* (sorted by first item) increasing in the second.

    >>> _increasing([(0, 5), (1, 1), (2, 2), (3, 0), (4, 3)])
    [(1, 1), (2, 2), (4, 3)]
    """
    tails: list[int] = []  # b positions ending the best chain of each length
    tail_index: list[int] = []
    back: list[int] = []
    for i, (_, pb) in enumerate(pairs):
        j = bisect_left(tails, pb)
        if j == len(tails):
            tails.append(pb)
            tail_index.append(i)
        else:
            tails[j] = pb
            tail_index[j] = i
        back.append(tail_index[j - 1] if j else -1)
    chain: list[tuple[int, int]] = []
    i = tail_index[-1] if tail_index else -1
    while i >= 0:
        chain.append(pairs[i])
        i = back[i]
    return chain[::-1]


def _common_prefix(a: str, a1: int, a2: int, b: str, b1: int, b2: int) -> int:
    """Length of the common start of a[a1:a2] and b[b1:b2] (binary search on slices)."""
    lo, hi = 0, min(a2 - a1, b2 - b1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[a1 : a1 + mid] == b[b1 : b1 + mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, a1: int, a2: int, b: str, b1: int, b2: int) -> int:
    lo, hi = 0, min(a2 - a1, b2 - b1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[a2 - mid : a2] == b[b2 - mid : b2]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _example(op: str, removed: str, added: str, before: str, after: str) -> str:
    """One escaped example, e.g. ``dropped: 가[\\U000f02b1]나``.

    >>> _example("replace", chr(0xF02B1), "?", "앞", "뒤")
    'changed: 앞[\\\\U000f02b1 -> ?]뒤'
    """
    left = escape_snippet(before[-_CONTEXT:])
    right = escape_snippet(after[:_CONTEXT])
    gone = escape_snippet(_cut(removed))
    new = escape_snippet(_cut(added))
    if op == "delete":
        return f"dropped: {left}[{gone}]{right}"
    if op == "insert":
        return f"extra: {left}[+{new}]{right}"
    return f"changed: {left}[{gone} -> {new}]{right}"


def _cut(text: str) -> str:
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."


def describe(counts: Sequence[tuple[str, int]]) -> str:
    """Join non-zero counts as ``2 surrogates, 1 dropped`` (a plural label loses its
    ``s`` for one).

    >>> describe([("surrogates", 2), ("dropped", 0), ("extra", 1)])
    '2 surrogates, 1 extra'
    >>> describe([("surrogates", 1), ("replacement chars", 1)])
    '1 surrogate, 1 replacement char'
    """
    return ", ".join(
        f"{n:,} {label[:-1] if n == 1 and label.endswith('s') else label}"
        for label, n in counts
        if n
    )
