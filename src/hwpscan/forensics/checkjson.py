r"""Find the strings in captured JSON payloads that a pipeline could not encode as UTF-8.

Input is what a deployed pipeline leaves behind: JSON Lines (tool results, log lines),
SSE streams (``data:`` lines; ``event:``, ``id:``, ``retry:``, comments and ``[DONE]``
ignored) or one whole JSON document. Bytes are decoded as UTF-8 with ``surrogatepass``
(a lone surrogate a logger wrote that way is read back as itself); any other bad byte
becomes a lone surrogate as with ``surrogateescape``, so it too shows where an encoder
fails. Every string value and object key is checked. A line that is not JSON, or holds
only a bare number, ``true`` or ``null``, is reported as skipped, never fatal; an input
without any JSON document proves nothing (:attr:`JsonCheck.empty`).

>>> report = check_json_text('{"result": [{"text": "ok"}, {"text": "bad \\udb80"}]}')
>>> [(b.line, b.path, b.position) for b in report.bad]
[(1, '$.result[1].text', 4)]
>>> report.bad[0].message
"'utf-8' codec can't encode character '\\udb80' in position 4: surrogates not allowed"
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Literal, NamedTuple

from hwpscan.errors import TooDeepError
from hwpscan.forensics.guard import check_utf8
from hwpscan.forensics.surrogates import (
    SURROGATE_RE,
    count_surrogates,
    escape_snippet,
    merge_pairs,
)

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SSE_IGNORED = ("event:", "id:", "retry:", ":")
_SNIPPET = 20
_EXCERPT = 60
_LINE_END_RE = re.compile("\r\n|\r|\n")  # SSE allows all three
#: A finding's path is cut to this many characters (a key can be megabytes long).
MAX_PATH = 500
_DECODER = json.JSONDecoder(strict=False)  # captured logs carry raw tabs in strings
#: What :func:`decode_utf8` makes of a byte that is not UTF-8 even with surrogates allowed.
InvalidBytes = Literal["escape", "skip"]


@dataclass(frozen=True, slots=True)
class BadString:
    """A string (value or key) that would fail UTF-8 encoding, and where it is."""

    line: int  # 1-based line where its document (or SSE event) starts
    path: str  # JSON path, e.g. $.result[3].text (a key: the path of its member)
    kind: str  # "value" or "key"
    position: int  # index in the string where the encoder fails
    end: int  # end (exclusive) of the failing run of surrogates
    message: str  # the exact UnicodeEncodeError message
    surrogates: int  # surrogate code points in the string
    pairs: int  # of which adjacent high+low pairs (repairable without loss)
    snippet: str  # escaped context around the position

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (every field is already escaped and printable)."""
        return {"type": "bad-string", **asdict(self)}


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A line that held no JSON document."""

    line: int
    reason: str
    excerpt: str  # escaped start of the line

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"type": "skipped", **asdict(self)}


@dataclass(frozen=True, slots=True)
class JsonCheck:
    """The outcome over one input."""

    documents: int
    strings: int
    bad: tuple[BadString, ...]
    skipped: tuple[SkippedLine, ...]

    @property
    def ok(self) -> bool:
        """True when every string would encode as UTF-8."""
        return not self.bad

    @property
    def empty(self) -> bool:
        """True when no JSON document was found: a clean result would prove nothing.

        >>> check_json_text("garbage{").empty, check_json_text("{}").empty
        (True, False)
        """
        return self.documents == 0

    def summary(self) -> dict[str, Any]:
        """Counts as a JSON-ready dict."""
        return Counts(self.documents, self.strings, len(self.bad), len(self.skipped)).summary()


#: A surrogate a writer put out with ``surrogatepass`` (``ED A0 80`` for U+D800), as
#: ``surrogateescape`` decodes it: three escaped bytes, put back together afterwards.
_ESCAPED_SURROGATE_RE = re.compile("\udced([\udca0-\udcbf])([\udc80-\udcbf])")
_ESCAPED_BYTE_RE = re.compile("[\udc80-\udcff]+")
_ESCAPED_OR_SURROGATE_RE = re.compile(
    "\udced([\udca0-\udcbf])([\udc80-\udcbf])"
    "|(?:(?!\udced[\udca0-\udcbf][\udc80-\udcbf])[\udc80-\udcff])+"
)


def _restore(match: re.Match[str]) -> str:
    second, third = (ord(ch) - 0xDC00 for ch in match.groups())
    return chr(0xD000 | (second & 0x3F) << 6 | (third & 0x3F))


class Decoded(NamedTuple):
    """Text decoded by :func:`decode_utf8` and the count of bytes that were not UTF-8."""

    text: str
    invalid: int


def decode_utf8(data: bytes, invalid: InvalidBytes = "escape") -> Decoded:
    r"""Bytes as a pipeline wrote them, back to its text and the invalid bytes' count: a
    surrogate written with ``surrogatepass`` decodes as itself; other bad bytes are kept
    as ``surrogateescape`` does (``\xff`` -> U+DCFF) or, with ``invalid="skip"``, dropped.

    >>> data = b"a" + chr(0xDB80).encode("utf-8", "surrogatepass") + b"\xff"
    >>> [f"{ord(c):04x}" for c in decode_utf8(data).text], decode_utf8(data).invalid
    (['0061', 'db80', 'dcff'], 1)
    >>> decode_utf8(data, "skip") == Decoded("a" + chr(0xDB80), 1)
    True
    """
    try:
        return Decoded(data.decode("utf-8", "surrogatepass"), 0)
    except UnicodeDecodeError:
        pass
    # Linear whatever the damage: the C decoder escapes every bad byte, and the
    # surrogates written with surrogatepass are put back by one regex pass.
    text = data.decode("utf-8", "surrogateescape")
    escaped = len(text) - len(_ESCAPED_BYTE_RE.sub("", text))
    restored_text, restored = _ESCAPED_SURROGATE_RE.subn(_restore, text)
    if invalid == "skip":
        restored_text = _ESCAPED_OR_SURROGATE_RE.sub(
            lambda m: "" if m.group(1) is None else _restore(m), text
        )
    return Decoded(restored_text, escaped - 3 * restored)


def decode_input(data: bytes) -> str:
    r"""Bytes to text as a pipeline held them (see :func:`decode_utf8`).

    A surrogate written with ``surrogatepass`` is that surrogate; any other bad byte
    becomes a lone surrogate as with ``surrogateescape``. A leading BOM is dropped.

    >>> decode_input(b"\xef\xbb\xbf{}") == "{}"
    True
    >>> [hex(ord(c)) for c in decode_input(b"a\xff\xed\xa0\x80")]
    ['0x61', '0xdcff', '0xd800']
    """
    return decode_utf8(data, "escape").text.removeprefix("\ufeff")


def json_path(parent: str, step: str | int) -> str:
    """Extend a JSON path by an array index or an object key (escaped when needed).

    >>> json_path(json_path("$", "result"), 3)
    '$.result[3]'
    >>> json_path("$", "a b"), json_path("$", "x" + chr(0xDC00))
    ('$["a b"]', '$["x\\\\udc00"]')
    """
    if isinstance(step, int):
        return f"{parent}[{step}]"
    if _IDENTIFIER.match(step):
        return f"{parent}.{step}"
    return f"{parent}[{escape_snippet(json.dumps(step, ensure_ascii=False))}]"


def check_json_bytes(data: bytes) -> JsonCheck:
    """:func:`check_json_text` over raw bytes (decoded by :func:`decode_input`)."""
    return check_json_text(decode_input(data))


@dataclass(slots=True)
class Counts:
    """Running counts of a :func:`iter_check` pass (read them when it is done)."""

    documents: int = 0
    strings: int = 0
    bad: int = 0
    skipped: int = 0

    @property
    def empty(self) -> bool:
        return self.documents == 0

    def summary(self) -> dict[str, Any]:
        """Counts as a JSON-ready dict."""
        return {"type": "summary", **asdict(self)}


def iter_check(text: str, counts: Counts | None = None) -> Iterator[BadString | SkippedLine]:
    """The findings of :func:`check_json_text` one at a time (a capture with a million
    is never held whole); *counts* are kept up to date."""
    counts = counts if counts is not None else Counts()
    for item in _documents(text):
        if isinstance(item, SkippedLine):
            counts.skipped += 1
            yield item
            continue
        line, doc = item
        counts.documents += 1
        for string, path, kind in _strings(doc):
            counts.strings += 1
            if (bad := _judge(string, path, kind, line)) is not None:
                counts.bad += 1
                yield bad


def check_json_text(text: str) -> JsonCheck:
    """Check one input: a whole JSON document, JSON Lines, or an SSE stream.

    >>> sse = 'event: tool_result\\ndata: {"k": "\\\\udc00"}\\n\\ndata: [DONE]\\n'
    >>> r = check_json_text(sse)
    >>> [(b.line, b.path) for b in r.bad], r.documents, r.skipped
    ([(2, '$.k')], 1, ())
    >>> check_json_text("not json").skipped[0].reason
    'not JSON: Expecting value (column 1)'
    """
    counts = Counts()
    bad: list[BadString] = []
    skipped: list[SkippedLine] = []
    for item in iter_check(text, counts):
        (skipped if isinstance(item, SkippedLine) else bad).append(item)  # type: ignore[arg-type]
    return JsonCheck(counts.documents, counts.strings, tuple(bad), tuple(skipped))


def iter_strings(text: str) -> Iterator[str]:
    """Every string (values and keys) of every JSON document :func:`check_json_text`
    finds in *text*, decoded as it decodes them.

    >>> sorted(iter_strings('data: {"a": ["x", {"b": "가"}]}'))
    ['a', 'b', 'x', '가']
    """
    for item in _documents(text):
        if not isinstance(item, SkippedLine):
            yield from (string for string, _, _ in _strings(item[1]))


def _documents(text: str) -> Iterator[tuple[int, Any] | SkippedLine]:
    """Yield (line, document) for every JSON document found, or a SkippedLine."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and ("\n" in stripped or "\r" in stripped):
        try:
            doc = _decode(stripped)
        except ValueError:
            pass  # not one document: JSON Lines or SSE, read line by line
        else:
            yield len(_LINE_END_RE.split(text[: text.index(stripped[0])])), doc
            return
    event: list[tuple[int, str]] = []  # the data lines of the current SSE event
    for number, raw in enumerate(_LINE_END_RE.split(text), start=1):
        line = raw.strip()
        if line.startswith("data:"):
            event.append((number, line[5:].strip()))
            continue
        if event:
            yield from _sse_event(event)
            event = []
        if not line or line.startswith(_SSE_IGNORED):
            continue
        yield _parse_line(number, line)
    if event:
        yield from _sse_event(event)


def _sse_event(data: list[tuple[int, str]]) -> Iterator[tuple[int, Any] | SkippedLine]:
    """One SSE event: its data lines joined by newlines (the SSE rule), else line by line."""
    payloads = [(n, p) for n, p in data if p != "[DONE]"]
    if not payloads:
        return
    if len(payloads) > 1:
        try:
            joined = "\n".join(p for _, p in payloads)
            yield _document(payloads[0][0], _decode(joined), joined, strings=True)
            return
        except ValueError:
            pass
    for number, payload in payloads:
        yield _parse_line(number, payload, strings=True)


def _document(number: int, doc: Any, text: str, *, strings: bool) -> tuple[int, Any] | SkippedLine:
    """*doc* as a document found on line *number*, or a skipped line when it is a bare
    number, boolean or ``null`` (or a bare string, unless *strings*): nothing to check.

    >>> _document(3, 7, "7", strings=False).reason
    'not a JSON object or array: a bare int'
    >>> _document(3, "x", '"x"', strings=True)
    (3, 'x')
    """
    if isinstance(doc, (dict, list)) or (strings and isinstance(doc, str)):
        return number, doc
    kind = "null" if doc is None else type(doc).__name__
    return SkippedLine(
        number, f"not a JSON object or array: a bare {kind}", escape_snippet(text[:_EXCERPT])
    )


def _parse_line(number: int, line: str, *, strings: bool = False) -> tuple[int, Any] | SkippedLine:
    """A line as JSON; failing that, a JSON object or array that ends the line (a log line)."""
    try:
        return _document(number, _decode(line), line, strings=strings)
    except ValueError as exc:
        error = exc
    start = min((i for i in (line.find("{"), line.find("[")) if i > 0), default=-1)
    if start > 0:
        try:
            doc, end = _decode(line, start)
        except ValueError:
            pass
        else:
            if not line[end:].strip():
                return number, doc
    reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
    column = f" (column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
    return SkippedLine(number, f"not JSON: {reason}{column}", escape_snippet(line[:_EXCERPT]))


def _decode(text: str, start: int | None = None) -> Any:
    """The JSON document *text* is (given *start*: the one there, and where it ends); a
    document nested past the parser's recursion limit is a :class:`TooDeepError`."""
    try:
        return _DECODER.decode(text) if start is None else _DECODER.raw_decode(text, start)
    except RecursionError:
        raise TooDeepError("nested too deeply to read") from None


def _strings(doc: Any) -> Iterator[tuple[str, str, str]]:
    """Every string of *doc* (keys too) in document order: (string, JSON path, kind)."""
    stack: list[tuple[Any, str, str]] = [(doc, "$", "value")]
    while stack:
        node, path, kind = stack.pop()
        if isinstance(node, str):
            yield node, path, kind
        elif isinstance(node, dict):
            children: list[tuple[Any, str, str]] = []
            for key, value in node.items():
                child = json_path(path, key)
                children += [(key, child, "key"), (value, child, "value")]
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend(
                (node[i], json_path(path, i), "value") for i in range(len(node) - 1, -1, -1)
            )


def _judge(text: str, path: str, kind: str, line: int) -> BadString | None:
    if SURROGATE_RE.search(text) is None:
        return None
    check = check_utf8(text)
    if check.message is None or check.start is None or check.end is None:
        return None  # pragma: no cover - a str with a surrogate always fails UTF-8
    # counted, never listed: a string can hold millions of surrogates
    surrogates = count_surrogates(text)
    pairs = len(text) - len(merge_pairs(text))
    start = max(0, check.start - _SNIPPET)
    end = min(check.end, check.start + _SNIPPET) + _SNIPPET  # a long run is not copied whole
    return BadString(
        line=line,
        path=path if len(path) <= MAX_PATH else path[:MAX_PATH] + "…",
        kind=kind,
        position=check.start,
        end=check.end,
        message=check.message,
        surrogates=surrogates,
        pairs=pairs,
        snippet=escape_snippet(text[start:end]),
    )
