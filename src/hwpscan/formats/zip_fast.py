"""A strict reader of plain ZIP packages held in memory, zipfile as reference and fallback.

Reading a small HWPX package through :mod:`zipfile` costs more than walking its text:
the archive object, a file object per entry, its buffered reads and checks, all in
Python. :func:`open_fast` reads the end of central directory record and the central
directory in C (``_zip.c``), checks every entry's local header, and inflates an entry
whole when it is asked for, checking its size and CRC-32. It gives up -- returns
``None``, or raises :class:`Declined` when an entry is read -- on anything outside the
plain form package writers use (an archive comment, ZIP64, several disks, encryption
or other flag bits, a method other than stored or deflate, a malformed extra field, an
empty or doubled name, entries that overlap or leave room between the directory and
its record, data that does not inflate to exactly the size declared or fails its CRC,
a part over the reader's byte cap): the caller then reads the package through zipfile
from the start, and the result is whatever that makes of it. What it accepts, it reads
to exactly the names, sizes and bytes zipfile gives; ``tests/test_hwpx_fast_zip.py``
checks that on every fixture, generated packages, hand-made damage and a seeded stream
of mutated packages.

It runs only where the C module is built (:data:`hwpscan.formats.native.zip_central`)
and the native paths are on (``HWPSCAN_PURE_PYTHON`` unset).

>>> from hwpscan.rehearsal.synth.hwpx import build_hwpx
>>> package = open_fast(build_hwpx(["보도자료"]), max_entries=100, max_declared=2**20)
>>> if package is not None:  # the C module is built and the native paths are on
...     assert package.part(package.infolist()[0], 4096) == b"application/hwp+zip"
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, cast

from hwpscan.formats import native

__all__ = ["WHOLE_BYTES", "Declined", "FastZip", "ZipEntry", "open_fast"]

_new = tuple.__new__


#: Parts are inflated whole; one larger than this is left to zipfile's streaming reads.
WHOLE_BYTES = 16 * 2**20
#: Parts up to this size are kept once read (``META-INF/container.xml`` is read twice).
_KEPT_BYTES = 64 * 1024


class Declined(Exception):
    """The package holds something the fast reader leaves to zipfile (a signal, not an
    error: the caller reads the package again through zipfile)."""


class ZipEntry(NamedTuple):
    """One entry of the central directory: what hwpx reads of a ``zipfile.ZipInfo``,
    and where the entry's data starts (past its local header)."""

    filename: str
    flag_bits: int
    compress_type: int
    CRC: int  # zipfile's name
    compress_size: int
    file_size: int
    data_at: int

    def is_dir(self) -> bool:
        """A folder entry (its name ends with ``/``), as ``ZipInfo.is_dir``."""
        return self.filename[-1] == "/"


def open_fast(data: bytes, *, max_entries: int, max_declared: int) -> FastZip | None:
    """The package in *data*, or ``None`` where the C module is not built or declines
    (no more than *max_entries* entries, declaring at most *max_declared* bytes)."""
    central = native.zip_central
    if central is None:
        return None
    rows = central(data, max_entries, max_declared)
    if rows is None:
        return None
    return FastZip(data, cast("list[ZipEntry]", [_new(ZipEntry, row) for row in rows]))


class FastZip:
    """The entries of a package :func:`open_fast` accepted, and their bytes."""

    def __init__(self, data: bytes, entries: list[ZipEntry]) -> None:
        self._data = data
        self._entries = entries
        self._read: dict[int, bytes] = {}

    def __enter__(self) -> FastZip:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Forget the parts read (the package's bytes are the caller's)."""
        self._read.clear()

    def infolist(self) -> list[ZipEntry]:
        """The entries in directory order, as ``ZipFile.infolist``."""
        return self._entries

    def part(self, info: Any, cap: int) -> bytes:
        """The bytes of entry *info*: raises :class:`Declined` when it holds more than
        *cap* bytes or is not exactly what the directory says."""
        entry = cast("ZipEntry", info)
        if entry.file_size > cap:
            raise Declined(f"{entry.filename!r}: over the cap")
        got = self._read.get(entry.data_at)
        if got is None:
            inflate = cast("native.ZipInflate", native.zip_inflate)
            got = inflate(
                self._data,
                entry.data_at,
                entry.compress_size,
                entry.file_size,
                entry.compress_type,
                entry.CRC,
            )
            if got is None:
                raise Declined(f"{entry.filename!r}: damaged")
            if entry.file_size <= _KEPT_BYTES:
                self._read[entry.data_at] = got
        return got

    def chunks(self, info: Any, cap: int, chunk: int) -> Iterator[bytes]:
        """Entry *info* in pieces of *chunk* bytes, as zipfile's reads of that size give
        them: read whole first (declined past *cap* or :data:`WHOLE_BYTES`), so that
        damage is found before the first piece."""
        data = self.part(info, min(cap, WHOLE_BYTES))
        return (data[i : i + chunk] for i in range(0, len(data), chunk))
