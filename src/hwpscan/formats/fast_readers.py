"""The optional native readers: ``read_hwp5`` and ``hwpx_section`` from the C module
``hwpscan.formats._readers``, or ``None`` each.

The module is built when the package is installed with a compiler at hand; without one
the install works the same and the Python readers run alone. Each native reader reads a
whole document (an ordinary HWP 5 file in one call) or a whole HWPX section part and
returns exactly what its Python reference makes of it, or ``None`` to decline (the
reference then reads the input):

- ``read_hwp5``: :func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body`` or
  ``body_only`` (``tests/formats/test_native_hwp5_reader.py``), its answer made a
  :class:`NativeHwp5` here so that no positional tuple of the C goes further;
- ``hwpx_section``: :func:`hwpscan.formats.hwpx.section_text`, an expat walk
  (``tests/formats/test_native_hwpx_walk.py``).

Set ``HWPSCAN_PURE_PYTHON=1`` (any non-empty value) to run the Python readers alone, to
compare speeds or to rule the C out when a result surprises. This module is the only one
that knows the C exists.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import PlainCounts, Segment

__all__ = ["ACTIVE", "PURE_PYTHON_ENV", "NativeHwp5", "hwpx_section", "read_hwp5"]

#: The environment variable that turns the native readers off.
PURE_PYTHON_ENV = "HWPSCAN_PURE_PYTHON"

#: One text of a document as the native reader gives it: its segments, or (a plain
#: text) its counts.
Part = list[Segment] | PlainCounts


@dataclass(frozen=True, slots=True)
class NativeHwp5:
    """What the native reader found in an ordinary HWP 5 document: the FileHeader's
    version word and property flags, the paragraphs and sections counted, and for the
    body, the preview (PrvText) and the DocInfo names their segments or, where the text
    is plain, its :class:`~hwpscan.models.PlainCounts` (``None``: no preview, no name)."""

    version: int
    flags: int
    paragraphs: int
    sections: int
    body: Part
    preview: Part | None
    meta: Part | None


class ReadHwp5(Protocol):
    def __call__(
        self,
        data: bytes,
        max_stream_bytes: int,
        max_document_bytes: int,
        max_docinfo_names: int,
        body_only: bool = False,
    ) -> NativeHwp5 | None: ...


HwpxSection = Callable[[bytes, int, int], list[str] | None]

read_hwp5: ReadHwp5 | None = None
hwpx_section: HwpxSection | None = None
if not os.environ.get(PURE_PYTHON_ENV):
    with contextlib.suppress(ImportError):  # not built (no compiler at install): Python alone
        from hwpscan.formats import _readers

        hwpx_section = _readers.hwpx_section
        _TRANSLATE = dict(spec.CHAR_REPLACEMENTS)  # the kept controls' text, as text_runs has it

        def _part(made: list[Segment] | tuple[int, int]) -> Part:
            return PlainCounts(*made) if isinstance(made, tuple) else made

        def _read_hwp5(
            data: bytes,
            max_stream_bytes: int,
            max_document_bytes: int,
            max_docinfo_names: int,
            body_only: bool = False,
        ) -> NativeHwp5 | None:
            """:func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body`` (or with
            *body_only*) for an ordinary document, in one native call; ``None`` where the
            C declines. The C's positional tuple ends here."""
            caps = (max_stream_bytes, max_document_bytes, max_docinfo_names)
            made = _readers.read_hwp5(data, *caps, Segment, _TRANSLATE, body_only)
            if made is None:
                return None
            word, flags, paragraphs, sections, body, preview, meta = made
            return NativeHwp5(
                word,
                flags,
                paragraphs,
                sections,
                _part(body),
                None if preview is None else _part(preview),
                None if meta is None else _part(meta),
            )

        read_hwp5 = _read_hwp5

#: Whether the native readers run in this process.
ACTIVE = read_hwp5 is not None
