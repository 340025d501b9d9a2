"""A PDF is recognised the way PDF readers accept one: its header after junk in the
first kilobyte, or no header at all but an object where it should be."""

from __future__ import annotations

from hwpscan.formats.sniff import sniff
from hwpscan.models import Format, Status
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf
from hwpscan.scanning.one_file import scan_bytes

TEXT = "보도자료 본문"


def _headless() -> bytes:
    """Our PDF with its ``%PDF-1.7`` line removed: it starts ``%âãÏÓ`` then ``1 0 obj``."""
    data = build_pdf([[TEXT]])
    first_line = data.index(b"\n") + 1
    rest = data[first_line:]
    assert rest.startswith(b"%\xe2\xe3\xcf\xd3\n1 0 obj")
    return rest


def test_a_pdf_without_its_header_is_read_as_a_pdf() -> None:
    data = _headless()
    assert sniff(data) is Format.PDF
    row = scan_bytes(data, path="headless.pdf")
    assert (row.format, row.status) == (Format.PDF, Status.CLEAN), row.reason
    assert row.body.chars == len(TEXT)


def test_a_pdf_whose_header_comes_after_junk_is_read() -> None:
    data = build_pdf([[TEXT]], extras=PdfExtras(junk=b"HTTP/1.1 200 OK\r\n" * 30))
    assert 500 < data.index(b"%PDF-") < 1024
    row = scan_bytes(data, path="junk.pdf")
    assert (row.format, row.status) == (Format.PDF, Status.CLEAN), row.reason


def test_a_header_past_the_first_kilobyte_is_not_looked_for() -> None:
    """Past the probe, a header is data: a text file quoting one stays unknown."""
    data = b"x" * 1100 + b"\n%PDF-1.7\n"
    assert sniff(data) is Format.UNKNOWN


def test_text_mentioning_an_object_is_not_a_pdf() -> None:
    assert sniff("보고서: 1 0 obj 구문 설명".encode()) is Format.UNKNOWN
    assert sniff(b"%\xe2\xe3\xcf\xd3\n" + b"x" * 1100 + b"\n1 0 obj") is Format.UNKNOWN
