"""PDF through two engines: PDFium first, pypdf where PDFium reads nothing.

Each hostile variant here is one that pypdf alone loses (its page, or the whole file)
and PDFium reads; the lone surrogates of a broken CMap survive PDFium's UTF-16 text;
a page neither engine reads keeps the file from being clean.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from hwpscan.formats import pdfium_text
from hwpscan.formats.pdf import read_pdf
from hwpscan.models import Status
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf
from hwpscan.scanning.one_file import scan_bytes

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import pdf_engines  # the benchmark's per-engine page counts

B = chr(0xF02B1)
HIGH = chr(0xDB80)
_PAGES = [[f"{n}쪽 본문 {B}", "둘째 줄"] for n in range(1, 4)]
_CHARS = sum(len(line) for page in _PAGES for line in page)

HOSTILE = {
    "a85": PdfExtras(a85_pages=(1,)),
    "rc4-104": PdfExtras(encryption="rc4-104"),
    "plain-unknown-filter": PdfExtras(plain_unknown_filter_pages=(1,)),
    "linearized-deep-tree": PdfExtras(linearized=True, page_tree_depth=500),
}


def _pypdf_alone(data: bytes) -> int:
    """Pages pypdf alone reads from *data* (0 when it cannot open the file), counted as
    the benchmark counts them."""
    return pdf_engines.pages_pypdf(data)[0]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_file_pypdf_loses_is_read_whole(name: str) -> None:
    data = build_pdf(_PAGES, broken_cmap=True, extras=HOSTILE[name])
    assert _pypdf_alone(data) < len(_PAGES)  # the variant is hostile to pypdf
    r = scan_bytes(data, path=f"{name}.pdf")
    assert r.status is Status.CONTAMINATED, r.reason
    plain = scan_bytes(build_pdf(_PAGES, broken_cmap=True), path="plain.pdf").body
    assert r.body == plain  # the same counts and locations as the plain file
    assert r.body is not None and (r.body.surrogates, r.body.orphans) == (3, 3)
    assert r.reason is None or "not read" not in r.reason


def test_lone_surrogates_survive_pdfiums_utf16_text() -> None:
    """pypdfium2's own get_text_range drops a lone half; our reading keeps it."""
    import pypdfium2

    data = build_pdf([["가 " + B + " 끝"]], broken_cmap=True)
    doc, _ = pdfium_text.open_document(data)
    try:
        assert pdfium_text.page_text(doc, 0) == "가 " + HIGH + " 끝"
    finally:
        pdfium_text.close(doc)
    page = pypdfium2.PdfDocument(data)[0]
    assert HIGH not in page.get_textpage().get_text_range()  # what we must not use


def test_pairs_come_back_as_their_character_as_pypdf_gives_them() -> None:
    doc = read_pdf(build_pdf([["가 " + B]]))
    assert [s.text for s in doc.body] == ["가 " + B]
    assert doc.info.engine == "pdfium"


def test_a_blank_page_of_an_undamaged_file_is_read() -> None:
    r = scan_bytes(build_pdf([["첫 쪽"], [], ["셋째 쪽"]]), path="blank.pdf")
    assert r.status is Status.CLEAN and r.body is not None and r.body.chars == 7


def test_a_page_encoded_with_an_unknown_filter_is_read_by_neither() -> None:
    r = scan_bytes(build_pdf(_PAGES, extras=PdfExtras(bad_filter_pages=(1,))), path="u.pdf")
    assert r.status is Status.CORRUPT
    assert "page 2: PDFium read no text; pypdf: NotImplementedError" in (r.reason or "")


def test_empty_password_rc4_says_so() -> None:
    r = scan_bytes(build_pdf(_PAGES, extras=PdfExtras(encryption="rc4")), path="rc4.pdf")
    assert r.status is Status.CLEAN
    assert "opened without one" in " ".join(r.warnings)


def test_a_user_password_is_still_encrypted() -> None:
    data = build_pdf(_PAGES, extras=PdfExtras(encryption="rc4-password"))
    assert scan_bytes(data, path="pw.pdf").status is Status.ENCRYPTED


def test_a_self_drawing_form_costs_no_page() -> None:
    r = scan_bytes(build_pdf(_PAGES, extras=PdfExtras(self_drawing_pages=(1,))), path="s.pdf")
    assert r.status is Status.CLEAN and r.body is not None and r.body.chars >= _CHARS


@pytest.mark.slow
def test_a_page_lost_in_100000_deep_resources_is_never_clean() -> None:
    """Both engines lose page 1 without raising; pypdf's log says so, and is heard
    even when the application has disabled logging."""
    logging.disable(logging.CRITICAL)
    try:
        r = scan_bytes(pdf_engines.deep_resources(100_000), path="deep.pdf")
    finally:
        logging.disable(logging.NOTSET)
    assert r.status is Status.CORRUPT
    assert "page 1: PDFium read no text; pypdf: no text either" in (r.reason or "")


def test_shallow_resources_read_whole() -> None:
    r = scan_bytes(pdf_engines.deep_resources(50), path="shallow.pdf")
    assert r.status is Status.CLEAN and r.body is not None and r.body.chars == 5
