"""A file's row on its way from a worker to the run record and the output: the
:class:`Row` and the plain values a worker sends it as (:func:`pack_result`).

>>> unpack_result(pack_result(FileResult("a.hwp", "", 0, Format.HWP5, Status.CLEAN), 2)).index
2
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from typing import Any

from hwpscan.models import NO_DEFECTS, Defects, FileResult, Format, Location, Status, TextStats
from hwpscan.rowcodec import encode_row
from hwpscan.scanning.one_file import failed_row


class Row:
    """One file's row on its way from the pool to the run record and the output.

    Its index, path, date, format and status are at hand; the :class:`FileResult`, its
    pickled :func:`pack_result` and its JSON line (as text, and as the UTF-8 bytes the
    output file, the run store and the row spill take) are each made once, when first
    asked for. A worker sends the pickle and the line's bytes, so for a row that is
    only stored and written out the supervisor never builds the result, nor encodes or
    decodes the line.

    >>> row = Row.of(FileResult("a.hwp", "", 0, Format.HWP5, Status.CLEAN), 3)
    >>> again = Row(3, "a.hwp", None, Format.HWP5, Status.CLEAN, blob=row.blob)
    >>> again.result == row.result and again.line == row.line and again.index == 3
    True
    >>> sent = Row(3, "a.hwp", None, Format.HWP5, Status.CLEAN, blob=row.blob, data=row.data)
    >>> sent.line == row.line and sent.data == row.line.encode("utf-8")
    True
    """

    __slots__ = (
        "_blob",
        "_data",
        "_line",
        "_result",
        "date",
        "defects",
        "format",
        "index",
        "path",
        "status",
    )

    def __init__(
        self,
        index: int | None,
        path: str,
        date: str | None,
        fmt: Format,
        status: Status,
        *,
        blob: bytes | None = None,
        line: str | None = None,
        data: bytes | None = None,
    ) -> None:
        self.index = index
        self.path = path
        self.date = date
        self.format = fmt
        self.status = status
        self._blob = blob
        self._line = line
        self._data = data  # the line's UTF-8 bytes, when given (a worker sends them)
        self._result: FileResult | None = None
        self.defects = 0  # the defect classes present (Defects.mask), set by who knows them

    @classmethod
    def of(cls, result: FileResult, index: int | None = None) -> Row:
        """The row of a result already made (given *index*, when it has none)."""
        if index is not None and result.index != index:
            result = replace(result, index=index)
        found = result.defect_counts()
        mask = 0 if found is None else found.mask
        row = cls(result.index, result.path, result.date, result.format, result.status)
        row._result = result
        row.defects = mask
        return row

    @property
    def result(self) -> FileResult:
        if self._result is None:
            assert self._blob is not None  # one of the two is always given
            self._result = unpack_result(pickle.loads(self._blob))
        return self._result

    @property
    def blob(self) -> bytes:
        """The pickled :func:`pack_result` of the row (what the row spill keeps)."""
        if self._blob is None:
            self._blob = pickle.dumps(pack_result(self.result), protocol=pickle.HIGHEST_PROTOCOL)
        return self._blob

    @property
    def has_line(self) -> bool:
        return self._line is not None or self._data is not None

    @property
    def line(self) -> str:
        """:func:`~hwpscan.rowcodec.encode_row` of the result."""
        if self._line is None:
            if self._data is not None:
                self._line = self._data.decode("utf-8")
            else:
                self._line = encode_row(self.result)
        return self._line

    @property
    def data(self) -> bytes:
        """:attr:`line` in UTF-8 (a line is valid UTF-8: its strings' surrogates are
        escaped before a row is made)."""
        if self._data is None:
            self._data = self.line.encode("utf-8")
        return self._data


#: A row as a worker sends it: index, path, date, format and status values, its pickled
#: :func:`pack_result`, its JSON line in UTF-8 (None when it could not be made). The
#: worker encodes the line once (pickling it as text would too), and the supervisor
#: hands those bytes on as they came to the output, the run store and the row spill,
#: each of which took the text and encoded it again.
WireRow = tuple[int, str, str | None, str, str, bytes, bytes | None, int]


def _wire(result: FileResult, index: int, line: str | None) -> WireRow:
    r = result
    packed = pickle.dumps(pack_result(r, index), protocol=pickle.HIGHEST_PROTOCOL)
    data = None if line is None else line.encode("utf-8")
    found = r.defect_counts()
    mask = 0 if found is None else found.mask
    return (index, r.path, r.date, r.format.value, r.status.value, packed, data, mask)


def wire_row(result: FileResult, index: int) -> WireRow:
    """A file's row as a worker sends it: its plain values pickled, and its JSON line
    (made in the worker, it spares the supervisor, which every worker waits on, its
    costliest step)."""
    try:
        return _wire(result, index, encode_row(replace(result, index=index)))
    except Exception as exc:  # a result too big to pack (MemoryError) is a row too
        return failed_wire(result.path, result.date, index, exc)


def failed_wire(shown: str, date: str | None, index: int, exc: BaseException) -> WireRow:
    """The row of a file whose row could not be made, packed or sent, saying why."""
    return _wire(failed_row(shown, date, None, exc, 0.0), index, None)


def wire_to_row(wire: WireRow) -> Row:
    """The :class:`Row` of a row a worker sent (its result is built only when asked)."""
    index, path, date, fmt, status, packed, data, mask = wire
    row = Row(index, path, date, _FORMATS[fmt], _STATUSES[status], blob=packed, data=data)
    row.defects = mask
    return row


#: A :class:`TextStats` as plain values, and a :class:`FileResult` likewise: what a
#: worker sends. Pickling the dataclasses themselves costs the supervisor a Python-level
#: ``__setstate__`` per object, an enum lookup per enum and a call per location; plain
#: tuples unpickle in C and are rebuilt with one constructor call each.
_PackedStats = tuple[
    int, int, int, int, bool, str | None, dict[str, int], int, list[tuple[Any, ...]]
]
_FORMATS = {f.value: f for f in Format}
_STATUSES = {s.value: s for s in Status}


def pack_result(result: FileResult, index: int | None = None) -> tuple[object, ...]:
    """*result* (with *index* when given) as plain values; :func:`unpack_result` makes
    it again.

    >>> row = FileResult("a.hwp", "ab", 3, Format.HWP5, Status.CLEAN, meta=TextStats(chars=2))
    >>> unpack_result(pack_result(row, 4)) == replace(row, index=4)
    True
    """
    r = result
    return (
        r.path,
        r.sha256,
        r.bytes,
        r.format.value,
        r.status.value,
        r.reason,
        r.date,
        _pack_stats(r.body),
        _pack_stats(r.preview) if r.preview is not None else None,
        _pack_stats(r.meta) if r.meta is not None else None,
        r.warnings,
        r.seconds,
        r.body_read,
        r.repair,
        r.index if index is None else index,
        None if r.defects is None else tuple(r.defects.as_dict().values()),
    )


def _pack_stats(s: TextStats) -> _PackedStats:
    locations = [tuple(loc) for loc in s.locations]
    return (s.chars, s.surrogates, s.pairs, s.orphans, s.utf8_ok, s.utf8_error, s.pua,
            s.replacement_chars, locations)  # fmt: skip


def unpack_result(packed: tuple[Any, ...]) -> FileResult:
    """The :class:`FileResult` of :func:`pack_result`."""
    (path, digest, size, fmt, status, reason, date, body, preview, meta, *rest) = packed
    warnings, seconds, body_read, repair, index, defects = rest
    return FileResult(
        path,
        digest,
        size,
        _FORMATS[fmt],
        _STATUSES[status],
        reason,
        date,
        _unpack_stats(body),
        _unpack_stats(preview) if preview is not None else None,
        _unpack_stats(meta) if meta is not None else None,
        warnings,
        seconds,
        body_read,
        repair,
        index,
        None if defects is None else Defects(*defects) if any(defects) else NO_DEFECTS,
    )


def _unpack_stats(packed: _PackedStats) -> TextStats:
    chars, surrogates, pairs, orphans, utf8_ok, utf8_error, pua, replacement, found = packed
    locations = tuple(map(Location._make, found))
    return TextStats(chars, surrogates, pairs, orphans, utf8_ok, utf8_error, pua, replacement,
                     locations)  # fmt: skip
