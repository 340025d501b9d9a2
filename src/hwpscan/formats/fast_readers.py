"""The optional native readers: ``read_hwp5`` and ``hwpx_section`` from the C module
``hwpscan.formats._readers``, or ``None`` each.

The module is built when the package is installed with a compiler at hand; without one
the install works the same and the Python readers run alone. Each native reader reads a
whole document (an ordinary HWP 5 file in one call) or a whole HWPX section part and
returns exactly what its Python reference makes of it, or ``None`` to decline (the
reference then reads the input):

- ``read_hwp5``: :func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body``
  (``tests/test_native_hwp5_reader.py``);
- ``hwpx_section``: :func:`hwpscan.formats.hwpx.section_text`, an expat walk
  (``tests/test_native_hwpx_walk.py``).

Set ``HWPSCAN_PURE_PYTHON=1`` (any non-empty value) to run the Python readers alone, to
compare speeds or to rule the C out when a result surprises. This module is the only one
that knows the C exists.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from hwpscan.models import Segment

__all__ = ["ACTIVE", "PURE_PYTHON_ENV", "hwpx_section", "read_hwp5"]

#: The environment variable that turns the native readers off.
PURE_PYTHON_ENV = "HWPSCAN_PURE_PYTHON"

_Part = list[Segment] | tuple[int, int]
ReadHwp5 = Callable[
    [bytes, int, int, int, type[Segment], dict[int, str]],
    tuple[int, int, int, int, _Part, _Part | None, _Part | None] | None,
]
HwpxSection = Callable[[bytes, int, int], list[str] | None]

read_hwp5: ReadHwp5 | None = None
hwpx_section: HwpxSection | None = None
if not os.environ.get(PURE_PYTHON_ENV):
    with contextlib.suppress(ImportError):  # not built (no compiler at install): Python alone
        from hwpscan.formats._readers import hwpx_section, read_hwp5

#: Whether the native readers run in this process.
ACTIVE = read_hwp5 is not None
