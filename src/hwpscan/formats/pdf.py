"""PDF through pypdf, the reference extractor for hwpscan.

Text comes through font encodings and ToUnicode CMaps (UTF-16BE); a malformed CMap can
map a glyph to a lone surrogate, so the extractor's output is counted as it is.
"""

from __future__ import annotations

import io
import logging

from hwpscan.errors import CorruptFileError, EncryptedFileError
from hwpscan.models import Document, Format, Segment


def read_pdf(data: bytes) -> Document:
    """Extract every page's text; one segment per line, stream ``page N`` (1-based).

    pypdf's warnings about a damaged file are held back while it reads (the status and
    reason say what was wrong); the logger's level is restored afterwards.
    """
    log = logging.getLogger("pypdf")  # its modules log on child loggers: set the parent level
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        return _extract(data)
    finally:
        log.setLevel(level)


def _extract(data: bytes) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise EncryptedFileError("PDF is encrypted with a user password")
        segments: list[Segment] = []
        warnings: list[str] = []
        pages = reader.pages
        for number, page in enumerate(pages, start=1):
            try:
                text = page.extract_text() or ""
            except (PdfReadError, KeyError, ValueError, TypeError, AttributeError) as exc:
                warnings.append(f"page {number}: text not extractable: {exc}")
                continue
            stream = f"page {number}"
            segments.extend(
                Segment(stream, i, 0, line) for i, line in enumerate(text.split("\n")) if line
            )
        count = len(pages)
    except EncryptedFileError:
        raise
    except FileNotDecryptedError as exc:
        raise EncryptedFileError(f"PDF is encrypted: {exc}") from exc
    except Exception as exc:
        # On a damaged file pypdf's parser fails with whatever its code hits first
        # (KeyError, IndexError, struct.error, zlib.error, RecursionError...), not with
        # its own error types alone: for a PDF every such failure is damage.
        raise CorruptFileError(f"PDF is damaged: {type(exc).__name__}: {exc}") from exc
    return Document(
        format=Format.PDF, body=tuple(segments), warnings=tuple(warnings), info={"pages": count}
    )
