"""PDF through pypdf, page by page: one bad page costs that page, not the file.

Text comes through font encodings and ToUnicode CMaps (UTF-16BE); a malformed CMap can
map a glyph to a lone surrogate, so the extractor's output is counted as it is.

- Every page is read on its own: whatever pypdf raises for one page (its own errors,
  ``NotImplementedError`` for an unknown filter, ``DependencyError`` for a missing
  decoder, ``AssertionError``...) becomes that page's entry in the reason, and the
  other pages are counted. A file with unread pages is read in part, never ``clean``.
- Encryption: the standard security handler is opened with the empty user password
  when the file allows it (RC4 and AES; AES needs ``cryptography``); a user password
  or certificate encryption (``/Adobe.PubSec``) is ``encrypted``.
- Form-field values and annotation contents are read apart from the body, as the
  ``meta`` channel: a surrogate there reaches every pipeline that reads forms.
- Budgets: at most :data:`MAX_PAGES` pages and :data:`MAX_OBJECTS` declared objects
  (real documents stay far below both); a file over them is read up to the budget.
- pypdf's log messages and Python warnings never reach the terminal: they are caught
  while it reads, escaped (control characters, escapes and surrogates shown as
  ``\\x1b``, ``\\udb80``...), capped, and kept as the file's warnings.
- Unread is never clean: where pypdf could not parse part of an object (a page's
  ``/Resources`` nested 100,000 deep, an entry it cannot read) it keeps what it parsed
  and logs the exception instead of raising; such a message makes the file read in
  part (``corrupt``, or ``contaminated`` by what was read), even with every page
  extracted -- the dropped part may be the page's fonts or its content.
"""

from __future__ import annotations

import io
import logging
import re
import warnings as _warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hwpscan.errors import CorruptFileError, EncryptedFileError
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import Document, Format, Segment, Status

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

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a malformed record is still one message
            text = str(record.msg)
        if record.name.startswith("pypdf.generic") and _DROPPED_RE.match(text):
            self.lost.append(_clip(text))
        self.add(text)

    def add(self, text: str) -> None:
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
    shown = escape_snippet(text)
    return shown if len(shown) <= _MESSAGE_CHARS else shown[:_MESSAGE_CHARS] + "..."


@contextmanager
def _quiet() -> Iterator[_Collect]:
    """Route pypdf's logging and Python warnings into a collector while it reads."""
    log = logging.getLogger("pypdf")  # its modules log on child loggers: the parent holds
    saved = (log.level, log.propagate, list(log.handlers))
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
        log.setLevel(saved[0])
        log.propagate = saved[1]
        log.handlers = saved[2]


def read_pdf(data: bytes, *, max_pages: int = MAX_PAGES) -> Document:
    """Extract every page's text; one segment per line, stream ``page N`` (1-based).

    pypdf's messages about a damaged file are kept as warnings, never printed; the
    logger is restored afterwards.
    """
    with _quiet() as collect:
        doc = _extract(data, max_pages)
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


def _extract(data: bytes, max_pages: int) -> Document:
    reader = _open_reader(data)
    notes: list[str] = []
    _check_size(reader)
    pages, count = _pages(reader, notes)
    read = min(count, max_pages)
    segments, failed = _page_segments(pages, read)
    meta = _forms(reader, pages, read, notes)
    info: dict[str, Any] = {"pages": count, "pages_read": read - len(failed)}
    unread = list(failed)
    if count > max_pages:
        unread.append(f"pages {max_pages + 1}-{count}: over the budget of {max_pages:,} pages")
    if not unread:
        return Document(
            format=Format.PDF, body=tuple(segments), meta=meta, warnings=tuple(notes), info=info
        )
    if not segments and failed and len(failed) == count:
        raise CorruptFileError("no page readable: " + _join(unread))
    reason = f"{len(unread)} of {count} page(s) not read: {_join(unread)}"
    return Document(
        format=Format.PDF,
        body=tuple(segments),
        meta=meta,
        status=Status.CORRUPT,
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


def _check_size(reader: Any) -> None:
    """Refuse a file that declares more objects than the budget."""
    try:
        declared = int(reader.trailer.get("/Size", 0))
    except Exception:  # a /Size that is no number: not ours to judge
        declared = 0
    if declared > MAX_OBJECTS:
        raise CorruptFileError(
            f"PDF declares {declared:,} objects, over the budget of {MAX_OBJECTS:,}"
        )


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


def _page_segments(pages: Any, count: int) -> tuple[list[Segment], list[str]]:
    """The text lines of the first *count* pages, and the pages that failed (each
    failure is that page's, see the module docstring)."""
    segments: list[Segment] = []
    failed: list[str] = []
    for number in range(1, count + 1):
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
