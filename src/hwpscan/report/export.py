"""JSON Lines and CSV writers of scan results, each row's text from the row codec
(:mod:`hwpscan.rowcodec`). CSV starts with a UTF-8 byte-order mark: Excel on a Korean
Windows reads a file without it as CP949 and garbles every name (``--no-bom`` drops it).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterable
from typing import IO

from hwpscan.models import FileResult
from hwpscan.rowcodec import CSV_COLUMNS, csv_fields, spreadsheet_cell


def jsonl_bytes_sink(out: IO[str]) -> Callable[[bytes], None]:
    """A function that writes lines given in UTF-8 (:attr:`.row_handoff.Row.data`, one
    or several joined by newlines) and flushes at once: into *out*'s byte buffer when it
    has one and newlines need no translation (POSIX), else decoded, into *out*.

    >>> import io
    >>> out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    >>> write = jsonl_bytes_sink(out)
    >>> write('{"path": "보도.hwp"}'.encode())
    >>> out.buffer.getvalue().decode() == '{"path": "보도.hwp"}\\n'
    True

    A stream without bytes below (here a StringIO) gets the text:

    >>> text = io.StringIO()
    >>> jsonl_bytes_sink(text)('{"path": "보도.hwp"}'.encode())
    >>> text.getvalue() == '{"path": "보도.hwp"}\\n'
    True
    """
    raw = getattr(out, "buffer", None)
    if raw is None or os.linesep != "\n":  # no bytes below, or a text layer to translate

        def write_text(data: bytes) -> None:
            out.write(data.decode("utf-8") + "\n")
            out.flush()

        return write_text
    out.flush()  # what the text layer holds goes first

    def write(data: bytes) -> None:
        raw.write(data + b"\n")
        raw.flush()

    return write


#: What a spreadsheet needs to read the file as UTF-8.
BOM = "\ufeff"


def csv_sink(
    out: IO[str], *, bom: bool = True, repair: bool = False
) -> Callable[[FileResult], None]:
    """Write the BOM (unless told not to) and the header now; return a row writer
    (*repair*: of :func:`repair_csv_row`, the columns of ``repair --format csv``).

    Each row is flushed as it is written.
    """
    if bom:
        out.write(BOM)
    columns = REPAIR_CSV_COLUMNS if repair else CSV_COLUMNS
    writer = csv.DictWriter(_LfRows(out), fieldnames=columns, lineterminator="\r\n")
    writer.writeheader()
    row = repair_csv_row if repair else csv_fields

    def write(result: FileResult) -> None:
        writer.writerow(row(result))
        out.flush()

    return write


REPAIR_CSV_COLUMNS = [
    "path",
    "status",
    "reason",
    "target",
    "restored_pairs",
    "removed_orphans",
    "folded_restored",
    "pua_mode",
    "pua_replaced",
    "old_hangul_mapped",
    "pua_kept",
    "pua_dropped",
    "pua_placeheld",
]


def repair_csv_row(result: FileResult) -> dict[str, object]:
    """What ``repair`` did to one file, flat: the file its text went to and the counts
    (empty for a file whose text was not read, so nothing was written).

    >>> from hwpscan.models import Format, RepairSummary, Status
    >>> done = RepairSummary(restored_pairs=2, pua_kept={"U+F0850": 1}, target="o/a.hwp.txt")
    >>> row = repair_csv_row(FileResult("a.hwp", "", 1, Format.HWP5, Status.CLEAN, repair=done))
    >>> row["target"], row["restored_pairs"], row["pua_kept"]
    ('o/a.hwp.txt', 2, 'U+F0850:1')
    """
    done = result.repair
    row: dict[str, object] = dict.fromkeys(REPAIR_CSV_COLUMNS, "")
    row.update(
        path=spreadsheet_cell(result.path),
        status=result.status.value,
        reason=spreadsheet_cell(result.reason or ""),
    )
    if done is None:
        return row
    row.update(
        target=spreadsheet_cell(done.target or ""),
        restored_pairs=done.restored_pairs,
        removed_orphans=done.removed_orphans,
        folded_restored=done.folded_restored,
        pua_mode=done.pua,
        old_hangul_mapped=done.old_hangul_mapped,
    )
    for key in ("pua_replaced", "pua_kept", "pua_dropped", "pua_placeheld"):
        counts: dict[str, int] = getattr(done, key)
        row[key] = ";".join(f"{cp}:{n}" for cp, n in counts.items())
    return row


class _LfRows:
    """A CSV writer's output with rows ended by ``\\n``. The writer is given ``\\r\\n`` so
    that it quotes every cell holding a bare ``\\r`` (a spreadsheet starts a row there: a
    file name could forge one, formula and all); the row's own ``\\r`` goes here.

    >>> import io
    >>> out = io.StringIO()
    >>> _ = csv.writer(_LfRows(out), lineterminator="\\r\\n").writerow(["a\\r=1+1", "b"])
    >>> out.getvalue()
    '"a\\r=1+1",b\\n'
    """

    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def write(self, row: str) -> int:
        return self._out.write(row[:-2] + "\n" if row.endswith("\r\n") else row)


def write_csv(results: Iterable[FileResult], out: IO[str], *, bom: bool = True) -> None:
    """Write the BOM, a header and one row per result."""
    write = csv_sink(out, bom=bom)
    for result in results:
        write(result)
