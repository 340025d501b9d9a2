"""Our HWPX and PDF writers, read back by the real third-party readers hwpscan uses."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pypdf
import pytest
from hwpx.tools.text_extractor import TextExtractor

from hwpscan.formats.sniff import sniff
from hwpscan.models import Format
from hwpscan.rehearsal.synth.hwpx_writer import (
    MIMETYPE,
    TEMPLATE_STYLES,
    ZIP_DATE_TIME,
    HancomLayout,
    build_hwpx,
)
from hwpscan.rehearsal.synth.pdf_writer import build_pdf

BULLET = chr(0xF02B1)
OPEN_Q, CLOSE_Q = chr(0xF0854), chr(0xF0855)
HIGH = chr(0xDB80)


def _extract_hwpx(data: bytes, tmp_path: Path) -> str:
    path = tmp_path / "doc.hwpx"
    path.write_bytes(data)
    return TextExtractor(path).extract_text()


def test_hwpx_paragraphs_and_table_cells_come_back_in_order(tmp_path: Path) -> None:
    blocks = [
        f"{BULLET} 금융감독원은 불법사금융 피해 예방을 당부하였다.",
        [["구분", "건수"], [f"{OPEN_Q}대출{CLOSE_Q}", "1,234"]],
        "끝 & <확인>",
    ]
    text = _extract_hwpx(build_hwpx(blocks), tmp_path)
    assert text.split("\n") == [
        blocks[0],
        "구분",
        "건수",
        f"{OPEN_Q}대출{CLOSE_Q}",
        "1,234",
        "끝 & <확인>",
    ]
    assert text.encode("utf-8")  # XML cannot carry a surrogate: the text always encodes


def test_hwpx_sections_are_separate_parts_read_in_order(tmp_path: Path) -> None:
    blocks = [f"{i}번째 문단" for i in range(5)]
    data = build_hwpx(blocks, sections=3)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert [n for n in names if n.startswith("Contents/section")] == [
        "Contents/section0.xml",
        "Contents/section1.xml",
        "Contents/section2.xml",
    ]
    assert _extract_hwpx(data, tmp_path).split("\n") == blocks


def test_hwpx_container_shape_is_what_sniffers_expect() -> None:
    data = build_hwpx(["가나다"])
    infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    assert infos[0].filename == "mimetype"
    assert infos[0].compress_type == zipfile.ZIP_STORED
    assert {info.date_time for info in infos} == {ZIP_DATE_TIME}
    assert zipfile.ZipFile(io.BytesIO(data)).read("mimetype") == MIMETYPE
    assert sniff(data[:4096]) is Format.HWPX


def test_hwpx_is_deterministic_and_input_sensitive() -> None:
    assert build_hwpx(["가", [["a"]]], sections=2) == build_hwpx(["가", [["a"]]], sections=2)
    assert build_hwpx(["가"]) != build_hwpx(["나"])


@pytest.mark.parametrize("bad", [chr(0xDB80), chr(0xDEB1), "\x01"])
def test_hwpx_refuses_what_xml_cannot_carry(bad: str) -> None:
    with pytest.raises(ValueError, match="XML cannot carry"):
        build_hwpx([f"앞{bad}뒤"])


def test_hwpx_with_hancom_layout_reads_the_same_text_as_without_it() -> None:
    """The layout Hancom Office writes (each paragraph's lines, the template's reference
    lists) and stored images change the package, never its text: python-hwpx and our
    reader read the same paragraphs from both."""
    from hwpscan.formats.hwpx import python_hwpx_text, read_zip

    blocks = ["첫 문단 " * 30, [["구분", "내용"], ["일시", "7.21."]], "", "끝"]
    plain = build_hwpx(blocks, sections=2)
    laid = build_hwpx(blocks, sections=2, hancom=HancomLayout(images=(b"\x89PNG" + bytes(999),)))
    with zipfile.ZipFile(io.BytesIO(laid)) as zf:
        section = zf.read("Contents/section0.xml").decode()
        header = zf.read("Contents/header.xml").decode()
        image = zf.getinfo("BinData/image1.png")
        hpf = zf.read("Contents/content.hpf").decode()
    assert section.count("<hp:lineseg ") > section.count("<hp:p ")  # the long one wraps
    assert header.count("<hh:fontface ") == 7
    assert all(f'name="{name}"' in header for name in TEMPLATE_STYLES)
    assert image.compress_type == zipfile.ZIP_STORED and 'href="BinData/image1.png"' in hpf
    assert python_hwpx_text(laid) == python_hwpx_text(plain)
    assert read_zip(laid).body == read_zip(plain).body and read_zip(laid).status is None


def test_hwpx_refuses_empty_table_and_zero_sections() -> None:
    with pytest.raises(ValueError):
        build_hwpx([[]])
    with pytest.raises(ValueError):
        build_hwpx(["가"], sections=0)


def _pdf_pages(data: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(data), strict=True)
    return [page.extract_text() for page in reader.pages]


def test_pdf_text_comes_back_through_tounicode() -> None:
    pages = [
        [
            "금융감독원 보도자료",
            f"{BULLET} 검사 결과 (U+F02B1)",
            f"{OPEN_Q}인용{CLOSE_Q} {chr(0xE000)}",
        ],
        ["둘째 쪽: 문의 02-3145-0000"],
    ]
    assert _pdf_pages(build_pdf(pages)) == ["\n".join(p) for p in pages]


def test_pdf_blank_lines_are_not_returned_by_pypdf() -> None:
    # recorded behaviour: pypdf joins the drawn lines; an empty line draws nothing
    assert _pdf_pages(build_pdf([["위", "", "아래"]])) == ["위\n아래"]


def test_pdf_broken_cmap_makes_pypdf_leak_a_lone_high_surrogate() -> None:
    text = _pdf_pages(build_pdf([[f"가{BULLET}나"]], broken_cmap=True))[0]
    assert text == f"가{HIGH}나"
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        text.encode("utf-8")


def test_pdf_broken_cmap_leaves_bmp_text_alone() -> None:
    pages = [["평문만 있는 쪽", chr(0xE000)]]
    assert _pdf_pages(build_pdf(pages, broken_cmap=True)) == _pdf_pages(build_pdf(pages))


def test_pdf_is_deterministic_and_sniffed() -> None:
    data = build_pdf([["가"], ["나"]])
    assert data == build_pdf([["가"], ["나"]])
    assert b"/ID" not in data and b"CreationDate" not in data
    assert sniff(data[:4096]) is Format.PDF


def test_pdf_needs_a_page() -> None:
    with pytest.raises(ValueError, match="at least one page"):
        build_pdf([])
