"""Real-world HWPX, PDF and wrapper variations: read as they are, never lost whole.

HWPX text comes from our own bounded streaming walk; python-hwpx is the reference it
is held to on every HWPX fixture. PDF pages are isolated: any exception from one page
costs that page only. Nothing pypdf says reaches the terminal unescaped.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.formats import read_document
from hwpscan.formats.hwpx import (
    MAX_DEPTH,
    python_hwpx_text,
    read_zip,
    walk_text,
)
from hwpscan.models import Format, Status
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf
from hwpscan.rowcodec import encode_row
from hwpscan.scanning.one_file import scan_bytes, scan_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HWPX_FIXTURES = sorted(
    p for p in FIXTURES.rglob("*.hwpx") if read_document(p.read_bytes()).status is None
)
B = chr(0xF02B1)

_SECTION = """<?xml version="1.0" encoding="UTF-8"?>
<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"
 xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph">
<hp:p><hp:run><hp:t>가<hp:lineBreak/>나<hp:tab>x</hp:tab>다<hp:markpenBegin color="red"/>라
<hp:markpenEnd/>마<hp:nbSpace/>바<hp:fwSpace/><hp:hyphen/>끝<hp:span>스팬<hp:tab/>안</hp:span>꼬리
</hp:t> 런 꼬리 <hp:lineBreak/><hp:tab/><hp:ctrl id="TAB"/><hp:ctrl><hp:footNote><hp:subList>
<hp:p><hp:run><hp:t>각주</hp:t></hp:run></hp:p></hp:subList></hp:footNote></hp:ctrl>
<hp:tbl><hp:tr><hp:tc><hp:subList><hp:p><hp:run><hp:t>셀</hp:t></hp:run></hp:p>
<hp:p><hp:run><hp:t>  </hp:t></hp:run></hp:p></hp:subList></hp:tc></hp:tr></hp:tbl>
<hp:t>표 뒤 &amp; &#xF02B1; <![CDATA[<cdata>]]></hp:t></hp:run><hp:t>run 밖</hp:t></hp:p>
<hp:p><hp:run><hp:t>p 안 <hp:p><hp:run><hp:t>안쪽</hp:t></hp:run></hp:p> 뒤</hp:t></hp:run></hp:p>
</hs:sec>"""


def _package(sections: dict[str, bytes | str], *, mimetype: bool = True) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        if mimetype:
            zf.writestr("mimetype", "application/hwp+zip")
        for name, xml in sections.items():
            zf.writestr(name, xml)
    return buf.getvalue()


# --- HWPX: our walk against python-hwpx ---------------------------------------------


@pytest.mark.parametrize("path", HWPX_FIXTURES, ids=lambda p: p.name)
def test_walk_gives_python_hwpx_text_on_every_hwpx_fixture(path: Path) -> None:
    data = path.read_bytes()
    ours = walk_text(data)
    assert ours, "every readable HWPX fixture has text"
    if "backslash" in path.name:  # python-hwpx finds no section there: compare with / names
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            data = _package({i.filename.replace("\\", "/"): zf.read(i) for i in zf.infolist()})
    assert python_hwpx_text(data) == ours


def test_walk_matches_python_hwpx_on_inline_elements_objects_and_nesting() -> None:
    data = _package({"Contents/section0.xml": _SECTION})
    assert walk_text(data) == python_hwpx_text(data)
    assert "각주" in walk_text(data) and "\u00a0" in walk_text(data)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=8),
            st.lists(
                st.lists(st.text(alphabet="가나다 abc", max_size=4), min_size=1, max_size=3),
                min_size=1,
                max_size=3,
            ),
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 3),
)
def test_walk_matches_python_hwpx_on_generated_packages(
    blocks: list[object], sections: int
) -> None:
    try:
        data = build_hwpx(blocks, sections=sections)  # type: ignore[arg-type]
    except ValueError:  # a character XML cannot carry
        return
    assert walk_text(data) == python_hwpx_text(data)


def test_sixteen_thousand_paragraphs_read_in_one_pass() -> None:
    data = build_hwpx([f"문단 {i}" for i in range(16_000)])
    doc = read_zip(data)
    assert doc.status is None and len(doc.body) == 16_000
    assert doc.body[-1].text == "문단 15999"


def test_a_dtd_or_entity_is_refused() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]>'
        '<hs:sec xmlns:hs="s" xmlns:hp="p"><hp:p><hp:run><hp:t>&b;</hp:t></hp:run></hp:p></hs:sec>'
    )
    doc = read_zip(_package({"Contents/section0.xml": bomb}))
    assert (doc.format, doc.status) == (Format.HWPX, Status.CORRUPT)
    assert "DTD" in (doc.reason or "")


def test_depth_is_checked_while_the_xml_streams_in() -> None:
    deep = "<a>" * 2_000_000  # 6 MB of open tags, deflated to a few KB
    doc = read_zip(_package({"Contents/section0.xml": "<sec>" + deep}))
    assert doc.status is Status.CORRUPT
    assert f"deeper than {MAX_DEPTH}" in (doc.reason or "")


def test_a_section_broken_midway_keeps_the_paragraphs_before_it() -> None:
    good = _SECTION.replace("</hs:sec>", "")
    data = _package({"Contents/section0.xml": good + "<hp:p><hp:run><hp:t>잘림</hp:x>"})
    r = scan_bytes(data, path="x.hwpx")
    assert (r.format, r.status) == (Format.HWPX, Status.CORRUPT)
    assert r.body.chars > 10 and r.reason and r.reason.startswith("read in part (")
    assert "XML malformed" in r.reason


def test_a_section_the_manifest_names_but_the_package_lacks_is_unread() -> None:
    data = build_hwpx(["첫 구역", "둘째 구역 문단"], sections=2)
    with zipfile.ZipFile(io.BytesIO(data)) as src:
        kept = {i.filename: src.read(i) for i in src.infolist()}
    del kept["Contents/section1.xml"]
    r = scan_bytes(_package(kept, mimetype=False), path="m.hwpx")
    assert (r.status, r.body.chars) == (Status.CORRUPT, 4)
    assert "Contents/section1.xml (named by the manifest, missing" in (r.reason or "")


def test_a_zip_that_says_it_is_something_else_is_not_hwpx() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip")
        zf.writestr("OEBPS/content.opf", "<package/>")
    doc = read_zip(buf.getvalue())
    assert (doc.format, doc.status) == (Format.ZIP, Status.UNSUPPORTED)
    assert "no Contents/content.hpf" in (doc.reason or "")


def test_zip_version_needed_above_6_3_is_corrupt_not_an_internal_error() -> None:
    r = scan_bytes(build_hwpx(["본문"], version_needed=70), path="v.hwpx")
    assert (r.format, r.status) == (Format.HWPX, Status.CORRUPT)
    assert "zip file version 7.0" in (r.reason or "")


# --- PDF: page by page -------------------------------------------------------------

_PAGES = [[f"{n}쪽 본문 " + B] for n in range(1, 6)]
_RAISED = [
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    AssertionError,
    NotImplementedError,
    IndexError,
    ZeroDivisionError,
    RecursionError,
    LookupError,
    UnicodeDecodeError,
    OSError,
    RuntimeError,
]


def _exception(kind: type[Exception]) -> Exception:
    if kind is UnicodeDecodeError:
        return UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad \x1b[2J byte")
    return kind("page failure \x1b]0;title\x07")


@contextmanager
def _pdfium_loses(pages: set[int]) -> Iterator[None]:
    """PDFium cannot load the given 0-based pages (as it fails on a damaged page)."""
    from hwpscan.formats import pdfium_text

    original = pdfium_text.page_text

    def failing(doc: object, index: int) -> str:
        if index in pages:
            raise ValueError("PDFium could not load the page (Failed to load page.)")
        return original(doc, index)

    pdfium_text.page_text = failing  # type: ignore[assignment]
    try:
        yield
    finally:
        pdfium_text.page_text = original


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(_RAISED),
    st.sets(st.integers(0, 4), min_size=1, max_size=4),
    st.sets(st.integers(0, 4), max_size=5),
)
@pytest.mark.slow
def test_a_page_neither_engine_reads_costs_that_page_only(
    kind: type[Exception], bad: set[int], pdfium_bad: set[int]
) -> None:
    """pypdf raises anything for the pages in *bad*; PDFium loses those in *bad* and
    *pdfium_bad*: a page is lost only when both engines lose it."""
    import pypdf

    data = build_pdf(_PAGES)
    original = pypdf.PageObject.extract_text
    texts = {n: f"{n + 1}쪽 본문 " for n in range(5)}

    def flaky(self: pypdf.PageObject, *args: object, **kwargs: object) -> str:
        text = original(self, *args, **kwargs)
        number = next(n for n, t in texts.items() if text.startswith(t))
        if number in bad:
            raise _exception(kind)
        return text

    pypdf.PageObject.extract_text = flaky  # type: ignore[method-assign]
    try:
        with _pdfium_loses(bad | pdfium_bad):
            r = scan_bytes(data, path="f.pdf")
    finally:
        pypdf.PageObject.extract_text = original  # type: ignore[method-assign]
    assert r.status is Status.CORRUPT
    assert r.body.chars == sum(len(_PAGES[n][0]) for n in range(5) if n not in bad)
    for n in bad:
        assert f"page {n + 1}: PDFium could not load" in (r.reason or "")
    assert r.reason is not None and r.reason.count(f"pypdf: {kind.__name__}") == len(bad)
    assert "\x1b" not in encode_row(r)


def test_page_budget_reads_up_to_it_and_names_the_rest() -> None:
    from hwpscan.formats.pdf import read_pdf

    doc = read_pdf(build_pdf(_PAGES), max_pages=3)
    assert doc.status is Status.CORRUPT and len(doc.body) == 3
    assert "pages 4-5: over the budget of 3 pages" in (doc.reason or "")


def test_object_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from hwpscan.formats import pdf

    monkeypatch.setattr(pdf, "MAX_OBJECTS", 5)
    r = scan_bytes(build_pdf(_PAGES), path="o.pdf")
    assert r.status is Status.CORRUPT and "over the budget of 5" in (r.reason or "")


def test_aes_pdf_with_an_empty_user_password_is_read() -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(build_pdf(_PAGES))))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    r = scan_bytes(out.getvalue(), path="aes.pdf")
    assert (r.status, r.body.pua) == (Status.CLEAN, {"U+F02B1": 5})


def test_forms_and_annotations_are_counted_apart_from_the_body() -> None:
    extras = PdfExtras(annotations={1: ("메모" + chr(0xDB80),)}, fields=(("f", "값"),))
    r = scan_bytes(build_pdf(_PAGES, extras=extras), path="form.pdf")
    assert r.status is Status.CLEAN and r.body.surrogates == 0
    assert r.meta is not None and (r.meta.surrogates, r.meta.orphans) == (1, 1)


@pytest.mark.slow
def test_no_pypdf_message_reaches_stderr_and_escapes_are_escaped() -> None:
    """The CLI over the whole corpus: stderr empty, no raw ESC anywhere in the output."""
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES), "--format", "jsonl"],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ),  # HWPSCAN_HOME: the test's private state folder
        timeout=300,
    )
    foreign = [line for line in done.stderr.splitlines() if not line.startswith("run recorded:")]
    assert foreign == [], "only hwpscan's own line may reach stderr"
    assert "\x1b" not in done.stdout
    rows = {
        Path(json.loads(line)["path"]).name: json.loads(line) for line in done.stdout.splitlines()
    }
    assert rows["font-name-escapes.pdf"]["status"] == "clean"


def test_pypdf_messages_are_escaped_where_pypdf_reads_the_page() -> None:
    """PDFium reads the escaped font name silently; where it loses the page, pypdf reads
    it and names the font in a message, kept escaped as a warning."""
    data = (FIXTURES / "quirks" / "font-name-escapes.pdf").read_bytes()
    with _pdfium_loses({0}):
        r = scan_bytes(data, path="font-name-escapes.pdf")
    assert r.status is Status.CLEAN
    warned = " ".join(r.warnings)
    assert "\\x1b]0;owned" in warned and "1 page(s) read by pypdf" in warned
    assert "\x1b" not in encode_row(r)


def test_drm_wrappers_are_named() -> None:
    for name, product in (
        ("drm-markany.hwp", "MarkAny"),
        ("drm-fasoo.pdf", "Fasoo"),
        ("drm-softcamp.hwpx", "SoftCamp"),
    ):
        r = scan_file(FIXTURES / "broken" / name)
        assert r.status is Status.ENCRYPTED and product in (r.reason or "")


# --- HWP 5: the partial-read rule ------------------------------------------------------


def test_an_unreadable_section_among_readable_ones_is_a_partial_read() -> None:
    from hwpscan.rehearsal.synth.cfb import write_cfb
    from hwpscan.rehearsal.synth.hwp5_writer import hwp5_streams

    streams = hwp5_streams(["첫 구역 " + B, "둘째 구역"], sections=2)
    streams["BodyText/Section1"] = b"\xff\xff" + bytes(40)  # not deflate at all
    r = scan_bytes(write_cfb(streams), path="two.hwp")
    assert r.status is Status.CONTAMINATED  # the pair read in Section0 decides
    assert r.body.pairs == 1
    assert r.reason and "BodyText/Section1: not valid deflate data" in r.reason
    assert r.reason.startswith("read in part (")
