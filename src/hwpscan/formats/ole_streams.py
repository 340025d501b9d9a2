"""Stream bytes of a compound file, from olefile's parsed structures.

olefile's ``openstream`` reads one sector at a time and logs each; :class:`OleStreams`
follows the same sector chains through olefile's tables (the FAT, the MiniFAT, the
directory) and slices the sectors from the file's bytes. A chain that ends early or
points past the end of the file gives a short result, as olefile's does. Those tables
are olefile's internals: where they are missing (another olefile version, see
:func:`has_internals`) every call goes through its public API. Errors never switch
paths: an error in our own code is a bug and is not hidden.

>>> import io, olefile
>>> from hwpscan.rehearsal.synth.cfb import write_cfb
>>> data = write_cfb({"a": b"x" * 100, "d/b": b"y" * 5000})
>>> streams = OleStreams(olefile.OleFileIO(io.BytesIO(data)), data)
>>> streams.paths, streams.size("d/b"), streams.read("A") == b"x" * 100
(['a', 'd/b'], 5000, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import olefile

__all__ = ["ENTRY_INTERNALS", "OLE_INTERNALS", "OleStreams", "has_internals"]

_STREAM = olefile.STGTY_STREAM
_STORAGE = olefile.STGTY_STORAGE
#: What the fast path reads from an open ``OleFileIO`` (olefile 0.46 and 0.47)...
OLE_INTERNALS = (
    "root",
    "fat",
    "minifat",
    "loadminifat",
    "sectorsize",
    "minisectorsize",
    "minisectorcutoff",
)
#: ...and from its directory entries.
ENTRY_INTERNALS = ("kids", "name", "entry_type", "size", "isectStart")


def has_internals(ole: olefile.OleFileIO) -> bool:
    """True when *ole* carries the parsed tables the fast path follows."""
    return all(hasattr(ole, a) for a in OLE_INTERNALS) and all(
        hasattr(ole.root, a) for a in ENTRY_INTERNALS
    )


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

    def __init__(self, ole: olefile.OleFileIO, data: bytes, *, fast: bool | None = None) -> None:
        """*fast*: follow olefile's tables (default: when :func:`has_internals` says
        they are there); ``False`` uses olefile's public API only."""
        self.ole = ole
        self.data = memoryview(data)
        self.entries: dict[str, object] = {}
        self.paths: list[str] = []
        self._mini: tuple[bytes, Sequence[int]] | None = None
        self.fast = has_internals(ole) if fast is None else fast
        if self.fast:
            self._collect(ole.root, "")
        else:
            for parts in ole.listdir(streams=True, storages=False):
                path = "/".join(parts)
                self.entries[path.lower()] = path
                self.paths.append(path)
            self.paths.sort(key=str.lower)

    def _collect(self, node: object, prefix: str) -> None:
        """Every stream below *node*. Each storage is entered once: olefile marks the
        entries it has placed, but not the root, so a root entry typed as a storage
        that lists itself as its child would be entered for ever; a storage met again
        is a ``ValueError`` (the file is corrupt)."""
        stack = [(node, prefix)]
        entered: set[int] = set()
        while stack:
            entry, at = stack.pop()
            if id(entry) in entered:
                shown = at.rstrip("/").rsplit("/", 1)[-1]
                raise ValueError(f"directory loops: storage {shown!r} lies inside itself")
            entered.add(id(entry))
            kids = entry.kids  # type: ignore[attr-defined]
            for kid in sorted(kids, key=lambda k: k.name.lower()):
                path = at + kid.name
                if kid.entry_type == _STORAGE:
                    stack.append((kid, path + "/"))
                elif kid.entry_type == _STREAM:
                    self.entries[path.lower()] = kid
                    self.paths.append(path)
        self.paths.sort(key=str.lower)

    def size(self, path: str) -> int:
        """Declared size of *path* (``KeyError`` when there is no such stream)."""
        entry = self.entries[path.lower()]
        if not self.fast:
            return int(self.ole.get_size(entry))
        return int(entry.size)  # type: ignore[attr-defined]

    def read(self, path: str) -> bytes:
        """The stream's bytes; shorter than :meth:`size` when the file is cut short.

        ``KeyError`` when there is no such stream; olefile's own errors (``OSError``,
        ``ValueError``...) when its tables are damaged.
        """
        entry = self.entries[path.lower()]
        ole = self.ole
        if not self.fast:
            return bytes(ole.openstream(entry).read())
        size, start = entry.size, entry.isectStart  # type: ignore[attr-defined]
        if size < ole.minisectorcutoff:
            ministream, minifat = self._ministream()
            return _chain(ministream, minifat, start, size, ole.minisectorsize, 0)
        return _chain(self.data, ole.fat, start, size, ole.sectorsize, ole.sectorsize)

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
