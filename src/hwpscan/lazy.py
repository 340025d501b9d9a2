"""Work put off until it is needed: names a package imports on first use (PEP 562:
``__getattr__ = lazy_names(__name__, {name: module})``, each name kept once imported),
and regexes compiled on first use.

>>> import types, sys
>>> pkg = types.ModuleType("demo_pkg")
>>> sys.modules["demo_pkg"] = pkg
>>> pkg.__getattr__ = lazy_names("demo_pkg", {"sqrt": "math"})
>>> pkg.sqrt(9.0), "sqrt" in vars(pkg)
(3.0, True)
>>> pkg.__getattr__("cube")
Traceback (most recent call last):
    ...
AttributeError: module 'demo_pkg' has no attribute 'cube'
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for *package*: each name in *table* is imported
    from the module the table gives, on first use, and kept in the package."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def lazy_pattern(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """The regex *pattern*, compiled when the returned function is first called and then
    kept: for a pattern only a rare path uses (large character classes take milliseconds).

    >>> digits = lazy_pattern(r"[0-9]+")
    >>> digits().findall("a1b22"), digits() is digits()
    (['1', '22'], True)
    """
    return functools.cache(lambda: re.compile(pattern, flags))
