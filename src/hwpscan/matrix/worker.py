"""Subprocess entry of the parser matrix: run one Python extractor on one file.

Usage (by :mod:`hwpscan.matrix.runner`, never by hand)::

    python -m hwpscan.matrix.worker MODULE:FUNCTION PATH OUT

The function is imported, called with the path as ``str``, and its return value is
written to OUT as UTF-8 with ``surrogatepass``, so lone surrogates reach the parent
intact. Whatever it raises, ``BaseException`` subclasses included (a Rust panic
surfaced through PyO3 is one, so are ``SystemExit`` and ``KeyboardInterrupt``), is
written to OUT as a small JSON object and told apart by the exit status. A hang, a
segfault or ``os._exit`` are the parent's to notice.

Kept light: importing this module imports nothing of hwpscan beyond the package root.
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["OK", "RAISED", "BASE_RAISED", "NOT_INSTALLED", "BAD_RESULT", "BAD_USAGE", "main"]

OK = 0
RAISED = 80  # an Exception subclass: the extractor refused or failed on the file
BASE_RAISED = 81  # a BaseException that is not an Exception: a crash
NOT_INSTALLED = 82  # the extractor's module (or one it needs) is not importable
BAD_RESULT = 83  # the extractor returned something other than str
BAD_USAGE = 84  # the worker was called wrongly
OUTCOMES = {RAISED, BASE_RAISED, NOT_INSTALLED, BAD_RESULT}


def load(target: str) -> Callable[[str], Any]:
    """The callable named by ``module:function`` (``function`` may be dotted)."""
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def _report(out: str, code: int, exc: BaseException | None, message: str | None = None) -> int:
    info = {
        "type": type(exc).__name__ if exc is not None else None,
        "message": message if message is not None else _text(exc),
        "where": _where(exc) if exc is not None else None,
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(info, handle)  # ensure_ascii: lone surrogates travel as \\udxxx escapes
    return code


def _text(exc: BaseException | None) -> str:
    try:
        return str(exc)
    except BaseException:  # noqa: BLE001 - a __str__ that fails must not hide the error
        return "(the exception could not be shown)"


def _where(exc: BaseException) -> str | None:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return None
    last = frames[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"


def main(argv: Sequence[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m hwpscan.matrix.worker MODULE:FUNCTION PATH OUT", file=sys.stderr)
        return BAD_USAGE
    target, path, out = argv
    try:
        func = load(target)
    except ModuleNotFoundError as exc:
        return _report(out, NOT_INSTALLED, exc)
    except BaseException as exc:  # noqa: BLE001 - a broken plugin is a row, not a crash
        code = RAISED if isinstance(exc, Exception) else BASE_RAISED
        return _report(out, code, exc, f"cannot load {target}: {type(exc).__name__}: {_text(exc)}")
    try:
        text = func(path)
    except ModuleNotFoundError as exc:  # a lazily imported dependency is missing
        return _report(out, NOT_INSTALLED, exc)
    except BaseException as exc:  # noqa: BLE001 - panics and SystemExit are rows too
        return _report(out, RAISED if isinstance(exc, Exception) else BASE_RAISED, exc)
    if not isinstance(text, str):
        return _report(out, BAD_RESULT, None, f"returned {type(text).__name__}, not str")
    with open(out, "wb") as handle:
        handle.write(text.encode("utf-8", "surrogatepass"))
    return OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
