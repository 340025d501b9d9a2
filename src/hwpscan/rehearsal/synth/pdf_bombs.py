"""Small PDFs that ask a reader for gigabytes: the hostile cases the PDF budgets stop.

Valid PDFs whose deflated content streams inflate from kilobytes to hundreds of
megabytes of text operators; the same arguments give the same bytes.

>>> data = operator_flood(10)
>>> data[:8], data.rstrip().endswith(b"%%EOF")
(b'%PDF-1.7', True)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from hwpscan.rehearsal.synth.pdf_writer import write_pdf

_MB = 2**20


def _stream(parts: Iterable[bytes]) -> bytes:
    """A content stream of *parts*, deflated."""
    comp = zlib.compressobj(9)
    data = b"".join(comp.compress(p) for p in parts) + comp.flush()
    return b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream"


def _one_page(contents: list[bytes], refs: bytes | None = None) -> bytes:
    """Catalog, pages, page, font, then the content streams (objects 5...)."""
    listed = refs or b" ".join(b"%d 0 R" % (5 + n) for n in range(len(contents)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents [" + listed + b"] >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        *contents,
    ]
    return write_pdf(objects)


def _text_content(size: int, line: int) -> bytes:
    shown = b"(" + b"A" * line + b") Tj T*\n"
    count = max(1, size // len(shown))
    parts = [b"BT /F1 1 Tf 1 TL 0 800 Td\n"]
    parts += [shown * 256] * (count // 256) + [shown * (count % 256), b"ET\n"]
    return _stream(parts)


def text_flood(megabytes: float = 200, line: int = 4000) -> bytes:
    """A page showing *megabytes* of text, in strings of *line* characters."""
    return _one_page([_text_content(int(megabytes * _MB), line)])


def text_pages(pages: int = 16, megabytes: float = 3.9, line: int = 400) -> bytes:
    """*pages* pages, each showing *megabytes* of text in strings of *line* characters."""
    return _pages([_text_content(int(megabytes * _MB), line)] * pages)


def _pages(contents: list[bytes]) -> bytes:
    """Catalog, pages, font, one page per content stream, then the streams."""
    pages = len(contents)
    kids = b" ".join(b"%d 0 R" % (4 + n) for n in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    objects += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (4 + pages + n)
        for n in range(pages)
    ]
    return write_pdf(objects + contents)


def operator_flood(operators: int = 5_000_000) -> bytes:
    """A page drawing *operators* one-character strings, one ``Tj`` each."""
    return _one_page([_tj_stream(operators)])


def _tj_stream(operators: int, step: int = 100_000) -> bytes:
    parts = [b"BT /F1 1 Tf 0 800 Td\n", *[b"(a) Tj\n" * step] * (operators // step)]
    return _stream([*parts, b"(a) Tj\n" * (operators % step), b"ET\n"])


def flate_bomb(megabytes: int = 1024) -> bytes:
    """A page whose content stream inflates to *megabytes* of spaces around one line."""
    blank = b" " * _MB
    parts = [b"BT /F1 12 Tf 72 700 Td (bomb) Tj ET\n", *([blank] * megabytes)]
    return _one_page([_stream(parts)])


def repeated_contents(times: int = 20_000, chars: int = 2000) -> bytes:
    """A page whose ``/Contents`` lists one stream of *chars* characters *times* times."""
    content = b"BT /F1 1 Tf 0 800 Td (" + b"A" * chars + b") Tj ET\n"
    return _one_page([_stream([content])], refs=b"5 0 R " * times)


def one_bomb_among(texts: list[str], bomb_at: int, operators: int = 400_000) -> bytes:
    """Pages showing *texts* (ASCII), with page *bomb_at* (0-based) instead drawing
    *operators* one-character ``Tj``."""
    contents = [
        _tj_stream(operators)
        if n == bomb_at
        else _stream([b"BT /F1 12 Tf 72 700 Td (" + text.encode("ascii") + b") Tj ET\n"])
        for n, text in enumerate(texts)
    ]
    return _pages(contents)
