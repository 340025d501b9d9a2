"""The native fast paths of the readers (``_records.c``, ``_cfb.c``, ``_hwp5plain.c``,
``_owpml.c``, ``_zip.c``), or ``None`` for each one missing: see :mod:`hwpscan.native` for
how they relate to the Python code and how to turn them off (``tests/test_native_switch.py``
checks both ways).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from hwpscan.models import Segment
from hwpscan.native import PURE_PYTHON_ENV, optional

__all__ = [
    "ACTIVE",
    "PURE_PYTHON_ENV",
    "cfb_layout",
    "codeunit_view",
    "docinfo_plain",
    "docinfo_spans",
    "join_payloads",
    "owpml_section",
    "owpml_starts",
    "paragraph_runs",
    "plain_counts",
    "plain_hwp5",
    "scan_free",
    "segments_hwp5",
    "zip_central",
    "zip_inflate",
]

ScanFree = Callable[[bytes, int, bool], tuple[list[tuple[int, int, int]], int, list[int], int, int]]
DocinfoSpans = Callable[[bytes, int], tuple[list[tuple[int, int, int, int]], int | None] | None]
DocinfoPlain = Callable[[bytes, int], tuple[int, int] | None]
PlainCounts = Callable[[bytes, list[int]], tuple[int, int] | Literal[False] | None]
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
JoinPayloads = Callable[[bytes, list[tuple[int, int, int]]], tuple[bytes, list[int], int] | None]
PlainHwp5 = Callable[
    [bytes, int, int, int],
    tuple[int, int, int, int, tuple[int, int], tuple[int, int] | None, tuple[int, int] | None]
    | None,
]
_Part = list[Segment] | tuple[int, int]
SegmentsHwp5 = Callable[
    [bytes, int, int, int, type[Segment], dict[int, str]],
    tuple[int, int, int, int, _Part, _Part | None, _Part | None] | None,
]
OwpmlSection = Callable[[bytes, int, int], list[str] | None]
OwpmlStarts = Callable[[bytes, tuple[bytes, ...], int], list[tuple[str, dict[str, str]]] | None]
ZipCentral = Callable[[bytes, int, int], list[tuple[str, int, int, int, int, int, int]] | None]
ZipInflate = Callable[[bytes, int, int, int, int, int], bytes | None]
CfbLayout = Callable[
    [bytes],
    tuple[dict[str, tuple[str, int, list[tuple[int, int]], bool]], list[tuple[int, int]], list[str]]
    | None,
]


def _load() -> tuple[
    ScanFree, DocinfoSpans, DocinfoPlain, PlainCounts, ParagraphRuns, CodeunitView, JoinPayloads
]:
    from hwpscan.formats import _records as r  # optional: built only where a compiler was

    return (
        r.scan_free,
        r.docinfo_spans,
        r.docinfo_plain,
        r.plain_counts,
        r.paragraph_runs,
        r.codeunit_view,
        r.join_payloads,
    )


def _load_cfb() -> CfbLayout:
    from hwpscan.formats import _cfb  # optional: built only where a compiler was

    return _cfb.layout


def _load_plain() -> tuple[PlainHwp5, SegmentsHwp5]:
    from hwpscan.formats import _hwp5plain  # optional: built only where a compiler was

    return _hwp5plain.read, _hwp5plain.read_segments


def _load_owpml() -> tuple[OwpmlSection, OwpmlStarts]:
    from hwpscan.formats import _owpml  # optional: built only where a compiler was

    return _owpml.section_texts, _owpml.starts


def _load_zip() -> tuple[ZipCentral, ZipInflate]:
    from hwpscan.formats import _zip  # optional: built only where a compiler was

    return _zip.central, _zip.inflate


#: In C, or ``None``: :func:`hwpscan.formats.hwp5_text._scan_free`,
#: :func:`hwpscan.formats.hwp5._docinfo_spans`, the counts of a plain DocInfo's names
#: (:func:`hwpscan.formats.hwp5._docinfo` without a span list), (for a plain text)
#: :func:`hwpscan.formats.hwp5_text.plain_counts`,
#: :func:`hwpscan.formats.hwp5_text._paragraph_runs` (with ``text_runs``) and
#: :func:`hwpscan.formats.hwp5_text.codeunit_view` (of an even number of bytes) and the
#: join of a section's payloads (:func:`hwpscan.formats.hwp5_text.section_text`).
(
    scan_free,
    docinfo_spans,
    docinfo_plain,
    plain_counts,
    paragraph_runs,
    codeunit_view,
    join_payloads,
) = optional(_load) or (None,) * 7
#: What :class:`hwpscan.formats.cfb_fast.CfbStreams` computes from a file's bytes
#: (returning ``None`` wherever it would decline), in C, or ``None``.
cfb_layout = optional(_load_cfb)
#: ``segments_hwp5``: what :func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body``
#: makes of an ordinary HWP 5 document, read in one call in C (its segments, or its
#: counts where that text is plain, for the body, the preview and the DocInfo names), or
#: ``None`` where it declines (the Python reader then reads the file); ``None`` when not
#: built. ``plain_hwp5`` is the same reader answering for plain documents only (their
#: info's counts): ``read_ole`` does not call it; the tests hold it to answering exactly
#: for the documents the Python reader counts as plain.
plain_hwp5, segments_hwp5 = optional(_load_plain) or (None, None)
#: The paragraph texts :func:`hwpscan.formats.hwpx.section_text` adds for one whole
#: section part, or ``None`` where it declines (expat then runs), in C, or ``None``;
#: and the start tags of chosen local names in a small part (the attributes expat's
#: start handler is given, by local name), or ``None`` where it declines.
owpml_section, owpml_starts = optional(_load_owpml) or (None, None)
#: The entries of a plain ZIP package and the bytes of one of them, or ``None`` where
#: they decline (zipfile then reads it), for :mod:`hwpscan.formats.zip_fast`, in C, or
#: ``None``.
zip_central, zip_inflate = optional(_load_zip) or (None, None)
#: Whether the native paths run in this process.
ACTIVE = scan_free is not None
