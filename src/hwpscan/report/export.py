"""Machine-readable exports of scan results: JSON Lines and CSV.

CSV is written for spreadsheets: a UTF-8 byte-order mark first (Excel on a Korean
Windows reads a file without it as CP949 and garbles every name; ``--no-bom`` drops
it for tools that mind), booleans as ``true``/``false``.

JSON Lines is the contract other tools and CI depend on (see
:data:`hwpscan.models.CONTRACT_KEYS`). Every string written is valid UTF-8: paths are
made printable and context snippets are escaped before they get here.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict
from json.encoder import encode_basestring as _quote  # the C string encoder json.dumps uses
from typing import IO

from hwpscan.memo import ByIdentity
from hwpscan.models import DEFECT_CLASSES, NO_DEFECTS, ROW_SCHEMA, FileResult, Location, TextStats
from hwpscan.native import optional

CSV_COLUMNS = [
    "path",
    "date",
    "format",
    "status",
    "reason",
    "bytes",
    "sha256",
    "chars",
    "surrogates",
    "pairs",
    "orphans",
    "utf8_ok",
    "utf8_error",
    "pua",
    "replacement_chars",
    "preview_surrogates",
    "meta_surrogates",
    *DEFECT_CLASSES,
]


def jsonl_line(result: FileResult) -> str:
    """One JSON object on one line, Korean kept readable.

    >>> from hwpscan.models import Format, Status
    >>> jsonl_line(FileResult("보도.hwp", "ab", 3, Format.HWP5, Status.CLEAN))[:66]
    '{"schema": "hwpscan.scan.row/1", "path": "보도.hwp", "sha256": "ab",'
    """
    line = _LINES.get(result)
    if line is None:
        line = record_line(result)
        _LINES.put(result, line)
    return line


def record_line(result: FileResult, *, index: int | None = None) -> str:
    """``json.dumps(result.to_json(), ensure_ascii=False)``, character for character,
    written out field by field: no dictionary per record and per location is built, and
    strings go through the same C encoder ``json.dumps`` uses. A contaminated file's
    line (twenty-odd locations) costs a third of what the dump of its dictionary did.

    >>> from hwpscan.models import Format, Status
    >>> row = FileResult("보도.hwp", "ab", 3, Format.HWP5, Status.CLEAN, reason='a "b"')
    >>> record_line(row) == json.dumps(row.to_json(), ensure_ascii=False)
    True

    With *index*, the line of the result with that index (the result is not copied).

    >>> from dataclasses import replace
    >>> record_line(row, index=7) == jsonl_line(replace(row, index=7))
    True
    """
    r = result
    b = r.body
    if r.body_read:
        counts = (
            f'{b.chars!r}, "surrogates": {b.surrogates!r}, "pairs": {b.pairs!r}, '
            f'"orphans": {b.orphans!r}, "utf8_ok": {_BOOL[b.utf8_ok]}'
        )
        replacement = repr(b.replacement_chars)
    else:
        counts = 'null, "surrogates": null, "pairs": null, "orphans": null, "utf8_ok": null'
        replacement = "null"
    line = (
        f'{{"schema": {_ROW_SCHEMA}, "path": {_quote(r.path)}, '
        f'"sha256": {_quote(r.sha256)}, "bytes": {r.bytes!r}, '
        f'"format": {_quote(r.format.value)}, "status": {_quote(r.status.value)}, '
        f'"reason": {_text(r.reason)}, "date": {_text(r.date)}, "chars": {counts}, '
        f'"utf8_error": {_text(b.utf8_error)}, "pua": {_tally(b.pua)}, '
        f'"replacement_chars": {replacement}, "defects": {_defects(r)}, '
        f'"locations": {_locations(b.locations)}, '
        f'"preview": {_stats(r.preview)}, "meta": {_stats(r.meta)}, '
        f'"warnings": {_strings(r.warnings)}'
    )
    if r.repair is not None:
        line += f', "repair": {json.dumps(asdict(r.repair), ensure_ascii=False)}'
    index = r.index if index is None else index
    if index is not None:
        line += f', "index": {index!r}'
    return line + "}"


_BOOL = {True: "true", False: "false"}
_ROW_SCHEMA = json.dumps(ROW_SCHEMA)


def _defects(result: FileResult) -> str:
    """The ``defects`` object of *result* (``null`` when its body was not read)."""
    defects = result.defect_counts()
    if defects is None:
        return "null"
    if defects is NO_DEFECTS:
        return _NO_DEFECTS_JSON
    return "{" + ", ".join(f'"{k}": {n!r}' for k, n in defects.as_dict().items()) + "}"


_NO_DEFECTS_JSON = "{" + ", ".join(f'"{k}": 0' for k in DEFECT_CLASSES) + "}"


def _text(value: str | None) -> str:
    return "null" if value is None else _quote(value)


def _strings(values: Iterable[str]) -> str:
    return "[" + ", ".join(map(_quote, values)) + "]"


def _tally(counts: dict[str, int]) -> str:
    if not counts:
        return "{}"
    return "{" + ", ".join([f"{_quote(k)}: {n!r}" for k, n in counts.items()]) + "}"


def _load_locations() -> Callable[[tuple[Location, ...]], str | None]:
    from hwpscan.report import _lines  # optional: built only where a compiler was

    return _lines.locations


#: :func:`_python_locations` in C (``_lines.c``; see :mod:`hwpscan.native`), or None.
_NATIVE_LOCATIONS = optional(_load_locations)


def _locations(found: tuple[Location, ...]) -> str:
    if not found:
        return "[]"
    if _NATIVE_LOCATIONS is not None and (text := _NATIVE_LOCATIONS(found)) is not None:
        return text
    return _python_locations(found)


def _python_locations(found: tuple[Location, ...]) -> str:
    """The JSON array of *found*: the reference of the C writer (``_lines.locations``),
    which hands back None for what it does not write, and this then writes it."""
    if not found:
        return "[]"
    q = _quote
    return (
        "["
        + ", ".join(
            [
                f'{{"stream": {q(s)}, "paragraph": {p!r}, "offset": {o!r}, '
                f'"codepoint": {q(c)}, "kind": {q(k)}, "units": {q(u)}, "context": {q(x)}}}'
                for s, p, o, c, k, u, x in found
            ]
        )
        + "]"
    )


def _stats(stats: TextStats | None) -> str:
    if stats is None:
        return "null"
    s = stats
    return (
        f'{{"chars": {s.chars!r}, "surrogates": {s.surrogates!r}, "pairs": {s.pairs!r}, '
        f'"orphans": {s.orphans!r}, "utf8_ok": {_BOOL[s.utf8_ok]}, '
        f'"utf8_error": {_text(s.utf8_error)}, "pua": {_tally(s.pua)}, '
        f'"replacement_chars": {s.replacement_chars!r}, "locations": {_locations(s.locations)}}}'
    )


def remember_line(result: FileResult, line: str) -> None:
    """Take *line* as :func:`jsonl_line` of *result* (a worker process made it)."""
    _LINES.put(result, line)


#: The last lines made: the stream and the run store each want a result's line, and a
#: result is immutable, so it is built once. Bounded: the store writes in small batches.
_LINES: ByIdentity[FileResult, str] = ByIdentity(512)


def jsonl_sink(out: IO[str]) -> Callable[[FileResult], None]:
    """A function that writes one result as a line and flushes it at once."""

    def write(result: FileResult) -> None:
        out.write(jsonl_line(result) + "\n")
        out.flush()

    return write


def jsonl_bytes_sink(out: IO[str]) -> Callable[[bytes], None]:
    """A function that writes one line given in UTF-8
    (:attr:`hwpscan.scanning.row_handoff.Row.data`) and flushes it at once: into *out*'s
    byte buffer when it has one and adds nothing to a newline (POSIX), so the bytes go out as
    they came; else decoded, into *out*.
    A JSON line holds no newline, so several lines joined by newlines may be given at
    once: the same bytes go out, in one write and one flush.

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
        write_line = jsonl_line_sink(out)
        return lambda data: write_line(data.decode("utf-8"))
    out.flush()  # what the text layer holds goes first

    def write(data: bytes) -> None:
        raw.write(data + b"\n")
        raw.flush()

    return write


def jsonl_line_sink(out: IO[str]) -> Callable[[str], None]:
    """A function that writes one line made by :func:`jsonl_line` and flushes it at once."""

    def write(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    return write


def csv_row(result: FileResult) -> dict[str, object]:
    """The flat CSV record of one result (PUA as ``U+F02B1:3;U+F0854:1``).

    Counts of a body that was not read are left empty, as they are null in JSON Lines.
    A text cell that a spreadsheet would run as a formula is neutralised with a quote.
    """
    b = result.body
    read = result.body_read
    defects = result.defect_counts()
    counts: dict[str, object] = dict.fromkeys(DEFECT_CLASSES, "")
    if defects is not None:
        counts.update(defects.as_dict())
    return {
        "path": _cell(result.path),
        "date": result.date or "",
        "format": result.format.value,
        "status": result.status.value,
        "reason": _cell(result.reason or ""),
        "bytes": result.bytes,
        "sha256": result.sha256,
        "chars": b.chars if read else "",
        "surrogates": b.surrogates if read else "",
        "pairs": b.pairs if read else "",
        "orphans": b.orphans if read else "",
        "utf8_ok": _bool(b.utf8_ok) if read else "",
        "utf8_error": _cell(b.utf8_error or ""),
        "pua": ";".join(f"{cp}:{n}" for cp, n in b.pua.items()),
        "replacement_chars": b.replacement_chars if read else "",
        "preview_surrogates": result.preview.surrogates if result.preview else "",
        "meta_surrogates": result.meta.surrogates if result.meta else "",
        **counts,
    }


#: What a spreadsheet needs to read the file as UTF-8.
BOM = "\ufeff"


def _bool(value: bool) -> str:
    """``true`` or ``false``, as JSON spells them (not Python's ``True``).

    >>> _bool(True), _bool(False)
    ('true', 'false')
    """
    return "true" if value else "false"


def _cell(text: str) -> str:
    """Text safe to open in a spreadsheet: a leading formula character gets a quote.

    >>> _cell("=HYPERLINK(1)"), _cell("보도자료.hwp")
    ("'=HYPERLINK(1)", '보도자료.hwp')
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


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
    row = repair_csv_row if repair else csv_row

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
        path=_cell(result.path), status=result.status.value, reason=_cell(result.reason or "")
    )
    if done is None:
        return row
    row.update(
        target=_cell(done.target or ""),
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
    """A CSV writer's output with rows ended by ``\\n``. The writer is given ``\\r\\n``
    as its line end so that it quotes every cell holding a bare ``\\r`` (with ``\\n``
    alone it does not, and a spreadsheet starts a new row there: a file name could
    forge a row, formula and all, past :func:`_cell`); the row's own ``\\r`` goes here.

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


def write_csv(results: Iterable[FileResult], out: IO[str], *, bom: bool = True) -> int:
    """Write the BOM, a header and one row per result."""
    return _drain(results, csv_sink(out, bom=bom))


def _drain(results: Iterable[FileResult], sink: Callable[[FileResult], None]) -> int:
    n = 0
    for result in results:
        sink(result)
        n += 1
    return n
