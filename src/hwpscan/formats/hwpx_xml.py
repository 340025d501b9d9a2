"""The HWPX section XML walk: a section part's paragraph texts, read by a streaming,
defused expat parse (no tree).

:func:`section_text` reads what python-hwpx's ``TextExtractor.extract_text(
include_nested=True)`` reads, in linear time; :func:`parse_xml` is the defused parse it
and the package reader (:mod:`hwpscan.formats.hwpx`) share: no DTD or entity
declaration is accepted, and nesting depth and paragraph count are checked while the
XML streams in, so a hostile file is refused before it costs memory.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import NoReturn
from xml.parsers import expat

from hwpscan.errors import BudgetError, CorruptFileError

__all__ = [
    "MAX_DEPTH",
    "MAX_PARAGRAPHS",
    "Walk",
    "parse_xml",
    "section_text",
    "shown_name",
]

#: XML nesting deeper than this is refused (real sections: under 40, tables in tables).
MAX_DEPTH = 256
#: Paragraphs over the whole package (real documents: thousands, rarely 100,000).
MAX_PARAGRAPHS = 1_000_000
#: The first block handed to expat (see :func:`_growing`).
_FIRST_BLOCK = 64 * 1024
#: Elements inside ``hp:t`` that stand for one character (their own content is not text).
_INLINE = {
    "lineBreak": "\n",
    "nbSpace": "\u00a0",
    "fwSpace": "\u3000",
    "tab": "\t",
    "hyphen": "\u00ad",
    "markpenBegin": "",
    "markpenEnd": "",
}


def shown_name(name: str) -> str:
    """A part's name as a message shows it: as it is when printable, else escaped.

    >>> shown_name("Contents/section0.xml"), shown_name("a\\nb")
    ('Contents/section0.xml', "'a\\\\nb'")
    """
    return name if name.isprintable() else ascii(name)


@dataclass(slots=True)  # its fields are read at every element of its paragraph
class _Para:
    depth: int
    slot: int
    parts: list[str] = field(default_factory=list)
    capture: int = 0  # depth of the hp:t being captured (0: none)
    mute: int = 0  # depth of an inline element whose content is not text (0: none)


@dataclass
class Walk:
    """The state of the text walk over all sections of one package."""

    slots: list[str | None] = field(default_factory=list)
    paragraphs: int = 0
    stopped: str | None = None
    max_paragraphs: int = MAX_PARAGRAPHS
    max_depth: int = MAX_DEPTH
    notes: list[str] = field(default_factory=list)  # the row's warnings

    def texts(self) -> list[str]:
        """Paragraph texts in document order, empty ones left out (python-hwpx's rule:
        nothing left after ``strip()``, which is what ``isspace()`` tells without making
        the stripped copy).

        >>> Walk(["a", None, "", " \\u3000\\n", " b "]).texts()
        ['a', ' b ']
        """
        return [t for t in self.slots if t and not t.isspace()]


def section_text(chunks: Iterable[bytes], walk: Walk, name: str) -> None:
    """Walk one section part's XML (an iterable of byte chunks) and add its paragraphs'
    text to *walk*.

    The text of a paragraph (``hp:p`` at any depth, in document order) is what its own
    runs hold: ``hp:t`` text with its inline line breaks, tabs and spaces, a run-level
    ``hp:lineBreak`` or ``hp:tab``; objects (tables, pictures), notes and controls add
    nothing to it, and their own paragraphs follow it as paragraphs of their own.
    Raises :class:`FormatError` for malformed XML or a budget passed; the paragraphs
    finished before that stay in *walk*.
    """
    stack: list[str] = []
    open_paras: list[_Para] = []
    max_depth = walk.max_depth
    inline = _INLINE

    def start(tag: str, attrs: dict[str, str]) -> None:
        local = tag.rpartition("}")[2]  # expat's names are namespace}local
        stack.append(local)
        depth = len(stack)
        if depth > max_depth:
            raise BudgetError(f"{shown_name(name)}: XML nested deeper than {max_depth} levels")
        for para in open_paras:
            if para.capture:
                if not para.mute and local in inline:
                    if inline[local]:
                        para.parts.append(inline[local])
                    para.mute = depth
            elif depth == para.depth + 2 and stack[para.depth] == "run":
                if local == "t":
                    para.capture = depth
                elif local == "lineBreak":
                    para.parts.append("\n")
                elif local == "tab" or (local == "ctrl" and attrs.get("id", "").lower() == "tab"):
                    para.parts.append("\t")
        if local == "p":
            walk.paragraphs += 1
            if walk.paragraphs > walk.max_paragraphs:
                raise BudgetError(
                    f"{shown_name(name)}: more than {walk.max_paragraphs:,} paragraphs (the budget)"
                )
            walk.slots.append(None)
            open_paras.append(_Para(depth, len(walk.slots) - 1))

    def end(tag: str) -> None:
        depth = len(stack)
        for para in open_paras:
            if para.mute == depth:
                para.mute = 0
            if para.capture == depth:
                para.capture = 0
        if open_paras and open_paras[-1].depth == depth:
            para = open_paras.pop()
            walk.slots[para.slot] = "".join(para.parts)
        stack.pop()

    def text(data: str) -> None:
        for para in open_paras:
            if para.capture and not para.mute:
                para.parts.append(data)

    declared = parse_xml(chunks, start, end, text, name)
    if declared is not None:
        walk.notes.append(f"{shown_name(name)}: XML in {declared}, decoded as its declaration says")


def _refuse(what: str, name: str) -> Callable[..., NoReturn]:
    def handler(*_args: object) -> NoReturn:
        raise CorruptFileError(f"{shown_name(name)}: {what} refused (no DTD or entities in HWPX)")

    return handler


def parse_xml(
    chunks: Iterable[bytes],
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None] | None,
    text: Callable[[str], None] | None,
    name: str,
) -> str | None:
    """Stream XML (byte chunks) through expat, defused: a DTD, entity declaration or external entity
    reference ends the parse with an error. *start* is given each element's attributes
    as a dict.

    expat reads UTF-8, UTF-16 and single-byte encodings; XML declared in a multi-byte
    one (``euc-kr``, ``cp949``) is decoded here as declared and given to expat as text.
    Returns that encoding's name, else ``None``.
    """
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("a DTD", name)
    parser.EntityDeclHandler = _refuse("an entity declaration", name)
    parser.ExternalEntityRefHandler = _refuse("an external entity", name)
    parser.StartElementHandler = start
    if end is not None:
        parser.EndElementHandler = end
    if text is not None:
        parser.CharacterDataHandler = text
    blocks = _growing(chunks)
    first = next(blocks, b"")
    declared = _multibyte_declared(first)
    try:
        if declared is None:
            parser.Parse(first, False)
            for chunk in blocks:
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        else:
            decoder = codecs.getincrementaldecoder(declared)()  # strict: bad bytes are damage
            parser.Parse(decoder.decode(first), False)
            for chunk in blocks:
                parser.Parse(decoder.decode(chunk), False)
            parser.Parse(decoder.decode(b"", True), True)
    except UnicodeDecodeError as exc:
        raise CorruptFileError(
            f"{shown_name(name)}: XML declared in {declared} is not valid {declared} ({exc.reason})"
        ) from exc
    except expat.ExpatError as exc:
        raise CorruptFileError(f"{shown_name(name)}: XML malformed ({exc})") from exc
    except LookupError as exc:  # the XML declaration names an encoding Python lacks
        raise CorruptFileError(f"{shown_name(name)}: XML in an unknown encoding ({exc})") from exc
    except RecursionError as exc:
        raise BudgetError(f"{shown_name(name)}: XML too deep ({exc})") from exc
    return declared


#: The most bytes handed to expat at once (see :func:`_growing`).
_MOST_FED = 4 * 2**20


def _growing(chunks: Iterable[bytes], first: int = _FIRST_BLOCK) -> Iterator[bytes]:
    """*chunks* joined into blocks that double in size, from *first* bytes up to
    :data:`_MOST_FED`: what is handed to expat at a time.

    expat (before 2.6) parses a token that a block leaves unfinished again from its
    start at every later block: a 60 MB start tag fed 64 KB at a time was scanned
    a thousand times (half a minute). Doubling blocks make that a few scans; the
    events are the same whatever the blocks.

    >>> [len(b) for b in _growing([b"x" * 10] * 7, first=10)]
    [10, 20, 40]
    """
    want, pending, size = first, [], 0
    for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        if size >= want:
            yield b"".join(pending)
            want, pending, size = min(want * 2, _MOST_FED), [], 0
    if pending:
        yield b"".join(pending)


_DECLARED_RE = re.compile(
    rb"<\?xml[^>]{0,200}?encoding\s*=\s*[\"']([A-Za-z][A-Za-z0-9._-]{0,40})[\"']"
)


def _multibyte_declared(head: bytes) -> str | None:
    """The encoding the XML declaration at the start of *head* names, when it is a
    multi-byte encoding Python knows (expat reads the others itself); else ``None``.
    An encoding Python lacks is left to expat, which names it in its error.

    >>> _multibyte_declared(b'<?xml version="1.0" encoding="EUC-KR"?><a/>')
    'euc_kr'
    >>> _multibyte_declared(b'<?xml version="1.0" encoding="UTF-8"?>'), _multibyte_declared(
    ...     b"<?xml version='1.0' encoding='cp1252'?>")
    (None, None)
    """
    found = _DECLARED_RE.match(head)
    if found is None:
        return None
    try:
        info = codecs.lookup(found.group(1).decode("ascii"))
    except LookupError:
        return None
    if info.name in ("utf-8", "utf-16", "utf-16-be", "utf-16-le", "ascii", "latin-1"):
        return None
    # expat's own test, as pyexpat makes it: a single-byte table maps all 256 bytes
    single = len(bytes(range(256)).decode(info.name, "replace")) == 256
    return None if single else info.name
