"""Guards for pipelines: make any string, or any JSON-like value, safe to encode as UTF-8.

A ``str`` fails ``encode("utf-8")`` only when it holds surrogates. Two halves of a
character outside the BMP are merged back without loss; a half with no partner (an
*orphan*) carries nothing and is dropped, replaced by U+FFFD, or escaped visibly, as the
caller chooses. A clean string costs one look (:func:`next_surrogate`, the strict UTF-32
encoder: several times faster than a regex) and comes back as the same object; a dirty
one is mended only around its defects.

>>> bullet = chr(0xDB80) + chr(0xDEB1)      # U+F02B1 as a defective parser leaves it
>>> sanitize_surrogates("가" + bullet + "나") == "가" + chr(0xF02B1) + "나"
True
>>> sanitize({"text": "a" + chr(0xDC00)}, orphans="escape")
{'text': 'a\\\\udc00'}
"""

from __future__ import annotations

import codecs
import copy
import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

from hwpscan.forensics.defects import unfold as unfold_folded
from hwpscan.forensics.pua import display_of, hanyang_jamo, pua_info
from hwpscan.forensics.pua import pdf_folds as pdf_fold_chars
from hwpscan.forensics.surrogates import (
    PAIR_OR_HALF_RE,
    PAIR_RE,
    PUA_RE,
    SURROGATE_RE,
    escape_snippet,
    join_segments,
    merge_pairs,
    pair_char,
)
from hwpscan.models import Format, Segment

OrphanPolicy = Literal["drop", "replace", "escape", "box"]
#: What ``repair --pua`` does with private use: ``keep`` (lossless: folded symbols go
#: back to their plane-15 code point), ``map`` (display equivalents), ``placeholder``
#: (U+25A1 for every one) or ``drop`` (removed, and counted).
PuaMode = Literal["keep", "map", "placeholder", "drop"]
PUA_MODES = ("keep", "map", "placeholder", "drop")
#: WHITE SQUARE: what Hancom's own HWPX export writes for a lone half, and the
#: placeholder of ``--pua placeholder``.
BOX = "\u25a1"
_T = TypeVar("_T")

#: What happens to a surrogate half that has no partner.
ORPHAN_POLICIES: dict[str, Callable[[str], str]] = {
    "drop": lambda ch: "",
    "replace": lambda ch: "\ufffd",
    "escape": escape_snippet,  # chr(0xDB80) -> the six visible characters \udb80
    "box": lambda ch: BOX,  # as Hancom's HWPX export writes a lone half
}


@dataclass(frozen=True, slots=True)
class SurrogateHit:
    """One surrogate code point in a string: where, which unit, and whether it pairs."""

    position: int
    unit: int
    kind: str  # "pair-high", "pair-low" or "orphan"

    @property
    def codepoint(self) -> str:
        """``U+XXXX`` notation of the code unit.

        >>> SurrogateHit(0, 0xDB80, "orphan").codepoint
        'U+DB80'
        """
        return f"U+{self.unit:04X}"


@dataclass(frozen=True, slots=True)
class Utf8Check:
    """Whether a string encodes as UTF-8, and if not, exactly what the encoder says."""

    ok: bool
    message: str | None = None  # str(UnicodeEncodeError), word for word
    start: int | None = None  # the error's start: first surrogate of the first bad run
    end: int | None = None  # the error's end (exclusive)


@dataclass(frozen=True, slots=True)
class RepairResult:
    """What :func:`repair_text` did, with counts for the report."""

    text: str
    restored_pairs: int = 0
    removed_orphans: int = 0  # orphans dropped, replaced or escaped (per the policy)
    pua_replaced: dict[str, int] = field(default_factory=dict)  # {"U+F0854": 2}
    pua_kept: dict[str, int] = field(default_factory=dict)  # PUA with no known replacement
    folded_restored: int = 0  # HWP 5 folded symbols turned back into plane-15 code points
    old_hangul_mapped: int = 0  # Hanyang private use written as jamo (--pua map)
    pua_dropped: dict[str, int] = field(default_factory=dict)  # removed (--pua drop)
    pua_placeheld: dict[str, int] = field(default_factory=dict)  # written as U+25A1


def orphan_policy(orphans: str) -> Callable[[str], str]:
    try:
        return ORPHAN_POLICIES[orphans]
    except (KeyError, TypeError):
        choices = ", ".join(ORPHAN_POLICIES)
        raise ValueError(f"orphans must be one of {choices}, not {orphans!r}") from None


#: Windows of text handed to the UTF-32 encoder: small first (a defect near the start costs
#: little), doubling up to the largest (bounded memory on huge texts).
_WINDOW_MIN = 1 << 10
_WINDOW_MAX = 1 << 16
_utf32 = codecs.utf_32_le_encode  # the codec function itself: no lookup by name per call


def next_surrogate(text: str, start: int = 0) -> int:
    """Index of the first surrogate in ``text`` at or after ``start``, or -1 if none: the
    first code point the strict ``utf-32-le`` encoder refuses (it refuses only those).

    >>> next_surrogate("가나다"), next_surrogate("a" + chr(0xDEB1) + "b" + chr(0xD800), 2)
    (-1, 3)
    """
    n = len(text)
    if start == 0 and n <= _WINDOW_MAX:  # most strings: one call, no slice
        try:
            _utf32(text)
        except UnicodeEncodeError as exc:
            return exc.start
        return -1
    window = _WINDOW_MIN
    pos = start
    while pos < n:
        end = pos + window
        try:
            _utf32(text[pos:end])
        except UnicodeEncodeError as exc:
            return pos + exc.start
        pos = end
        window = min(window * 2, _WINDOW_MAX)
    return -1


#: Dense defects (a bullet on every line) are cheaper to mend in one codec pass over the
#: whole text than one by one: switch after this many defects closer than _DENSE_GAP.
_DENSE_AFTER = 16
_DENSE_GAP = 256


def _mend(text: str, first: int, policy: Callable[[str], str]) -> tuple[str, int, int]:
    """Rebuild ``text`` from its first surrogate (at ``first``) on: merge pairs, apply
    ``policy`` to orphans; (text, pairs, orphans). Sparse defects are mended one by one;
    dense ones by one :func:`merge_pairs` pass over the whole text and a sweep of the
    orphans left (the same result, cheaper than thousands of small steps)."""
    parts: list[str] = []
    append = parts.append
    pairs = orphans = last = 0
    i = first
    while i >= 0:
        if pairs + orphans >= _DENSE_AFTER and i - first < (pairs + orphans) * _DENSE_GAP:
            return _mend_dense(text, policy)  # redoes the few defects mended so far
        append(text[last:i])
        if PAIR_RE.match(text, i) is not None:
            append(pair_char(text[i : i + 2]))
            last = i + 2
            pairs += 1
        else:
            append(policy(text[i]))
            last = i + 1
            orphans += 1
        i = next_surrogate(text, last)
    append(text[last:])
    return "".join(parts), pairs, orphans


def _mend_dense(text: str, policy: Callable[[str], str]) -> tuple[str, int, int]:
    merged = merge_pairs(text)  # each merged pair shortens the text by one
    pairs = len(text) - len(merged)
    if next_surrogate(merged) < 0:
        return merged, pairs, 0
    orphans = 0

    def one(m: re.Match[str]) -> str:
        nonlocal orphans
        orphans += 1
        return policy(m.group())

    return SURROGATE_RE.sub(one, merged), pairs, orphans


@overload
def sanitize_surrogates(text: str, orphans: OrphanPolicy = ...) -> str: ...


@overload
def sanitize_surrogates(text: _T, orphans: OrphanPolicy = ...) -> _T: ...


def sanitize_surrogates(text: Any, orphans: OrphanPolicy = "drop") -> Any:
    r"""Return ``text`` safe for UTF-8: pairs merged back, orphans handled per ``orphans``.

    ``orphans`` is ``"drop"`` (remove), ``"replace"`` (U+FFFD), ``"escape"`` (the visible
    ``\udb80``) or ``"box"`` (U+25A1). A string without surrogates comes back as the same
    object, and so does anything that is not a ``str``, so it can wrap any field.

    >>> s = "한글"
    >>> sanitize_surrogates(s) is s
    True
    >>> sanitize_surrogates("x" + chr(0xDB80) + chr(0xDEB1)) == "x" + chr(0xF02B1)
    True
    >>> lone = "a" + chr(0xDB80) + "b"
    >>> sanitize_surrogates(lone), sanitize_surrogates(lone, "replace")
    ('ab', 'a\ufffdb')
    >>> print(sanitize_surrogates(lone, "escape"))
    a\udb80b
    >>> sanitize_surrogates(None), sanitize_surrogates(b"a\xed", "replace")
    (None, b'a\xed')
    """
    policy = orphan_policy(orphans)
    return _fix(text, policy) if isinstance(text, str) else text


def _rebuild(container: Any, items: list[Any]) -> Any:
    """A container of the same type as ``container`` holding ``items`` (a dict's come
    flattened: key, value, key, value...)."""
    if isinstance(container, dict):
        new = copy.copy(container)  # keeps subclasses, defaultdict factories and the like
        new.clear()
        new.update(_distinct_keys(container, items))
        return new
    if isinstance(container, list):
        new_list = copy.copy(container)
        new_list[:] = items
        return new_list
    if hasattr(container, "_make"):  # a namedtuple
        return container._make(items)
    return type(container)(items)


def _distinct_keys(container: dict[Any, Any], items: list[Any]) -> list[tuple[Any, Any]]:
    """Mended (key, value) pairs. A key whose mending would land it on another key keeps
    its orphans visibly escaped (``\\udc00``) instead, so no value is silently lost."""
    pairs = list(zip(items[::2], items[1::2], strict=True))
    counts = Counter(key for key, _ in pairs)
    if all(n == 1 for n in counts.values()):
        return pairs
    escape = ORPHAN_POLICIES["escape"]
    return [
        (_fix(original, escape) if counts[key] > 1 and original != key else key, value)
        for original, (key, value) in zip(container, pairs, strict=True)
    ]


def _children(container: Any) -> Any:
    if isinstance(container, dict):
        return (x for item in container.items() for x in item)
    return iter(container)


#: Values a walk hands to its *objects* hook never: they hold no text to mend.
_ATOMS = (int, float, bytes, type(None))


def sanitize(
    obj: Any, *, orphans: OrphanPolicy = "drop", objects: Callable[[Any], Any] | None = None
) -> Any:
    """:func:`sanitize_surrogates` over a nested value: dicts (keys too), lists, tuples.

    Other types pass through; a container with nothing to mend comes back as the same
    object. The walk is iterative (no recursion limit); a container that contains itself
    raises ``ValueError``. When two keys would become one, the later keeps its orphans
    escaped, so no value is lost. *objects*, when given, is called with every other value
    met and its answer taken in its place (how :mod:`hwpscan.forensics.stream_guard`
    mends models and dataclasses).

    >>> sanitize({"a" + chr(0xDC00): 1, "a": 2})
    {'a\\\\udc00': 1, 'a': 2}

    >>> bad = "a" + chr(0xDC00)
    >>> sanitize({bad: [bad, (1, bad)], "n": None}) == {"a": ["a", (1, "a")], "n": None}
    True
    >>> clean = {"k": ["v", 1.5]}
    >>> sanitize(clean) is clean
    True
    """
    policy = orphan_policy(orphans)
    if isinstance(obj, str):
        return _fix(obj, policy)
    if not isinstance(obj, (dict, list, tuple)):
        return obj if objects is None or isinstance(obj, _ATOMS) else objects(obj)
    done: dict[int, Any] = {}  # id(container) -> its result, so shared parts stay shared
    active: set[int] = {id(obj)}
    # a frame: [container, iterator over its children, new children, changed?]
    stack: list[list[Any]] = [[obj, _children(obj), [], False]]
    while True:
        frame = stack[-1]
        out: list[Any] = frame[2]
        for child in frame[1]:
            if isinstance(child, str):
                new = _fix(child, policy)
            elif isinstance(child, (dict, list, tuple)):
                key = id(child)
                if key in done:
                    new = done[key]
                elif key in active:
                    raise ValueError("cannot sanitize a container that contains itself")
                else:
                    active.add(key)
                    stack.append([child, _children(child), [], False])
                    break
            elif objects is not None and not isinstance(child, _ATOMS):
                new = objects(child)
            else:
                out.append(child)
                continue
            out.append(new)
            frame[3] = frame[3] or new is not child
        else:
            stack.pop()
            container = frame[0]
            result = _rebuild(container, out) if frame[3] else container
            done[id(container)] = result
            active.discard(id(container))
            if not stack:
                return result
            parent = stack[-1]
            parent[2].append(result)
            parent[3] = parent[3] or result is not container


def _fix(text: str, policy: Callable[[str], str]) -> str:
    first = next_surrogate(text)
    return text if first < 0 else _mend(text, first, policy)[0]


def find_surrogates(text: str) -> list[SurrogateHit]:
    """Every surrogate in ``text`` with its position, code unit and role.

    >>> [(h.position, h.codepoint, h.kind) for h in find_surrogates(
    ...     "a" + chr(0xDB80) + chr(0xDEB1) + chr(0xDC00))]
    [(1, 'U+DB80', 'pair-high'), (2, 'U+DEB1', 'pair-low'), (3, 'U+DC00', 'orphan')]
    >>> find_surrogates("clean")
    []
    """
    hits: list[SurrogateHit] = []
    for found in PAIR_OR_HALF_RE.finditer(text):
        kinds = ("pair-high", "pair-low") if found.end() - found.start() == 2 else ("orphan",)
        for i, kind in enumerate(kinds, found.start()):
            hits.append(SurrogateHit(i, ord(text[i]), kind))
    return hits


def check_utf8(text: str) -> Utf8Check:
    """Would ``text.encode("utf-8")`` succeed? If not, the encoder's own error (its
    message, start and end: the first run of surrogates).

    >>> check_utf8("한글").ok
    True
    >>> c = check_utf8("ab" + chr(0xDB80) + chr(0xDEB1) + "c")
    >>> c.ok, c.start, c.end
    (False, 2, 4)
    >>> c.message
    "'utf-8' codec can't encode characters in position 2-3: surrogates not allowed"
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return Utf8Check(ok=False, message=str(exc), start=exc.start, end=exc.end)
    return Utf8Check(ok=True)


def repair_text(
    text: str,
    *,
    orphans: OrphanPolicy = "drop",
    pua_map: bool = False,
    pua: PuaMode | None = None,
    unfold: bool = False,
    pdf_folds: bool = False,
) -> RepairResult:
    """Repair one text and count what was done: the core of ``hwpscan repair``.

    Pairs are merged back, orphans handled per ``orphans``, folded symbols unfolded
    (*unfold*: HWP 5). Private use then goes as *pua* says (``pua_map``: ``"map"``):
    ``keep`` leaves it; ``map`` writes a known symbol's display equivalent, old Hangul's
    jamo, U+25A1 for a PDF fold (*pdf_folds*), and keeps the rest; ``placeholder``
    writes U+25A1 for each; ``drop`` removes each. Each is counted by code point.

    >>> r = repair_text("x" + chr(0xDB80) + chr(0xDEB1) + chr(0xDC00), pua_map=True)
    >>> r.text, r.restored_pairs, r.removed_orphans, r.pua_replaced
    ('x①', 1, 1, {'U+F02B1': 1})
    >>> r = repair_text("a" + chr(0xA2B1) + chr(0xE0BC), pua="map", unfold=True)
    >>> r.text == "a①" + "\u115f\u1161\u11ae", r.folded_restored, r.old_hangul_mapped
    (True, 1, 1)
    >>> r = repair_text(chr(0xF0FFF) + "b", pua="drop")
    >>> r.text, r.pua_dropped
    ('b', {'U+F0FFF': 1})
    """
    mode: str = pua or ("map" if pua_map else "keep")
    if mode not in PUA_MODES:
        raise ValueError(f"pua must be one of {', '.join(PUA_MODES)}, not {mode!r}")
    policy = orphan_policy(orphans)
    folded = 0
    if unfold:
        text, folded = unfold_folded(text)
    pairs = removed = 0
    first = next_surrogate(text)
    if first >= 0:
        text, pairs, removed = _mend(text, first, policy)
    done = _PuaPass(mode, pdf_folds)
    text = done.run(text)
    return RepairResult(
        text,
        pairs,
        removed,
        pua_replaced=done.counts("map"),
        pua_kept=done.counts("keep"),
        folded_restored=folded,
        old_hangul_mapped=done.old_hangul,
        pua_dropped=done.counts("drop"),
        pua_placeheld=done.counts("placeholder"),
    )


def repair_body(
    fmt: Format,
    body: Sequence[Segment],
    *,
    orphans: OrphanPolicy = "drop",
    pua: PuaMode = "keep",
) -> RepairResult:
    """The repaired text of a document's body, as ``hwpscan repair`` writes it: paragraphs
    joined by newlines, HWP 5 folded symbols unfolded first, a PDF's folds (U+F000,
    U+FFFF) treated as private use.

    >>> body = [Segment("BodyText/Section0", 0, 0, "a" + chr(0xA2B1)), Segment("s", 1, 0, "b")]
    >>> repair_body(Format.HWP5, body).text == "a" + chr(0xF02B1) + chr(10) + "b"
    True
    """
    return repair_text(
        join_segments(body),
        orphans=orphans,
        pua=pua,
        unfold=fmt is Format.HWP5,
        pdf_folds=fmt is Format.PDF,
    )


class _PuaPass:
    """One pass of ``repair --pua`` over a text, counting by outcome and ``U+XXXX``."""

    def __init__(self, mode: str, pdf_folds: bool) -> None:
        self.mode = mode
        self.folds = pdf_fold_chars() if pdf_folds else frozenset()
        self.done: dict[str, Counter[str]] = {m: Counter() for m in PUA_MODES}
        self.old_hangul = 0

    def run(self, text: str) -> str:
        pattern = _pua_or_fold_re(bool(self.folds))
        if pattern.search(text) is None:
            return text
        if self.mode == "keep":  # nothing changes: count them in one C-level pass
            for ch, n in Counter(pattern.findall(text)).items():
                self.done["keep"][f"U+{ord(ch):04X}"] += n
            return text
        return pattern.sub(self._one, text)

    def _one(self, match: re.Match[str]) -> str:
        ch = match.group()
        mode = self.mode
        if ch in self.folds and mode == "map":
            mode = "placeholder"  # which symbol it was is lost: Hancom's own square
        shown = {"keep": ch, "drop": "", "placeholder": BOX}.get(mode)
        if shown is None:  # map
            shown = display_of(ch)
            if shown is None:
                mode, shown = "keep", ch
            elif hanyang_jamo(ch) is not None and pua_info(ord(ch)) is None:
                self.old_hangul += 1
        self.done[mode][f"U+{ord(ch):04X}"] += 1
        return shown

    def counts(self, outcome: str) -> dict[str, int]:
        return dict(sorted(self.done[outcome].items()))


@functools.cache
def _pua_or_fold_re(folds: bool) -> re.Pattern[str]:
    extra = "\uf000\uffff" if folds else ""
    return re.compile(f"[{PUA_RE.pattern[1:-1]}{extra}]")
