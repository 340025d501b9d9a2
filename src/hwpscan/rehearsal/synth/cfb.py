"""A small, deterministic Compound File Binary (OLE2) writer for fixtures.

Version 3 files ([MS-CFB] §2.2): 512-byte sectors, up to 109 FAT sectors (about 7 MB),
no DIFAT, zero timestamps and CLSIDs; sibling trees are balanced, valid red-black trees.

>>> data = write_cfb({"FileHeader": b"x" * 10, "BodyText/Section0": b"y" * 5000})
>>> data[:8].hex(), len(data) % 512
('d0cf11e0a1b11ae1', 0)
>>> data == write_cfb({"BodyText/Section0": b"y" * 5000, "FileHeader": b"x" * 10})
True
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field

MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
SECTOR = 512
MINI_SECTOR = 64
MINI_CUTOFF = 4096
FREESECT = 0xFFFFFFFF
ENDOFCHAIN = 0xFFFFFFFE
FATSECT = 0xFFFFFFFD
NOSTREAM = 0xFFFFFFFF
_HEADER_DIFAT = 109
_PER_SECTOR = SECTOR // 4  # sector ids per FAT / miniFAT sector
_STORAGE, _STREAM, _ROOT = 1, 2, 5
_RED, _BLACK = 0, 1


@dataclass
class _Entry:
    name: str
    kind: int
    data: bytes = b""
    children: dict[str, _Entry] = field(default_factory=dict)
    sid: int = 0
    left: int = NOSTREAM
    right: int = NOSTREAM
    child: int = NOSTREAM
    color: int = _BLACK
    start: int = ENDOFCHAIN


def cfb_order(name: str) -> tuple[int, str]:
    """The directory sort key of [MS-CFB] §2.6.4: shorter names first, then upper case.

    >>> sorted(["Section10", "Section2", "DocInfo"], key=cfb_order)
    ['DocInfo', 'Section2', 'Section10']
    """
    return (len(name.encode("utf-16-le")) // 2, name.upper())


def write_cfb(streams: Mapping[str, bytes]) -> bytes:
    """A compound file holding *streams*, keyed by ``/``-separated paths (storages
    made from them); ``ValueError`` for a bad path or a file too large."""
    root = _Entry("Root Entry", _ROOT)
    for path, data in streams.items():
        _insert(root, path, bytes(data))
    entries = _number(root)
    for entry in entries:
        entry.child = _tree([entry.children[k] for k in sorted(entry.children, key=cfb_order)])

    fat: list[int] = []

    def chain(count: int, table: list[int] = fat) -> int:
        """Allocate *count* sectors linked in *table*; return the first (none: ENDOFCHAIN)."""
        if count == 0:
            return ENDOFCHAIN
        first = len(table)
        table.extend([*range(first + 1, first + count), ENDOFCHAIN])
        return first

    small = [e for e in entries if e.kind == _STREAM and 0 < len(e.data) < MINI_CUTOFF]
    big = [e for e in entries if e.kind == _STREAM and len(e.data) >= MINI_CUTOFF]
    minifat: list[int] = []
    mini = bytearray()
    for e in small:
        e.start = chain(-(-len(e.data) // MINI_SECTOR), minifat)
        mini += e.data.ljust(-(-len(e.data) // MINI_SECTOR) * MINI_SECTOR, b"\0")

    dir_sectors = -(-len(entries) * 128 // SECTOR)
    minifat_sectors = -(-len(minifat) * 4 // SECTOR)
    mini_sectors = -(-len(mini) // SECTOR)
    body = sum(-(-len(e.data) // SECTOR) for e in big) + dir_sectors + mini_sectors
    # the fewest FAT sectors that map every sector, their own included
    fat_sectors = max(1, -(-(body + minifat_sectors) // (_PER_SECTOR - 1)))
    if fat_sectors > _HEADER_DIFAT:
        raise ValueError("compound file too large for a writer without DIFAT sectors")

    fat.extend([FATSECT] * fat_sectors)
    dir_start = chain(dir_sectors)
    minifat_start = chain(minifat_sectors)
    root.start = chain(mini_sectors)
    for e in big:
        e.start = chain(-(-len(e.data) // SECTOR))
    fat.extend([FREESECT] * (fat_sectors * _PER_SECTOR - len(fat)))

    out = bytearray(_header(fat_sectors, dir_start, minifat_start, minifat_sectors))
    out += struct.pack(f"<{len(fat)}I", *fat)
    out += b"".join(_dir_entry(e, len(mini)) for e in entries)
    out += _UNUSED_ENTRY * (dir_sectors * SECTOR // 128 - len(entries))
    minifat.extend([FREESECT] * (minifat_sectors * _PER_SECTOR - len(minifat)))
    out += struct.pack(f"<{len(minifat)}I", *minifat)
    out += bytes(mini).ljust(mini_sectors * SECTOR, b"\0")
    for e in big:
        out += e.data.ljust(-(-len(e.data) // SECTOR) * SECTOR, b"\0")
    return bytes(out)


def _insert(root: _Entry, path: str, data: bytes) -> None:
    parts = path.split("/")
    if not all(parts) or any(len(p) > 31 for p in parts):
        raise ValueError(f"bad compound file path {path!r} (empty part or over 31 characters)")
    node = root
    for part in parts[:-1]:
        found = _find(node, part)
        if found is None:
            found = node.children[part] = _Entry(part, _STORAGE)
        elif found.kind != _STORAGE:
            raise ValueError(f"path {path!r} runs through the stream {part!r}")
        node = found
    if _find(node, parts[-1]) is not None:
        raise ValueError(f"duplicate compound file path {path!r}")
    node.children[parts[-1]] = _Entry(parts[-1], _STREAM, data)


def _find(node: _Entry, name: str) -> _Entry | None:
    return next((c for key, c in node.children.items() if key.upper() == name.upper()), None)


def _number(root: _Entry) -> list[_Entry]:
    """Directory order: breadth first, siblings in CFB order (deterministic)."""
    order = [root]
    for entry in order:  # grows while iterating
        order.extend(entry.children[k] for k in sorted(entry.children, key=cfb_order))
    for sid, entry in enumerate(order):
        entry.sid = sid
    return order


def _tree(nodes: list[_Entry]) -> int:
    """Link sorted *nodes* as a size-balanced BST; deepest level red when not full."""
    if not nodes:
        return NOSTREAM
    depth_of: dict[int, int] = {}

    def build(lo: int, hi: int, depth: int) -> int:
        if lo >= hi:
            return NOSTREAM
        mid = (lo + hi) // 2
        node = nodes[mid]
        node.left = build(lo, mid, depth + 1)
        node.right = build(mid + 1, hi, depth + 1)
        depth_of[mid] = depth
        return node.sid

    top = build(0, len(nodes), 0)
    deepest = max(depth_of.values())
    full = len(nodes) == 2 ** (deepest + 1) - 1
    for index, node in enumerate(nodes):
        node.color = _RED if (deepest and not full and depth_of[index] == deepest) else _BLACK
    return top


def _header(fat_sectors: int, dir_start: int, minifat_start: int, minifat_count: int) -> bytes:
    difat = list(range(fat_sectors)) + [FREESECT] * (_HEADER_DIFAT - fat_sectors)
    return (
        MAGIC
        + bytes(16)  # header CLSID
        + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)  # minor, major, BOM, shifts
        + bytes(6)
        + struct.pack("<III", 0, fat_sectors, dir_start)  # dir sectors (0 in v3)
        + struct.pack("<III", 0, MINI_CUTOFF, minifat_start if minifat_count else ENDOFCHAIN)
        + struct.pack("<III", minifat_count, ENDOFCHAIN, 0)  # no DIFAT sectors
        + struct.pack(f"<{_HEADER_DIFAT}I", *difat)
    )


def _dir_entry(e: _Entry, mini_size: int) -> bytes:
    name = e.name.encode("utf-16-le")
    size = mini_size if e.kind == _ROOT else len(e.data)
    start = 0 if e.kind == _STORAGE else e.start  # ENDOFCHAIN when nothing is allocated
    return (
        name.ljust(64, b"\0")
        + struct.pack("<HBB", len(name) + 2, e.kind, e.color)
        + struct.pack("<III", e.left, e.right, e.child)
        + bytes(16 + 4 + 16)  # CLSID, state bits, creation and modified times
        + struct.pack("<IQ", start, size)
    )


_UNUSED_ENTRY = (
    bytes(64) + struct.pack("<HBBIII", 0, 0, 0, NOSTREAM, NOSTREAM, NOSTREAM) + bytes(48)
)
