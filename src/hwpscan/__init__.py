"""hwpscan: find the lone UTF-16 surrogates that document parsers leak into text.

The public API is small; everything else lives in private-by-convention modules.
"""

from __future__ import annotations

__version__ = "0.1.0"

from hwpscan.forensics.surrogates import analyze, merge_pairs
from hwpscan.models import Document, ExitCode, FileResult, Format, Location, Segment, Status, TextStats

__all__ = [
    "Document",
    "ExitCode",
    "FileResult",
    "Format",
    "Location",
    "Segment",
    "Status",
    "TextStats",
    "__version__",
    "analyze",
    "merge_pairs",
]
