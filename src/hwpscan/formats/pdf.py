"""PDF through two engines, page by page: a page one engine reads is read.

PDFium (pypdfium2) is the primary text engine, pypdf the fallback and second opinion:
pypdf refuses ``/A85``, 104-bit RC4, unknown filter names and page trees deeper than
100; PDFium gives no error for a page it reads nothing from. A malformed ToUnicode CMap
can map a glyph to a lone surrogate; both engines return the same halves, pairs and
U+FFFD for it (see :mod:`hwpscan.formats.pdfium_text`), and both are counted as they are.

- Every page is read on its own: by PDFium, or by pypdf where PDFium cannot load it or
  reads no character. A page neither reads (whatever pypdf raises) is named in the
  reason and the file is read in part, never ``clean``. A file PDFium cannot open is
  read by pypdf alone. pypdf is not run on pages PDFium reads text from (it would cost
  most of PDFium's speed, ``benchmarks/pdf_engines.py``).
- Encryption: the standard handler is opened with the empty user password (RC4, AES);
  a user password or certificate encryption (``/Adobe.PubSec``) is ``encrypted``.
- Form-field values and annotation contents (through pypdf) are the ``meta`` channel.
- Budgets: :data:`MAX_PAGES` pages and :data:`MAX_OBJECTS` declared objects (a file
  over them is read up to the budget); :mod:`hwpscan.formats.pdf_budget` measures the
  streams first, as PDFium has no memory limit of its own.
- pypdf's log messages and warnings never reach the terminal: they are kept, escaped
  and capped, as the file's warnings.
- Unread is never clean: where pypdf logs that it dropped part of an object it could
  not parse (a page's fonts or content, perhaps), the file is read in part (``corrupt``,
  or ``contaminated`` by what was read), even with every page extracted.
"""

from __future__ import annotations

import io
import logging
import re
import warnings as _warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hwpscan.errors import BudgetError, CorruptFileError, EncryptedFileError
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.formats import pdf_budget, pdfium_text
from hwpscan.formats.stable_text import stable
from hwpscan.models import Document, Format, ReadInfo, Segment, Status

__all__ = ["MAX_ANNOTATIONS", "MAX_MESSAGES", "MAX_OBJECTS", "MAX_PAGES", "read_pdf"]

#: Pages read from one file (large real reports: a few thousand).
MAX_PAGES = 20_000
#: Objects a file may declare in its trailer (``/Size``; large real files: ~1 million).
MAX_OBJECTS = 5_000_000
#: Annotations and form fields read from one file (forms: a few hundred).
MAX_ANNOTATIONS = 20_000
#: pypdf messages kept per file; the rest are counted.
MAX_MESSAGES = 20
_MESSAGE_CHARS = 300
_SHOWN_PAGES = 5
#: What pypdf logs when it drops the rest of an object it could not parse: the repr of
#: the exception (``PdfReadError('Error reading PDF file.')``, ``RecursionError(...)``),
#: from its object parser (``pypdf.generic...``); every version since 4 does so.
_DROPPED_RE = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception)\(")


class _Collect(logging.Handler):
    """Keeps pypdf's log records (escaped, capped) instead of letting them print."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []
        self.dropped = 0
        self.lost: list[str] = []  # objects pypdf read in part (see _DROPPED_RE)
        self.heard = 0  # messages received, kept or not
        self.first = ""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a malformed record is still one message
            text = str(record.msg)
        if record.name.startswith("pypdf.generic") and _DROPPED_RE.match(text):
            self.lost.append(_clip(text))
        self.add(text)

    def add(self, text: str) -> None:
        self.heard += 1
        if not self.first or ("Error" in text and "Error" not in self.first):
            self.first = _clip(text)  # the first error it names, else its first message
        if len(self.messages) >= MAX_MESSAGES:
            self.dropped += 1
            return
        self.messages.append("pypdf: " + _clip(text))

    def notes(self) -> list[str]:
        out = list(dict.fromkeys(self.messages))  # the same message per page: once
        if self.dropped:
            out.append(f"pypdf: and {self.dropped} more message(s)")
        return out


def _clip(text: str) -> str:
    shown = escape_snippet(stable(text))  # no memory address: see formats.stable_text
    return shown if len(shown) <= _MESSAGE_CHARS else shown[:_MESSAGE_CHARS] + "..."


@contextmanager
def _quiet() -> Iterator[_Collect]:
    """Route pypdf's logging and Python warnings into a collector while it reads."""
    log = logging.getLogger("pypdf")  # its modules log on child loggers: the parent holds
    saved = (log.level, log.propagate, list(log.handlers))
    disabled = logging.root.manager.disable  # an application's logging.disable() would
    logging.disable(logging.NOTSET)  # hide the damage pypdf reports: it must be heard
    collect = _Collect()
    log.handlers = [collect]
    log.propagate = False
    log.setLevel(logging.WARNING)
    try:
        with _warnings.catch_warnings(record=True) as caught:
            _warnings.simplefilter("always")
            yield collect
        for w in caught:
            collect.add(f"{w.category.__name__}: {w.message}")
    finally:
        logging.disable(disabled)
        log.setLevel(saved[0])
        log.propagate = saved[1]
        log.handlers = saved[2]


def read_pdf(data: bytes, *, max_pages: int = MAX_PAGES) -> Document:
    """Extract every page's text; one segment per line, stream ``page N`` (1-based).

    pypdf's messages about a damaged file are kept as warnings, never printed; the
    logger is restored afterwards.
    """
    with _quiet() as collect:
        doc = _extract(data, max_pages, collect)
    notes = collect.notes()
    status, reason = doc.status, doc.reason
    if collect.lost and status is None:  # unread is never clean, see the module docstring
        lost = list(dict.fromkeys(collect.lost))
        reason = "pypdf could not parse part of an object and dropped it: " + _join(lost)
        status = Status.CORRUPT
    if not notes and status is doc.status:
        return doc
    return Document(
        format=doc.format,
        body=doc.body,
        meta=doc.meta,
        status=status,
        reason=reason,
        warnings=doc.warnings + tuple(notes),
        info=doc.info,
    )


_SIZE = re.compile(rb"/Size\s+(\d{1,12})")
_LINE_END = re.compile(r"\r\n|\r|\n")


def _extract(data: bytes, max_pages: int, collect: _Collect) -> Document:
    # every trailer and cross-reference stream, from the bytes: PDFium does not show them
    _check_objects(max((int(m) for m in _SIZE.findall(data)), default=0))
    measured = pdf_budget.measure(data)  # before any engine: see pdf_budget
    if measured.reason is not None:
        raise BudgetError(measured.reason)
    skipped = _pages_over_budget(data, measured.objects) if measured.objects else {}
    with pdfium_text.LOCK:  # PDFium is not thread-safe
        try:
            doc, encrypted = pdfium_text.open_document(data)
        except (ValueError, pdfium_text.PdfiumUnavailableError) as exc:
            failed = f"PDFium could not open the file: {exc}"
        else:
            try:
                count = pdfium_text.page_count(doc)
                if count:
                    return _extract_two(data, doc, encrypted, count, max_pages, collect, skipped)
                failed = "PDFium found no page"
            finally:
                pdfium_text.close(doc)
    return _extract_pypdf(data, max_pages, [failed], skipped)


#: Objects walked from one page's contents and resources, looking for an over-budget
#: stream (a real page: a few dozen).
_MAX_WALKED = 10_000


def _pages_over_budget(data: bytes, objects: dict[int, str]) -> dict[int, str]:
    """The pages (0-based) whose contents or resources reach a stream over its budget,
    each with why: through pypdf's page dictionaries, no stream decoded. Raises
    :class:`BudgetError` when the pages cannot be told apart (pypdf cannot open the
    file, or a page's objects are too many to walk)."""
    first = next(iter(objects.values()))
    try:
        reader = _open_reader(data)
        pages, count = _pages(reader, [])
        out: dict[int, str] = {}
        for index in range(min(count, MAX_PAGES)):
            page = pages[index]
            found = _reaches([page.get("/Contents"), page.get("/Resources")], objects, _MAX_WALKED)
            if found is not None:
                out[index] = objects[found]
        return out
    except (CorruptFileError, EncryptedFileError, _TooMany) as exc:
        raise BudgetError(f"PDF not read: {first} (its pages: {exc})") from exc
    except Exception as exc:  # pypdf on a damaged page tree: whatever its code hits
        raise BudgetError(f"PDF not read: {first} (its pages: {_describe(exc)})") from exc


class _TooMany(Exception):
    pass


def _reaches(start: list[Any], objects: dict[int, str], most: int) -> int | None:
    """The first object number of *objects* reachable from *start* (pypdf objects:
    references followed, dictionaries and arrays walked; streams not decoded)."""
    from pypdf.generic import IndirectObject

    stack = list(start)
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, IndirectObject):
            if item.idnum in objects:
                return int(item.idnum)
            if item.idnum in seen:
                continue
            seen.add(item.idnum)
            if len(seen) > most:
                raise _TooMany(f"more than {most:,} objects reached from one page")
            item = item.get_object()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class _Second:
    """pypdf, opened the first time a page or the forms need it (most files never do)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._opened: tuple[Any, Any] | None = None
        self.failure: str | None = None

    def pages(self) -> tuple[Any, Any] | None:
        if self._opened is None and self.failure is None:
            try:
                reader = _open_reader(self._data)
                pages, _ = _pages(reader, [])
            except (CorruptFileError, EncryptedFileError) as exc:
                self.failure = str(exc)
            else:
                self._opened = (reader, pages)
        return self._opened


def _extract_two(
    data: bytes,
    doc: Any,
    encrypted: bool,
    count: int,
    max_pages: int,
    collect: _Collect,
    skipped: dict[int, str],
) -> Document:
    """Read with PDFium, ask pypdf about the pages PDFium loses (see the docstring)."""
    notes: list[str] = []
    if encrypted:
        notes.append("PDF is encrypted with an empty user password: opened without one")
    second = _Second(data)
    read = min(count, max_pages)
    segments: list[Segment] = []
    failed: list[str] = []
    by_pypdf = remapped = 0
    for number in range(1, read + 1):
        if number - 1 in skipped:  # over a budget: neither engine reads it
            failed.append(f"page {number}: {skipped[number - 1]}")
            continue
        try:
            text = pdfium_text.page_text(doc, number - 1)
            lost = "" if text else "PDFium read no text"
        except ValueError as exc:
            text, lost = "", str(exc)
        except MemoryError:
            raise
        if lost:
            got = _second_opinion(second, number, collect)
            if isinstance(got, str):
                failed.append(f"page {number}: {lost}; pypdf: {got}")
                continue
            text, by_pypdf = got[0], by_pypdf + (1 if got[0] else 0)
        elif _UNMAPPED_RE.search(text) is not None:
            mapped = _better_mapped(text, _second_opinion(second, number, collect))
            if mapped is not None:
                text, remapped = mapped, remapped + 1
        segments.extend(_lines(number, text))
    meta: tuple[Segment, ...] = ()
    if b"/AcroForm" in data or b"/Annots" in data:
        opened = second.pages()
        if opened is None:
            notes.append(f"form fields and annotations not readable: {second.failure}")
        else:
            meta = _forms(opened[0], opened[1], min(read, len(opened[1])), notes)
    if by_pypdf:
        notes.append(f"{by_pypdf} page(s) read by pypdf where PDFium read no text")
    if remapped:
        notes.append(f"{remapped} page(s) read by pypdf where PDFium left glyphs unmapped")
    info = ReadInfo(pages=count, pages_read=read - len(failed), engine="pdfium")
    return _document(segments, failed, meta, notes, info, count, max_pages)


#: What PDFium writes for a glyph it has no Unicode for: the glyph's code, a control
#: character (Hancom's U+FFFF table-cell symbols come out so). Tab and line ends are text.
_UNMAPPED_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _better_mapped(text: str, got: tuple[str] | str) -> str | None:
    """pypdf's text of a page where PDFium left glyphs unmapped, when pypdf maps more
    of them (it hands on what the ToUnicode CMap says, U+FFFF included), else None.

    >>> _better_mapped("표 \x08", ("표 \uffff",)) == "표 \uffff"
    True
    >>> _better_mapped("표 \x08", "cannot open the file") is None
    True
    >>> _better_mapped("표와 본문 \x08", ("표",)) is None  # pypdf read less: PDFium's stays
    True
    """
    if isinstance(got, str) or not got[0]:
        return None
    other = got[0]
    fewer = len(_UNMAPPED_RE.findall(other)) < len(_UNMAPPED_RE.findall(text))
    # and no text lost for it: as many characters but for white space (the engines
    # space words differently)
    whole = len("".join(other.split())) >= len("".join(text.split()))
    return other if fewer and whole else None


def _second_opinion(second: _Second, number: int, collect: _Collect) -> tuple[str] | str:
    """pypdf's text of page *number* as a 1-tuple, or why it has none.

    pypdf logs much of the damage it meets instead of raising (a page object it cannot
    parse becomes a page without contents): a page from which it too reads nothing, in
    a file it complained about while opening or reading, is not read. A blank page of
    an undamaged file reads as nothing without a complaint.
    """
    opened = second.pages()
    if opened is None:
        return f"cannot open the file: {second.failure}"
    pages = opened[1]
    if number > len(pages):
        return f"the file has {len(pages)} page(s)"
    try:
        text = pages[number - 1].extract_text() or ""
    except MemoryError:
        raise
    except Exception as exc:  # any failure of one page is that page's, see the docstring
        return _describe(exc)
    if not text and collect.heard:
        return "no text either, in a file it reported damage in: " + collect.first
    return (text,)


def _lines(number: int, text: str) -> list[Segment]:
    stream = f"page {number}"
    return [Segment(stream, i, 0, line) for i, line in enumerate(_LINE_END.split(text)) if line]


def _check_objects(declared: int) -> None:
    """Refuse a file that declares more objects than the budget (trailer ``/Size``)."""
    if declared > MAX_OBJECTS:
        raise CorruptFileError(
            f"PDF declares {declared:,} objects, over the budget of {MAX_OBJECTS:,}"
        )


def _extract_pypdf(
    data: bytes, max_pages: int, notes: list[str], skipped: dict[int, str]
) -> Document:
    """The whole file through pypdf (PDFium could not open it)."""
    reader = _open_reader(data)
    try:
        declared = int(reader.trailer.get("/Size", 0))
    except Exception:  # a /Size that is no number: not ours to judge
        declared = 0
    _check_objects(declared)
    pages, count = _pages(reader, notes)
    read = min(count, max_pages)
    segments, failed = _page_segments(pages, read, skipped)
    meta = _forms(reader, pages, read, notes)
    info = ReadInfo(pages=count, pages_read=read - len(failed), engine="pypdf")
    return _document(segments, failed, meta, notes, info, count, max_pages)


def _document(
    segments: list[Segment],
    failed: list[str],
    meta: tuple[Segment, ...],
    notes: list[str],
    info: ReadInfo,
    count: int,
    max_pages: int,
) -> Document:
    unread = list(failed)
    if count > max_pages:
        unread.append(f"pages {max_pages + 1}-{count}: over the budget of {max_pages:,} pages")
    status = reason = None
    if unread:
        if not segments and failed and len(failed) == count:
            raise CorruptFileError("no page readable: " + _join(unread))
        status = Status.CORRUPT
        reason = f"{len(unread)} of {count} page(s) not read: {_join(unread)}"
    return Document(
        Format.PDF,
        tuple(segments),
        meta=meta,
        status=status,
        reason=reason,
        warnings=tuple(notes),
        info=info,
    )


def _open_reader(data: bytes) -> Any:
    """pypdf's reader of *data*; any failure before a page is read is damage (or
    encryption, when the error says so)."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        return PdfReader(io.BytesIO(data), strict=False)
    except NotImplementedError as exc:
        if b"/Adobe.PubSec" in data or "encryption" in str(exc):
            raise EncryptedFileError(_certificate_reason(data, exc)) from exc
        raise CorruptFileError(f"PDF is damaged: {_describe(exc)}") from exc
    except DependencyError as exc:
        raise EncryptedFileError(
            f"PDF is encrypted and cannot be opened: {_describe(exc)}"
        ) from exc
    except Exception as exc:
        # On a damaged file pypdf's parser fails with whatever its code hits first
        # (KeyError, IndexError, struct.error, zlib.error, RecursionError...), not with
        # its own error types alone: before any page is read, every such failure is damage.
        raise CorruptFileError(f"PDF is damaged: {_describe(exc)}") from exc


def _pages(reader: Any, notes: list[str]) -> tuple[Any, int]:
    """The reader's pages (decrypted first when it is encrypted) and how many."""
    from pypdf.errors import DependencyError, FileNotDecryptedError

    try:
        if reader.is_encrypted:
            notes.extend(_decrypt(reader))
        pages = reader.pages
        return pages, len(pages)
    except EncryptedFileError:
        raise
    except FileNotDecryptedError as exc:
        raise EncryptedFileError(f"PDF is encrypted: {_describe(exc)}") from exc
    except DependencyError as exc:
        raise EncryptedFileError(
            f"PDF is encrypted and cannot be opened: {_describe(exc)}"
        ) from exc
    except Exception as exc:
        raise CorruptFileError(f"PDF is damaged: {_describe(exc)}") from exc


def _page_segments(
    pages: Any, count: int, skipped: dict[int, str]
) -> tuple[list[Segment], list[str]]:
    """The text lines of the first *count* pages, and the pages that failed (each
    failure is that page's, see the module docstring) or were *skipped*."""
    segments: list[Segment] = []
    failed: list[str] = []
    for number in range(1, count + 1):
        if number - 1 in skipped:
            failed.append(f"page {number}: {skipped[number - 1]}")
            continue
        try:
            text = pages[number - 1].extract_text() or ""
        except MemoryError:
            raise
        except Exception as exc:  # any failure of one page is that page's, see the docstring
            failed.append(f"page {number}: {_describe(exc)}")
            continue
        stream = f"page {number}"
        segments.extend(
            Segment(stream, i, 0, line) for i, line in enumerate(text.split("\n")) if line
        )
    return segments, failed


def _join(parts: list[str]) -> str:
    text = "; ".join(parts[:_SHOWN_PAGES])
    if len(parts) > _SHOWN_PAGES:
        text += f"; and {len(parts) - _SHOWN_PAGES} more"
    return text


def _describe(exc: BaseException) -> str:
    """An exception as ``Type: message``, escaped and capped (font names can hold ESC)."""
    return _clip(f"{type(exc).__name__}: {exc}")


def _certificate_reason(data: bytes, exc: BaseException) -> str:
    if b"/Adobe.PubSec" in data:
        return "PDF is certificate-encrypted (/Adobe.PubSec): only the recipients' keys open it"
    return f"PDF uses an encryption handler that cannot be opened: {_describe(exc)}"


def _decrypt(reader: Any) -> list[str]:
    """Open a standard-security PDF with the empty user password, or say why not."""
    from pypdf.errors import DependencyError

    encrypt = reader.trailer.get("/Encrypt")
    handler = str(encrypt.get_object().get("/Filter", "")) if encrypt is not None else ""
    if handler and handler != "/Standard":
        raise EncryptedFileError(
            f"PDF is encrypted with the {escape_snippet(handler)} handler (certificate or "
            "DRM): not readable without its keys"
        )
    try:
        opened = reader.decrypt("")
    except DependencyError as exc:
        raise EncryptedFileError(
            f"PDF is AES-encrypted and the cryptography package is missing: {_describe(exc)}"
        ) from exc
    except NotImplementedError as exc:
        raise EncryptedFileError(f"PDF encryption not supported: {_describe(exc)}") from exc
    if not opened:
        raise EncryptedFileError("PDF is encrypted with a user password")
    return ["PDF is encrypted with an empty user password: opened without one"]


def _forms(reader: Any, pages: Any, count: int, notes: list[str]) -> tuple[Segment, ...]:
    """Form-field values and annotation contents: the ``meta`` channel of a PDF."""
    out: list[Segment] = []
    try:
        fields = reader.get_fields() or {}
    except Exception as exc:  # a damaged form is a note, not a lost file
        notes.append(f"form fields not readable: {_describe(exc)}")
        fields = {}
    for i, (name, spec) in enumerate(list(fields.items())[:MAX_ANNOTATIONS]):
        value = _text_of(spec.get("/V") if hasattr(spec, "get") else None)
        if value:
            out.append(Segment(f"form field {escape_snippet(str(name))}", i, 0, value))
    seen = len(out)
    for number in range(1, count + 1):
        if seen >= MAX_ANNOTATIONS:
            notes.append(f"annotations past {MAX_ANNOTATIONS:,} not read (the budget)")
            break
        try:
            annots = pages[number - 1].get("/Annots")
            items = annots.get_object() if annots is not None else []
            for k, ref in enumerate(items):
                seen += 1
                contents = _text_of(ref.get_object().get("/Contents"))
                if contents:
                    out.append(Segment(f"page {number} annotation", k, 0, contents))
        except Exception as exc:
            notes.append(f"page {number}: annotations not readable: {_describe(exc)}")
    return tuple(out)


def _text_of(value: object) -> str | None:
    """A PDF text string as a pipeline gets it. pypdf hands back the raw bytes of a
    UTF-16BE string it cannot decode (one with a lone surrogate); decoded the way a
    naive reader does (``surrogatepass``), the lone half is what reaches the pipeline.

    >>> _text_of(b"\\xfe\\xff\\x00a\\xdb\\x80") == "a" + chr(0xDB80)
    True
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes) and value.startswith(b"\xfe\xff"):
        return value[2 : len(value) & ~1].decode("utf-16-be", "surrogatepass")
    return None
