"""hwpscan: find the lone UTF-16 surrogates that document parsers leak into text.

The public API is small; everything else lives in private-by-convention modules.
"""

from __future__ import annotations

__version__ = "0.1.0"

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
from hwpscan.forensics.surrogates import analyze, merge_pairs
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

__all__ = [
    "Document",
    "ExitCode",
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
    "find_surrogates",
    "merge_pairs",
    "pua_info",
    "pua_name",
    "repair_text",
    "sanitize",
    "sanitize_surrogates",
]
