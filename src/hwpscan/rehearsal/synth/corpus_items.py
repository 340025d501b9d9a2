"""The fixtures of the corpus, one function per group (see :mod:`hwpscan.rehearsal.synth.corpus`).

Dated folders (``2025-07-21/`` ...) hold press-release-like attachments, so a scan of
the corpus fills the date x format table; ``broken/`` holds inputs a scanner must turn
into a status and a reason. Every expectation is computed from the text put in.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from hwpscan.rehearsal.synth.corpus import (
    EXPECTED_NAME,
    Counts,
    Fixture,
    expected_record,
    str_counts,
    strict_chars,
    unit_locations,
    utf16_counts,
)
from hwpscan.rehearsal.synth.hwp5_writer import (
    Block,
    Footnote,
    HeaderFooter,
    Table,
    TextBox,
    bad_deflate,
    build_hwp5,
    foreign_ole,
    hwp5_layout,
    hwp5_streams,
    office_encrypted,
    record_overrun,
    truncate,
)
from hwpscan.rehearsal.synth.hwpx_writer import ZIP_DATE_TIME, build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf
from hwpscan.rehearsal.synth.press import (
    PARTS,
    STORIES,
    Story,
    flat_blocks,
    hwp5_blocks,
    pdf_pages,
    render,
    story_texts,
)

B = chr(0xF02B1)
HIGH, LOW = chr(0xDB80), chr(0xDEB1)
ALL = frozenset(PARTS)
NONE: frozenset[str] = frozenset()


def _story(slug: str) -> Story:
    return next(s for s in STORIES if s.slug == slug)


def _texts(slug: str, pua: frozenset[str]) -> list[str]:
    """All strings of a story; every part named in *pua* must really carry a PUA character."""
    parts = story_texts(_story(slug), pua)
    for name in pua:
        if not any(ord(c) >= 0xF0000 for text in parts[name] for c in text):
            raise AssertionError(f"{slug}: part {name!r} has no PUA marker to render")
    return [t for part in parts.values() for t in part]


def _where(blocks: list[Block], sections: int = 1) -> dict[str, Any]:
    """``chars`` and the first ``locations`` of an HWP 5 body, from where the writer
    puts each paragraph (never from reading the file)."""
    placed = hwp5_layout(blocks, sections=sections)
    return {"chars": strict_chars(p.text for p in placed), "locations": unit_locations(placed)}


def _hwp(
    path: str,
    slug: str,
    pua: frozenset[str],
    note: str,
    *,
    compressed: bool = True,
    sections: int = 1,
) -> Fixture:
    blocks = hwp5_blocks(_story(slug), pua)
    data = build_hwp5(blocks, compressed=compressed, sections=sections)
    body = utf16_counts(_texts(slug, pua))
    status = "contaminated" if body.surrogates else "clean"
    return Fixture(path, data, "hwp5", status, note, body, **_where(blocks, sections))


def _hwpx(path: str, slug: str, pua: frozenset[str], note: str, sections: int = 1) -> Fixture:
    data = build_hwpx(flat_blocks(_story(slug), pua), sections=sections, title=_story(slug).subject)
    return Fixture(path, data, "hwpx", "clean", note, str_counts(_texts(slug, pua)))


def _pdf(path: str, slug: str, pua: frozenset[str], note: str, *, broken: bool = False) -> Fixture:
    _texts(slug, pua)  # the parts named in *pua* must carry PUA characters
    pages = pdf_pages(_story(slug), pua)
    data = build_pdf(pages, broken_cmap=broken)
    lines = [line for page in pages for line in page]
    if broken:  # the CMap maps every non-BMP character to its high half alone
        lines = [
            "".join(
                c.encode("utf-16-be", "surrogatepass")[:2].decode("utf-16-be", "surrogatepass")
                if ord(c) > 0xFFFF
                else c
                for c in line
            )
            for line in lines
        ]
    body = str_counts(lines)
    return Fixture(path, data, "pdf", "contaminated" if body.surrogates else "clean", note, body)


def _blocks_fixture(path: str, blocks: list[Block], note: str, *, sections: int = 1) -> Fixture:
    texts: list[str] = []
    for block in blocks:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, Table):
            texts.extend(cell for row in block.rows for cell in row)
        elif isinstance(block, (Footnote, TextBox)):
            texts.extend([block.anchor, block.text])
        else:
            texts.append(block.text)
    body = utf16_counts(texts)
    data = build_hwp5(blocks, sections=sections)
    status = "contaminated" if body.surrogates else "clean"
    return Fixture(path, data, "hwp5", status, note, body, **_where(blocks, sections))


def dated_fixtures() -> list[Fixture]:
    """Attachments in dated folders, shaped like the incident's days."""
    d21, d22, d23, d24, d25 = "2025-07-21", "2025-07-22", "2025-07-23", "2025-07-24", "2025-07-25"
    d28, d30, a05, a11 = "2025-07-28", "2025-07-30", "2025-08-05", "2025-08-11"
    out = [
        _hwp(
            f"{d21}/보도자료_불법사금융_소비자경보.hwp",
            "illegal-lending",
            ALL,
            "PUA-A (U+F02B1 bullet, U+F0850..F0855 brackets) as surrogate pairs everywhere: "
            "body, table cells, footnote, text box, page header; compressed",
        ),
        _pdf(
            f"{d21}/보도자료_불법사금융_소비자경보.pdf",
            "illegal-lending",
            ALL,
            "same release as PDF: PUA characters come back whole through the ToUnicode CMap",
        ),
        _hwp(
            f"{d21}/보도참고자료_보험사기_적발실적.hwp",
            "insurance-fraud",
            ALL,
            "PUA pairs in every part; uncompressed streams",
            compressed=False,
        ),
        _hwp(
            f"{d22}/보도자료_금융민원_동향.hwp",
            "complaints",
            frozenset({"table"}),
            "PUA pairs only inside table cells (a top-level-only reader misses them)",
        ),
        _hwpx(
            f"{d22}/보도자료_금융민원_동향.hwpx",
            "complaints",
            ALL,
            "HWPX with PUA-A: UTF-8 XML carries the characters whole, so clean",
        ),
        _hwp(
            f"{d23}/보도자료_가상자산_점검결과.hwp",
            "virtual-assets",
            NONE,
            "clean HWP 5 (ordinary □ 『 』 「 」 【 】), compressed",
        ),
        _hwpx(
            f"{d23}/보도자료_가상자산_점검결과.hwpx",
            "virtual-assets",
            NONE,
            "clean HWPX without private-use characters",
        ),
        _pdf(
            f"{d23}/보도자료_가상자산_점검결과.pdf",
            "virtual-assets",
            NONE,
            "clean PDF without private-use characters",
        ),
        _hwp(
            f"{d23}/보도참고자료_보이스피싱_예방.hwp",
            "voice-phishing",
            NONE,
            "clean HWP 5, uncompressed",
            compressed=False,
        ),
        _hwp(
            f"{d24}/보도자료_가계대출_금리공시.hwp",
            "loan-rates",
            frozenset({"note"}),
            "PUA pairs only in the footnote text",
        ),
        _hwp(
            f"{d24}/보도자료_내부통제_간담회.hwp",
            "internal-control",
            frozenset({"box"}),
            "PUA pairs only in the text box",
        ),
        _hwp(
            f"{d24}/보도자료_청년_금융교육.hwp",
            "youth-education",
            frozenset({"header"}),
            "PUA pair only in the page header",
        ),
        _hwpx(
            f"{d25}/보도자료_집중호우_금융지원.hwpx",
            "flood-support",
            ALL,
            "HWPX in two section parts, PUA-A whole: clean",
            sections=2,
        ),
        _prvtext_only(f"{d28}/보도자료_불공정거래_조사결과.hwp"),
        _docinfo_lone_half(f"{d28}/보도자료_퇴직연금_수익률.hwp"),
        _pdf(f"{d28}/보도자료_퇴직연금_수익률.pdf", "pension-returns", NONE, "clean PDF"),
        _multisection_clean(f"{d28}/보도자료_상반기_업무계획.hwp"),
        _orphans(f"{d30}/보도자료_휴가철_보이스피싱_통계.hwp"),
        _mixed(f"{d30}/보도자료_피해사례_모음.hwp"),
        _hwp(
            f"{d30}/보도자료_불공정거래_후속조치.hwp",
            "unfair-trading",
            ALL,
            "PUA pairs in every part, split over three BodyText sections",
            sections=3,
        ),
        _small(f"{a05}/보도자료_일정_변경_안내.hwp"),
        _brackets(f"{a05}/보도자료_괄호_인용부호.hwp"),
        _pdf(
            f"{a05}/보도자료_집중호우_금융지원.pdf",
            "flood-support",
            ALL,
            "PDF whose ToUnicode CMap maps each PUA-A glyph to a lone high surrogate "
            "(<DB80>, <DB82>): pypdf returns the lone halves, so contaminated",
            broken=True,
        ),
        _hwpx(
            f"{a05}/보도자료_청년_금융교육.hwpx",
            "youth-education",
            ALL,
            "HWPX with PUA-A in three section parts: clean",
            sections=3,
        ),
        _bmp_pua(f"{a05}/보도자료_옛한글_표기.hwp"),
        _tabs(f"{a05}/보도자료_탭_줄바꿈.hwp"),
        _hwp(
            f"{a11}/보도자료_가상자산_후속점검.hwp",
            "virtual-assets",
            ALL,
            "PUA pairs everywhere, compressed",
        ),
        _hwpx(
            f"{a11}/보도자료_가상자산_후속점검.hwpx",
            "virtual-assets",
            NONE,
            "clean HWPX without private-use characters",
        ),
    ]
    return out


def _prvtext_only(path: str) -> Fixture:
    story = _story("unfair-trading")
    preview = "\r\n".join(story_texts(story, ALL)["lead"])
    blocks = hwp5_blocks(story, NONE)
    data = build_hwp5(blocks, preview=preview)
    return Fixture(
        path,
        data,
        "hwp5",
        "clean",
        "body clean; only the PrvText preview carries PUA pairs (reported apart from the body)",
        utf16_counts(_texts("unfair-trading", NONE)),
        preview=utf16_counts([preview]),
        **_where(blocks),
    )


def _docinfo_lone_half(path: str) -> Fixture:
    styles = ("바탕글", "본문" + HIGH, "개요 1")
    blocks = hwp5_blocks(_story("pension-returns"), NONE)
    data = build_hwp5(blocks, style_names=styles)
    return Fixture(
        path,
        data,
        "hwp5",
        "clean",
        "body clean; a DocInfo style name ends in a lone high half U+DB80 (meta, not body)",
        utf16_counts(_texts("pension-returns", NONE)),
        meta=Counts(surrogates=1, pairs=0, orphans=1),
        **_where(blocks),
    )


def _multisection_clean(path: str) -> Fixture:
    blocks: list[Block] = ["2025년 하반기 금융감독 업무계획"]
    for i, story in enumerate(STORIES[:6]):
        blocks += [f"{i + 1}. {story.subject}", *story_texts(story, NONE)["body"]]
        blocks.append(Table([[render(cell, pua=False) for cell in row] for row in story.table]))
    return _blocks_fixture(
        path,
        blocks,
        "clean HWP 5 with four BodyText sections (read in numeric order) and six tables",
        sections=4,
    )


def _orphans(path: str) -> Fixture:
    blocks: list[Block] = [
        "휴가철 보이스피싱 피해 통계(잠정)",
        "7월 피해 신고는 2,031건" + HIGH + "으로 집계되었습니다.",
        Table([["구분", "건수"], ["메신저 피싱" + LOW, "1,204건"]]),
        "순서가 뒤바뀐 반쪽: " + LOW + HIGH + " (짝이 아님)",
        Footnote("잘린 글머리표 " + HIGH, anchor="주석"),
    ]
    return _blocks_fixture(
        path,
        blocks,
        "true orphans only: lone high and low halves in body, "
        "a table cell, a reversed pair and a footnote; nothing to repair",
    )


def _mixed(path: str) -> Fixture:
    blocks: list[Block] = [
        "피해 사례 모음",
        B + " 사례 1: 가족을 사칭한 메신저로 송금을 요구",
        HIGH + B + " 사례 2: 앞에 짝 잃은 반쪽이 붙은 글머리표",
        Table([[B + " 유형", "건수"], ["대출 빙자", "310건" + LOW]]),
        TextBox(B + " 의심되면 먼저 전화로 확인하세요"),
        HeaderFooter("피해 사례 " + chr(0xF0854) + "요약" + chr(0xF0855), footer=True),
    ]
    return _blocks_fixture(
        path,
        blocks,
        "pairs and orphans mixed: an orphan right before a "
        "pair, an orphan after text in a cell, pairs in a text box and footer",
    )


def _small(path: str) -> Fixture:
    blocks: list[Block] = [B + " 보도 일정 변경: 8월 5일 자료는 12시에 배포합니다."]
    return _blocks_fixture(
        path,
        blocks,
        "the smallest HWP: one paragraph with one U+F02B1 "
        "bullet (the incident's 8/5 file was the smallest)",
    )


def _brackets(path: str) -> Fixture:
    pua = [chr(c) for c in range(0xF0850, 0xF0856)]
    blocks: list[Block] = [
        "괄호와 인용부호 표기 예시",
        f"{pua[0]}금융소비자보호법{pua[1]} 제19조에 따른 설명 의무",
        f"{pua[2]}참고{pua[3]} 분쟁조정 신청 방법",
        f"{pua[4]}불법사금융 피해 신고{pua[5]} 안내 {pua[4]}1332{pua[5]}",
        Table([[f"{pua[0]}구분{pua[1]}", f"{pua[4]}내용{pua[5]}"]]),
    ]
    return _blocks_fixture(
        path,
        blocks,
        "U+F0850..U+F0855 bracket and corner-bracket glyphs as pairs, back to back with Hangul",
    )


def _bmp_pua(path: str) -> Fixture:
    blocks: list[Block] = [
        "사용자 정의 문자가 들어간 안내문",
        "표기 " + chr(0xE0BC) + chr(0xE0BD) + " 는 기본 평면 사용자 영역 문자입니다.",
        Table([["문자", chr(0xF53A)]]),
    ]
    return _blocks_fixture(
        path,
        blocks,
        "BMP private-use characters only (one code unit "
        "each): counted as PUA but no surrogate, so clean",
    )


def _tabs(path: str) -> Fixture:
    blocks: list[Block] = [
        "구분\t내용\t비고",
        B + " 접수\t7월 21일\t온라인",
        "줄바꿈 앞\n줄바꿈 뒤 " + B,
        "고정폭\u00a0빈칸과 " + chr(0xF0854) + "인용" + chr(0xF0855),
    ]
    return _blocks_fixture(
        path,
        blocks,
        "TAB inline controls (8 units whose parameters hold "
        "0xDA00 and 0xDFFF), line breaks and non-breaking spaces around PUA "
        "pairs: a reader must skip control parameters",
    )


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 0
            zf.writestr(info, data, compresslevel=6)
    return buf.getvalue()


_ERROR_PAGE = (
    '<!DOCTYPE html>\n<html lang="ko">\n<head><meta charset="utf-8">'
    "<title>오류 안내</title></head>\n<body>\n<h1>요청하신 파일을 찾을 수 없습니다.</h1>\n"
    "<p>파일이 삭제되었거나 주소가 바뀌었습니다. 잠시 후 다시 시도해 주십시오.</p>\n"
    "</body>\n</html>\n"
)


def broken_fixtures() -> list[Fixture]:
    """Inputs that must each become a row with a status and a reason."""
    story = _story("complaints")
    full = build_hwp5(hwp5_blocks(story, ALL), compressed=False)
    pdf = build_pdf(pdf_pages(story, NONE))
    xref = pdf.rindex(b"xref")
    overrun_blocks: list[Block] = [B + " 손상 전까지의 문단", "둘째 문단"]
    return [
        Fixture(
            "broken/garbage.hwp",
            hashlib.shake_256(b"hwpscan garbage").digest(3000),
            "unknown",
            "unsupported",
            "random bytes under an .hwp name",
        ),
        Fixture(
            "broken/truncated.hwp",
            truncate(full, len(full) // 2),
            "hwp5",
            "corrupt",
            "an uncompressed HWP 5 cut at half its size: directory intact, streams missing "
            "(counts not asserted)",
            body=None,
        ),
        Fixture("broken/empty.hwp", b"", "empty", "corrupt", "a 0-byte download"),
        Fixture(
            "broken/error-page.hwp",
            _ERROR_PAGE.encode("utf-8"),
            "html",
            "unsupported",
            "an HTML error page saved under an .hwp name",
        ),
        Fixture(
            "broken/hwp3.hwp",
            b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05"
            + hashlib.shake_256(b"hwp3").digest(994),
            "hwp3",
            "unsupported",
            "HWP 3.x signature: a different format, not read",
        ),
        Fixture(
            "broken/password.hwp",
            build_hwp5(hwp5_blocks(story, ALL), password=True),
            "hwp5",
            "encrypted",
            "password-protected HWP 5 (FileHeader bit 1): streams are ciphertext",
        ),
        Fixture(
            "broken/distribution.hwp",
            build_hwp5(hwp5_blocks(story, ALL), distribution=True),
            "hwp5",
            "distribution",
            "distribution document (FileHeader bit 2): encrypted ViewText, no BodyText",
        ),
        Fixture(
            "broken/encrypted-office.hwp",
            office_encrypted(),
            "ole",
            "encrypted",
            "an encrypted Office container (EncryptionInfo/EncryptedPackage) under an "
            ".hwp name: OLE, not HWP, and unreadable",
        ),
        Fixture(
            "broken/word97.doc",
            foreign_ole(),
            "ole",
            "unsupported",
            "an OLE compound file that is not HWP (Word 97 stream names)",
        ),
        Fixture(
            "broken/not-hwpx.hwpx",
            _zip({"통계표.csv": "구분,건수\n은행,7330\n".encode()}),
            "zip",
            "unsupported",
            "a ZIP archive without the application/hwp+zip mimetype",
        ),
        Fixture(
            "broken/truncated-xref.pdf",
            pdf[: xref + 30],
            "pdf",
            "clean",
            "PDF cut inside its xref table: pypdf rebuilds the table by scanning the "
            "objects and recovers all text",
            body=Counts(),
        ),
        Fixture(
            "broken/truncated-body.pdf",
            pdf[: len(pdf) // 2],
            "pdf",
            "corrupt",
            "PDF cut at half its size, inside the page content: not readable",
        ),
        Fixture(
            "broken/record-overrun.hwp",
            record_overrun(overrun_blocks),
            "hwp5",
            "contaminated",
            "last PARA_TEXT record claims more bytes than the stream holds: the text "
            "before it still counts, the damage is reported",
            utf16_counts([b for b in overrun_blocks if isinstance(b, str)]),
            warnings=True,
            **_where(overrun_blocks),
        ),
    ]


def _pdf_story(slug: str, pua: frozenset[str], per_page: int = 12) -> list[list[str]]:
    return pdf_pages(_story(slug), pua, per_page=per_page)


def _lines(pages: list[list[str]], broken: bool = False) -> list[str]:
    lines = [line for page in pages for line in page]
    if broken:  # the CMap maps every non-BMP character to its high half alone
        lines = [
            "".join(chr(0xD800 + ((ord(c) - 0x10000) >> 10)) if ord(c) > 0xFFFF else c for c in s)
            for s in lines
        ]
    return lines


def _quirk_hwpx(path: str, note: str, **options: Any) -> Fixture:
    story = _story("youth-education")
    data = build_hwpx(flat_blocks(story, ALL), title=story.subject, **options)
    return Fixture(path, data, "hwpx", "clean", note, str_counts(_texts("youth-education", ALL)))


def _wrapped(marker: bytes, seed: bytes) -> bytes:
    """A DRM wrapper's shape: its marker, then ciphertext-like bytes."""
    return marker + hashlib.shake_256(b"hwpscan drm " + seed).digest(4000)


def quirk_fixtures() -> list[Fixture]:
    """Valid files written the way real writers write them (``quirks/``): a reader that
    follows the specification too closely loses them."""
    q = "quirks"
    pages = _pdf_story("loan-rates", ALL)
    forms = PdfExtras(
        annotations={0: ("검토 의견: 표 " + chr(0xDB80) + " 수치 확인",)},
        fields=(("담당부서", "가계대출 " + chr(0xF02B1) + " 감독국"),),
    )
    annotation_and_field = [
        "검토 의견: 표 " + chr(0xDB80) + " 수치 확인",
        "가계대출 " + B + " 감독국",
    ]
    return [
        _quirk_hwpx(
            f"{q}/mimetype-deflated.hwpx",
            "HWPX whose mimetype entry is first but deflated (hwpxlib writes it so)",
            mimetype="deflated",
        ),
        _quirk_hwpx(
            f"{q}/mimetype-late.hwpx",
            "HWPX whose mimetype entry comes last",
            mimetype="late",
        ),
        _quirk_hwpx(
            f"{q}/mimetype-missing.hwpx",
            "HWPX without a mimetype entry: content.hpf and the section parts say what it is",
            mimetype="none",
        ),
        _quirk_hwpx(
            f"{q}/backslash-names.hwpx",
            "HWPX whose entry names use \\ (Contents\\section0.xml), no mimetype either",
            mimetype="none",
            backslash=True,
        ),
        Fixture(
            f"{q}/header-after-junk.pdf",
            build_pdf(pages, extras=PdfExtras(junk=b"<!-- saved by a portal -->\r\n" * 8)),
            "pdf",
            "clean",
            "PDF whose %PDF- header sits after 240 bytes of junk (readers accept 1,024)",
            str_counts(_lines(pages)),
        ),
        Fixture(
            f"{q}/rc4-empty-password.pdf",
            build_pdf(pages, extras=PdfExtras(encryption="rc4")),
            "pdf",
            "clean",
            "PDF encrypted with RC4 (standard handler, revision 3) and an empty user "
            "password: opened without asking",
            str_counts(_lines(pages)),
        ),
        Fixture(
            f"{q}/form-and-annotation.pdf",
            build_pdf(pages, extras=forms),
            "pdf",
            "clean",
            "clean PDF body; a text annotation holds a lone high surrogate and a form field "
            "a PUA-A character: the meta channel counts them apart from the body",
            str_counts(_lines(pages)),
            meta=str_counts(annotation_and_field),
        ),
        Fixture(
            f"{q}/jbig2-image.pdf",
            build_pdf(pages, extras=PdfExtras(jbig2_image_pages=(0,))),
            "pdf",
            "clean",
            "PDF whose first page also draws a JBIG2 image (a codec pypdf needs an outside "
            "program for): a missing image decoder costs no text",
            str_counts(_lines(pages)),
        ),
        Fixture(
            f"{q}/font-name-escapes.pdf",
            build_pdf(
                pages[:1],
                extras=PdfExtras(
                    font_encoding=b"#1B#5D0;owned#07#1B#5B2J#1B#5B32mall#20files#20clean"
                ),
            ),
            "pdf",
            "clean",
            "PDF whose font encoding name holds terminal escapes (set title, clear screen): "
            "PDFium reads past it; pypdf, where it reads the page, names it in a message, "
            "which must reach no terminal unescaped",
            str_counts(_lines(pages[:1])),
        ),
    ]


def damaged_fixtures() -> list[Fixture]:
    """Damaged, protected and wrapped inputs added for real-world defects (``broken/``)."""
    story = _story("loan-rates")
    pages = _pdf_story("loan-rates", ALL)
    bad = 2  # 0-based: page 3 names a filter no reader has
    kept = [page for i, page in enumerate(pages) if i != bad]
    clean_overrun: list[Block] = ["손상 전까지의 문단", "둘째 문단"]
    hwp_blocks = hwp5_blocks(story, ALL)
    clean_blocks = hwp5_blocks(story, NONE)
    full = hwp5_streams(hwp_blocks, compressed=True)["BodyText/Section0"]
    clean_full = hwp5_streams(clean_blocks, compressed=True)["BodyText/Section0"]
    return [
        Fixture(
            "broken/pdf-bad-page.pdf",
            build_pdf(pages, broken_cmap=True, extras=PdfExtras(bad_filter_pages=(bad,))),
            "pdf",
            "contaminated",
            f"{len(pages)}-page PDF (broken CMap: lone high surrogates) whose page 3 is "
            "encoded with an unknown filter: PDFium finds no text in it and pypdf raises for "
            "it; the other pages are counted",
            str_counts(_lines(kept, broken=True)),
            partial=True,
        ),
        Fixture(
            "broken/pdf-bad-page-clean.pdf",
            build_pdf(pages, extras=PdfExtras(bad_filter_pages=(bad,))),
            "pdf",
            "corrupt",
            "the same PDF with a correct CMap: read in part, so corrupt, not clean; the "
            "counts are those of the readable pages",
            str_counts(_lines(kept)),
            partial=True,
        ),
        Fixture(
            "broken/pdf-pubsec.pdf",
            build_pdf(pages, extras=PdfExtras(encryption="pubsec")),
            "pdf",
            "encrypted",
            "certificate-encrypted PDF (/Adobe.PubSec): only the recipients' keys open it",
        ),
        Fixture(
            "broken/pdf-user-password.pdf",
            build_pdf(pages, extras=PdfExtras(encryption="rc4-password")),
            "pdf",
            "encrypted",
            "RC4 PDF with a user password (1234): not readable without it",
        ),
        Fixture(
            "broken/hwpx-encrypted.hwpx",
            build_hwpx(flat_blocks(story, ALL), encrypted=True),
            "hwpx",
            "encrypted",
            "password-protected HWPX: META-INF/manifest.xml declares its parts encrypted",
        ),
        Fixture(
            "broken/hwpx-zip-version-7.hwpx",
            build_hwpx(flat_blocks(story, ALL), version_needed=70),
            "hwpx",
            "corrupt",
            "HWPX whose ZIP entries say version 7.0 is needed to extract them (zipfile "
            "reads up to 6.3): corrupt with the reason, not an internal error",
        ),
        Fixture(
            "broken/drm-markany.hwp",
            _wrapped(b"<MARKANY_DOCUMENTSAFER>", b"markany"),
            "unknown",
            "encrypted",
            "a MarkAny Document SAFER wrapper (starts <MARKANY_DOCUMENTSAFER>) under an .hwp name",
        ),
        Fixture(
            "broken/drm-fasoo.pdf",
            _wrapped(
                b"\x9b DRMONE  This Document is encrypted and protected by Fasoo DRM \x00",
                b"fasoo",
            ),
            "unknown",
            "encrypted",
            "a Fasoo DRM wrapper (starts \\x9b DRMONE) under a .pdf name",
        ),
        Fixture(
            "broken/drm-softcamp.hwpx",
            _wrapped(b"SCDSA004\x00\x00A\x00", b"softcamp"),
            "unknown",
            "encrypted",
            "a SoftCamp document-security wrapper (starts SCDSA004) under an .hwpx name",
        ),
        Fixture(
            "broken/html-fragment.hwp",
            b"\r\n<!-- download failed: session expired -->\r\n\r\n   \r\n",
            "html",
            "unsupported",
            "an HTML fragment (a comment and whitespace) saved under an .hwp name",
        ),
        Fixture(
            "broken/deflate-cut.hwp",
            bad_deflate(hwp_blocks, cut=len(full) * 2 // 3),
            "hwp5",
            "contaminated",
            "compressed HWP 5 whose Section0 deflate stream stops at two thirds: the text "
            "before the cut holds PUA pairs, so contaminated (read in part; counts not "
            "asserted)",
            body=None,
        ),
        Fixture(
            "broken/deflate-cut-clean.hwp",
            bad_deflate(clean_blocks, cut=len(clean_full) * 2 // 3),
            "hwp5",
            "corrupt",
            "the same cut in a document without PUA: read in part, so corrupt, not clean "
            "(counts not asserted)",
            body=None,
        ),
        Fixture(
            "broken/record-overrun-clean.hwp",
            record_overrun(clean_overrun),
            "hwp5",
            "corrupt",
            "last PARA_TEXT record claims more bytes than the stream holds, no PUA: the text "
            "before it is counted, and the file is corrupt, not clean",
            utf16_counts([b for b in clean_overrun if isinstance(b, str)]),
            warnings=True,
            partial=True,
            **_where(clean_overrun),
        ),
    ]


def build_corpus() -> list[Fixture]:
    """Every fixture, in a fixed order (dated folders first, then ``broken/``)."""
    fixtures = dated_fixtures() + broken_fixtures() + damaged_fixtures() + quirk_fixtures()
    paths = [f.path for f in fixtures]
    if len(set(paths)) != len(paths):
        raise AssertionError("duplicate fixture path")
    return fixtures


def write_corpus(out_dir: str | Path) -> list[Fixture]:
    """Write the corpus and ``expected.jsonl`` under *out_dir*; returns the fixtures.

    Files of earlier runs that are no longer part of the corpus are left alone; the
    README in the folder is not touched.
    """
    root = Path(out_dir)
    fixtures = build_corpus()
    for fixture in fixtures:
        target = root / fixture.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(fixture.data)
    lines = [json.dumps(expected_record(f), ensure_ascii=False, sort_keys=False) for f in fixtures]
    (root / EXPECTED_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return fixtures
