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

from hwpscan.models import Segment

__all__ = [
    "ACTIVE",
    "PURE_PYTHON_ENV",
    "codeunit_view",
    "docinfo_spans",
    "paragraph_runs",
    "plain_counts",
    "scan_free",
]

#: The environment variable that turns the native paths off (any non-empty value).
PURE_PYTHON_ENV = "HWPSCAN_PURE_PYTHON"

ScanFree = Callable[[bytes, int, bool], tuple[list[tuple[int, int, int]], int, list[int], int, int]]
DocinfoSpans = Callable[[bytes, int], tuple[list[tuple[int, int, int, int]], int | None] | None]
PlainCounts = Callable[[bytes, list[int]], tuple[int, int] | None]
ParagraphRuns = Callable[
    [
        str,
        list[tuple[int, int, int]],
        list[int],
        str,
        list[Segment],
        list[str],
        int,
        type[Segment],
        dict[int, str],
    ],
    int | None,
]
CodeunitView = Callable[[bytes], str]


def _load() -> tuple[
    ScanFree | None,
    DocinfoSpans | None,
    PlainCounts | None,
    ParagraphRuns | None,
    CodeunitView | None,
]:
    if os.environ.get(PURE_PYTHON_ENV):
        return None, None, None, None, None
    try:
        from hwpscan.formats import _records
    except ImportError:  # installed without a compiler: the Python walks run
        return None, None, None, None, None
    r = _records
    return r.scan_free, r.docinfo_spans, r.plain_counts, r.paragraph_runs, r.codeunit_view


#: In C, or ``None``: :func:`hwpscan.formats.hwp5_text._scan_free`,
#: :func:`hwpscan.formats.hwp5._docinfo_spans`, (for a plain text)
#: :func:`hwpscan.formats.hwp5_text.plain_counts`,
#: :func:`hwpscan.formats.hwp5_text._paragraph_runs` (with ``text_runs``) and
#: :func:`hwpscan.formats.hwp5_text.codeunit_view` (of an even number of bytes).
scan_free, docinfo_spans, plain_counts, paragraph_runs, codeunit_view = _load()
#: Whether the native paths run in this process.
ACTIVE = scan_free is not None
