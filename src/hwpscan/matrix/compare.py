"""Align an extractor's text with the reference view and count what it got wrong.

The reference is our *strict* view of the document body (surrogate pairs merged).
Whitespace and line layout are not compared: extractors legitimately differ in how
they join paragraphs, table cells and lines. Every other character counts:

- **dropped**: in the document, missing from the extractor's text (an extractor that
  silently loses private-use characters);
- **changed**: replaced by something else (a PUA character turned into U+FFFD, ``?`` or a
  lone surrogate);
- **extra**: in the extractor's text but not in the document at all (control-code
  parameters decoded as text, placeholders).

Adjacent surrogate halves in the extractor's text are merged before the alignment, so
a character returned as a high+low pair is not counted as changed: the *surrogates*
count (taken on the text as returned) reports it.

Long texts are aligned word by word first (whitespace-separated tokens, with
``difflib.SequenceMatcher`` and autojunk off), then character by character inside the
regions that differ, so the cost follows the differences, not the text's length.

>>> c = compare("가" + chr(0xF02B1) + "나 다", "가나 다")
>>> c.dropped, c.changed, c.extra
(1, 0, 0)
>>> c.examples
('dropped: 가[\\\\U000f02b1]나다',)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from hwpscan.forensics.surrogates import SURROGATE_RE, escape_snippet, merge_pairs

__all__ = ["Comparison", "compare", "count_surrogates", "count_replacement", "significant"]

#: Characters the comparison ignores: layout, not content. Not \x0b or \x0c: in HWP
#: those are control codes, and their leaking into text is exactly what we look for.
WHITESPACE_RE = re.compile("[\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
MAX_EXAMPLES = 5
#: Above this many character pairs a differing region is counted, not aligned.
MAX_CELLS = 4_000_000
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
    """
    ref_words = _words(reference)
    got_words = _words(merge_pairs(text))
    if ref_words == got_words:
        return Comparison()
    tally = _Tally(max_examples)
    words = SequenceMatcher(None, ref_words, got_words, autojunk=False)
    for op, i1, i2, j1, j2 in words.get_opcodes():
        if op == "equal":
            continue
        a = "".join(ref_words[i1:i2])
        b = "".join(got_words[j1:j2])
        before = "".join(ref_words[max(0, i1 - 3) : i1])
        after = "".join(ref_words[i2 : i2 + 3])
        _align_chars(a, b, before, after, tally)
    return Comparison(tally.dropped, tally.changed, tally.extra, tuple(tally.examples))


def _words(text: str) -> list[str]:
    return [w for w in WHITESPACE_RE.split(text) if w]


class _Tally:
    def __init__(self, max_examples: int) -> None:
        self.dropped = self.changed = self.extra = 0
        self.examples: list[str] = []
        self.max_examples = max_examples

    def add(self, op: str, removed: str, added: str, before: str, after: str) -> None:
        common = min(len(removed), len(added))
        if op == "replace":
            self.changed += common
        self.dropped += len(removed) - (common if op == "replace" else 0)
        self.extra += len(added) - (common if op == "replace" else 0)
        if len(self.examples) < self.max_examples:
            self.examples.append(_example(op, removed, added, before, after))


def _align_chars(a: str, b: str, before: str, after: str, tally: _Tally) -> None:
    """Character-level alignment of one differing region (*before*/*after*: context)."""
    if not a or not b or len(a) * len(b) > MAX_CELLS:
        op = "delete" if not b else "insert" if not a else "replace"
        tally.add(op, a, b, before, after)
        return
    chars = SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in chars.get_opcodes():
        if op != "equal":
            tally.add(op, a[i1:i2], b[j1:j2], (before + a[:i1]), a[i2:] + after)


def _example(op: str, removed: str, added: str, before: str, after: str) -> str:
    """One escaped example, e.g. ``dropped: 가[\\U000f02b1]나``.

    >>> _example("replace", chr(0xF02B1), chr(0xDB80), "앞", "뒤")
    'changed: 앞[\\\\U000f02b1 -> \\\\udb80]뒤'
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
    """Join non-zero counts as ``2 surrogates, 1 dropped``.

    >>> describe([("surrogates", 2), ("dropped", 0), ("extra", 1)])
    '2 surrogates, 1 extra'
    """
    return ", ".join(f"{n:,} {label}" for label, n in counts if n)
