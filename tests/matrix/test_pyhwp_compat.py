"""pyhwp (PyPI ``pyhwp``, module ``hwp5``) as a real third-party extractor on our files.

Two things are checked here. First, that our writer's files are HWP 5 as pyhwp knows
it: every DocInfo and BodyText record parses with pyhwp's own record models, and the
``\\x05HwpSummaryInformation`` property set reads back. Second, what pyhwp 0.1b15's
plain-text conversion (``hwp5txt``, the parser matrix's ``pyhwp`` extractor) does with
what the incident is about. Observed and pinned below:

- Hancom PUA-A characters stored as surrogate pairs come back whole (U+F02B1, not
  0xDB80 0xDEB1): pyhwp decodes each run of text with ``bytes.decode("utf-16-le")``,
  which merges pairs. It is not a defective extractor of the incident's kind.
- That decode is strict: one truly lone half anywhere pyhwp decodes text (a body
  paragraph, or even a DocInfo style name) fails the whole file with ``ParseError``. It
  never leaks a lone surrogate; it gives no text at all.
- Each table becomes the placeholder ``<표>`` and each drawing object, text boxes
  included, ``<그림>``: cell and text-box text is lost, PUA characters with it.
- Footnote text follows its anchor's text; page header text is kept.
- Control characters are dropped: TAB, line break and non-breaking space give nothing.
- pyhwp's HTML and ODT exports (``hwp5html``, ``hwp5odt``) do keep table and text-box
  text, PUA characters whole: the loss is in the plain-text stylesheet only.

Skipped when pyhwp is not installed (``pip install 'hwpscan[pyhwp]'``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from hwpscan.forensics.surrogates import SURROGATE_RE
from hwpscan.matrix import MatrixRow, parse_parser_options, run_matrix
from hwpscan.rehearsal.synth.hwp5_writer import (
    Block,
    Footnote,
    HeaderFooter,
    Table,
    TextBox,
    build_hwp5,
    summary_information,
)

hwp5 = pytest.importorskip("hwp5", reason="pyhwp is an optional extra")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
BULLET, OPEN, CLOSE = chr(0xF02B1), chr(0xF0854), chr(0xF0855)
HIGH, LOW = chr(0xDB80), chr(0xDEB1)
# Control characters of our text that pyhwp drops (TAB, line break, non-breaking space).
_DROPPED = str.maketrans("", "", "\t\n\u00a0")


def _pyhwp_rows(paths: Sequence[Path]) -> list[MatrixRow]:
    return list(run_matrix(list(paths), parse_parser_options("pyhwp", []), timeout=120))


def _pyhwp_text(path: Path) -> str:
    """pyhwp's text as the matrix's ``pyhwp`` extractor returns it (run in-process)."""
    from hwpscan.matrix.parsers import pyhwp_text

    return pyhwp_text(str(path))


def _view(blocks: Sequence[Block]) -> str:
    """What pyhwp's hwp5txt prints for *blocks*, as observed (see the module docstring).

    One line per paragraph; a table or drawing object sits on its own line between blank
    ones, after the text of the paragraph that holds it; a footnote's or header's
    paragraph is printed inside its anchor paragraph.
    """
    out = []
    for block in blocks:
        if isinstance(block, str):
            out.append(block.translate(_DROPPED) + "\n")
        elif isinstance(block, Table):
            out.append("\n<표>\n\n")
        elif isinstance(block, TextBox):
            out.append(block.anchor + "\n<그림>\n\n")
        elif isinstance(block, Footnote):
            out.append(block.anchor + block.text + "\n\n")
        elif isinstance(block, HeaderFooter):
            out.append(block.text + "\n\n")
    return "".join(out)


# --- Our files are HWP 5 as pyhwp knows it ------------------------------------------------


def _models(path: Path) -> list[dict[str, Any]]:
    """Every record model pyhwp parses from DocInfo and each section (raises on any)."""
    from hwp5.xmlmodel import Hwp5File

    with closing(Hwp5File(str(path))) as doc:
        models = list(doc.docinfo.models())
        for idx in doc.bodytext.section_indexes():
            models += list(doc.bodytext.section(idx).models())
    return models


_EXACT = (
    "Style",
    "SectionDef",
    "PageDef",
    "FootnoteShape",
    "PageBorderFill",
    "ColumnsDef",
    "TableBody",
    "TableCell",
    "FootNote",
    "ShapeComponent",
    "ShapeRectangle",
    "Header",
    "Footer",
    "ParaCharShape",
    "ParaLineSeg",
    "TabDef",
)
# ID_MAPPINGS counts and the DocInfo records they count.
_COUNTED = {
    "borderfills": "BorderFill",
    "charshapes": "CharShape",
    "tabdefs": "TabDef",
    "parashapes": "ParaShape",
    "styles": "Style",
}
_FONT_COUNTS = (
    "ko_fonts",
    "en_fonts",
    "cn_fonts",
    "jp_fonts",
    "other_fonts",
    "symbol_fonts",
    "user_fonts",
)


def test_every_record_parses_with_pyhwp_models(tmp_path: Path) -> None:
    """The record sizes pyhwp expects (Hancom's, not always the spec's) are what we write:
    section and column definitions, tables, cells, footnotes, headers, text boxes."""
    blocks: list[Block] = [
        "첫 문단\t탭",
        Table([["가", "나"], ["다", "라"]]),
        Footnote("각주", anchor="본문"),
        TextBox("글상자", anchor="앞"),
        HeaderFooter("머리말"),
        HeaderFooter("꼬리말", footer=True),
    ]
    path = tmp_path / "all.hwp"
    path.write_bytes(build_hwp5(blocks, style_names=["바탕글", "본문"], sections=2))
    models = _models(path)
    names = [m["type"].__name__ for m in models]
    assert names.count("TableCell") == 4
    assert set(_EXACT) <= set(names)
    # These records are exactly as long as pyhwp's model: nothing left over. (Others
    # carry fields pyhwp does not name: ID_MAPPINGS' last two counts, PARA_HEADER's
    # change-tracking word, the object common part's spec layout, list header padding.)
    assert not {m["type"].__name__ for m in models if "unparsed" in m} & set(_EXACT)
    # DocInfo holds what ID_MAPPINGS says it holds (each reference has its target).
    mapping = next(m["content"] for m in models if m["type"].__name__ == "IdMappings")
    for key, model in _COUNTED.items():
        assert names.count(model) == mapping[key], key
    assert names.count("FaceName") == sum(mapping[key] for key in _FONT_COUNTS)


def test_summary_information_reads_back_with_pyhwp(tmp_path: Path) -> None:
    from hwp5.xmlmodel import Hwp5File

    path = tmp_path / "title.hwp"
    path.write_bytes(build_hwp5(["하나", "둘", Table([["셀"]])], title="보도자료 제목"))
    with closing(Hwp5File(str(path))) as doc:
        info = doc.summaryinfo
        assert info.title == "보도자료 제목"
        assert info.author == "hwpscan"
        assert info.numberOfParagraphs == 3  # top-level paragraphs
        assert str(info.propertySetStream.clsid) == "9fa2b660-1061-11d4-b4c6-006097c09d8c"


def test_summary_information_is_reproducible_and_padded() -> None:
    title = "제목" + BULLET
    data = summary_information(title=title, paragraphs=4)
    assert data == summary_information(title=title, paragraphs=4)
    assert len(data) % 4 == 0
    assert title.encode("utf-16-le") in data  # VT_LPWSTR: the pair written as is


def test_every_fixture_hwp_without_lone_halves_converts(tmp_path: Path) -> None:
    """Over the committed corpus: pyhwp converts every readable HWP 5 file that has no
    lone half, and fails (ParseError) on exactly those that have one, in the body or in
    a DocInfo style name. It never returns a lone surrogate."""
    expected = [
        json.loads(line)
        for line in (FIXTURES / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    cases = [
        e
        for e in expected
        if e["format"] == "hwp5"
        and e["orphans"] is not None
        and e["status"] in ("clean", "contaminated")
    ]
    assert len(cases) >= 15
    rows = _pyhwp_rows([FIXTURES / e["path"] for e in cases])
    for case, row in zip(cases, rows, strict=True):
        lone = case["orphans"] + (case.get("meta") or {}).get("orphans", 0)
        if lone:
            assert row.status == "error", case["path"]
            assert "ParseError" in (row.reason or "")
        else:
            assert row.status == "ok", (case["path"], row.reason)
            assert row.surrogates == 0, case["path"]
    assert any(r.status == "error" for r in rows) and any(r.status == "ok" for r in rows)


# --- What pyhwp does with PUA pairs, tables and lone halves ----------------------------------


def test_pua_pairs_come_back_whole_in_body_footnote_and_header(tmp_path: Path) -> None:
    blocks: list[Block] = [
        BULLET + " 불법사금융 " + OPEN + "소비자경보" + CLOSE,
        Footnote("주석 " + BULLET, anchor="본문 끝"),
        HeaderFooter("머리말 " + OPEN + "금융감독원" + CLOSE),
        "탭\t줄바꿈\n묶음\u00a0빈칸",
    ]
    path = tmp_path / "pua.hwp"
    path.write_bytes(build_hwp5(blocks))
    text = _pyhwp_text(path)
    assert text == _view(blocks)
    assert text.count(BULLET) == 2 and text.count(OPEN) == 2 and text.count(CLOSE) == 2
    assert SURROGATE_RE.search(text) is None
    text.encode("utf-8")  # what the incident's pipeline could not do


def test_table_and_text_box_text_is_replaced_by_placeholders(tmp_path: Path) -> None:
    """The PUA pairs inside cells and text boxes are lost with the rest of their text."""
    cells = [["구분", BULLET + " 건수"], [OPEN + "합계" + CLOSE, "12"]]
    box = TextBox("글상자 " + BULLET, anchor="그림 앞")
    blocks: list[Block] = ["표 앞", Table(cells), box, "끝"]
    path = tmp_path / "table.hwp"
    path.write_bytes(build_hwp5(blocks, compressed=False))
    text = _pyhwp_text(path)
    assert text == _view(blocks)
    assert text.count("<표>") == 1 and text.count("<그림>") == 1
    for cell in (c for row in cells for c in row):
        assert cell not in text
    assert BULLET not in text and OPEN not in text
    (row,) = _pyhwp_rows([path])
    assert row.guilty and row.changed_chars > 0  # the matrix blames it for the loss


_LONE_HALVES: dict[str, tuple[list[Block], list[str]]] = {
    "lone high half in the body": (["가" + HIGH + "나", "다음 문단"], []),
    "lone low half in the body": (["가" + LOW + "나"], []),
    "reversed pair in the body": (["가" + LOW + HIGH + "나"], []),
    "lone half in a table cell": (["표 앞", Table([["셀" + HIGH]])], []),
    "lone half in a style name": (["본문"], ["바탕글" + HIGH]),
}


def test_a_lone_half_fails_the_whole_file(tmp_path: Path) -> None:
    paths = []
    for i, (blocks, styles) in enumerate(_LONE_HALVES.values()):
        paths.append(tmp_path / f"orphan{i}.hwp")
        paths[-1].write_bytes(build_hwp5(blocks, style_names=styles))
    rows = _pyhwp_rows(paths)  # one worker for all five
    for where, row in zip(_LONE_HALVES, rows, strict=True):
        assert row.status == "error", where
        assert row.reason is not None and row.reason.startswith("ParseError"), where
        assert row.chars == 0 and row.surrogates == 0, where  # nothing leaked: nothing at all
        assert row.guilty, where  # our reader read the file: the failure is pyhwp's


def test_pua_only_in_the_preview_is_not_read(tmp_path: Path) -> None:
    """hwp5txt reads BodyText only: PrvText (where the same characters can sit) is not used."""
    path = tmp_path / "preview.hwp"
    path.write_bytes(build_hwp5(["본문"], preview="미리보기 " + BULLET))
    assert _pyhwp_text(path) == "본문\n"


def _script(name: str) -> str:
    path = Path(sys.executable).parent / name
    if not path.exists():
        pytest.skip(f"pyhwp's {name} is not installed next to this Python")
    return str(path)


def _xml_text(markup: str) -> str:
    return re.sub(r"<[^>]+>", "", markup)


def test_html_and_odt_exports_keep_what_the_text_export_drops(tmp_path: Path) -> None:
    """Run as the real commands. The ODT export validates against the ODF schema, which
    needs the font type information our FACE_NAME records carry."""
    cells = [["구분" + BULLET, OPEN + "합계" + CLOSE]]
    blocks: list[Block] = ["본문 " + BULLET, Table(cells), TextBox("글상자 " + BULLET)]
    src = tmp_path / "doc.hwp"
    src.write_bytes(build_hwp5(blocks))
    for command, out in (("hwp5html", "html"), ("hwp5odt", "doc.odt")):
        args = [_script(command), "--output", str(tmp_path / out), str(src)]
        subprocess.run(args, check=True, capture_output=True, timeout=300, cwd=tmp_path)
    html = (tmp_path / "html" / "index.xhtml").read_text(encoding="utf-8")
    with zipfile.ZipFile(tmp_path / "doc.odt") as odt:
        content = odt.read("content.xml").decode("utf-8")
    for markup in (html, content):
        text = _xml_text(markup)
        for piece in ("본문", "구분", "합계", "글상자"):
            assert piece in text
        assert (text.count(BULLET), text.count(OPEN), text.count(CLOSE)) == (3, 1, 1)
        assert SURROGATE_RE.search(text) is None
