"""A file's row on its way from a worker to the run record and the output: the
:class:`Row`, a :class:`FileResult` with its JSON line.

>>> Row.of(FileResult("a.hwp", "", 0, Format.HWP5, Status.CLEAN), 2).index
2
"""

from __future__ import annotations

from dataclasses import replace

from hwpscan.models import FileResult, Format, Status
from hwpscan.rowcodec import decode_row, encode_row
from hwpscan.scanning.one_file import failed_row


class Row:
    """One file's row: its :class:`FileResult` and its JSON line, each made once, when
    first asked for. A worker sends the line's bytes alone (the row codec is the only
    serialisation of a row), so a row that is only stored and written out is never
    decoded by the supervisor, which every worker waits on; what the run record takes
    of every row is at hand.

    >>> import pickle
    >>> from hwpscan.models import NO_DEFECTS
    >>> result = FileResult("a.hwp", "", 0, Format.HWP5, Status.CLEAN, defects=NO_DEFECTS)
    >>> result = replace(result, seconds=0.5)
    >>> row = Row.of(result, 3)
    >>> sent = pickle.loads(pickle.dumps(Row.sent(result, 3)))
    >>> sent.result == row.result and sent.line == row.line and sent.index == 3
    True
    """

    __slots__ = (
        "_data",
        "_format",
        "_line",
        "_result",
        "_status",
        "date",
        "defects",
        "index",
        "path",
        "seconds",
    )

    def __init__(self, result: FileResult) -> None:
        self._result: FileResult | None = result
        self._data: bytes | None = None
        self._line: str | None = None
        self.index = result.index
        self.path = result.path
        self.date = result.date
        self._format = result.format.value
        self._status = result.status.value
        self.seconds = result.seconds
        found = result.defect_counts()
        #: the defect classes present (:attr:`~hwpscan.models.Defects.mask`; 0 for none)
        self.defects = 0 if found is None else found.mask

    @classmethod
    def of(cls, result: FileResult, index: int | None = None) -> Row:
        """The row of a result already made (given *index*, when it has another)."""
        if index is not None and result.index != index:
            result = replace(result, index=index)
        return cls(result)

    @classmethod
    def sent(cls, result: FileResult, index: int | None = None) -> Row:
        """The row of *result* as a worker sends it: its line encoded (in the worker,
        which spares the supervisor its costliest step), the result left behind."""
        row = cls.of(result, index)
        row._data = encode_row(row.result).encode("utf-8")
        row._result = None  # the line gives it back, less the time the line leaves out
        return row

    @property
    def format(self) -> Format:
        return _FORMATS[self._format]

    @property
    def status(self) -> Status:
        return _STATUSES[self._status]

    @property
    def result(self) -> FileResult:
        if self._result is None:
            assert self._data is not None  # one of the two is always there
            self._result = replace(decode_row(self._data), seconds=self.seconds)
        return self._result

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


_FORMATS = {f.value: f for f in Format}
_STATUSES = {s.value: s for s in Status}


def sent_row(result: FileResult, index: int) -> Row:
    """A file's row as a worker sends it: with its JSON line made in the worker (which
    spares the supervisor its costliest step)."""
    try:
        return Row.sent(result, index)
    except Exception as exc:  # a result too big to encode (MemoryError) is a row too
        return failed_row_of(result.path, result.date, index, exc)


def failed_row_of(shown: str, date: str | None, index: int, exc: BaseException) -> Row:
    """The row of a file whose row could not be made or sent, saying why."""
    return Row.of(failed_row(shown, date, None, exc, 0.0), index)
