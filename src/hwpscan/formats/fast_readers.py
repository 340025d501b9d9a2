"""The optional native readers from the C module ``hwpscan.formats._readers``, or
``None`` each where it is not built (no compiler at install): ``read_hwp5`` (what
:func:`hwpscan.formats.hwp5.read_ole` makes of an ordinary document with
``count_plain_body`` or ``body_only``) and ``hwpx_package`` (the number of sections and
the paragraph texts :func:`hwpscan.formats.hwpx.read_zip` reads from an ordinary HWPX
package). Each returns what its Python reference would, or ``None`` to decline to it.

``HWPSCAN_PURE_PYTHON=1`` (any non-empty value) runs the Python readers alone. This
module is the only one that knows the C exists.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Protocol

from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import Document, Format, PlainCounts, ReadInfo, Segment

__all__ = ["ACTIVE", "PURE_PYTHON_ENV", "hwpx_package", "read_hwp5"]

#: The environment variable that turns the native readers off.
PURE_PYTHON_ENV = "HWPSCAN_PURE_PYTHON"


def _document(word: int, flags: int, paragraphs: int, sections: int, *texts: object) -> Document:
    """The Document the Python reader makes of an ordinary document (no warning or
    status), from the C's answer: for the body, the preview and the DocInfo names, the
    list of their segments or, where that text is plain, its (chars, units) (``None``:
    no preview, no name)."""
    counts = [PlainCounts(*t) if isinstance(t, tuple) else None for t in texts]
    body, preview, meta = (tuple(t) if isinstance(t, list) else () for t in texts)
    info = ReadInfo(
        version=spec.version_text(word),
        compressed=bool(flags & spec.FLAG_COMPRESSED),
        flags=spec.flag_names(flags),
        paragraphs=paragraphs,
        sections=sections,
        plain_body=counts[0],
        plain_preview=counts[1],
        plain_meta=counts[2],
    )
    return Document(Format.HWP5, body, preview, meta, info=info)


class ReadHwp5(Protocol):
    def __call__(
        self, data: bytes, stream: int, document: int, names: int, body_only: bool = ..., /
    ) -> Document | None: ...


read_hwp5: ReadHwp5 | None = None
hwpx_package: Callable[[bytes, int, int, int, int, int, int], tuple[int, list[str]] | None] | None
hwpx_package = None
if not os.environ.get(PURE_PYTHON_ENV):
    with contextlib.suppress(ImportError):  # not built (no compiler at install): Python alone
        from hwpscan.formats import _readers

        hwpx_package = _readers.hwpx_package
        _TRANSLATE = dict(spec.CHAR_REPLACEMENTS)  # the kept controls' text, as text_runs has it

        def _read_hwp5(
            data: bytes,
            max_stream_bytes: int,
            max_document_bytes: int,
            max_docinfo_names: int,
            body_only: bool = False,
        ) -> Document | None:
            """:func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body`` (or with
            *body_only*) for an ordinary document, in one native call; ``None`` where the
            C declines. The C's positional tuple ends here."""
            caps = (max_stream_bytes, max_document_bytes, max_docinfo_names)
            made = _readers.read_hwp5(data, *caps, Segment, _TRANSLATE, body_only)
            return None if made is None else _document(*made)

        read_hwp5 = _read_hwp5

#: Whether the native readers run in this process.
ACTIVE = read_hwp5 is not None
