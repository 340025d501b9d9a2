"""What a matrix extractor's child process runs: one Python extractor, file after file.

The parser matrix (:mod:`hwpscan.matrix.runner`) runs each Python extractor in a child
of the isolation engine (:class:`~hwpscan.execution.guard_process.Guard`, task
:func:`extractor`, set up with ``MODULE:FUNCTION``): the function is imported once as the
child starts, then called with each file's path. Each answer is ``(code, info, text)``:
the text as returned (lone surrogates survive the pickle), or why there is none.
Whatever the function raises is an answer, ``BaseException`` subclasses included (a
PyO3 panic, ``SystemExit``); after one of those the parent replaces the child, whose
state may be poisoned. Hangs, segfaults and ``os._exit`` are the engine's to notice.
"""

from __future__ import annotations

import importlib
import os
import traceback
from collections.abc import Callable
from typing import Any

OK = 0
RAISED = 80  # an Exception subclass: the extractor refused or failed on the file
BASE_RAISED = 81  # a BaseException that is not an Exception: a crash
NOT_INSTALLED = 82  # the extractor's module (or one it needs) is not importable
BAD_RESULT = 83  # the extractor returned something other than str

Info = dict[str, Any]


def load(target: str) -> Callable[[str], Any]:
    """The callable named by ``module:function`` (``function`` may be dotted)."""
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def _info(exc: BaseException | None, message: str | None = None) -> Info:
    return {
        "type": type(exc).__name__ if exc is not None else None,
        "message": message if message is not None else _text(exc),
        "where": _where(exc) if exc is not None else None,
    }


def _text(exc: BaseException | None) -> str:
    try:
        return str(exc)
    except BaseException:  # a __str__ that fails must not hide the error
        return "(the exception could not be shown)"


def _where(exc: BaseException) -> str | None:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return None
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno} in {last.name}"


#: A file's answer: its code, what went wrong (empty when nothing did), its text.
Answer = tuple[int, Info, str | None]


def extract(func: Callable[[str], Any], path: str) -> Answer:
    """Run *func* on *path*: (code, info, text)."""
    try:
        text = func(path)
    except ModuleNotFoundError as exc:  # a lazily imported dependency is missing
        return NOT_INSTALLED, _info(exc), None
    except BaseException as exc:  # panics and SystemExit are rows too
        return (RAISED if isinstance(exc, Exception) else BASE_RAISED), _info(exc), None
    if not isinstance(text, str):
        return BAD_RESULT, _info(None, f"returned {type(text).__name__}, not str"), None
    return OK, {}, text


def extractor(target: str) -> Callable[[str], Answer]:
    """The task of a child serving the extractor *target* (``module:function``): loaded
    now; a load that fails answers every file with why (its ``phase`` is ``load``)."""
    try:
        func = load(target)
    except ModuleNotFoundError as exc:
        code, info = NOT_INSTALLED, _info(exc)
    except BaseException as exc:  # a broken plugin is a row, not a crash
        code = RAISED if isinstance(exc, Exception) else BASE_RAISED
        info = _info(exc, f"cannot load {target}: {type(exc).__name__}: {_text(exc)}")
    else:
        return lambda path: extract(func, path)
    answer: Answer = code, {**info, "phase": "load"}, None
    return lambda _path: answer
