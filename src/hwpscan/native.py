"""Whether this process runs the optional native (C) code of the JSON Lines writer
(``hwpscan.report._lines``; the readers' native module has its own switch,
:mod:`hwpscan.formats.fast_readers`, on the same variable).

Set ``HWPSCAN_PURE_PYTHON=1`` (any non-empty value) to run the Python code alone.
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
