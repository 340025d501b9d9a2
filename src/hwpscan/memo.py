"""What was made for an object, kept beside it by identity, a bounded number of them.

The main process of a scan gets, with each row, things a worker already made from it
(its JSON line, its pickled plain values); whoever needs them next, the stream, the run
store or the row spill, finds them here instead of making them again. An entry holds
its object, so an ``id`` is never reused while it is here; the oldest go first.

>>> memo: ByIdentity[object, str] = ByIdentity(2)
>>> a, b, c = object(), object(), object()
>>> memo.put(a, "a"); memo.put(b, "b"); memo.put(c, "c")
>>> memo.get(a), memo.get(c)
(None, 'c')
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["ByIdentity"]

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """Values by the identity of their object, at most *size* of them."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._held: dict[int, tuple[K, V]] = {}

    def put(self, key: K, value: V) -> None:
        held = self._held
        if len(held) >= self._size:  # oldest first: what is asked for, is asked soon
            del held[next(iter(held))]
        held[id(key)] = (key, value)

    def get(self, key: K) -> V | None:
        found = self._held.get(id(key))
        return found[1] if found is not None and found[0] is key else None
