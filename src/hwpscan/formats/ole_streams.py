"""Stream bytes of a compound file, from olefile's parsed structures.

``olefile`` parses the header, the FAT, the MiniFAT and the directory; its
``openstream`` then reads a stream one sector at a time and formats a log message for
each, which for a 2 KB stream in the mini stream means some 30 rounds of string
formatting. :class:`OleStreams` follows the same sector chains through olefile's own
tables in a tight loop and slices the sectors straight from the file's bytes. A chain
that ends early or points past the end of the file gives a short result, as olefile's
does; anything unexpected in olefile's structures falls back to ``openstream``.

>>> import io, olefile
>>> from hwpscan.synth.cfb import write_cfb
>>> data = write_cfb({"a": b"x" * 100, "d/b": b"y" * 5000})
>>> streams = OleStreams(olefile.OleFileIO(io.BytesIO(data)), data)
>>> streams.paths, streams.size("d/b"), streams.read("A") == b"x" * 100
(['a', 'd/b'], 5000, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import olefile

__all__ = ["OleStreams"]

_STREAM = olefile.STGTY_STREAM
_STORAGE = olefile.STGTY_STORAGE


def _chain(
    buf: bytes | memoryview, fat: Sequence[int], start: int, size: int, sector: int, base: int
) -> bytes:
    """The first *size* bytes along the chain from *start* (short when the chain or the
    buffer ends first). At most one step per table entry: a looping chain can neither
    hang nor make the result larger than the file."""
    parts = []
    n = len(fat)
    s = start
    for _ in range(min(-(-size // sector), n)):
        if s >= n:  # ENDOFCHAIN, FREESECT or garbage: the chain ends here
            break
        pos = base + s * sector
        parts.append(buf[pos : pos + sector])
        s = fat[s]
    return b"".join(parts)[:size]


class OleStreams:
    """Path -> bytes for the streams of an open :class:`olefile.OleFileIO`."""

    def __init__(self, ole: olefile.OleFileIO, data: bytes) -> None:
        self.ole = ole
        self.data = memoryview(data)
        self.entries: dict[str, object] = {}
        self.paths: list[str] = []
        self._mini: tuple[bytes, Sequence[int]] | None = None
        self._collect(ole.root, "")

    def _collect(self, node: object, prefix: str) -> None:
        stack = [(node, prefix)]
        while stack:
            entry, at = stack.pop()
            for kid in sorted(entry.kids, key=lambda k: k.name.lower()):  # type: ignore[attr-defined]
                path = at + kid.name
                if kid.entry_type == _STORAGE:
                    stack.append((kid, path + "/"))
                elif kid.entry_type == _STREAM:
                    self.entries[path.lower()] = kid
                    self.paths.append(path)
        self.paths.sort(key=str.lower)

    def size(self, path: str) -> int:
        """Declared size of *path* (``KeyError`` when there is no such stream)."""
        return int(self.entries[path.lower()].size)  # type: ignore[attr-defined]

    def read(self, path: str) -> bytes:
        """The stream's bytes; shorter than :meth:`size` when the file is cut short."""
        entry = self.entries[path.lower()]
        size, start = entry.size, entry.isectStart  # type: ignore[attr-defined]
        ole = self.ole
        try:
            if size < ole.minisectorcutoff:
                ministream, minifat = self._ministream()
                return _chain(ministream, minifat, start, size, ole.minisectorsize, 0)
            return _chain(self.data, ole.fat, start, size, ole.sectorsize, ole.sectorsize)
        except (AttributeError, TypeError):  # olefile's internals moved: use its reader
            return ole.openstream(path).read()

    def _ministream(self) -> tuple[bytes, Sequence[int]]:
        if self._mini is None:
            ole = self.ole
            if ole.minifat is None:
                ole.loadminifat()
            root = ole.root
            raw = _chain(
                self.data, ole.fat, root.isectStart, root.size, ole.sectorsize, ole.sectorsize
            )
            self._mini = (raw, ole.minifat)
        return self._mini
