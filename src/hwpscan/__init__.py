"""hwpscan: find the lone UTF-16 surrogates that document parsers leak into text.

The public API is small; everything else lives in private-by-convention modules.
Scanning: :func:`scan_file` (a path), :func:`scan_bytes` (bytes in memory),
:func:`scan_paths` (files and folders, one row per file, a broken file a row with a
status) and :func:`read_document` (the text and its evidence, without a verdict).
For pipelines: :func:`extract` (a file's repaired text and its receipt) and
:func:`guard_stream` (every item of a stream made safe for UTF-8).
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names

if TYPE_CHECKING:
    from hwpscan.forensics.checkjson import JsonCheck, check_json_bytes, check_json_text
    from hwpscan.forensics.guard import (
        RepairResult,
        SurrogateHit,
        Utf8Check,
        check_utf8,
        find_surrogates,
        repair_text,
        sanitize,
        sanitize_surrogates,
    )
    from hwpscan.forensics.pua import PuaInfo, apply_pua_map, pua_info, pua_name
    from hwpscan.forensics.stream_guard import guard_stream
    from hwpscan.forensics.surrogates import analyze, merge_pairs
    from hwpscan.formats import read_document
    from hwpscan.models import (
        Document,
        ExitCode,
        FileResult,
        Format,
        Location,
        Segment,
        Status,
        TextStats,
    )
    from hwpscan.scanning.many_files import scan_paths
    from hwpscan.scanning.one_file import scan_bytes, scan_file
    from hwpscan.usecases.extract import Extraction, extract

#: Public names and the module defining each. They load on first use, so ``hwpscan
#: --version`` and ``--help`` do not pay for the scanning core.
_LAZY = {
    "read_document": "hwpscan.formats",
    "scan_bytes": "hwpscan.scanning.one_file",
    "scan_file": "hwpscan.scanning.one_file",
    "scan_paths": "hwpscan.scanning.many_files",
    "extract": "hwpscan.usecases.extract",
    "Extraction": "hwpscan.usecases.extract",
    "guard_stream": "hwpscan.forensics.stream_guard",
    "JsonCheck": "hwpscan.forensics.checkjson",
    "check_json_bytes": "hwpscan.forensics.checkjson",
    "check_json_text": "hwpscan.forensics.checkjson",
    "RepairResult": "hwpscan.forensics.guard",
    "SurrogateHit": "hwpscan.forensics.guard",
    "Utf8Check": "hwpscan.forensics.guard",
    "check_utf8": "hwpscan.forensics.guard",
    "find_surrogates": "hwpscan.forensics.guard",
    "repair_text": "hwpscan.forensics.guard",
    "sanitize": "hwpscan.forensics.guard",
    "sanitize_surrogates": "hwpscan.forensics.guard",
    "PuaInfo": "hwpscan.forensics.pua",
    "apply_pua_map": "hwpscan.forensics.pua",
    "pua_info": "hwpscan.forensics.pua",
    "pua_name": "hwpscan.forensics.pua",
    "analyze": "hwpscan.forensics.surrogates",
    "merge_pairs": "hwpscan.forensics.surrogates",
    "Document": "hwpscan.models",
    "ExitCode": "hwpscan.models",
    "FileResult": "hwpscan.models",
    "Format": "hwpscan.models",
    "Location": "hwpscan.models",
    "Segment": "hwpscan.models",
    "Status": "hwpscan.models",
    "TextStats": "hwpscan.models",
}


__getattr__ = lazy_names(__name__, _LAZY)

__all__ = [
    "Document",
    "ExitCode",
    "Extraction",
    "FileResult",
    "Format",
    "JsonCheck",
    "Location",
    "PuaInfo",
    "RepairResult",
    "Segment",
    "Status",
    "SurrogateHit",
    "TextStats",
    "Utf8Check",
    "__version__",
    "analyze",
    "apply_pua_map",
    "check_json_bytes",
    "check_json_text",
    "check_utf8",
    "extract",
    "find_surrogates",
    "guard_stream",
    "merge_pairs",
    "pua_info",
    "pua_name",
    "read_document",
    "repair_text",
    "sanitize",
    "sanitize_surrogates",
    "scan_bytes",
    "scan_file",
    "scan_paths",
]
