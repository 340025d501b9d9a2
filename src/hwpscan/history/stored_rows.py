"""A run's rows without holding them (a million would take gigabytes): every row is in the
run store as its JSON line already, so :class:`StoredRows` keeps per row only its input
index and ``seconds`` (which the line lacks), plus tallies of statuses and defect classes,
and reads a row back when asked (after a history failure, from a temporary database).

>>> from hwpscan.models import Format, Status
>>> from hwpscan.history.store import RunStore
>>> store = RunStore.temporary()
>>> rows = StoredRows()
>>> rows.stored_in(store, store.start_run("scan", {}))
>>> made = [FileResult(f"f{i}.hwp", "", i, Format.HWP5, Status.CLEAN, index=i) for i in (1, 0, 2)]
>>> rows.extend(made)
>>> _ = store.add_results(rows.run_ids[0], made)
>>> len(rows), rows[0].path, [r.path for r in rows.in_input_order()]
(3, 'f1.hwp', ['f0.hwp', 'f1.hwp', 'f2.hwp'])
>>> [line[-11:] for line in row_lines(rows.in_input_order())]
['"index": 0}', '"index": 1}', '"index": 2}']
"""

from __future__ import annotations

import bisect
import copy
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, overload

from hwpscan.models import DEFECT_CLASSES, ExitCode, FileResult, Status, classes_of
from hwpscan.rowcodec import decode_row, encode_row
from hwpscan.scanning.exit_gate import statuses_exit_code
from hwpscan.scanning.row_handoff import Row

if TYPE_CHECKING:
    from hwpscan.history.store import RunStore

__all__ = ["StoredRows", "defect_files", "defect_masks", "row_lines", "status_counts"]

#: Rows read from the store at a time, and blocks of them kept: rows taken a little out
#: of order (input order against completion order) are mostly in a block already read.
READ_BLOCK = 64
_BLOCKS_KEPT = 4


class StoredRows(Sequence[FileResult]):
    """A run's rows in the order they were added, read back from the store(s) they went to
    (the last named by :meth:`stored_in`); *flush* writes what is pending before a read."""

    def __init__(self, flush: Callable[[], None] | None = None) -> None:
        self._flush = flush
        self._indexes = array("q")  # every row's input index (-1: none), for sorting
        self._seconds = array("d")  # every row's time (the one field its line lacks)
        self._order: array[int] | None = None  # a view's rows, by place (in_input_order)
        # where the rows are: from row firsts[k] on, in stores[k] under run_ids[k]
        self._firsts: list[int] = []
        self._stores: list[RunStore] = []
        self.run_ids: list[str] = []
        self._blocks: OrderedDict[tuple[int, int], list[str]] = OrderedDict()
        self.statuses: Counter[Status] = Counter()  # rows per status, kept as they come
        self.masks: Counter[int] = Counter()  # rows per set of defect classes (0: none)

    def stored_in(self, store: RunStore, run_id: str, *, first: int | None = None) -> None:
        """The rows from *first* on (default: from the next one added) are stored in
        *store* under *run_id*, as its results from ``seq`` 0 on."""
        first = len(self) if first is None else first
        while self._firsts and self._firsts[-1] >= first:  # that store got none of them
            self._firsts.pop()
            self._stores.pop()
            self.run_ids.pop()
        self._firsts.append(first)
        self._stores.append(store)
        self.run_ids.append(run_id)
        self._blocks.clear()

    def extend(self, rows: Iterable[FileResult | Row]) -> None:
        """Note rows as they are added (a batch from the pool): the tallies once for it."""
        made = [row if isinstance(row, Row) else Row.of(row) for row in rows]
        self._indexes.extend([-1 if row.index is None else row.index for row in made])
        self._seconds.extend([row.seconds for row in made])
        self.statuses.update([row.status for row in made])
        self.masks.update([row.defects for row in made])

    def __len__(self) -> int:
        return len(self._indexes if self._order is None else self._order)

    @overload
    def __getitem__(self, i: int) -> FileResult: ...
    @overload
    def __getitem__(self, i: slice) -> list[FileResult]: ...
    def __getitem__(self, i: int | slice) -> FileResult | list[FileResult]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        place = range(len(self))[i]  # IndexError when out of range
        if self._order is not None:
            place = self._order[place]
        found = decode_row(self._line(place))
        seconds = self._seconds[place]
        return replace(found, seconds=seconds) if seconds else found

    def lines(self) -> Iterator[str]:
        """The rows' lines as stored, in order (none is rebuilt)."""
        for i in range(len(self)):
            yield self._line(i if self._order is None else self._order[i])

    def _line(self, i: int) -> str:
        """The stored line of row *i* (in the order rows were added)."""
        k = bisect.bisect_right(self._firsts, i) - 1
        if k < 0:
            raise LookupError(f"row {i} was never stored")
        seq = i - self._firsts[k]
        start = seq - seq % READ_BLOCK
        key = (k, start)
        block = self._blocks.get(key)
        if block is None or seq - start >= len(block):
            if self._flush is not None:
                self._flush()
            block = self._stores[k].result_lines(self.run_ids[k], start, READ_BLOCK)
            self._blocks[key] = block
            while len(self._blocks) > _BLOCKS_KEPT:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(key)
        if seq - start >= len(block):
            raise LookupError(f"row {i} is not in the run store")
        return block[seq - start]

    def in_input_order(self) -> StoredRows:
        """The rows sorted by their input index (rows without one first), as a view."""
        view = copy.copy(self)
        view._order = array("q", sorted(range(len(self)), key=self._indexes.__getitem__))
        return view


def status_counts(rows: Sequence[FileResult]) -> Counter[Status]:
    """Rows per status: from the tally of :class:`StoredRows` (no row read back), else
    counted.

    >>> from hwpscan.models import Format
    >>> status_counts([FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN)])
    Counter({<Status.CLEAN: 'clean'>: 1})
    """
    if isinstance(rows, StoredRows):
        return Counter(rows.statuses)
    return Counter(r.status for r in rows)


def defect_masks(rows: Sequence[FileResult]) -> Counter[int]:
    """Rows per set of defect classes (:attr:`~hwpscan.models.Defects.mask`; 0 for
    none, and for a body not read): the tally of :class:`StoredRows`, else counted.

    >>> from hwpscan.models import Defects, Format
    >>> row = FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN, defects=Defects(pdf_folded=1))
    >>> defect_masks([row])
    Counter({8: 1})
    """
    if isinstance(rows, StoredRows):
        return Counter(rows.masks)
    found = (r.defect_counts() for r in rows)
    return Counter(0 if d is None else d.mask for d in found)


def rows_exit_code(rows: Sequence[FileResult], fail_on: Iterable[str]) -> ExitCode:
    """The ``--fail-on`` gate's exit code over *rows*, from their tallies of statuses
    and defect classes (:func:`status_counts`, :func:`defect_masks`; no row read back).

    >>> from hwpscan.models import Format
    >>> row = FileResult("a.pdf", "", 0, Format.PDF, Status.CONTAMINATED)
    >>> rows_exit_code([row], ["contaminated"]), rows_exit_code([row], ["unreadable"])
    (<ExitCode.FINDINGS: 1>, <ExitCode.OK: 0>)
    """
    return statuses_exit_code(status_counts(rows), fail_on, defect_masks(rows))


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
    """:func:`~hwpscan.rowcodec.encode_row` of each row, in order: for the rows of
    :class:`StoredRows` the line as stored (none is rebuilt), else made.

    >>> from hwpscan.models import Format
    >>> next(row_lines([FileResult("a.pdf", "", 0, Format.PDF, Status.CLEAN)]))[:50]
    '{"schema": "hwpscan.scan.row/1", "path": "a.pdf", '
    """
    return rows.lines() if isinstance(rows, StoredRows) else map(encode_row, rows)
