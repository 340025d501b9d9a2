"""Why an extractor failed, in the same words whatever route it ran by.

An ``Exception`` is ``error``; a ``BaseException`` that is not one (a PyO3 panic,
``SystemExit``), a Rust panic, a signal or an exit status above 128 is ``crashed``; a
missing module is ``not-installed``. The reason keeps the type, message and last frame.

>>> status, reason = explain_exit(1, b'Traceback (most recent call last):\\n'
...     b'  File "/x/t.py", line 3, in <module>\\n    import hwp_magic\\n'
...     b"ModuleNotFoundError: No module named 'hwp_magic'\\n")
>>> status
'not-installed'
>>> reason.removeprefix("command exited with status 1: ")
"ModuleNotFoundError: No module named 'hwp_magic' (at t.py:3 in <module>)"
>>> explain_exit(101, b"thread 'main' panicked at src/lib.rs:42:9:\\ncalled `Option::unwrap()` "
...              b"on a `None` value\\nnote: run with `RUST_BACKTRACE=1`\\n")[0]
'crashed'
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
from typing import Literal

Status = Literal["error", "crashed", "not-installed"]

#: Names of BaseException subclasses that are not Exceptions (a crash, not a refusal).
_BASE_ONLY = frozenset({"BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit"})
_FRAME_RE = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>.+)$')
_EXC_RE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
_PANIC_NEW_RE = re.compile(r"^thread '[^']*' panicked at (?P<where>\S+:\d+:\d+):$")
_PANIC_OLD_RE = re.compile(
    r"^thread '[^']*' panicked at '(?P<message>.*)', (?P<where>\S+:\d+:\d+)$"
)
_LIMIT = 300


def exception_status(type_name: str, message: str = "") -> Status:
    """The status word for an exception named *type_name* (dotted names allowed).

    >>> exception_status("pyo3_runtime.PanicException"), exception_status("ValueError")
    ('crashed', 'error')
    """
    short = type_name.rsplit(".", 1)[-1]
    if short == "ModuleNotFoundError" or (
        short == "ImportError" and message.startswith("No module named")
    ):
        return "not-installed"
    if short in _BASE_ONLY or short.endswith("PanicException"):
        return "crashed"
    return "error"


def describe_exception(type_name: str, message: str, where: str | None = None) -> str:
    """``Type: message (at file:line in func)``; a BaseException says it is one.

    >>> describe_exception("PanicException", "boom", "lib.py:3 in f")
    'PanicException (a BaseException, not an Exception): boom (at lib.py:3 in f)'
    """
    short = type_name.rsplit(".", 1)[-1]
    head = short
    if exception_status(short, message) == "crashed":
        head += " (a BaseException, not an Exception)"
    text = f"{head}: {message}" if message else head
    return _cut(f"{text} (at {where})" if where else text)


def explain_message(message: str) -> tuple[Status, str]:
    """A failure message a batch tool wrote for one file, as (status, reason).

    >>> explain_message("ValueError: bad record")
    ('error', 'ValueError: bad record')
    """
    text = message.strip()
    match = _EXC_RE.match(text)
    if match and match["message"] is not None:
        return exception_status(match["type"], match["message"]), _cut(text)
    return "error", _cut(text)


def explain_exit(code: int, stderr: bytes, who: str = "command") -> tuple[Status, str]:
    """Status and reason for a process that ended with *code* (negative: a signal)."""
    text = stderr.decode("utf-8", "backslashreplace")
    found = _from_traceback(text) or _from_panic(text)
    if code < 0:
        try:
            what = f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            what = f"killed by signal {-code}"
    else:
        what = f"{who} exited with status {code}"
        if 128 < code <= 128 + 64:
            with contextlib.suppress(ValueError):
                what += f" ({signal.Signals(code - 128).name})"
    status, detail = found or ("error", _tail(text))
    if status == "error" and (code < 0 or code > 128):
        status = "crashed"
    return status, f"{what}: {detail}" if detail else what


def _from_traceback(text: str) -> tuple[Status, str] | None:
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call")]
    if not starts:  # no traceback: an exception line alone still names the failure
        for line in reversed([x for x in lines if x.strip()][-3:]):
            match = _EXC_RE.match(line)
            if match and match.group("message") is not None and _looks_like_type(match["type"]):
                kind, message = match["type"], match["message"]
                return exception_status(kind, message), describe_exception(kind, message)
        return None
    where: str | None = None
    for line in lines[starts[-1] + 1 :]:
        frame_match = _FRAME_RE.match(line)
        if frame_match:
            file, line_no = os.path.basename(frame_match["file"]), frame_match["line"]
            where = f"{file}:{line_no} in {frame_match['func']}"  # as the worker names it
            continue
        if not line or line[0].isspace():
            continue
        match = _EXC_RE.match(line)
        if match:
            kind, message = match["type"], match["message"] or ""
            return exception_status(kind, message), describe_exception(kind, message, where)
        break
    return None


def _looks_like_type(name: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    return short[:1].isupper() and short.endswith(("Error", "Exception", "Exit", "Interrupt"))


def _from_panic(text: str) -> tuple[Status, str] | None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = _PANIC_NEW_RE.match(line)
        if match:
            message = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return "crashed", _cut(f"panic: {message} (at {match['where']})")
        match = _PANIC_OLD_RE.match(line)
        if match:
            return "crashed", _cut(f"panic: {match['message']} (at {match['where']})")
    return None


def _tail(text: str) -> str:
    """The last two non-blank lines of *text*, joined."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return _cut(" | ".join(lines[-2:]), keep_end=True)


def _cut(text: str, *, keep_end: bool = False) -> str:
    if len(text) <= _LIMIT:
        return text
    return "..." + text[-_LIMIT:] if keep_end else text[:_LIMIT] + "..."
