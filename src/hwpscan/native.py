"""Whether this process runs the optional native (C) fast paths of the core.

The C modules (``hwpscan.formats._records``, ``hwpscan.formats._cfb``,
``hwpscan.formats._hwp5plain``, ``hwpscan.formats._owpml``,
``hwpscan.forensics._counting``) are built when the package
is installed and a compiler is at hand. Each of their functions returns exactly what a
Python function returns, or hands its input back (or None) where that function would
warn or decline; the Python code stays the reference and the fallback, and the
differential tests drive both. Set ``HWPSCAN_PURE_PYTHON=1`` (any non-empty value) to
run the Python code alone, e.g. to compare speeds or to rule the native code out when a
result surprises. ``tests/test_native_switch.py`` checks that the switch turns every
native path off and that a scan's output is the same either way.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

__all__ = ["PURE_PYTHON_ENV", "optional", "wanted"]

T = TypeVar("T")

#: The environment variable that turns the native paths off.
PURE_PYTHON_ENV = "HWPSCAN_PURE_PYTHON"


def wanted() -> bool:
    """False when :data:`PURE_PYTHON_ENV` asks for the Python code alone."""
    return not os.environ.get(PURE_PYTHON_ENV)


def optional(load: Callable[[], T]) -> T | None:
    """What *load* gives (it imports a C module and takes what is wanted of it), or None
    where the native paths are turned off or the module was not built (no compiler at
    install time: the Python code runs alone)."""
    if not wanted():
        return None
    try:
        return load()
    except ImportError:
        return None
