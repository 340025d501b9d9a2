"""Option values converted without the validation library, where the value is plain.

Typer converts every option's value, given or default, through a validation library's
adapter, built per option on first use. Importing that library and building some thirty
adapters costs a command line about 0.1 s before anything runs: most of a short scan's
start. The kinds of option hwpscan declares are few (a flag, text, a whole number or a
decimal with bounds, a path, one of an enum's values, a list of those), so each option
gets a converter (:func:`install`) that takes the plain cases itself:

* a value that already has the option's type (a default, mostly);
* a whole number or a decimal written plainly (``12``, ``-3``, ``0.5``) within the
  option's bounds;
* a path (made a :class:`~pathlib.Path` and checked by Typer's own path function);
* one of an enum's values (matched by Typer's own choice function);
* a list of those.

Anything else (a value it does not recognise, one outside the bounds, a path that
function refuses) goes to Typer's converter, built then. So every error message is the
framework's, cleaned as before by :func:`hwpscan.cli.helptext.clean_error`, and every
value taken here is the one the framework would give: ``tests/test_cli_coerce.py``
holds the two equal over every option of every command. With a Typer that has no such
layer, nothing is installed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

__all__ = ["install", "plain_converter"]

#: What a converter returns for a value it leaves to the framework.
DECLINE: Any = object()
_WHOLE_RE = re.compile(r"-?[0-9]{1,18}")
_DECIMAL_RE = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")
_EXACT_FLOAT = 2**53  # a whole number below this is exactly a float

Convert = Callable[[Any, Any, Any], Any]

try:  # the framework's runtime layer (Typer 0.29 and later)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path

    _LAYER = True
except ImportError:  # an older Typer converts with click's types: nothing to do
    _LAYER = False


def install(param: Any) -> bool:
    """Give *param* a converter for its plain values (True), unless it has one already,
    is not a Typer parameter, or is of a kind not handled here (False)."""
    if not _LAYER or getattr(param, "_runtime_param", False) is not None:
        return False
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None:
        return False
    try:
        convert = plain_converter(descriptor)
        if convert is None:
            return False
        param._runtime_param = _Plain(
            parameter_info=descriptor.parameter_info,
            annotation=descriptor.annotation,
            descriptor=descriptor,
            convert=convert,
        )
    except Exception:  # a Typer whose layer changed shape: it converts as it would anyway
        return False
    return True


def plain_converter(descriptor: Any) -> Convert | None:
    """The converter of a parameter's plain values, from its Typer type descriptor; None
    for a kind not handled here (a parser, a file, a tuple, a date, a clamped number)."""
    info = descriptor.parameter_info
    if info.parser is not None or descriptor.file_annotation is not None:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        leaf = _leaf(item, info)
        return None if leaf is None else _each(leaf)
    if get_origin(annotation) is not None:
        return None
    return _leaf(annotation, info)


if _LAYER:

    class _Plain(RuntimeParam):
        """A parameter's conversion: plain values here, the rest by the framework's own
        converter (built the first time it is needed)."""

        descriptor: Any
        convert: Convert
        reference: Any

        def __init__(self, *, descriptor: Any, convert: Convert, **fields: Any) -> None:
            super().__init__(**fields)
            object.__setattr__(self, "descriptor", descriptor)
            object.__setattr__(self, "convert", convert)
            object.__setattr__(self, "reference", None)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            done = self.convert(value, param, ctx)
            if done is not DECLINE:
                return done
            if self.reference is None:
                object.__setattr__(self, "reference", build_runtime_param(self.descriptor))
            return self.reference._coerce_value(value, param=param, ctx=ctx)


def _each(leaf: Convert) -> Convert:
    """A list's converter: every item plain, else the whole list is declined."""

    def convert(value: Any, param: Any, ctx: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            return DECLINE
        done = [leaf(item, param, ctx) for item in value]
        return DECLINE if any(d is DECLINE for d in done) else done

    return convert


def _leaf(annotation: Any, info: Any) -> Convert | None:
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _choice(tuple(annotation), info.case_sensitive)
    if annotation is bool:
        return _same(bool)
    if annotation is str:
        return _same(str)
    if annotation in (int, float):
        if info.clamp:
            return None
        return _number(annotation, info.min, info.max)
    if annotation is Path and info.path_type is None:
        return _path(info)
    return None


def _same(kind: type) -> Convert:
    def convert(value: Any, param: Any, ctx: Any) -> Any:
        return value if type(value) is kind else DECLINE

    return convert


def _number(kind: type, low: float | None, high: float | None) -> Convert:
    def convert(value: Any, param: Any, ctx: Any) -> Any:
        got = _plain_number(kind, value)
        if got is DECLINE or (low is not None and got < low) or (high is not None and got > high):
            return DECLINE
        return got

    return convert


def _plain_number(kind: type, value: Any) -> Any:
    """*value* as an int or a float when it plainly is one, else :data:`DECLINE`.

    >>> _plain_number(int, "12"), _plain_number(float, "0.5"), _plain_number(float, 3)
    (12, 0.5, 3.0)
    >>> [_plain_number(int, v) is DECLINE for v in ("1e3", " 1", "1_0", True, 2.0)]
    [True, True, True, True, True]
    """
    if type(value) is str:
        if kind is int and _WHOLE_RE.fullmatch(value):
            return int(value)
        if kind is float and _DECIMAL_RE.fullmatch(value):
            return float(value)
        return DECLINE
    if type(value) is int:
        if kind is int:
            return value
        return float(value) if abs(value) < _EXACT_FLOAT else DECLINE
    if type(value) is float and kind is float and math.isfinite(value):
        return value
    return DECLINE


def _choice(choices: Sequence[Enum], case_sensitive: bool) -> Convert:
    def convert(value: Any, param: Any, ctx: Any) -> Any:
        if not isinstance(value, (str, Enum)):
            return DECLINE
        try:
            return coerce_cli_choice(value, choices=choices, case_sensitive=case_sensitive, ctx=ctx)
        except Exception:  # not one of them (or a Typer that asks otherwise): it says so
            return DECLINE

    return convert


def _path(info: Any) -> Convert:
    def convert(value: Any, param: Any, ctx: Any) -> Any:
        if type(value) is str:
            value = Path(value)  # what the framework makes of a path's text
        elif not isinstance(value, Path):
            return DECLINE
        try:
            return coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)
        except Exception:  # refused (it does not exist, is a file...): the framework says
            return DECLINE

    return convert
