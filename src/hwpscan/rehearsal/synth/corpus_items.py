"""The fixtures of the corpus, one function per group (see :mod:`hwpscan.rehearsal.synth.corpus`).

Dated folders (``2025-07-21/`` ...) hold press-release-like attachments, so a scan of
the corpus fills the date x format table; ``broken/`` holds inputs a scanner must turn
into a status and a reason. Every expectation is computed from the text put in.
"""

from __future__ import annotations

import json
import pkgutil
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
    noise,
    office_encrypted,
    record_overrun,
    truncate,
)
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx, zip_package
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf
from hwpscan.rehearsal.synth.press import (
    PARTS,
    STORIES,
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
_NO_COUNTS = Counts()
_STORY = {story.slug: story for story in STORIES}


def _load_notes() -> dict[str, str]:
    raw = pkgutil.get_data(__name__, "fixture_notes.json")
    assert raw is not None  # a regular package: its loader reads files
    notes: dict[str, str] = json.loads(raw)
    return notes


#: Each fixture's note, by path (``fixture_notes.json`` beside this module).
_NOTES = _load_notes()


def _fx(
    path: str, data: bytes, fmt: str, status: str, body: Counts | None = _NO_COUNTS, **more: Any
) -> Fixture:
    """The fixture at *path*, its note taken from ``fixture_notes.json``."""
    return Fixture(path, data, fmt, status, _NOTES[path], body, **more)


def _texts(slug: str, pua: frozenset[str]) -> list[str]:
    """All strings of a story; every part named in *pua* must really carry a PUA character."""
    parts = story_texts(_STORY[slug], pua)
    for name in pua:
        if not any(ord(c) >= 0xF0000 for text in parts[name] for c in text):
            raise AssertionError(f"{slug}: part {name!r} has no PUA marker to render")
    return [t for part in parts.values() for t in part]


def _hwp5(
    path: str, blocks: list[Block], data: bytes, status: str = "", sections: int = 1, **more: Any
) -> Fixture:
    """An HWP 5 fixture of *blocks*, its counts and locations from the paragraphs as the
    writer places them (never from reading the file), its status (unless given) too."""
    placed = hwp5_layout(blocks, sections=sections)
    texts = [p.text for p in placed]
    body = utf16_counts(texts)
    status = status or ("contaminated" if body.surrogates else "clean")
    chars, locations = strict_chars(texts), unit_locations(placed)
    return _fx(path, data, "hwp5", status, body, chars=chars, locations=locations, **more)


def _hwp(path: str, slug: str, pua: frozenset[str], **options: Any) -> Fixture:
    _texts(slug, pua)  # the parts named in *pua* must carry PUA characters
    blocks = hwp5_blocks(_STORY[slug], pua)
    more = {"sections": options.get("sections", 1)}
    if "preview" in options:
        more["preview"] = utf16_counts([options["preview"]])
    if "style_names" in options:
        more["meta"] = utf16_counts(options["style_names"])
    return _hwp5(path, blocks, build_hwp5(blocks, **options), **more)


def _hwpx(path: str, slug: str, pua: frozenset[str], **options: Any) -> Fixture:
    data = build_hwpx(flat_blocks(_STORY[slug], pua), title=_STORY[slug].subject, **options)
    return _fx(path, data, "hwpx", "clean", str_counts(_texts(slug, pua)))


def _lines(pages: list[list[str]], broken: bool = False) -> list[str]:
    lines = [line for page in pages for line in page]
    if broken:  # the CMap maps every non-BMP character to its high half alone
        lines = [
            "".join(chr(0xD800 + ((ord(c) - 0x10000) >> 10)) if ord(c) > 0xFFFF else c for c in s)
            for s in lines
        ]
    return lines


def _pdf(path: str, slug: str, pua: frozenset[str], *, broken: bool = False) -> Fixture:
    _texts(slug, pua)  # the parts named in *pua* must carry PUA characters
    pages = pdf_pages(_STORY[slug], pua)
    body = str_counts(_lines(pages, broken))
    status = "contaminated" if body.surrogates else "clean"
    return _fx(path, build_pdf(pages, broken_cmap=broken), "pdf", status, body)


def _blocks(path: str, *blocks: Block, sections: int = 1) -> Fixture:
    return _hwp5(path, list(blocks), build_hwp5(blocks, sections=sections), sections=sections)


def dated_fixtures() -> list[Fixture]:
    """Attachments in dated folders, shaped like the incident's days."""
    d21, d22, d23, d24, d25 = "2025-07-21", "2025-07-22", "2025-07-23", "2025-07-24", "2025-07-25"
    d28, d30, a05, a11 = "2025-07-28", "2025-07-30", "2025-08-05", "2025-08-11"
    preview = "\r\n".join(story_texts(_STORY["unfair-trading"], ALL)["lead"])
    styles = ("바탕글", "본문" + HIGH, "개요 1")  # a lone high half in DocInfo, not the body
    plan: list[Block] = ["2025년 하반기 금융감독 업무계획"]
    for i, story in enumerate(STORIES[:6]):
        plan += [f"{i + 1}. {story.subject}", *story_texts(story, NONE)["body"]]
        plan.append(Table([[render(cell, pua=False) for cell in row] for row in story.table]))
    pua = [chr(c) for c in range(0xF0850, 0xF0856)]
    return [
        _hwp(f"{d21}/보도자료_불법사금융_소비자경보.hwp", "illegal-lending", ALL),
        _pdf(f"{d21}/보도자료_불법사금융_소비자경보.pdf", "illegal-lending", ALL),
        _hwp(f"{d21}/보도참고자료_보험사기_적발실적.hwp", "insurance-fraud", ALL, compressed=False),
        _hwp(f"{d22}/보도자료_금융민원_동향.hwp", "complaints", frozenset({"table"})),
        _hwpx(f"{d22}/보도자료_금융민원_동향.hwpx", "complaints", ALL),
        _hwp(f"{d23}/보도자료_가상자산_점검결과.hwp", "virtual-assets", NONE),
        _hwpx(f"{d23}/보도자료_가상자산_점검결과.hwpx", "virtual-assets", NONE),
        _pdf(f"{d23}/보도자료_가상자산_점검결과.pdf", "virtual-assets", NONE),
        _hwp(f"{d23}/보도참고자료_보이스피싱_예방.hwp", "voice-phishing", NONE, compressed=False),
        _hwp(f"{d24}/보도자료_가계대출_금리공시.hwp", "loan-rates", frozenset({"note"})),
        _hwp(f"{d24}/보도자료_내부통제_간담회.hwp", "internal-control", frozenset({"box"})),
        _hwp(f"{d24}/보도자료_청년_금융교육.hwp", "youth-education", frozenset({"header"})),
        _hwpx(f"{d25}/보도자료_집중호우_금융지원.hwpx", "flood-support", ALL, sections=2),
        _hwp(f"{d28}/보도자료_불공정거래_조사결과.hwp", "unfair-trading", NONE, preview=preview),
        _hwp(f"{d28}/보도자료_퇴직연금_수익률.hwp", "pension-returns", NONE, style_names=styles),
        _pdf(f"{d28}/보도자료_퇴직연금_수익률.pdf", "pension-returns", NONE),
        _blocks(f"{d28}/보도자료_상반기_업무계획.hwp", *plan, sections=4),
        _blocks(
            f"{d30}/보도자료_휴가철_보이스피싱_통계.hwp",
            "휴가철 보이스피싱 피해 통계(잠정)",
            "7월 피해 신고는 2,031건" + HIGH + "으로 집계되었습니다.",
            Table([["구분", "건수"], ["메신저 피싱" + LOW, "1,204건"]]),
            "순서가 뒤바뀐 반쪽: " + LOW + HIGH + " (짝이 아님)",
            Footnote("잘린 글머리표 " + HIGH, anchor="주석"),
        ),
        _blocks(
            f"{d30}/보도자료_피해사례_모음.hwp",
            "피해 사례 모음",
            B + " 사례 1: 가족을 사칭한 메신저로 송금을 요구",
            HIGH + B + " 사례 2: 앞에 짝 잃은 반쪽이 붙은 글머리표",
            Table([[B + " 유형", "건수"], ["대출 빙자", "310건" + LOW]]),
            TextBox(B + " 의심되면 먼저 전화로 확인하세요"),
            HeaderFooter("피해 사례 " + chr(0xF0854) + "요약" + chr(0xF0855), footer=True),
        ),
        _hwp(f"{d30}/보도자료_불공정거래_후속조치.hwp", "unfair-trading", ALL, sections=3),
        _blocks(
            f"{a05}/보도자료_일정_변경_안내.hwp",
            B + " 보도 일정 변경: 8월 5일 자료는 12시에 배포합니다.",
        ),
        _blocks(
            f"{a05}/보도자료_괄호_인용부호.hwp",
            "괄호와 인용부호 표기 예시",
            f"{pua[0]}금융소비자보호법{pua[1]} 제19조에 따른 설명 의무",
            f"{pua[2]}참고{pua[3]} 분쟁조정 신청 방법",
            f"{pua[4]}불법사금융 피해 신고{pua[5]} 안내 {pua[4]}1332{pua[5]}",
            Table([[f"{pua[0]}구분{pua[1]}", f"{pua[4]}내용{pua[5]}"]]),
        ),
        _pdf(f"{a05}/보도자료_집중호우_금융지원.pdf", "flood-support", ALL, broken=True),
        _hwpx(f"{a05}/보도자료_청년_금융교육.hwpx", "youth-education", ALL, sections=3),
        _blocks(
            f"{a05}/보도자료_옛한글_표기.hwp",
            "사용자 정의 문자가 들어간 안내문",
            "표기 " + chr(0xE0BC) + chr(0xE0BD) + " 는 기본 평면 사용자 영역 문자입니다.",
            Table([["문자", chr(0xF53A)]]),
        ),
        _blocks(
            f"{a05}/보도자료_탭_줄바꿈.hwp",
            "구분\t내용\t비고",
            B + " 접수\t7월 21일\t온라인",
            "줄바꿈 앞\n줄바꿈 뒤 " + B,
            "고정폭\u00a0빈칸과 " + chr(0xF0854) + "인용" + chr(0xF0855),
        ),
        _hwp(f"{a11}/보도자료_가상자산_후속점검.hwp", "virtual-assets", ALL),
        _hwpx(f"{a11}/보도자료_가상자산_후속점검.hwpx", "virtual-assets", NONE),
    ]


_ERROR_PAGE = (
    '<!DOCTYPE html>\n<html lang="ko">\n<head><meta charset="utf-8">'
    "<title>오류 안내</title></head>\n<body>\n<h1>요청하신 파일을 찾을 수 없습니다.</h1>\n"
    "<p>파일이 삭제되었거나 주소가 바뀌었습니다. 잠시 후 다시 시도해 주십시오.</p>\n"
    "</body>\n</html>\n"
)


def broken_fixtures() -> list[Fixture]:
    """Inputs that must each become a row with a status and a reason."""
    story = _STORY["complaints"]
    dirty = hwp5_blocks(story, ALL)
    full = build_hwp5(dirty, compressed=False)
    pdf = build_pdf(pdf_pages(story, NONE))
    xref = pdf.rindex(b"xref")
    overrun: list[Block] = [B + " 손상 전까지의 문단", "둘째 문단"]
    hwp3 = b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05" + noise(b"hwp3", 994)
    csv = "구분,건수\n은행,7330\n".encode()
    distribution = build_hwp5(dirty, distribution=True)
    return [
        _fx("broken/garbage.hwp", noise(b"hwpscan garbage", 3000), "unknown", "unsupported"),
        _fx("broken/truncated.hwp", truncate(full, len(full) // 2), "hwp5", "corrupt", None),
        _fx("broken/empty.hwp", b"", "empty", "corrupt"),
        _fx("broken/error-page.hwp", _ERROR_PAGE.encode("utf-8"), "html", "unsupported"),
        _fx("broken/hwp3.hwp", hwp3, "hwp3", "unsupported"),
        _fx("broken/password.hwp", build_hwp5(dirty, password=True), "hwp5", "encrypted"),
        _fx("broken/distribution.hwp", distribution, "hwp5", "distribution"),
        _fx("broken/encrypted-office.hwp", office_encrypted(), "ole", "encrypted"),
        _fx("broken/word97.doc", foreign_ole(), "ole", "unsupported"),
        _fx("broken/not-hwpx.hwpx", zip_package({"통계표.csv": csv}), "zip", "unsupported"),
        _fx("broken/truncated-xref.pdf", pdf[: xref + 30], "pdf", "clean"),
        _fx("broken/truncated-body.pdf", pdf[: len(pdf) // 2], "pdf", "corrupt"),
        _hwp5("broken/record-overrun.hwp", overrun, record_overrun(overrun), warnings=True),
    ]


def quirk_fixtures() -> list[Fixture]:
    """Valid files written the way real writers write them (``quirks/``): a reader that
    follows the specification too closely loses them."""
    q, youth = "quirks", "youth-education"
    story = pdf_pages(_STORY["loan-rates"], ALL, per_page=12)
    note, field = "검토 의견: 표 " + HIGH + " 수치 확인", "가계대출 " + B + " 감독국"
    form = {"annotations": {0: (note,)}, "fields": (("담당부서", field),)}
    escapes = b"#1B#5D0;owned#07#1B#5B2J#1B#5B32mall#20files#20clean"

    def pdf(name: str, meta: Counts | None = None, pages: Any = story, **extras: Any) -> Fixture:
        data = build_pdf(pages, extras=PdfExtras(**extras))
        return _fx(f"{q}/{name}.pdf", data, "pdf", "clean", str_counts(_lines(pages)), meta=meta)

    return [
        _hwpx(f"{q}/mimetype-deflated.hwpx", youth, ALL, mimetype="deflated"),
        _hwpx(f"{q}/mimetype-late.hwpx", youth, ALL, mimetype="late"),
        _hwpx(f"{q}/mimetype-missing.hwpx", youth, ALL, mimetype="none"),
        _hwpx(f"{q}/backslash-names.hwpx", youth, ALL, mimetype="none", backslash=True),
        pdf("header-after-junk", junk=b"<!-- saved by a portal -->\r\n" * 8),
        pdf("rc4-empty-password", encryption="rc4"),
        pdf("form-and-annotation", str_counts([note, field]), **form),
        pdf("jbig2-image", jbig2_image_pages=(0,)),
        pdf("font-name-escapes", pages=story[:1], font_encoding=escapes),
    ]


def damaged_fixtures() -> list[Fixture]:
    """Damaged, protected and wrapped inputs added for real-world defects (``broken/``)."""
    story = _STORY["loan-rates"]
    pages = pdf_pages(story, ALL, per_page=12)
    bad = 2  # 0-based: page 3 names a filter no reader has
    kept = [page for i, page in enumerate(pages) if i != bad]
    clean_overrun: list[Block] = ["손상 전까지의 문단", "둘째 문단"]
    fasoo = b"\x9b DRMONE  This Document is encrypted and protected by Fasoo DRM \x00"
    html = b"\r\n<!-- download failed: session expired -->\r\n\r\n   \r\n"

    def bad_page(path: str, status: str, broken: bool = False) -> Fixture:
        data = build_pdf(pages, broken_cmap=broken, extras=PdfExtras(bad_filter_pages=(bad,)))
        return _fx(path, data, "pdf", status, str_counts(_lines(kept, broken)), partial=True)

    def pdf(**extras: Any) -> bytes:
        return build_pdf(pages, extras=PdfExtras(**extras))

    def hwpx(**options: Any) -> bytes:
        return build_hwpx(flat_blocks(story, ALL), **options)

    def drm(path: str, marker: bytes) -> Fixture:  # its marker, then ciphertext-like bytes
        seed = b"hwpscan drm " + path.split("-")[1].split(".")[0].encode()
        return _fx(path, marker + noise(seed, 4000), "unknown", "encrypted")

    def deflate_cut(path: str, pua: frozenset[str], status: str) -> Fixture:  # at two thirds
        blocks = hwp5_blocks(story, pua)
        cut = len(hwp5_streams(blocks)["BodyText/Section0"]) * 2 // 3
        return _fx(path, bad_deflate(blocks, cut=cut), "hwp5", status, None)

    return [
        bad_page("broken/pdf-bad-page.pdf", "contaminated", broken=True),
        bad_page("broken/pdf-bad-page-clean.pdf", "corrupt"),
        _fx("broken/pdf-pubsec.pdf", pdf(encryption="pubsec"), "pdf", "encrypted"),
        _fx("broken/pdf-user-password.pdf", pdf(encryption="rc4-password"), "pdf", "encrypted"),
        _fx("broken/hwpx-encrypted.hwpx", hwpx(encrypted=True), "hwpx", "encrypted"),
        _fx("broken/hwpx-zip-version-7.hwpx", hwpx(version_needed=70), "hwpx", "corrupt"),
        drm("broken/drm-markany.hwp", b"<MARKANY_DOCUMENTSAFER>"),
        drm("broken/drm-fasoo.pdf", fasoo),
        drm("broken/drm-softcamp.hwpx", b"SCDSA004\x00\x00A\x00"),
        _fx("broken/html-fragment.hwp", html, "html", "unsupported"),
        deflate_cut("broken/deflate-cut.hwp", ALL, "contaminated"),
        deflate_cut("broken/deflate-cut-clean.hwp", NONE, "corrupt"),
        _hwp5(
            "broken/record-overrun-clean.hwp",
            clean_overrun,
            record_overrun(clean_overrun),
            "corrupt",
            warnings=True,
            partial=True,
        ),
    ]


def build_corpus() -> list[Fixture]:
    """Every fixture, in a fixed order (dated folders first, then ``broken/``)."""
    return dated_fixtures() + broken_fixtures() + damaged_fixtures() + quirk_fixtures()


def write_corpus(out_dir: str | Path) -> list[Fixture]:
    """Write the corpus and ``expected.jsonl`` under *out_dir* (other files, the README
    among them, are left alone); returns the fixtures."""
    root = Path(out_dir)
    fixtures = build_corpus()
    for fixture in fixtures:
        target = root / fixture.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(fixture.data)
    lines = [json.dumps(expected_record(f), ensure_ascii=False, sort_keys=False) for f in fixtures]
    (root / EXPECTED_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return fixtures
