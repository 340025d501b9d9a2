"""A result row in and out of text, the one codec of :class:`~hwpscan.models.FileResult`:
:func:`encode_row` (the JSON Lines record, the contract CI depends on: :data:`CONTRACT_KEYS`),
:func:`decode_row` (a row again from such a line) and :func:`csv_fields` (the spreadsheet
record). Lines keep Korean readable (``ensure_ascii=False``) and are valid UTF-8: paths
are made printable and snippets escaped before they get here.

>>> from hwpscan.models import Format, Status
>>> row = FileResult("보도.hwp", "ab", 3, Format.HWP5, Status.CLEAN, index=4, defects=NO_DEFECTS)
>>> line = encode_row(row)
>>> line[:66]
'{"schema": "hwpscan.scan.row/1", "path": "보도.hwp", "sha256": "ab",'
>>> decode_row(line) == row, encode_row(decode_row(line)) == line
(True, True)
>>> csv_fields(row)["chars"], csv_fields(row)["utf8_ok"]
(0, 'true')

Only what the line holds comes back: ``seconds`` is 0.0, and the counts of a body that
was not read are zero.
"""

from __future__ import annotations

import json
from typing import Any

from hwpscan.models import (
    DEFECT_CLASSES,
    NO_DEFECTS,
    Defects,
    FileResult,
    Format,
    Location,
    RepairSummary,
    Status,
    TextStats,
)

#: The shape and version of a scan's JSON Lines row, its first key ``"schema"``.
ROW_SCHEMA = "hwpscan.scan.row/1"

#: Keys every JSON Lines record carries (the contract CI depends on). ``schema`` is
#: :data:`ROW_SCHEMA`, always the first key (rows stored before it had none).
CONTRACT_KEYS = (
    *("schema", "path", "sha256", "bytes", "format", "status", "reason", "date", "chars"),
    *("surrogates", "pairs", "orphans", "utf8_ok", "utf8_error", "pua", "defects", "locations"),
)

#: The columns of ``files.csv`` and ``scan --format csv``, in order.
CSV_COLUMNS = [
    *("path", "date", "format", "status", "reason", "bytes", "sha256", "chars", "surrogates"),
    *("pairs", "orphans", "utf8_ok", "utf8_error", "pua", "replacement_chars"),
    *("preview_surrogates", "meta_surrogates", *DEFECT_CLASSES),
]

#: ``json.dumps(..., ensure_ascii=False)`` made once (its C encoder), not per row; a
#: record holds no cycle, so none is looked for.
_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
_LOCATION_KEYS = Location._fields
_REPAIR_KEYS = RepairSummary.__dataclass_fields__.keys()
_NO_DEFECTS = NO_DEFECTS.as_dict()


def encode_row(result: FileResult) -> str:
    """The JSON Lines record of *result*: flat body counts (``null`` for a body that was
    not read), nested preview and meta counts, ``repair`` and ``index`` when present."""
    r = result
    body = r.body
    read = r.body_read
    record: dict[str, Any] = {
        "schema": ROW_SCHEMA,
        "path": r.path,
        "sha256": r.sha256,
        "bytes": r.bytes,
        "format": r.format.value,
        "status": r.status.value,
        "reason": r.reason,
        "date": r.date,
        **_counts(body, read),
        "defects": _defects(r.defect_counts()),
        "locations": _locations(body),
        "preview": _stats(r.preview),
        "meta": _stats(r.meta),
        "warnings": r.warnings,
    }
    if r.repair is not None:
        record["repair"] = {key: getattr(r.repair, key) for key in _REPAIR_KEYS}
    if r.index is not None:
        record["index"] = r.index
    return _ENCODE(record)


def _defects(found: Defects | None) -> dict[str, int] | None:
    if found is None:
        return None
    return _NO_DEFECTS if found is NO_DEFECTS else found.as_dict()


def _counts(stats: TextStats, read: bool = True) -> dict[str, Any]:
    """The counts of *stats* (``null`` where a body that was not read has none)."""
    return {
        "chars": stats.chars if read else None,
        "surrogates": stats.surrogates if read else None,
        "pairs": stats.pairs if read else None,
        "orphans": stats.orphans if read else None,
        "utf8_ok": stats.utf8_ok if read else None,
        "utf8_error": stats.utf8_error,
        "pua": stats.pua,
        "replacement_chars": stats.replacement_chars if read else None,
    }


def _locations(stats: TextStats) -> list[dict[str, Any]]:
    return [dict(zip(_LOCATION_KEYS, loc, strict=False)) for loc in stats.locations]


def _stats(stats: TextStats | None) -> dict[str, Any] | None:
    return None if stats is None else {**_counts(stats), "locations": _locations(stats)}


def decode_row(line: str | bytes) -> FileResult:
    """The row of a line :func:`encode_row` wrote (or an older one: no ``schema``, no
    ``defects``, no ``index``). Raises ``ValueError`` (JSON) or ``KeyError``/``TypeError``
    for a line that is not a row."""
    data = json.loads(line)
    if not isinstance(data, dict):
        raise TypeError("a row is a JSON object")
    index = data.get("index")
    repair = data.get("repair")
    return FileResult(
        path=data["path"],
        sha256=data["sha256"],
        bytes=data["bytes"],
        format=Format(data["format"]),
        status=Status(data["status"]),
        reason=data.get("reason"),
        date=data.get("date"),
        body=_stats_of(data),
        preview=_stats_of(data["preview"]) if data.get("preview") else None,
        meta=_stats_of(data["meta"]) if data.get("meta") else None,
        warnings=tuple(data.get("warnings") or ()),
        body_read=data.get("chars") is not None,
        repair=RepairSummary(**repair) if repair else None,
        index=index if type(index) is int else None,
        defects=_defects_of(data.get("defects")),
    )


def _defects_of(data: object) -> Defects | None:
    """The counts of a record's ``defects`` object (unknown keys are ignored)."""
    if not isinstance(data, dict):
        return None
    found = Defects(**{k: int(data.get(k) or 0) for k in DEFECT_CLASSES})
    return NO_DEFECTS if found == NO_DEFECTS else found


def _stats_of(data: dict[str, Any]) -> TextStats:
    """Counts from a record; ``null`` (a body that was not read) becomes the empty default."""
    return TextStats(
        chars=data.get("chars") or 0,
        surrogates=data.get("surrogates") or 0,
        pairs=data.get("pairs") or 0,
        orphans=data.get("orphans") or 0,
        utf8_ok=data.get("utf8_ok") is not False,
        utf8_error=data.get("utf8_error"),
        pua=dict(data.get("pua") or {}),
        replacement_chars=data.get("replacement_chars") or 0,
        locations=tuple(Location(**loc) for loc in data.get("locations") or ()),
    )


def csv_fields(result: FileResult) -> dict[str, object]:
    """The flat CSV record of one row, by :data:`CSV_COLUMNS` (PUA as
    ``U+F02B1:3;U+F0854:1``, booleans as ``true``/``false``).

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
        "path": spreadsheet_cell(result.path),
        "date": result.date or "",
        "format": result.format.value,
        "status": result.status.value,
        "reason": spreadsheet_cell(result.reason or ""),
        "bytes": result.bytes,
        "sha256": result.sha256,
        "chars": b.chars if read else "",
        "surrogates": b.surrogates if read else "",
        "pairs": b.pairs if read else "",
        "orphans": b.orphans if read else "",
        "utf8_ok": ("true" if b.utf8_ok else "false") if read else "",
        "utf8_error": spreadsheet_cell(b.utf8_error or ""),
        "pua": ";".join(f"{cp}:{n}" for cp, n in b.pua.items()),
        "replacement_chars": b.replacement_chars if read else "",
        "preview_surrogates": result.preview.surrogates if result.preview else "",
        "meta_surrogates": result.meta.surrogates if result.meta else "",
        **counts,
    }


def spreadsheet_cell(text: str) -> str:
    """Text safe to open in a spreadsheet: a leading formula character gets a quote.

    >>> spreadsheet_cell("=HYPERLINK(1)"), spreadsheet_cell("보도자료.hwp")
    ("'=HYPERLINK(1)", '보도자료.hwp')
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
