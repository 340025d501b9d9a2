"""Align an extractor's text with the reference view and sort what differs into classes.

The reference is our *strict* view of the document body (surrogate pairs merged).
Whitespace is not compared (extractors join paragraphs, cells and lines their own way);
every other character counts.

The alignment is an exact longest common subsequence (Myers' O(ND) middle snake, or a
bit-parallel Hirschberg cut where that is cheaper), so nothing is called lost that an
extractor kept. Characters found on one side only are set aside first and shared ends
trimmed, so the cost follows the differences. Past a step budget a region is not
aligned but counted as *replaced* (never lost) and the comparison is ``exact=False``.

Each gap between matched characters is sorted. The extractor's characters there are
**leaked** when the run holds control codes (control data decoded as text), **markup**
when they are Markdown/HTML syntax, entities, URLs or placeholders such as ``[그림]``,
else **extra**. The document's characters are **replaced** one for one by what stands
in their place (a character such as ``?`` or U+FFFD, or a placeholder), and **lost**
beyond that or where only markup stands. Private-use (PUA) characters are counted apart,
U+FFFD and surrogates on the text as returned. Adjacent surrogate halves are merged
before aligning and lone ones left out: an extractor returning only the high half of
U+F02B1 has lost it.

>>> c = compare("가" + chr(0xF02B1) + "나 다", "가나 다")
>>> c.lost, c.lost_pua, c.replaced, c.markup
(1, 1, 0, 0)
>>> c.examples
('lost: 가[\\\\U000f02b1]나다',)
>>> compare("표 안의 글", "| 표 | 안의 글 |").markup
3
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import isqrt
from typing import Any

from hwpscan.forensics.surrogates import PUA_RE, SURROGATE_RE, escape_snippet, merge_pairs

#: Characters the comparison ignores: layout, not content. Not \x0b or \x0c: in HWP
#: those are control codes, and their leaking into text is exactly what we look for.
WHITESPACE_RE = re.compile("[\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
#: The defect classes a comparison sorts differences into, most severe first.
CLASSES = ("leaked", "lost", "replaced", "markup", "extra")
#: Examples kept per class (and in the severity-ordered list).
MAX_EXAMPLES = 5
#: Steps the alignment may take (a few seconds of CPU at most) before it
#: stops aligning a region and counts it as replaced.
STEP_BUDGET = 10_000_000
#: Characters of the other side one budget step covers in a bit-parallel LCS row.
_ROW_WIDTH = 2_048
#: Regions this small (product of the two lengths) are aligned by plain dynamic programming.
_SMALL = 1_024
_CONTEXT = 8
_SNIPPET = 24

#: Control codes: a run holding one is control-code data decoded as text.
CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Placeholders extractors print instead of objects (their text is replaced).
PLACEHOLDER_RE = re.compile(
    r"[<‹〈\[(](?:표|그림|그리기|수식|차트|사진|이미지|도형|글상자|개체|OLE|각주|미주|"
    r"image|img|table|figure|picture|chart|equation|object)[^<>‹〈\[\]()]{0,20}[>›〉\])]"
    r"|!\[[^\]]{0,80}\]\([^)]{0,300}\)",
    re.IGNORECASE,
)
#: Markup syntax: tags, entities (or their tail after a matched '&'), URLs, Markdown.
MARKUP_RE = re.compile(
    r"</?[A-Za-z][A-Za-z0-9:-]*(?:[^<>]{0,300})?/?>"
    r"|<!--.{0,300}?-->"
    r"|&?(?:[A-Za-z]{2,8}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});"
    r"|(?:https?|ftp|mailto|file):[^\s<>\"'\]\[(){}|]+"
    r"|www\.[^\s<>\"'\]\[(){}|]+"
    r"|[|#*_>=~:+`\\\[\](){}!-]+"
)
#: Markup tokens never aligned with document text (unless the document has them verbatim).
_HIDDEN_RE = re.compile(
    f"{PLACEHOLDER_RE.pattern}"
    r"|</?[A-Za-z][A-Za-z0-9:-]*(?:[^<>]{0,300})?/?>|<!--.{0,300}?-->"
    r"|(?:https?|ftp|mailto|file):[^\s<>\"'\]\[(){}|]+|www\.[^\s<>\"'\]\[(){}|]+",
    re.IGNORECASE,
)
_PIECE_RE = re.compile(f"(?P<ph>{PLACEHOLDER_RE.pattern})|{MARKUP_RE.pattern}", re.IGNORECASE)
_SEVERITY = {"surrogate": 0, "pua": 1, "leaked": 2, "lost": 3, "replaced": 4, "extra": 5}


@dataclass(frozen=True, slots=True)
class Comparison:
    """How an extractor's text differs from the reference (whitespace ignored).

    ``lost``/``lost_pua`` and ``replaced``/``replaced_pua`` count document characters
    (the ``_pua`` counts are the private-use part); ``leaked``, ``markup`` and ``extra``
    count the extractor's characters. ``matched`` is the length of the common
    subsequence found; ``exact`` is False when the step budget ran out (then some
    unaligned document characters were counted as replaced). ``examples`` holds up to
    five examples by severity (PUA first), ``by_class`` up to five per class.
    """

    lost: int = 0
    lost_pua: int = 0
    replaced: int = 0
    replaced_pua: int = 0
    leaked: int = 0
    markup: int = 0
    extra: int = 0
    matched: int = 0
    exact: bool = True
    examples: tuple[str, ...] = ()
    by_class: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        return not (self.lost or self.replaced or self.leaked or self.markup or self.extra)


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
    return SURROGATE_RE.sub("", merge_pairs(significant(text)))


def count_chars(text: str) -> int:
    r"""The ``chars`` of a matrix row: code points of *text* (a surrogate pair is two),
    line ends not counted, as the scan does (a line break inside a paragraph, HWP
    control 10, counts here as a line end: one less than the scan).

    >>> count_chars("가 나\n다\r\n" + chr(0xDB80) + chr(0xDEB1))
    6
    """
    return len(text) - text.count("\n") - text.count("\r")


def compare(reference: str, text: str, *, budget: int = STEP_BUDGET) -> Comparison:
    """Align *text* with *reference* and sort the differences into classes.

    >>> compare("표 안의 글", "표안의글").identical
    True
    >>> c = compare("가나다", "가?다")
    >>> (c.lost, c.replaced, c.extra), c.examples
    ((0, 1, 1), ('replaced: 가[나 -> ?]다',))
    >>> c = compare("본문", "본" + chr(0x0B) + "ctl문")
    >>> (c.lost, c.leaked, c.extra), c.examples
    ((0, 4, 0), ('leaked: 본[+\\\\x0bctl]문',))
    >>> compare("a" + chr(0xF02B1), "a" + chr(0xDB80) + chr(0xDEB1)).identical
    True
    >>> compare("a" + chr(0xF02B1), "a" + chr(0xDB80)).lost_pua
    1
    """
    a = content(reference)
    b = content(text)
    if a == b:
        return Comparison(matched=len(a))
    tally = _Tally(a, b)
    aligner = _Aligner(a, _hide_tokens(a, b), tally.matched_run, budget)
    tally.unaligned = aligner.unaligned  # filled as the alignment goes, read by the gaps
    exact = aligner.run()
    tally.finish()
    return tally.result(exact)


def _hide_tokens(a: str, b: str) -> str:
    """*b* with placeholders, tags and URLs that the document does not contain made
    unmatchable (same length, so positions hold): the 표 of ``<표>`` is not the table's
    text, and must not be lined up with it.

    >>> _hide_tokens("표 안의 글", "<표>") == "\uffff" * 3
    True
    """
    if not _HIDDEN_RE.search(b):
        return b
    blank = next(c for c in ("\uffff", "\ufffe", "\U0010ffff", "\U0010fffe") if c not in a)
    return _HIDDEN_RE.sub(lambda m: m.group() if m.group() in a else blank * len(m.group()), b)


def align(a: str, b: str, *, budget: int = STEP_BUDGET) -> tuple[list[tuple[int, int, int]], bool]:
    """The matched runs ``(i, j, n)`` (``a[i:i+n] == b[j:j+n]``, in order) of a longest
    common subsequence of *a* and *b*, and whether it is exact (the budget held).

    >>> align("abcbdab", "bdcaba")[0]
    [(1, 0, 1), (4, 1, 1), (5, 3, 2)]
    """
    runs: list[tuple[int, int, int]] = []

    def keep(i: int, j: int, n: int) -> None:
        if runs and runs[-1][0] + runs[-1][2] == i and runs[-1][1] + runs[-1][2] == j:
            last = runs.pop()
            runs.append((last[0], last[1], last[2] + n))
        else:
            runs.append((i, j, n))

    exact = _Aligner(a, b, keep, budget).run()
    return runs, exact


# --- The alignment ---------------------------------------------------------------------


#: A middle snake: (x, y, u, v) with a[x:u] == b[y:v].
_Snake = tuple[int, int, int, int]


class _OverBudget(Exception):
    pass


class _Aligner:
    """Exact LCS between *a* and *b*, reported as matched runs to *emit* in order.

    Characters present on one side only are removed first (they can match nothing, so
    the LCS is unchanged) and positions are mapped back when reporting. A region whose
    search exceeds the step budget is reported as unmatched (``run`` returns False).
    """

    def __init__(self, a: str, b: str, emit: Callable[[int, int, int], None], budget: int) -> None:
        self.emit_orig = emit
        self.budget = budget
        self.exact = True
        self.unaligned: list[int] = []  # original start (in a) of each region left unaligned
        self.a, self.amap = _keep_only(a, set(b))
        self.b, self.bmap = _keep_only(b, set(a))
        self.ra, self.rb = self.a[::-1], self.b[::-1]  # ends are compared as starts of these

    def run(self) -> bool:
        self._diff(0, len(self.a), 0, len(self.b))
        return self.exact

    def _emit(self, x: int, y: int, n: int) -> None:
        """Report a run in the original positions (split where removed characters were)."""
        if n <= 0:
            return
        amap, bmap = self.amap, self.bmap
        if amap[x + n - 1] - amap[x] == n - 1 and bmap[y + n - 1] - bmap[y] == n - 1:
            self.emit_orig(amap[x], bmap[y], n)  # contiguous in the original texts too
            return
        for i in range(n):
            self.emit_orig(amap[x + i], bmap[y + i], 1)

    def _suffix(self, a1: int, a2: int, b1: int, b2: int) -> int:
        """Length of the common end of a[a1:a2] and b[b1:b2]."""
        na, nb = len(self.a), len(self.b)
        return _common_prefix(self.ra, na - a2, na - a1, self.rb, nb - b2, nb - b1)

    def _diff(self, a1: int, a2: int, b1: int, b2: int) -> None:
        n = _common_prefix(self.a, a1, a2, self.b, b1, b2)
        self._emit(a1, b1, n)
        a1, b1 = a1 + n, b1 + n
        m = self._suffix(a1, a2, b1, b2)
        a2, b2 = a2 - m, b2 - m
        if a1 < a2 and b1 < b2:
            if (a2 - a1) * (b2 - b1) <= _SMALL or a2 - a1 == 1:  # one row: no cut to make
                self._small(a1, a2, b1, b2)
            else:
                self._split(a1, a2, b1, b2)
        self._emit(a2, b2, m)

    def _split(self, a1: int, a2: int, b1: int, b2: int) -> None:
        """Cut a region on an optimal path and align both halves: at the middle snake
        when few edits separate the sides (Myers), else at the middle row (Hirschberg,
        with bit-parallel LCS rows). Out of budget, the region stays unmatched."""
        n, m = a2 - a1, b2 - b1
        cost = n * (1 + m // _ROW_WIDTH) + 4 * m  # of the bit-parallel cut, in steps
        # Myers takes about D*D/2 steps for D edits, and D >= |n - m|: try it when it may
        # be cheaper than the cut, and give up once it has cost as much as the cut would.
        if (n - m) * (n - m) // 2 < cost:
            try:
                x, y, u, v = self._middle_snake(a1, a2, b1, b2, min(self.budget, cost))
            except _OverBudget:
                pass
            else:
                self._diff(a1, x, b1, y)
                self._emit(x, y, u - x)
                self._diff(u, a2, v, b2)
                return
        if cost > self.budget:
            self.exact = False  # left unmatched: counted as replaced, never as lost
            self.unaligned.append(self.amap[a1])
            return
        self.budget -= cost
        mid = (a1 + a2) // 2
        j = _best_cut(self.a[a1:mid], self.a[mid:a2], self.b[b1:b2])
        self._diff(a1, mid, b1, b1 + j)
        self._diff(mid, a2, b1 + j, b2)

    def _small(self, a1: int, a2: int, b1: int, b2: int) -> None:
        """Plain LCS table for a small region."""
        a, b = self.a, self.b
        n, m = a2 - a1, b2 - b1
        table = [[0] * (m + 1) for _ in range(n + 1)]
        for i in range(n - 1, -1, -1):
            row, below = table[i], table[i + 1]
            for j in range(m - 1, -1, -1):
                same = a[a1 + i] == b[b1 + j]
                row[j] = below[j + 1] + 1 if same else max(below[j], row[j + 1])
        i = j = 0
        while i < n and j < m:
            if a[a1 + i] == b[b1 + j]:
                self._emit(a1 + i, b1 + j, 1)
                i, j = i + 1, j + 1
            elif table[i + 1][j] >= table[i][j + 1]:
                i += 1
            else:
                j += 1

    def _middle_snake(self, a1: int, a2: int, b1: int, b2: int, cap: int) -> _Snake:
        """The middle snake of an optimal path (Myers 1986, section 4b): (x, y, u, v)
        with a[x:u] == b[y:v] on some shortest edit script. Both sides are non-empty and
        differ at both ends, so the edit distance is at least 2 and both halves shrink.

        Each round *d* extends the forward paths from the start and the backward paths
        from the end by one edit; the snake is where they first overlap.
        """
        n, m = a2 - a1, b2 - b1
        max_d = (n + m + 1) // 2
        offset = max_d + 1  # v[offset + k]: the furthest x reached on diagonal k
        size = 2 * offset + 1 if offset * offset < cap else 2 * isqrt(max(0, cap)) + 5
        offset = min(offset, size // 2)  # no more diagonals than the budget can reach
        vf, vb = [0] * (2 * offset + 1), [0] * (2 * offset + 1)
        forward: _Side = (self.a, self.b, a1, b1, vf, vb)
        na, nb = len(self.a), len(self.b)
        backward: _Side = (self.ra, self.rb, na - a2, nb - b2, vb, vf)  # from the end: reversed
        for d in range(max_d + 1):
            step = 2 * d + 2
            if step > cap:
                raise _OverBudget
            cap -= step
            self.budget -= step
            found = _round(forward, n, m, offset, d, odd=True)
            if found is not None:
                sx, sy, x, y = found
                return a1 + sx, b1 + sy, a1 + x, b1 + y
            found = _round(backward, n, m, offset, d, odd=False)
            if found is not None:
                sx, sy, x, y = found
                return a1 + n - x, b1 + m - y, a1 + n - sx, b1 + m - sy
        raise AssertionError("no middle snake")  # pragma: no cover - Myers guarantees one


#: One direction of a middle-snake search: a and b, the region's start in each, the
#: furthest x on each diagonal in this direction and in the other.
_Side = tuple[str, str, int, int, list[int], list[int]]


def _round(side: _Side, n: int, m: int, offset: int, d: int, *, odd: bool) -> _Snake | None:
    """Round *d* of one direction of the middle-snake search over a[a1:a1+n] and
    b[b1:b1+m] (the backward one runs on the reversed texts): extend the furthest path
    on each diagonal by one edit and its snake. Returns the snake ``(sx, sy, x, y)``
    (region positions) when the path meets one of the *other* direction, which is
    checked going forward when the sides' length difference is odd, else backward."""
    a, b, a1, b1, v, other = side
    delta = n - m
    meets = (delta & 1) == odd
    reach = d - 1 if odd else d
    for k in range(-d, d + 1, 2):
        if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
            x = v[offset + k + 1]
        else:
            x = v[offset + k - 1] + 1
        y = x - k
        sx, sy = x, y
        if x < n and y < m and a[a1 + x] == b[b1 + y]:
            s = _common_prefix(a, a1 + x, a1 + n, b, b1 + y, b1 + m)
            x, y = x + s, y + s
        v[offset + k] = x
        if meets and -reach <= delta - k <= reach and x + other[offset + delta - k] >= n:
            return sx, sy, x, y
    return None


def _best_cut(top: str, bottom: str, b: str) -> int:
    """Where an optimal alignment of ``top + bottom`` with *b* crosses from *top* to
    *bottom*: the j maximising LCS(top, b[:j]) + LCS(bottom, b[j:])."""
    import numpy as np

    forward = _lcs_row(top, b)
    backward = _lcs_row(bottom[::-1], b[::-1])
    return int(np.argmax(forward + backward[::-1]))


def _lcs_row(x: str, y: str) -> Any:
    """``row[j] = LCS(x, y[:j])`` for every j, by the bit-parallel LCS of Allison and
    Dix (in Hyyro's form): one big-integer step per character of *x*."""
    import numpy as np

    m = len(y)
    codes = np.frombuffer(y.encode("utf-32-le"), dtype=np.uint32)
    wanted = np.frombuffer("".join(set(x)).encode("utf-32-le"), dtype=np.uint32)
    masks: dict[str, int] = {}
    for code in np.intersect1d(codes, wanted):
        bits = np.packbits(codes == code, bitorder="little")
        masks[chr(int(code))] = int.from_bytes(bits.tobytes(), "little")
    full = (1 << m) - 1
    v = full
    for ch in x:
        match = masks.get(ch)
        if match:
            u = v & match
            v = ((v + u) | (v - u)) & full
    bits = np.unpackbits(
        np.frombuffer(v.to_bytes((m + 7) // 8, "little"), dtype=np.uint8), bitorder="little"
    )[:m]
    row = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(1 - bits.astype(np.int64), out=row[1:])
    return row


def _keep_only(s: str, alphabet: set[str]) -> tuple[str, Sequence[int]]:
    """*s* without the characters outside *alphabet*, and the kept positions."""
    if all(c in alphabet for c in set(s)):
        return s, range(len(s))
    positions = array("q", (i for i, c in enumerate(s) if c in alphabet))
    return "".join(s[i] for i in positions), positions


def _common_prefix(a: str, a1: int, a2: int, b: str, b1: int, b2: int) -> int:
    """Length of the common start of a[a1:a2] and b[b1:b2], by slices (compared in C)
    that double while they agree and halve when they do not: the cost follows the answer.

    >>> _common_prefix("xabcd", 1, 5, "abcz", 0, 4)
    3
    """
    limit = min(a2 - a1, b2 - b1)
    n, step = 0, 1
    while n < limit:
        step = min(step, limit - n)
        if a[a1 + n : a1 + n + step] == b[b1 + n : b1 + n + step]:
            n += step
            step *= 2
        elif step == 1:
            break
        else:
            step //= 2
    return n


# --- Sorting the gaps into classes -----------------------------------------------------


class _Tally:
    """Walks the matched runs and sorts each gap between them."""

    def __init__(self, a: str, b: str) -> None:
        self.a, self.b = a, b
        self.pa = self.pb = 0
        self.matched = 0
        self.counts = dict.fromkeys(
            ("lost", "lost_pua", "replaced", "replaced_pua", "leaked", "markup", "extra"), 0
        )
        self.unaligned: list[int] = []
        self.best: list[tuple[int, int, str]] = []  # (severity, order, text), severity first
        self.per_class: dict[str, list[tuple[int, int, str]]] = {c: [] for c in CLASSES}
        self.order = 0

    def matched_run(self, i: int, j: int, n: int) -> None:
        if i > self.pa or j > self.pb:
            self.gap(self.pa, i, self.pb, j)
        self.pa, self.pb = i + n, j + n
        self.matched += n

    def finish(self) -> None:
        if self.pa < len(self.a) or self.pb < len(self.b):
            self.gap(self.pa, len(self.a), self.pb, len(self.b))

    def gap(self, a1: int, a2: int, b1: int, b2: int) -> None:
        """Sort one gap. What the extractor put there stands in for document characters
        one for one: a character (``?``, U+FFFD, a standard bullet for a PUA one) or a
        placeholder (``<표>`` stands for one character, not for the table it hides);
        document characters beyond those are lost, as are those with only markup syntax
        in their place."""
        gone, added = self.a[a1:a2], self.b[b1:b2]
        units = 0  # how many document characters what was added can stand for
        if self.unaligned and any(a1 <= u < a2 for u in self.unaligned):
            units = len(gone)  # not aligned (budget): replaced, never lost
        leaked, markup, extra, units = _weigh(added, units)
        replaced = min(len(gone), units)
        lost = len(gone) - replaced
        lost_pua = replaced_pua = 0
        if gone and PUA_RE.search(gone):
            replaced_pua = len(PUA_RE.findall(gone[:replaced]))
            lost_pua = len(PUA_RE.findall(gone[replaced:]))
        found = {"leaked": leaked, "markup": markup, "extra": extra, "replaced": replaced}
        found |= {"replaced_pua": replaced_pua, "lost": lost, "lost_pua": lost_pua}
        for name, n in found.items():
            self.counts[name] += n
        kind = next((k for k in ("lost", "replaced", "leaked", "extra") if found[k]), "markup")
        severity = _SEVERITY["pua"] if lost_pua or replaced_pua else _SEVERITY.get(kind, 6)
        if leaked:
            severity = min(severity, _SEVERITY["leaked"])
        self._example(kind, severity, a1, a2, gone, added)
        if lost and replaced:
            self._example("replaced", severity, a1, a2, gone, added)
        if leaked and kind != "leaked":
            self._example("leaked", severity, a1, a2, gone, added)

    def _example(self, kind: str, severity: int, a1: int, a2: int, gone: str, added: str) -> None:
        """Keep the example if it is among the most severe of its class or overall."""
        shown, best, limit = self.per_class[kind], self.best, MAX_EXAMPLES
        if all(len(kept) >= limit and severity >= kept[-1][0] for kept in (shown, best)):
            return
        before = self.a[max(0, a1 - _CONTEXT) : a1]
        text = _example(kind, gone, added, before, self.a[a2 : a2 + _CONTEXT])
        self.order += 1
        for kept in (shown, best):
            kept.append((severity, self.order, text))
            kept.sort()
            del kept[limit:]

    def result(self, exact: bool) -> Comparison:
        return Comparison(
            **self.counts,
            matched=self.matched,
            exact=exact,
            examples=tuple(t for _, _, t in self.best),
            by_class={k: tuple(t for _, _, t in v) for k, v in self.per_class.items() if v},
        )


def _weigh(added: str, units: int) -> tuple[int, int, int, int]:
    """What an extractor's run *added* holds: (leaked, markup, extra, units), *units*
    being how many document characters it stands for (on top of the *units* given).

    A run with a control code is all leaked data and stands for as many characters;
    otherwise U+FFFD (counted apart, on the raw text) and other text stand for one
    character each, markup for none, a placeholder for one.

    >>> _weigh("", 2), _weigh("a" + chr(0x0B), 5), _weigh("<표>|?", 0)
    ((0, 0, 0, 2), (2, 0, 0, 2), (0, 4, 1, 2))
    """
    if not added:
        return 0, 0, 0, units
    if CONTROL_RE.search(added):
        return len(added), 0, 0, len(added)
    markup = extra = pos = 0
    for m in (*_PIECE_RE.finditer(added), None):
        text = added[pos : m.start() if m else None]  # the text before a markup piece
        extra += len(text) if text.strip("\ufffd") else 0
        units += len(text)
        if m:
            markup += len(m.group())
            units += m.group("ph") is not None
            pos = m.end()
    return 0, markup, extra, units


def _example(kind: str, removed: str, added: str, before: str, after: str) -> str:
    """One escaped example, e.g. ``lost: 가[\\U000f02b1]나``.

    >>> _example("replaced", chr(0xF02B1), "?", "앞", "뒤")
    'replaced: 앞[\\\\U000f02b1 -> ?]뒤'
    """
    left = escape_snippet(before[-_CONTEXT:])
    right = escape_snippet(after[:_CONTEXT])
    gone = escape_snippet(_cut(removed))
    new = escape_snippet(_cut(added))
    if not added:
        return f"{kind}: {left}[{gone}]{right}"
    if not removed:
        return f"{kind}: {left}[+{new}]{right}"
    return f"{kind}: {left}[{gone} -> {new}]{right}"


def _cut(text: str) -> str:
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."


def describe(counts: Sequence[tuple[str, int]]) -> str:
    """Join non-zero counts as ``2 surrogates, 1 lost`` (a plural label loses its
    ``s`` for one).

    >>> describe([("surrogates", 2), ("lost", 0), ("extra", 1)])
    '2 surrogates, 1 extra'
    >>> describe([("surrogates", 1), ("replacement chars", 1)])
    '1 surrogate, 1 replacement char'
    """
    return ", ".join(
        f"{n:,} {label[:-1] if n == 1 and label.endswith('s') else label}"
        for label, n in counts
        if n
    )
