"""A run's rows without holding them all: the first ones in memory, the rest on disk.

A row holds about 5 KB in memory when its file is contaminated (twenty-odd located
defects with their context) and 2 KB when it is clean, so a scan of a million files
kept as a list would grow to gigabytes. :class:`ResultRows` keeps the first
:data:`KEEP_IN_MEMORY` rows as they are and writes the others, in blocks of about
:data:`SPILL_BLOCK` bytes, to an anonymous temporary file (unlinked as it is made:
nothing is left behind, whatever ends the process) as the plain tuples the scan's
workers send, each followed by its JSON line; a row asked for is read back, and so
is a line (:func:`row_lines`: rows written out sorted are not rebuilt to be serialised
again). What stays in memory per spilled row is its input index and two offsets.

>>> from hwpscan.models import Format, Status
>>> rows = ResultRows(keep=2)
>>> for i in (3, 1, 0, 2, 4):
...     rows.append(FileResult(f"f{i}.hwp", "", i, Format.HWP5, Status.CLEAN, index=i))
>>> len(rows), rows.spilled, rows[4].path, [r.path for r in rows[1:3]]
(5, 3, 'f4.hwp', ['f1.hwp', 'f0.hwp'])
>>> [r.bytes for r in rows.in_input_order()]
[0, 1, 2, 3, 4]
>>> [line[-11:] for line in row_lines(rows.in_input_order())][3:]
['"index": 3}', '"index": 4}']
>>> rows.close()

A file that cannot be written (a full disk) costs memory, not rows: they stay in it.
"""

from __future__ import annotations

import contextlib
import pickle
import tempfile
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO, overload

from hwpscan.models import DEFECT_CLASSES, FileResult, Status, classes_of
from hwpscan.report.export import jsonl_line
from hwpscan.scanning.row_handoff import Row, unpack_result

__all__ = [
    "KEEP_IN_MEMORY",
    "ResultRows",
    "defect_files",
    "defect_masks",
    "row_lines",
    "status_counts",
]

#: Rows kept as objects before the rest go to disk: a small scan never touches the
#: disk, a large one holds this many rows and 24 bytes for each of the others (its
#: index and two offsets).
KEEP_IN_MEMORY = 512
#: Bytes of spilled rows gathered before they are written (one write for a few dozen
#: rows instead of one each); a row asked for before then is read from the block.
SPILL_BLOCK = 64 * 1024


class _Rows(Sequence[FileResult]):
    """A sequence of rows given by :meth:`_row` (an index already checked) and a length,
    with its rows per status (:attr:`statuses`) kept as they came."""

    statuses: Counter[Status]
    masks: Counter[int]

    def _row(self, i: int) -> FileResult:
        raise NotImplementedError

    def _line(self, i: int) -> str:
        """:func:`~hwpscan.report.export.jsonl_line` of row *i* (an index already checked)."""
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> FileResult: ...
    @overload
    def __getitem__(self, i: slice) -> list[FileResult]: ...
    def __getitem__(self, i: int | slice) -> FileResult | list[FileResult]:
        if isinstance(i, slice):
            return [self._row(k) for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("row index out of range")
        return self._row(i)

    def __iter__(self) -> Iterator[FileResult]:
        for i in range(len(self)):
            yield self._row(i)


class ResultRows(_Rows):
    """Rows in the order they were added; see the module's description."""

    def __init__(self, *, keep: int | None = None) -> None:
        self._keep = max(0, KEEP_IN_MEMORY if keep is None else keep)
        self._head: list[Row] = []  # the first rows (all of them, once the disk fails)
        self._offsets = array("q")  # where each spilled row starts in the file
        self._lines = array("q")  # where its JSON line starts (it ends where the next row starts)
        self._indexes = array("q")  # every row's input index (-1: none), for sorting
        self._file: BinaryIO | None = None
        self._end = 0  # the size of what was spilled: the file's, then the block's
        # the spilled rows not written yet, as the bytes they came in (they end at _end):
        # joined once when written, not copied into a growing buffer row by row
        self._block: list[bytes] = []
        self._pending = 0  # the block's size
        self._moved = False  # the file's position is not at its end (a row was read)
        self._spill = True  # False once the disk refused a row: all stay in memory
        self.statuses: Counter[Status] = Counter()  # rows per status, kept as they come
        self.masks: Counter[int] = Counter()  # rows per set of defect classes (0: none)

    @property
    def spilled(self) -> int:
        """How many rows are kept on disk (or in the block on its way there)."""
        return len(self._offsets)

    def append(self, row: FileResult | Row) -> None:
        """Add a row: a result, or a :class:`~hwpscan.scanning.row_handoff.Row` as the
        pool gave it (a spilled one is written in the bytes a worker sent it in: nothing to
        build)."""
        self.extend((row,))

    def extend(self, rows: Iterable[FileResult | Row]) -> None:
        """Add rows (a batch from the pool): the tallies once for the batch."""
        made = [row if isinstance(row, Row) else Row.of(row) for row in rows]
        head, keep = self._head, self._keep
        for row in made:
            if len(head) < keep or not self._spill or not self._write(row):
                head.append(row)
        self._indexes.extend([-1 if row.index is None else row.index for row in made])
        self.statuses.update([row.status for row in made])
        self.masks.update([row.defects for row in made])

    def _write(self, row: Row) -> bool:
        """Spill a row (its bytes, then its line) into the block, writing the block out
        first when it is full; False (and no more spilling) when the disk refuses it."""
        blob = row.blob
        line = row.data  # the line in UTF-8, as the worker sent it
        if self._pending >= SPILL_BLOCK and not self._write_block():
            return False
        size = len(blob) + len(line)
        self._offsets.append(self._end)
        self._lines.append(self._end + len(blob))
        self._end += size
        self._pending += size
        self._block += (blob, line)
        return True

    def _write_block(self) -> bool:
        """Write the block at the file's end; on a refusal bring every row back."""
        try:
            if self._file is None:
                # held open for the rows' lifetime; unlinked at once, closed by close()
                # unbuffered: a refused write leaves no bytes behind to fail again later
                self._file = tempfile.TemporaryFile(prefix="hwpscan-rows-", buffering=0)  # noqa: SIM115
            if self._moved:  # a row was read back since the last write
                self._file.seek(self._end - self._pending)
                self._moved = False
            left = memoryview(b"".join(self._block))
            while left:  # a raw write may take only a part
                left = left[self._file.write(left) or 0 :]
        except OSError:  # no room on disk: the rows come back into memory
            self._unspill()
            return False
        self._block, self._pending = [], 0
        return True

    def _unspill(self) -> None:
        """Bring every spilled row back into memory and spill no more."""
        back = range(len(self._head), len(self._indexes))
        self._head.extend([Row.of(self._row(i)) for i in back])
        self._offsets = array("q")
        self._lines = array("q")
        self._spill = False
        self.close()

    def __len__(self) -> int:
        return len(self._indexes)

    def _row(self, i: int) -> FileResult:
        head = len(self._head)
        if i < head:
            return self._head[i].result
        k = i - head
        return unpack_result(pickle.loads(self._read(self._offsets[k], self._lines[k])))

    def _line(self, i: int) -> str:
        head = len(self._head)
        if i < head:
            return self._head[i].line
        k = i - head
        end = self._offsets[k + 1] if k + 1 < len(self._offsets) else self._end
        return self._read(self._lines[k], end).decode("utf-8", "surrogatepass")

    def _read(self, start: int, end: int) -> bytes:
        written = self._end - self._pending
        if start >= written and (self._file is not None or self._block):
            if len(self._block) > 1:  # joined once, for this read and the next
                self._block = [b"".join(self._block)]
            return self._block[0][start - written : end - written]
        if self._file is None:
            raise ValueError("these rows were closed: their file is gone")
        self._file.seek(start)
        self._moved = True
        return self._file.read(end - start)

    def in_input_order(self) -> Sequence[FileResult]:
        """The rows sorted by their input index (rows without one first), as a view."""
        order = sorted(range(len(self)), key=self._indexes.__getitem__)
        return _Ordered(self, array("q", order))

    def close(self) -> None:
        """Let the file go (its space is freed): call it when the rows are no longer read."""
        self._block, self._pending = [], 0
        if self._file is not None:
            with contextlib.suppress(OSError):  # bytes the disk refused: nobody reads them
                self._file.close()
            self._file = None


def status_counts(rows: Sequence[FileResult]) -> Counter[Status]:
    """Rows per status: from the tally of :class:`ResultRows` (no row read back from
    disk), else counted.

    >>> from hwpscan.models import Format
    >>> status_counts([FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN)])
    Counter({<Status.CLEAN: 'clean'>: 1})
    """
    if isinstance(rows, _Rows):
        return Counter(rows.statuses)
    return Counter(r.status for r in rows)


def defect_masks(rows: Sequence[FileResult]) -> Counter[int]:
    """Rows per set of defect classes (:attr:`~hwpscan.models.Defects.mask`; 0 for
    none, and for a body not read): the tally of :class:`ResultRows`, else counted.

    >>> from hwpscan.models import Defects, Format
    >>> row = FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN, defects=Defects(pdf_folded=1))
    >>> defect_masks([row])
    Counter({8: 1})
    """
    if isinstance(rows, _Rows):
        return Counter(rows.masks)
    found = (r.defect_counts() for r in rows)
    return Counter(0 if d is None else d.mask for d in found)


def defect_files(rows: Sequence[FileResult]) -> dict[str, int]:
    """Files per defect class, in class order (classes no file has left out).

    >>> from hwpscan.models import Defects, Format
    >>> found = Defects(folded_symbols=4)
    >>> row = FileResult("a.hwp", "", 0, Format.HWP5, Status.CLEAN, defects=found)
    >>> defect_files([row, row])
    {'folded_symbols': 2}
    """
    counts: Counter[str] = Counter()
    for mask, n in defect_masks(rows).items():
        for name in classes_of(mask):
            counts[name] += n
    return {name: counts[name] for name in DEFECT_CLASSES if counts[name]}


def row_lines(rows: Sequence[FileResult]) -> Iterator[str]:
    """:func:`~hwpscan.report.export.jsonl_line` of each row, in order: for the rows of
    :class:`ResultRows` the line kept with the row (none is rebuilt), else made.

    >>> from hwpscan.models import Format
    >>> next(row_lines([FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN)]))[:50]
    '{"schema": "hwpscan.scan.row/1", "path": "a.pdf", '
    """
    if isinstance(rows, _Rows):
        for i in range(len(rows)):
            yield rows._line(i)
    else:
        yield from map(jsonl_line, rows)


class _Ordered(_Rows):
    """*rows* seen through a permutation (kept as an array: 8 bytes a row)."""

    def __init__(self, rows: ResultRows, order: array[int]) -> None:
        self._rows = rows
        self._order = order
        self.statuses = rows.statuses
        self.masks = rows.masks

    def __len__(self) -> int:
        return len(self._order)

    def _row(self, i: int) -> FileResult:
        return self._rows._row(self._order[i])

    def _line(self, i: int) -> str:
        return self._rows._line(self._order[i])
