"""A guard for streams: every item it yields encodes as UTF-8, and no pair is cut in two.

:func:`guard_stream` wraps what a pipeline sends on, item by item: an SSE event
generator, an LLM token stream, LangChain's ``astream_events``. Each item is mended by
:func:`~hwpscan.forensics.guard.sanitize`, with two things a per-item guard cannot do:
a pair cut between two string items (a token boundary inside U+F02B1) is joined (a high
half ending a string is held back for the next one; at the end, or before an item that
is not a string, it is a lone half), and pydantic models, dataclasses and exceptions are
mended field by field, as copies. Clean items pass through as the very same objects.

>>> bullet = chr(0xDB80) + chr(0xDEB1)
>>> out = list(guard_stream(["금융감독원 " + bullet[0], bullet[1] + " 보도자료"]))
>>> out == ["금융감독원 ", chr(0xF02B1) + " 보도자료"]
True
>>> list(guard_stream(["끝" + chr(0xDB80)]))
['끝', '□']
>>> list(guard_stream([{"k" + chr(0xDC00): [1, "v"]}], orphans="drop"))
[{'k': [1, 'v']}]
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, TypeVar, overload

from hwpscan.forensics.guard import OrphanPolicy, next_surrogate, orphan_policy, sanitize

_T = TypeVar("_T")
_HIGH_FIRST, _HIGH_LAST = 0xD800, 0xDBFF
_ATOMS = (int, float, bytes, type(None))


def _passes(item: Any) -> bool:
    """Whether *item* goes out as it is, told cheaply: a string without a surrogate, or a
    flat dict, list or tuple of such strings and numbers (what most events are). False
    means only "look closer": :func:`~hwpscan.forensics.guard.sanitize` decides.

    >>> _passes("가"), _passes({"data": "가", "id": 1}), _passes(["a" + chr(0xDC00)])
    (True, True, False)
    """
    kind = type(item)
    if kind is str:  # a surrogate is never printable: most text is told in C at once
        return item.isprintable() or next_surrogate(item) < 0
    if kind is dict:
        parts: Any = (*item, *item.values())
    elif kind is list or kind is tuple:
        parts = item
    else:
        return False
    texts = []
    for part in parts:
        if type(part) is str:
            texts.append(part)
        elif not isinstance(part, _ATOMS):
            return False
    # joined, a surrogate is still a surrogate: one look for all
    joined = "".join(texts)
    return joined.isprintable() or next_surrogate(joined) < 0


def sanitize_item(item: Any, *, orphans: OrphanPolicy = "box") -> Any:
    """One item made safe for UTF-8: strings, containers (keys too), pydantic models and
    dataclasses at any depth; the same object when there was nothing to mend.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Chunk:
    ...     text: str
    >>> c = Chunk("a" + chr(0xDC00))
    >>> sanitize_item(c), c.text == "a" + chr(0xDC00)
    (Chunk(text='a□'), True)
    """
    return sanitize(item, orphans=orphans, objects=_Fields(orphans))


class _Fields:
    """The *objects* hook of :func:`~hwpscan.forensics.guard.sanitize`: a pydantic model,
    a dataclass or an exception mended field by field into a copy; anything else
    untouched."""

    __slots__ = ("orphans",)

    def __init__(self, orphans: OrphanPolicy) -> None:
        self.orphans = orphans

    def __call__(self, obj: Any) -> Any:
        cls = type(obj)
        names = getattr(cls, "model_fields", None)
        if isinstance(names, dict) and hasattr(obj, "model_copy"):  # pydantic 2
            changed = self._changed(obj, names)
            return obj.model_copy(update=changed) if changed else obj
        if isinstance(obj, BaseException):  # an on_tool_error event carries the exception
            args = sanitize(obj.args, orphans=self.orphans, objects=self)
            if args is obj.args:
                return obj
            mended = copy.copy(obj)
            mended.args = args
            return mended
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changed = self._changed(obj, [f.name for f in dataclasses.fields(obj)])
            if not changed:
                return obj
            new = copy.copy(obj)
            for name, value in changed.items():
                object.__setattr__(new, name, value)  # frozen dataclasses too
            return new
        return obj

    def _changed(self, obj: Any, names: Iterable[str]) -> dict[str, Any]:
        changed: dict[str, Any] = {}
        for name in names:
            value = getattr(obj, name, None)
            new = sanitize(value, orphans=self.orphans, objects=self)
            if new is not value:
                changed[name] = new
        return changed


class StreamMender:
    """The state of one guarded stream: the high half held back, if any.

    :meth:`feed` takes an item and returns what to send for it (nothing, while a string
    was only a held half); :meth:`flush` what is left at the end.
    """

    __slots__ = ("_fields", "held", "orphans")

    def __init__(self, orphans: OrphanPolicy = "box") -> None:
        orphan_policy(orphans)  # a bad policy is named now, not at the first defect
        self.orphans: OrphanPolicy = orphans
        self.held = ""
        self._fields = _Fields(orphans)

    def feed(self, item: Any) -> list[Any]:
        """What to send on for *item*, in order."""
        if isinstance(item, str):
            if self.held:
                item = self.held + item
                self.held = ""
            if next_surrogate(item) < 0:
                return [item]  # the common case: clean, the same object
            if _HIGH_FIRST <= ord(item[-1]) <= _HIGH_LAST:
                self.held = item[-1]
                item = item[:-1]
                if not item:
                    return []
            return [sanitize(item, orphans=self.orphans)]
        out = self.flush()
        out.append(sanitize(item, orphans=self.orphans, objects=self._fields))
        return out

    def flush(self) -> list[Any]:
        """The held half as a lone half, per the policy (nothing when none is held, or
        the policy drops it)."""
        if not self.held:
            return []
        held, self.held = self.held, ""
        mended = sanitize(held, orphans=self.orphans)
        return [mended] if mended else []


@overload
def guard_stream(
    chunks: AsyncIterable[_T], *, orphans: OrphanPolicy = ...
) -> AsyncIterator[_T]: ...


@overload
def guard_stream(chunks: Iterable[_T], *, orphans: OrphanPolicy = ...) -> Iterator[_T]: ...


def guard_stream(
    chunks: Iterable[Any] | AsyncIterable[Any], *, orphans: OrphanPolicy = "box"
) -> Iterator[Any] | AsyncIterator[Any]:
    """Wrap a sync or async iterable so that every item it yields encodes as UTF-8.

    A pair split across two string items is joined; containers, pydantic models and
    dataclasses are mended whole (as copies); a lone half becomes what *orphans* says
    (``box``: U+25A1, as Hancom writes one; ``replace``, ``drop``, ``escape``). The
    wrapper is of the same kind as *chunks*: ``async for`` over an async iterable.
    """
    mender = StreamMender(orphans)  # the policy is checked now, not at the first item
    if isinstance(chunks, AsyncIterable):
        return _guard_async(chunks, mender)
    return _guard_sync(chunks, mender)


def _guard_sync(chunks: Iterable[Any], mender: StreamMender) -> Iterator[Any]:
    for item in chunks:
        if not mender.held and ((type(item) is str and item.isprintable()) or _passes(item)):
            yield item  # printable text holds no surrogate: the usual delta costs no call
        else:
            yield from mender.feed(item)
    yield from mender.flush()


async def _guard_async(chunks: AsyncIterable[Any], mender: StreamMender) -> AsyncIterator[Any]:
    async for item in chunks:
        if not mender.held and ((type(item) is str and item.isprintable()) or _passes(item)):
            yield item
        else:
            for out in mender.feed(item):
                yield out
    for out in mender.flush():
        yield out
