"""PDF budgets: a file that would ask a text engine for gigabytes is not read, and its
row says which budget it passed (never ``clean``).

The files are our generator's (:mod:`hwpscan.rehearsal.synth.pdf_bombs`), made just
large enough to pass each budget; ``benchmarks/hostile.py`` measures the full-size
ones (time and peak memory).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import pytest

from hwpscan.formats import pdf_budget
from hwpscan.models import Status
from hwpscan.rehearsal.synth import pdf_bombs
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.scanning.one_file import scan_bytes

CASES: dict[str, tuple[Callable[[], bytes], str]] = {
    "flate bomb": (lambda: pdf_bombs.flate_bomb(64), "inflates past 48 MB"),
    "operator flood": (
        lambda: pdf_bombs.operator_flood(pdf_budget.MAX_STREAM_SHOWS + 1000),
        "text operators",
    ),
    "text flood": (lambda: pdf_bombs.text_flood(6), "MB of strings"),
    "contents listed 20,000 times": (
        lambda: pdf_bombs.repeated_contents(20_000),
        "20,000 content streams",
    ),
    "contents listed 3,000 times": (
        lambda: pdf_bombs.repeated_contents(3_000, 2_000),
        f"a page's contents hold over {pdf_budget.MAX_STREAM_TEXT // 2**20} MB of strings",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_pdf_over_a_budget_is_not_read_and_says_why(name: str) -> None:
    build, said = CASES[name]
    row = scan_bytes(build(), path="bomb.pdf")
    assert row.status is Status.CORRUPT, (row.status, row.reason)
    assert row.reason is not None, row
    assert row.reason.startswith(("PDF not read: ", "no page readable: page 1: ")), row.reason
    assert said in row.reason
    assert "\n" not in row.reason


def test_the_pages_a_bomb_does_not_draw_are_read() -> None:
    """A stream over its budget costs the pages that use it: the file is read in part."""
    data = pdf_bombs.one_bomb_among(["first page", "bomb", "third page"], bomb_at=1)
    row = scan_bytes(data, path="mixed.pdf")
    assert row.status is Status.CORRUPT, (row.status, row.reason)
    assert row.body.chars == len("first page") + len("third page")
    reason = row.reason or ""
    assert reason.startswith("read in part ("), reason
    assert "1 of 3 page(s) not read: page 2: object " in reason
    assert "text operators (the budget)" in reason


def test_the_same_pages_under_the_budgets_are_read() -> None:
    """The bombs' shapes at an ordinary size are ordinary files: read, and clean."""
    for data in (
        pdf_bombs.operator_flood(1000),
        pdf_bombs.text_flood(1),
        pdf_bombs.repeated_contents(10, 100),
        build_pdf([["보도자료", "둘째 줄"], ["둘째 쪽"]]),
    ):
        assert pdf_budget.over_budget(data) is None
        row = scan_bytes(data, path="ordinary.pdf")
        assert row.status is Status.CLEAN, row.reason
        assert row.body.chars > 0


def test_a_stream_is_measured_through_every_flate_layer() -> None:
    """Deflated twice (``[/FlateDecode /FlateDecode]``), a stream is measured as the
    engine will inflate it, not as its first layer."""
    inner = zlib.compress(b" " * (pdf_budget.MAX_STREAM_BYTES + 2**20), 9)
    twice = zlib.compress(inner, 9)
    stream = (
        b"<< /Length %d /Filter [/FlateDecode /FlateDecode] >>\nstream\n" % len(twice)
        + twice
        + b"\nendstream"
    )
    data = pdf_bombs.write_pdf([b"<< /Type /Catalog >>", stream])
    assert len(data) < 100_000
    reason = pdf_budget.over_budget(data)
    assert reason is not None and "object 2 inflates past" in reason


def test_a_damaged_stream_counts_what_inflates() -> None:
    """A cut, garbled deflate stream is measured up to the damage, without an error."""
    broken = zlib.compress(b"BT (x) Tj ET\n" * 400_000)[:-6] + b"\xff" * 20
    stream = b"<< /Filter /FlateDecode >>\nstream\n" + broken + b"\nendstream"
    reason = pdf_budget.over_budget(pdf_bombs.write_pdf([stream]))
    assert reason is not None and "text operators" in reason


def test_a_page_in_an_object_stream_is_measured_too() -> None:
    """A page dictionary packed in a compressed object stream lists its contents there."""
    page = b"9 0 << /Type /Page /Contents [" + b"5 0 R " * 20_000 + b"] >>"
    packed = zlib.compress(page)
    objstm = (
        b"<< /Type /ObjStm /N 1 /First 4 /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed)
        + packed
        + b"\nendstream"
    )
    reason = pdf_budget.over_budget(pdf_bombs.write_pdf([b"<< /Type /Catalog >>", objstm]))
    assert reason is not None and "20,000 content streams" in reason


def test_strings_in_a_font_program_are_not_text() -> None:
    """A font's binary program holds parentheses by chance: its bytes count, not as text."""
    import random

    noise = random.Random(1).randbytes(pdf_budget.MAX_STREAM_TEXT * 3)
    assert noise.count(b"(") > 10_000
    packed = zlib.compress(noise)
    font = (
        b"<< /Length %d /Length1 %d /Filter /FlateDecode >>\nstream\n" % (len(packed), len(noise))
        + packed
        + b"\nendstream"
    )
    assert pdf_budget.over_budget(pdf_bombs.write_pdf([b"<< /Type /Catalog >>", font])) is None


def test_read_by_pypdf_alone_the_pages_a_bomb_does_not_draw_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where PDFium cannot open the file, pypdf reads it alone, and skips the same page."""
    from hwpscan.formats import pdfium_text

    def refuse(_data: bytes) -> tuple[object, bool]:
        raise ValueError("not a PDF or damaged")

    monkeypatch.setattr(pdfium_text, "open_document", refuse)
    data = pdf_bombs.one_bomb_among(["first page", "bomb", "third page"], bomb_at=1)
    row = scan_bytes(data, path="mixed.pdf")
    assert row.status is Status.CORRUPT, (row.status, row.reason)
    assert row.body.chars == len("first page") + len("third page")
    assert "1 of 3 page(s) not read: page 2: object " in (row.reason or "")
