"""``scan --format jsonl/csv``: rows written in input order as files complete.

Rows come back in roughly input order. :class:`InputOrder` holds a row that came early
until every row before it is written, so the output is the same on every run and still
goes out while the scan runs. What it holds is bounded (:data:`HELD_ROWS`,
:data:`HELD_BYTES`); past the bound it writes nothing more until the end, when the rest
is read back in input order from the run's store (:meth:`InputOrder.finish`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hwpscan.cli.scan_view import TerminalObserver
from hwpscan.history.stored_rows import row_lines
from hwpscan.models import FileResult
from hwpscan.scanning.row_handoff import Row
from hwpscan.whole_steps import whole_step

#: The most rows held back waiting for an earlier one.
HELD_ROWS = 10_000
#: The most bytes of JSON lines held back.
HELD_BYTES = 32_000_000


class InputOrder:
    """Rows in, rows out in input order (their ``index``), holding at most *held_rows*
    rows (0: none, all written at the end) and *held_bytes* bytes; *lines* writes JSON
    lines, or *results* results (csv).

    >>> import json
    >>> from hwpscan.models import Format, Status
    >>> rows = [Row.of(FileResult(f"{i}.pdf", "", 0, Format.PDF, Status.CLEAN), i)
    ...         for i in range(4)]
    >>> got = []
    >>> order = InputOrder(lines=lambda data: got.extend(data.split(b"\\n")))
    >>> order.take([rows[2], rows[1]]); len(got), order.written
    (0, 0)
    >>> order.take([rows[0], rows[3]]); [json.loads(line)["path"] for line in got], order.written
    (['0.pdf', '1.pdf', '2.pdf', '3.pdf'], 4)
    """

    def __init__(
        self,
        *,
        lines: Callable[[bytes], None] | None = None,
        results: Callable[[FileResult], None] | None = None,
        held_rows: int = HELD_ROWS,
        held_bytes: int = HELD_BYTES,
    ) -> None:
        self._lines = lines
        self._results = results
        self._held_rows = held_rows
        self._held_bytes = held_bytes
        self._held: dict[int, Row] = {}
        self._bytes = 0
        #: Rows written, all those of index below this number.
        self.written = 0
        #: True once the bound was passed: the rest is written by :meth:`finish`.
        self.deferred = held_rows <= 0

    def take(self, rows: Sequence[Row]) -> None:
        """Hold *rows*, then write every row now next in order."""
        if self.deferred:
            return
        for row in rows:
            if row.index is None or row.index < self.written or row.index in self._held:
                self._defer()  # not a row of this input's order: the store puts it right
                return
            self._held[row.index] = row
            if self._lines is not None:
                self._bytes += len(row.data) + 1
        ready: list[Row] = []
        while self.written in self._held:
            row = self._held.pop(self.written)
            if self._lines is not None:
                self._bytes -= len(row.data) + 1
            ready.append(row)
            self.written += 1
        self._write(ready)
        if len(self._held) > self._held_rows or self._bytes > self._held_bytes:
            self._defer()

    def finish(self, results: Sequence[FileResult]) -> None:
        """Write what is left: *results* (the run's rows in input order) after the
        :attr:`written` first ones, read back from the store, never held at once."""
        if self.written >= len(results):
            return
        if self._lines is not None:
            write = self._lines
            for number, line in enumerate(row_lines(results)):
                if number >= self.written:
                    with whole_step():  # a stop says how many the file holds
                        write(line.encode("utf-8"))
                        self.written = number + 1
        elif self._results is not None:
            for number in range(self.written, len(results)):
                with whole_step():
                    self._results(results[number])
                    self.written = number + 1
        self.written = len(results)

    def flush_held(self) -> int:
        """Write the rows still held back (a stopped scan: each row already made reaches
        the output, in index order though not all in input order); how many."""
        held = [self._held[index] for index in sorted(self._held)]
        self._write(held)
        self._held.clear()
        self._bytes = 0
        return len(held)

    def _write(self, ready: list[Row]) -> None:
        if not ready:
            return
        if self._lines is not None:  # JSON lines hold no newline: one write for the run
            self._lines(b"\n".join([row.data for row in ready]))
        elif self._results is not None:
            for row in ready:
                self._results(row.result)

    def _defer(self) -> None:
        self.deferred = True
        self._held.clear()
        self._bytes = 0


class InputOrderObserver(TerminalObserver):
    """The terminal's observer with rows written through an :class:`InputOrder`."""

    def __init__(self, order: InputOrder, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # no stream, no lines: the bars only
        self.order = order

    def rows(self, rows: Sequence[Row]) -> None:
        self.order.take(rows)
        super().rows(rows)
