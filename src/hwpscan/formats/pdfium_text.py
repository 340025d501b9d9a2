"""PDFium (through pypdfium2) as a text engine: open a PDF, read one page's text as is.

PDFium keeps a page's text as UTF-16 code units. pypdfium2's convenience call
``PdfTextPage.get_text_range`` decodes them with ``errors="ignore"``: a lone surrogate
that a broken ToUnicode CMap put there simply disappears, and the defect this tool
counts would be hidden. :func:`page_text` reads the code units itself
(``FPDFText_GetText``) and decodes them with ``surrogatepass``: a valid pair becomes
its character (as pypdf returns it) and a lone half stays a lone half.

>>> _decode(bytes.fromhex("00ac80db2000"))
'가\\udb80 '
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

__all__ = [
    "LOCK",
    "PdfiumUnavailableError",
    "close",
    "open_document",
    "page_count",
    "page_text",
]

#: PDFium is not thread-safe: one document is read at a time per process (a Dask worker
#: runs several tasks in threads). Hold it from opening a document to closing it.
LOCK = threading.Lock()

#: ``FPDF_GetLastError`` codes (fpdfview.h) as the words a reason uses.
_LOAD_ERRORS = {
    1: "unknown error",
    2: "file not found or could not be opened",
    3: "not a PDF or damaged",
    4: "password required or incorrect",
    5: "unsupported security scheme",
    6: "page not found or content error",
}


class PdfiumUnavailableError(RuntimeError):
    """pypdfium2 is not installed (or its PDFium library does not load)."""


def _modules() -> tuple[Any, Any]:
    try:
        import pypdfium2
        import pypdfium2.raw as pdfium_c
    except Exception as exc:  # an import failure of a native library is not ours
        raise PdfiumUnavailableError(f"pypdfium2 not usable: {exc}") from exc
    return pypdfium2, pdfium_c


def open_document(data: bytes) -> tuple[Any, bool]:
    """PDFium's document of *data* (opened with the empty password when encrypted) and
    whether it is encrypted. Raises ``ValueError`` with PDFium's reason when it cannot
    open it."""
    pypdfium2, pdfium_c = _modules()
    try:
        doc = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        code = pdfium_c.FPDF_GetLastError()
        # PDFium sometimes refuses a damaged file and leaves its error code at 0
        # ("success"; seen on the same file that gave 3 in another run): a refusal
        # without a code is read as damage, so the row is the same on every run
        raise ValueError(_LOAD_ERRORS.get(code or 3, str(exc))) from exc
    encrypted = pdfium_c.FPDF_GetSecurityHandlerRevision(doc) != -1
    return doc, encrypted


def page_count(doc: Any) -> int:
    return len(doc)


def page_text(doc: Any, index: int) -> str:
    """The text of page *index* (0-based) as PDFium's code units, lone halves kept.
    Raises ``ValueError`` when PDFium cannot load the page."""
    pypdfium2, pdfium_c = _modules()
    try:
        page = doc[index]
    except pypdfium2.PdfiumError as exc:
        raise ValueError(f"PDFium could not load the page ({exc})") from exc
    try:
        try:
            textpage = page.get_textpage()
        except pypdfium2.PdfiumError as exc:  # that page's text, not the file
            raise ValueError(f"PDFium could not read the page's text ({exc})") from exc
        try:
            count = pdfium_c.FPDFText_CountChars(textpage)
            if count <= 0:
                return ""
            buffer = ctypes.create_string_buffer((count + 1) * 2)
            written = pdfium_c.FPDFText_GetText(
                textpage, 0, count, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort))
            )
            units = max(written - 1, 0)  # the count includes the terminating NUL
            return _decode(buffer.raw[: units * 2])
        finally:
            textpage.close()
    finally:
        page.close()


def close(doc: Any) -> None:
    doc.close()


def _decode(raw: bytes) -> str:
    return raw.decode("utf-16-le", "surrogatepass")
