"""A strict compound file (CFB / OLE2) reader for well-formed files, olefile as fallback.

``olefile`` is the reference reader: it accepts damaged files, logs what it finds wrong
and reads what it can. Its constructor also formats a debug message for every
directory entry and sector, which costs more than everything else hwpscan does with a
small HWP file. :func:`open_cfb` reads the same structures ([MS-CFB] §2: header, DIFAT,
FAT, MiniFAT, directory) with every bound checked and gives up -- returns ``None`` --
the moment anything is irregular, so that the caller hands the file to olefile and the
result is whatever olefile makes of it. What it accepts, it reads to exactly the paths,
sizes and bytes that olefile (through :class:`~hwpscan.formats.ole_streams.OleStreams`)
gives; ``tests/test_cfb_fast.py`` checks that over every fixture, hand-made damage and
a hypothesis-driven stream of mutated files.

Irregular, here, is anything [MS-CFB] does not allow or a writer has no reason to do:
a header field off its fixed value; version 4 (4096-byte sectors, never written by
Hancom); a file that is not whole sectors; a FAT, DIFAT, directory, MiniFAT, mini
stream or stream chain that leaves its table, loops, ends early or late, or shares a
sector with another chain; FAT and DIFAT sectors not marked as such; a directory entry
reached twice, of an unknown type, with a bad name (length, terminator, UTF-16, ``/``),
a stream with children or a 4 GB+ size; two names equal but for case; a tree deeper
than olefile's recursive walk can follow. Each decline is counted by reason in
:data:`DECLINES` (a debug aid: ``hwpscan.formats.cfb_fast.DECLINES``) and logged at
debug level; nothing else changes.

Where the optional C module ``_cfb`` is built (:data:`hwpscan.formats.native.cfb_layout`),
it computes the same layout first and the constructor runs only where it gives up: its
answer is what the constructor would compute, or ``None`` for every file the constructor
declines (``tests/test_native_cfb.py``), so the declines are counted as ever.

>>> from hwpscan.rehearsal.synth.cfb import write_cfb
>>> data = write_cfb({"a": b"x" * 100, "d/b": b"y" * 5000})
>>> cfb = open_cfb(data)
>>> cfb.paths, cfb.size("d/b"), cfb.read("A") == b"x" * 100
(['a', 'd/b'], 5000, True)
>>> open_cfb(data[:-1]) is None, DECLINES["file is not whole sectors"] >= 1
(True, True)
"""

from __future__ import annotations

import codecs
import struct
import sys
from array import array
from collections import Counter
from typing import Final, TypeAlias

from hwpscan.formats import native

__all__ = ["DECLINES", "MAX_ENTRIES", "MAX_TREE_DEPTH", "CfbStreams", "open_cfb"]


#: Declines so far in this process, by reason.
DECLINES: Counter[str] = Counter()
#: More reachable directory entries than this: left to olefile (real HWP files hold
#: tens; a BinData-heavy one a few hundred).
MAX_ENTRIES: Final = 10_000
#: olefile walks the directory tree recursively, one Python frame per level of each
#: sibling tree and two per nested storage; deeper than this and it could run out of
#: stack where we would not, so the file is left to it.
MAX_TREE_DEPTH: Final = 300

_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SECTOR: Final = 512
_MINI: Final = 64
_CUTOFF: Final = 4096
_PER_SECTOR: Final = _SECTOR // 4
_HEADER_DIFAT: Final = 109
_DIFSECT: Final = 0xFFFFFFFC
_FATSECT: Final = 0xFFFFFFFD
_ENDOFCHAIN: Final = 0xFFFFFFFE
_FREESECT: Final = 0xFFFFFFFF
_NOSTREAM: Final = 0xFFFFFFFF
_STORAGE, _STREAM, _ROOT = 1, 2, 5
# Header ([MS-CFB] §2.2) from the CLSID to the DIFAT count (76 bytes with the magic).
_HEADER: Final = struct.Struct("<16sHHHHHHIIIIIIIIII")
# Directory entry ([MS-CFB] §2.6): name, name length, type, colour, left, right, child...
_ENTRY_HEAD: Final = struct.Struct("<64sHBBIII")
# ...and start sector, size low and high words at offset 116.
_ENTRY_TAIL: Final = struct.Struct("<III")
# The fields of both that the walk reads, in one unpack (colour, CLSID, state bits and
# times skipped).
_ENTRY: Final = struct.Struct("<64sHBxIII36xIII")
#: The UTF-16LE decoder itself: ``bytes.decode("utf-16-le")`` goes through a Python
#: wrapper in ``encodings`` first.
_utf16: Final = codecs.utf_16_le_decode
_LITTLE: Final = sys.byteorder == "little"
#: 1, 2, ... 4096: sector numbers a consecutive chain's FAT or MiniFAT entries hold
#: (a 2 MB file's sectors, or a whole 256 KB mini stream's), see :func:`_successors`.
_SUCCESSORS: Final = array("I", range(1, 4097))


class _Decline(Exception):
    """Raised inside the reader for anything irregular; never leaves this module."""


def _header(data: bytes) -> tuple[int, int, int, int, int, int]:
    """The header's FAT count, directory start, MiniFAT start and count, DIFAT start and
    count, once every fixed field is checked ([MS-CFB] §2.2)."""
    if len(data) < 3 * _SECTOR or data[:8] != _MAGIC:
        raise _Decline("no compound file header")
    if len(data) % _SECTOR:
        raise _Decline("file is not whole sectors")
    (clsid, _minor, major, order, shift, mini_shift, reserved1, reserved2, dir_sectors,
     fat_count, dir_start, transaction, cutoff, *places) = _HEADER.unpack_from(data, 8)  # fmt: skip
    if major != 3 or shift != 9 or order != 0xFFFE:
        raise _Decline("not a version 3 little-endian header")
    if mini_shift != 6 or cutoff != _CUTOFF:
        raise _Decline("unusual mini stream geometry")
    if clsid != bytes(16) or reserved1 or reserved2 or dir_sectors or transaction:
        raise _Decline("reserved header fields set")
    minifat_start, minifat_count, difat_start, difat_count = places
    return fat_count, dir_start, minifat_start, minifat_count, difat_start, difat_count


def open_cfb(data: bytes) -> CfbStreams | None:
    """The streams of a well-formed compound file, or ``None`` (olefile's turn).

    Never raises for any input: irregular input is a decline, counted in
    :data:`DECLINES`.
    """
    if _NATIVE_LAYOUT is not None:
        layout = _NATIVE_LAYOUT(data)
        if layout is not None:
            return CfbStreams.from_layout(data, *layout)
    try:
        return CfbStreams(data)
    except _Decline as exc:
        reason = str(exc)
        DECLINES[reason] += 1
        import logging  # only for a declined file: a scan of well-formed ones never loads it

        logging.getLogger(__name__).debug("compound file left to olefile: %s", reason)
        return None


#: A stream: its path as written, size, sector runs (of the file, or of the mini stream
#: when mini), mini flag.
_Stream: TypeAlias = tuple[str, int, list[tuple[int, int]], bool]
_NATIVE_LAYOUT = native.cfb_layout  # the constructor's layout in C, when built


def _runs(sectors: list[int]) -> list[tuple[int, int]]:
    """Consecutive sector numbers merged: [(first, count), ...]."""
    runs: list[tuple[int, int]] = []
    first = prev = -2
    for s in sectors:
        if s == prev + 1:
            prev = s
            continue
        if first >= 0:
            runs.append((first, prev - first + 1))
        first = prev = s
    if first >= 0:
        runs.append((first, prev - first + 1))
    return runs


def _chain(
    table: array[int], start: int, count: int | None, used: bytearray
) -> list[tuple[int, int]]:
    """The sectors of the chain from *start* as runs (:func:`_runs`): exactly *count*
    of them ending in ENDOFCHAIN, or (``None``) however many there are up to
    ENDOFCHAIN. Every sector must lie in *table* and not be in *used* (which it is then
    added to): a loop or a sector shared by two chains is a decline, so the walk is at
    most len(table) steps. A chain of consecutive sectors, what writers lay out, is
    checked with slice operations.
    """
    n = len(table)
    if count and start + count <= n:
        end = start + count
        if (
            table[end - 1] == _ENDOFCHAIN
            and (count == 1 or table[start : end - 1] == _successors(start, end))
            and used.find(1, start, end) < 0
        ):
            used[start:end] = b"\x01" * count
            return [(start, count)]
    out: list[int] = []
    s = start
    limit = n if count is None else count
    while len(out) < limit:
        if s == _ENDOFCHAIN and count is None:
            return _runs(out)
        if s >= n:
            if s == _ENDOFCHAIN:
                raise _Decline("sector chain ends before its stream")
            raise _Decline("sector chain leaves its table")
        if used[s]:
            raise _Decline("sector chain loops or shares a sector")
        used[s] = 1
        out.append(s)
        s = table[s]
    if s != _ENDOFCHAIN:
        raise _Decline("sector chain longer than its stream")
    return _runs(out)


def _successors(start: int, end: int) -> array[int]:
    """``start + 1, ..., end - 1``: what a consecutive chain's table entries hold, cut
    from :data:`_SUCCESSORS` when it reaches (a slice is one copy in C)."""
    if end <= len(_SUCCESSORS):
        return _SUCCESSORS[start : end - 1]
    return array("I", range(start + 1, end))


def _words(data: bytes, at: int, size: int) -> array[int]:
    out = array("I", data[at : at + size])
    if not _LITTLE:
        out.byteswap()
    return out


def _table(mv: memoryview, runs: list[tuple[int, int]]) -> array[int]:
    """The 32-bit entries of the sectors in *runs* (of the file), in order."""
    out: array[int] = array("I")
    for first, count in runs:
        at = _SECTOR * (first + 1)
        out.frombytes(mv[at : at + _SECTOR * count])
    if not _LITTLE:
        out.byteswap()
    return out


def _entry_name(raw: bytes, length: int) -> str:
    """The name of a directory entry from its 64 name bytes and its length field,
    checked ([MS-CFB] §2.6.1)."""
    if length & 1 or not 2 < length <= 64 or raw[length - 2 : length] != b"\0\0":
        raise _Decline("bad directory entry name length")
    try:
        name: str = _utf16(raw[: length - 2], "strict", True)[0]
    except UnicodeDecodeError:
        raise _Decline("directory entry name is not UTF-16") from None
    if "/" in name or "\0" in name:
        raise _Decline("directory entry name with '/' or NUL")
    return name


class CfbStreams:
    """Path -> bytes for a well-formed compound file; the constructor declines
    (raises the module's private decline) for anything else. Use :func:`open_cfb`.

    The interface is :class:`~hwpscan.formats.ole_streams.OleStreams`': ``paths``
    (sorted case-blind), ``size(path)`` and ``read(path)``, names case-blind,
    ``KeyError`` for a missing stream. Every stream is complete: its chain was checked
    when the file was opened.
    """

    def __init__(self, data: bytes) -> None:
        fat_count, dir_start, minifat_start, minifat_count, difat_start, difat_count = _header(data)
        self._mv = mv = memoryview(data)
        nsect = len(data) // _SECTOR - 1
        used = bytearray(nsect)
        fat_sectors, difat = self._fat_sectors(
            data, nsect, fat_count, difat_start, difat_count, used
        )
        fat = _table(mv, _runs(fat_sectors))
        if len(fat) < nsect:
            raise _Decline("FAT does not cover the file")
        del fat[nsect:]  # entries past the end of the file name no sector
        if any(fat[s] != _FATSECT for s in fat_sectors):
            raise _Decline("FAT sector not marked as such")
        if any(fat[s] != _DIFSECT for s in difat):
            raise _Decline("DIFAT sector not marked as such")
        self._fat = fat
        directory = self._bytes(_chain(fat, dir_start, None, used), _SECTOR)
        root_size, root_start = self._root(directory)
        minifat = self._minifat(root_size, root_start, minifat_start, minifat_count, used)
        self._ministream: bytes | None = None
        self._streams: dict[str, _Stream] = {}
        self._walk(directory, fat, minifat, used, bytearray(len(minifat)))
        self.paths = sorted((s[0] for s in self._streams.values()), key=str.lower)

    @classmethod
    def from_layout(
        cls,
        data: bytes,
        streams: dict[str, _Stream],
        ministream_runs: list[tuple[int, int]],
        paths: list[str],
    ) -> CfbStreams:
        """The reader of *data* from the layout its constructor would compute
        (:data:`hwpscan.formats.native.cfb_layout` computes it in C)."""
        self = cls.__new__(cls)
        self._mv = memoryview(data)
        self._streams, self._ministream_runs, self.paths = streams, ministream_runs, paths
        self._ministream = None
        return self

    def _minifat(
        self, root_size: int, root_start: int, start: int, count: int, used: bytearray
    ) -> array[int]:
        """The MiniFAT, cut to the mini sectors of the mini stream (the root entry's
        stream, whose runs are kept)."""
        if root_size % _MINI:
            raise _Decline("mini stream not whole mini sectors")
        nmini = -(-root_size // _MINI)
        fat = self._fat
        minifat: array[int] = array("I")
        self._ministream_runs: list[tuple[int, int]] = []
        if count:
            minifat = _table(self._mv, _chain(fat, start, count, used))
            if nmini > len(minifat):
                raise _Decline("mini stream larger than its MiniFAT")
            del minifat[nmini:]
        elif start != _ENDOFCHAIN or root_size:
            raise _Decline("mini stream without a MiniFAT")
        if root_size:
            self._ministream_runs = _chain(fat, root_start, -(-root_size // _SECTOR), used)
        elif root_start != _ENDOFCHAIN:
            raise _Decline("empty mini stream with a start sector")
        return minifat

    @staticmethod
    def _fat_sectors(
        data: bytes, nsect: int, count: int, difat_start: int, difat_count: int, used: bytearray
    ) -> tuple[list[int], list[int]]:
        """The FAT's sector numbers (from the header's 109 slots, then the DIFAT chain)
        and the DIFAT's own sectors."""
        if not 0 < count <= nsect:
            raise _Decline("FAT sector count out of range")
        slots = _words(data, 76, _SECTOR - 76)
        head = min(count, _HEADER_DIFAT)
        if slots[head:].count(_FREESECT) != len(slots) - head:
            raise _Decline("header DIFAT slots past the FAT count in use")
        sectors = list(slots[:head])
        per = _PER_SECTOR - 1  # the last slot of a DIFAT sector links to the next
        need = -(-(count - head) // per)
        if difat_count != need:
            raise _Decline("DIFAT sector count does not match the FAT count")
        difat: list[int] = []
        s = difat_start
        for _ in range(need):
            if s >= nsect or used[s]:
                raise _Decline("DIFAT chain leaves the file or loops")
            used[s] = 1
            difat.append(s)
            entries = _words(data, _SECTOR * (s + 1), _SECTOR)
            take = min(per, count - len(sectors))
            if entries[take:per].count(_FREESECT) != per - take:
                raise _Decline("DIFAT slots past the FAT count in use")
            sectors.extend(entries[:take])
            s = entries[per]
        if s not in (_ENDOFCHAIN, _FREESECT):
            raise _Decline("DIFAT chain does not end")
        for s in sectors:
            if s >= nsect or used[s]:
                raise _Decline("FAT sector out of range or used twice")
            used[s] = 1
        return sectors, difat

    def _bytes(self, runs: list[tuple[int, int]], sector: int) -> bytes:
        mv = self._mv
        return b"".join([mv[sector * (f + 1) : sector * (f + 1 + n)] for f, n in runs])

    @staticmethod
    def _root(directory: bytes) -> tuple[int, int]:
        if len(directory) < 128:
            raise _Decline("directory has no root entry")
        kind = directory[66]
        start, low, high = _ENTRY_TAIL.unpack_from(directory, 116)
        if kind != _ROOT or high:
            raise _Decline("bad root entry")
        return low, start

    def _walk(
        self,
        directory: bytes,
        fat: array[int],
        minifat: array[int],
        used: bytearray,
        used_mini: bytearray,
    ) -> None:
        """Every stream reachable from the root, each chain checked: one unpack per
        entry (:data:`_ENTRY`), the name checked by :func:`_entry_name`."""
        count = len(directory) // 128
        seen = bytearray(count)
        seen[0] = 1
        (*_, root_child) = _ENTRY_HEAD.unpack_from(directory, 0)
        # (sid, storage path prefix, depth in olefile's recursion)
        stack: list[tuple[int, str, int]] = [(root_child, "", 2)]
        push, pop = stack.append, stack.pop
        unpack = _ENTRY.unpack_from
        tables = (fat, minifat, used, used_mini)
        reached = 0
        while stack:
            sid, prefix, depth = pop()
            if sid == _NOSTREAM:
                continue
            if sid >= count or seen[sid]:
                raise _Decline("directory entry out of range or reached twice")
            if depth > MAX_TREE_DEPTH:
                raise _Decline("directory tree too deep")
            reached += 1
            if reached > MAX_ENTRIES:
                raise _Decline("too many directory entries")
            seen[sid] = 1
            raw, length, kind, left, right, child, start, low, high = unpack(directory, sid * 128)
            push((left, prefix, depth + 1))
            push((right, prefix, depth + 1))
            path = prefix + _entry_name(raw, length)
            if kind == _STORAGE:
                if low or high:
                    raise _Decline("storage with a size")
                push((child, path + "/", depth + 2))
            else:
                self._entry(path, kind, child, (start, low, high), tables)

    def _entry(
        self,
        path: str,
        kind: int,
        child: int,
        place: tuple[int, int, int],
        tables: tuple[array[int], array[int], bytearray, bytearray],
    ) -> None:
        """Check one stream entry (start sector, size low and high words in *place*)
        and note the stream with its sector runs."""
        start, low, high = place
        if kind != _STREAM:
            raise _Decline("directory entry neither stream nor storage")
        if child != _NOSTREAM or high:
            raise _Decline("stream with children or a size over 4 GB")
        key = path.lower()
        streams = self._streams
        if key in streams:
            raise _Decline("two names equal but for case")
        fat, minifat, used, used_mini = tables
        if low == 0:
            if start != _ENDOFCHAIN:
                raise _Decline("empty stream with a start sector")
            streams[key] = (path, 0, [], False)
        elif low < _CUTOFF:
            runs = _chain(minifat, start, -(-low // _MINI), used_mini)
            streams[key] = (path, low, runs, True)
        else:
            runs = _chain(fat, start, -(-low // _SECTOR), used)
            streams[key] = (path, low, runs, False)

    def size(self, path: str) -> int:
        """Size of *path* (``KeyError`` when there is no such stream)."""
        return self._streams[path.lower()][1]

    def read(self, path: str) -> bytes:
        """The stream's bytes (``KeyError`` when there is no such stream)."""
        _, size, runs, mini = self._streams[path.lower()]
        if not mini:
            return self._bytes(runs, _SECTOR)[:size]
        if self._ministream is None:
            self._ministream = self._bytes(self._ministream_runs, _SECTOR)
        ministream = self._ministream
        raw = b"".join([ministream[_MINI * f : _MINI * (f + n)] for f, n in runs])
        return raw[:size]
