"""Subprocess entry of the parser matrix: serve one Python extractor, file after file.

Usage (by :mod:`hwpscan.matrix.runner`, never by hand)::

    python -m hwpscan.matrix.worker MODULE:FUNCTION

The function is imported once, then a first line ``{"ready": ...}`` tells the parent
that per-file timing can start. Each request is one JSON line on stdin,
``{"path": ..., "out": ...}``: the function is called with the path as ``str`` and its
return value written to ``out`` as UTF-8 with ``surrogatepass``, so lone surrogates reach
the parent intact. Each answer is one JSON line, ``{"code": N, "info": {...}}``, on
the worker's original stdout; the extractor's own prints go to /dev/null so they cannot
corrupt the protocol.

Whatever the function raises is an answer, ``BaseException`` subclasses included (a
Rust panic surfaced through PyO3 is one, so are ``SystemExit`` and
``KeyboardInterrupt``); after one of those the worker exits, since the extension's
state may be poisoned, and the parent starts a fresh one. Hangs, segfaults and
``os._exit`` are the parent's to notice.

Kept light: importing this module imports nothing of hwpscan beyond the package root.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import IO, Any

from hwpscan.execution.child_limits import watch_parent

__all__ = ["BAD_RESULT", "BASE_RAISED", "NOT_INSTALLED", "OK", "RAISED", "main", "serve"]

OK = 0
RAISED = 80  # an Exception subclass: the extractor refused or failed on the file
BASE_RAISED = 81  # a BaseException that is not an Exception: a crash
NOT_INSTALLED = 82  # the extractor's module (or one it needs) is not importable
BAD_RESULT = 83  # the extractor returned something other than str
BAD_USAGE = 84  # the worker was called wrongly

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


def _load(target: str) -> tuple[Callable[[str], Any] | None, tuple[int, Info] | None]:
    try:
        return load(target), None
    except ModuleNotFoundError as exc:
        return None, (NOT_INSTALLED, _info(exc))
    except BaseException as exc:  # a broken plugin is a row, not a crash
        code = RAISED if isinstance(exc, Exception) else BASE_RAISED
        return None, (code, _info(exc, f"cannot load {target}: {type(exc).__name__}: {_text(exc)}"))


def extract(func: Callable[[str], Any], path: str, out: str) -> tuple[int, Info | None]:
    """Run *func* on *path*; the text goes to the file *out*. Returns (code, info)."""
    try:
        text = func(path)
    except ModuleNotFoundError as exc:  # a lazily imported dependency is missing
        return NOT_INSTALLED, _info(exc)
    except BaseException as exc:  # panics and SystemExit are rows too
        return (RAISED if isinstance(exc, Exception) else BASE_RAISED), _info(exc)
    if not isinstance(text, str):
        return BAD_RESULT, _info(None, f"returned {type(text).__name__}, not str")
    with open(out, "wb") as handle:
        handle.write(text.encode("utf-8", "surrogatepass"))
    return OK, None


def serve(target: str, requests: IO[str], answers: IO[str]) -> int:
    """Answer requests until stdin closes (or a BaseException makes going on unsafe)."""
    func, failure = _load(target)
    answers.write(json.dumps({"ready": failure is None}) + "\n")  # startup is not per-file time
    answers.flush()
    for line in requests:
        request = json.loads(line)
        if failure is not None:
            code, info = failure
            info = {**info, "phase": "load"}
        else:
            assert func is not None
            code, found = extract(func, request["path"], request["out"])
            info = found or {}
        answers.write(json.dumps({"code": code, "info": info}) + "\n")  # ASCII: surrogates escaped
        answers.flush()
        if code == BASE_RAISED:
            return code
    return OK


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print(
            "usage: python -m hwpscan.matrix.worker MODULE:FUNCTION (requests on stdin)",
            file=sys.stderr,
        )
        return BAD_USAGE
    # never outlive the matrix run (the kernel's signal follows a thread that may end
    # first: the parent is watched by pid only)
    watch_parent(os.getppid(), kernel_signal=False)
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # the extractor's prints (Python or C) must not reach the protocol
    os.close(devnull)
    return serve(argv[0], sys.stdin, answers)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
