"""The optional native fast paths of the readers, or ``None`` for each one missing.

The C module ``_records.c`` is built when the package is installed and a compiler is
at hand. Each of its functions returns exactly what a Python function of the readers
returns (or ``None`` where that function would write a warning, so the caller runs it);
the Python code stays the reference and the fallback, and the differential tests drive
both. Set ``HWPSCAN_PURE_PYTHON=1`` to run the Python code alone, e.g. to compare
speeds or to rule the native code out when a result surprises.

>>> ACTIVE in (True, False)
True
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["ACTIVE", "PURE_PYTHON_ENV", "docinfo_spans", "plain_counts", "scan_free"]

#: The environment variable that turns the native paths off (any non-empty value).
PURE_PYTHON_ENV = "HWPSCAN_PURE_PYTHON"

ScanFree = Callable[[bytes, int, bool], tuple[list[tuple[int, int, int]], int, list[int], int, int]]
DocinfoSpans = Callable[[bytes, int], tuple[list[tuple[int, int, int, int]], int | None] | None]
PlainCounts = Callable[[bytes, list[int]], tuple[int, int] | None]


def _load() -> tuple[ScanFree | None, DocinfoSpans | None, PlainCounts | None]:
    if os.environ.get(PURE_PYTHON_ENV):
        return None, None, None
    try:
        from hwpscan.formats import _records
    except ImportError:  # installed without a compiler: the Python walks run
        return None, None, None
    return _records.scan_free, _records.docinfo_spans, _records.plain_counts


#: :func:`hwpscan.formats.hwp5_text._scan_free`,
#: :func:`hwpscan.formats.hwp5._docinfo_spans` and (for a plain text)
#: :func:`hwpscan.formats.hwp5_text.plain_counts` in C, or ``None``.
scan_free, docinfo_spans, plain_counts = _load()
#: Whether the native paths run in this process.
ACTIVE = scan_free is not None
