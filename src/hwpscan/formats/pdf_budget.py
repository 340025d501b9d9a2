"""What a PDF asks of a text engine, measured from its bytes before PDFium reads it.

PDFium has no memory budget of its own: it inflates a content stream whole and makes an
object of every text operator (about 600 bytes per ``Tj``, 60 per character shown), so
a 50 KB file of 5 million ``Tj`` takes 3 GB. :func:`measure` walks the raw bytes first
(as PDFium's own recovery does, so a stream the cross-reference table misses counts),
inflating each ``/FlateDecode`` layer a megabyte at a time, and counts each stream's
decoded bytes (images aside), text operators (``Tj``, ``TJ``) and string bytes, per
stream, per page's ``/Contents`` array (repeats counted) and per file, within
:data:`MAX_SECONDS`. A stream over a budget of its own makes the pages that use it
unread (found through pypdf's page dictionaries); a file over a whole-file budget is not
read. Not counted: a form XObject drawn many times, and the streams of an encrypted file
(they do not inflate before decryption); the time limit and a worker's memory limit
are the backstop.

>>> over_budget(b"%PDF-1.7\\n1 0 obj\\n<< /Length 5 >>\\nstream\\nBT ET\\nendstream") is None
True
"""

from __future__ import annotations

import operator
import re
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat

__all__ = [
    "MAX_CONTENT_STREAMS",
    "MAX_FILE_BYTES",
    "MAX_FILE_SHOWS",
    "MAX_FILE_TEXT",
    "MAX_SECONDS",
    "MAX_STREAM_BYTES",
    "MAX_STREAM_SHOWS",
    "MAX_STREAM_TEXT",
    "Measure",
    "measure",
    "over_budget",
]

#: Decoded bytes of one stream (real pages: well under a megabyte of content; a
#: complete embedded CJK font: about 20 MB).
MAX_STREAM_BYTES = 48 * 2**20
#: Decoded bytes of all streams of one file but images.
MAX_FILE_BYTES = 256 * 2**20
#: Text-showing operators in one stream (one page), or in what one page's contents
#: list (a dense real page: a few thousand).
MAX_STREAM_SHOWS = 300_000
#: Text-showing operators in the whole file (a 500-page report: a few hundred thousand).
MAX_FILE_SHOWS = 1_500_000
#: String bytes (characters a text operator can show) in one stream, or in what one
#: page's contents list (a dense real page: ten thousand).
MAX_STREAM_TEXT = 2 * 2**20
#: String bytes in the whole file (a 2,000-page report: a few megabytes).
MAX_FILE_TEXT = 16 * 2**20
#: Decoded bytes of the streams one page's ``/Contents`` lists, repeats counted.
MAX_CONTENT_BYTES = 4 * MAX_STREAM_BYTES
#: Entries of one page's ``/Contents`` array.
MAX_CONTENT_STREAMS = 10_000
#: Seconds the walk may take.
MAX_SECONDS = 20.0

_STEP = 2**20  # inflated at most this much at a time
_READ = 2**16  # raw bytes fed to the inflater at a time
_LOOK_BACK = 4096  # how far before ``stream`` its dictionary is looked for

#: The keyword that starts a stream's data (not endstream, mainstream). The check of the
#: byte before it comes after the word, so a search skips ahead to each ``stream`` in C.
_STREAM_RE = re.compile(rb"stream(?<![A-Za-z0-9]stream)(?:\r\n|\n|\r)")
#: ``N G obj`` read backwards, in the reversed bytes before a stream: its first match is
#: the object header nearest the stream (the last a forward search would find, and the
#: same number: up to ten digits before the space), found without a regex trying every
#: byte of the look-back.
_OBJ_BACK_RE = re.compile(rb"jbo(?<!\wjbo)\s+\d{1,5}\s+(\d{1,10})")
_FLATE_RE = re.compile(rb"/(?:FlateDecode|Fl)\b")
_FILTER_RE = re.compile(rb"/Filter\s*(\[[^\]]*\]|/[A-Za-z0-9#]+)")
_IMAGE_RE = re.compile(rb"/Subtype\s*/Image\b")
#: A stream that is no content: a font program (``/Length1``, ``/Subtype /Type1C``...),
#: an object or cross-reference stream, metadata, an ICC profile (``/N``), an attached
#: file. Its bytes count; strings and operators found in it by chance do not.
_NOT_CONTENT_RE = re.compile(
    rb"/Length[123]\b|/Subtype\s*/(?:Type1C|CIDFontType0C|OpenType|XML)\b"
    rb"|/Type\s*/(?:XRef|ObjStm|Metadata|EmbeddedFile)\b|/N\s+\d"
)
_OBJSTM_RE = re.compile(rb"/Type\s*/ObjStm\b")
_XREF_RE = re.compile(rb"/Type\s*/XRef\b")
#: A literal string (group 1: its bytes) or a hex string (group 2: its digits, two per
#: byte), as ``split`` hands them over: the strings are measured with no Python step each.
_STRING_RE = re.compile(rb"\(((?:[^()\\]|\\.)*)\)|<([0-9A-Fa-f\s]+)>", re.S)
_CONTENTS_RE = re.compile(rb"/Contents\s*\[([^\]]*)\]")
_REF_RE = re.compile(rb"(\d{1,10})\s+\d{1,5}\s+R\b")


@dataclass
class _Tally:
    started: float
    total: int = 0
    shows: int = 0
    text: int = 0
    #: object number: (bytes, text operators, string bytes)
    streams: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    #: ``/Contents`` arrays read from object streams (the page dictionaries there)
    listed: list[bytes] = field(default_factory=list)
    #: streams over a budget of their own: object number: why
    over: dict[int, str] = field(default_factory=dict)

    def late(self) -> bool:
        return time.monotonic() - self.started > MAX_SECONDS


class _Over(Exception):
    """A budget of the whole file passed: the message is the row's reason."""


class _StreamOver(Exception):
    """A budget of one stream passed: the pages that use it are not read."""


@dataclass(frozen=True, slots=True)
class Measure:
    """What :func:`measure` found: why the whole file is over a budget (``None``: it is
    not), and the streams over a budget of their own (object number: why), which make
    the pages that use them unread."""

    reason: str | None
    objects: dict[int, str]


def measure(data: bytes) -> Measure:
    """Measure every stream of *data* against the budgets (see the module docstring)."""
    tally = _Tally(time.monotonic())
    try:
        for match in _STREAM_RE.finditer(data):
            _count_stream(data, match.start(), match.end(), tally)
        _count_contents(data, tally)
    except _Over as exc:
        return Measure(f"PDF not read: {exc}", tally.over)
    return Measure(None, tally.over)


def over_budget(data: bytes) -> str | None:
    """Why *data*, or one of its streams, is over a budget (one line), else ``None``."""
    found = measure(data)
    if found.reason is None and found.objects:
        return "PDF not read in full: " + next(iter(found.objects.values()))
    return found.reason


def _count_stream(data: bytes, keyword: int, start: int, tally: _Tally) -> None:
    head = data[max(0, keyword - _LOOK_BACK) : keyword]
    found = _OBJ_BACK_RE.search(head[::-1])
    number = int(found.group(1)[::-1]) if found else -1
    where = f"object {number}" if found else f"the stream at byte {keyword:,}"
    dictionary = head[len(head) - found.start() :] if found else head
    if _IMAGE_RE.search(dictionary):
        return
    content = _NOT_CONTENT_RE.search(dictionary) is None
    packed = _OBJSTM_RE.search(dictionary) is not None
    shared = packed or _XREF_RE.search(dictionary) is not None  # read on opening the file
    filters = _FILTER_RE.search(dictionary)
    layers = len(_FLATE_RE.findall(filters.group(1))) if filters else 0
    size = shows = text = 0
    tail = b""
    inside = False  # a string runs on from the block before
    for block in _decoded(data, start, layers):
        size += len(block)
        block_shows = block_text = 0
        if content:
            block_shows = _shows(tail + block[:1]) + _shows(block)  # a "Tj" split in two
            tail = block[-1:]
            block_text, inside = _string_bytes(block, inside)
        elif packed:  # an array cut by a block's end is not seen: an approximation
            tally.listed += [m.group(1) for m in _CONTENTS_RE.finditer(block)]
        shows, text = shows + block_shows, text + block_text
        tally.total += len(block)
        tally.shows += block_shows
        tally.text += block_text
        try:
            _check(where, size, shows, text, tally)
        except _StreamOver as exc:
            if not found or shared:  # no page can be told from the others
                raise _Over(str(exc)) from None
            tally.over[number] = str(exc)
            return
    if found:
        tally.streams[number] = (size, shows, text)


def _shows(block: bytes) -> int:
    """The text-showing operators (``Tj``, ``TJ``) in *block*."""
    return block.count(b"Tj") + block.count(b"TJ")


def _string_bytes(block: bytes, inside: bool) -> tuple[int, bool]:
    """The bytes of *block* inside strings (literal, or hex counted as the bytes it
    spells), and whether a literal string runs on past its end. An approximation:
    escaped and nested parentheses are not followed."""
    count = 0
    if inside:
        close = block.find(b")")
        if close < 0:
            return len(block), True
        count, block = close, block[close + 1 :]
    # split: [before, literal, hex, between, literal, hex, ..., after the last string];
    # the group a string did not use is None
    parts = _STRING_RE.split(block)
    count += sum(map(len, filter(None, parts[1::3])))
    count += sum(map(operator.floordiv, map(len, filter(None, parts[2::3])), repeat(2)))
    opened = block.find(b"(", len(block) - len(parts[-1]))
    if opened >= 0 and block.find(b")", opened) < 0:
        return count + len(block) - opened - 1, True
    return count, False


def _check(where: str, size: int, shows: int, text: int, tally: _Tally) -> None:
    if size > MAX_STREAM_BYTES:
        raise _StreamOver(f"{where} inflates past {MAX_STREAM_BYTES // 2**20} MB (the budget)")
    if shows > MAX_STREAM_SHOWS:
        raise _StreamOver(f"{where} has over {MAX_STREAM_SHOWS:,} text operators (the budget)")
    if text > MAX_STREAM_TEXT:
        raise _StreamOver(
            f"{where} holds over {MAX_STREAM_TEXT // 2**20} MB of strings (the budget)"
        )
    if tally.total > MAX_FILE_BYTES:
        raise _Over(f"its streams inflate past {MAX_FILE_BYTES // 2**20} MB (the budget)")
    if tally.shows > MAX_FILE_SHOWS:
        raise _Over(f"it has over {MAX_FILE_SHOWS:,} text operators (the budget)")
    if tally.text > MAX_FILE_TEXT:
        raise _Over(f"its streams hold over {MAX_FILE_TEXT // 2**20} MB of strings (the budget)")
    if tally.late():
        raise _Over(f"measuring its streams took over {MAX_SECONDS:.0f} s (the budget)")


def _decoded(data: bytes, start: int, layers: int) -> Iterator[bytes]:
    """The stream from *start* with its *layers* Flate filters undone, a block at a time.
    Without a Flate filter, the raw bytes up to ``endstream`` (other filters do not
    inflate much: their output is counted as the raw size)."""
    if not layers:
        end = data.find(b"endstream", start)
        end = len(data) if end < 0 else end
        for at in range(start, end, _STEP):
            yield data[at : min(at + _STEP, end)]
        return
    view = memoryview(data)
    steps = range(start, len(data), _READ)
    blocks: Iterator[bytes] = (bytes(view[at : at + _READ]) for at in steps)
    for _ in range(layers):
        blocks = _inflate(blocks)
    yield from blocks


def _inflate(blocks: Iterator[bytes]) -> Iterator[bytes]:
    inflater = zlib.decompressobj()
    try:
        for block in blocks:
            pending = block
            while pending and not inflater.eof:
                out = inflater.decompress(pending, _STEP)
                if out:
                    yield out
                pending = inflater.unconsumed_tail
            if inflater.eof:
                return
    except zlib.error:  # damaged: what inflated so far is what an engine gets
        return


def _count_contents(data: bytes, tally: _Tally) -> None:
    """A page's ``/Contents`` array (in the file, or in an object stream): its streams'
    sizes and operators, repeats counted."""
    arrays = (m.group(1) for m in _CONTENTS_RE.finditer(data))
    for array in [*arrays, *tally.listed]:
        refs = [int(n) for n in _REF_RE.findall(array)]
        if len(refs) > MAX_CONTENT_STREAMS:
            raise _Over(
                f"a page lists {len(refs):,} content streams, over {MAX_CONTENT_STREAMS:,}"
                " (the budget)"
            )
        size = shows = text = 0
        for ref in refs:
            got = tally.streams.get(ref, (0, 0, 0))
            size, shows, text = size + got[0], shows + got[1], text + got[2]
        if size > MAX_CONTENT_BYTES:
            raise _Over(f"a page's contents inflate past {MAX_CONTENT_BYTES // 2**20} MB")
        if shows > MAX_STREAM_SHOWS:
            raise _Over(f"a page's contents have over {MAX_STREAM_SHOWS:,} text operators")
        if text > MAX_STREAM_TEXT:
            raise _Over(f"a page's contents hold over {MAX_STREAM_TEXT // 2**20} MB of strings")
