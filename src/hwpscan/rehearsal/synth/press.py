"""Korean press-release text for fixtures: written for hwpscan, shaped like 금융감독원 releases.

The sentences are our own. A :class:`Story`'s strings carry markers for the characters
Hancom stores as private-use code points: ``{B}`` the bullet U+F02B1, ``{Q1}``/``{Q2}``
U+F0854/5 (double corner brackets), ``{K1}``..``{S2}`` U+F0850..3 (other brackets).
:func:`render` puts those characters or plain look-alikes (□ 『 』 「 」 【 】) in their
place, so one story gives a contaminated and a clean document with the same text.

>>> render("{B} {Q1}금융소비자보호법{Q2}", pua=False)
'□ 『금융소비자보호법』'
>>> [hex(ord(c)) for c in render("{B}{Q1}{Q2}", pua=True)]
['0xf02b1', '0xf0854', '0xf0855']
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from hwpscan.rehearsal.synth.hwp5_writer import Block, Footnote, HeaderFooter, Table, TextBox
from hwpscan.rehearsal.synth.hwpx_writer import Block as FlatBlock

#: Marker -> Hancom private-use character: the bullet U+F02B1, then U+F0850..U+F0855.
_MARKS = ("B", "K1", "K2", "S1", "S2", "Q1", "Q2")
PUA_MARKS = dict(zip(_MARKS, map(chr, (0xF02B1, *range(0xF0850, 0xF0856))), strict=True))
#: Marker -> an ordinary character used in the clean variant.
PLAIN_MARKS = {"B": "□", "K1": "「", "K2": "」", "S1": "【", "S2": "】", "Q1": "『", "Q2": "』"}


def render(text: str, *, pua: bool) -> str:
    """Replace the ``{X}`` markers in *text* by PUA characters or plain look-alikes.

    >>> render("{S1}참고{S2}", pua=False)
    '【참고】'
    """
    return text.format_map(PUA_MARKS if pua else PLAIN_MARKS)


@dataclass(frozen=True, slots=True)
class Story:
    """One release's text, with PUA markers (``note``: a footnote, ``box``: a text box)."""

    slug: str
    subject: str
    lead: tuple[str, ...]
    body: tuple[str, ...]
    table: tuple[tuple[str, ...], ...]
    note: str
    box: str
    header: str = "금융감독원 보도자료"
    contact: str = "문의: 금융감독원 공보실 02-3145-0000"


# One story per "= slug subject" line; each following line is "part text", an indented
# line continues the one above, and table cells are separated by " | ".
_STORY_TEXT = """
= illegal-lending 불법사금융 피해 예방을 위한 소비자경보(주의) 발령
lead {B} 고금리 불법 대부광고를 통한 피해 상담이 상반기 중 크게 늘어
lead {B} 정식 등록 대부업자인지 반드시 확인하고, 피해 발생 시 즉시 신고 당부
body {B} 금융감독원은 최근 온라인 광고를 이용한 불법 대부 영업이 늘어남에 따라 소비자경보를
  발령하였습니다.
body {B} 불법 대부업자는 {Q1}당일 비대면 대출{Q2}, {Q1}신용 조회 없음{Q2} 등의 문구로 급전이 필요한
  서민을 유인한 뒤 법정 최고금리를 크게 넘는 이자를 요구하였습니다.
body {B} 대출을 받기 전에는 {K1}등록대부업체 통합조회{K2} 서비스에서 업체의 등록 여부를 확인하시기
  바랍니다.
body {B} 불법 추심이나 고금리 피해를 입은 경우 증거 자료를 확보하여 불법사금융피해신고센터(국번 없이
  1332)로 신고하여 주십시오.
row 구분 | 2024년 상반기 | 2025년 상반기 | 증감
row {B} 피해 상담 | 6,232건 | 7,418건 | +19.0%
row 수사 의뢰 | 512건 | 634건 | +23.8%
note * {Q1}불법사금융피해신고센터{Q2} 상담 접수 기준(잠정치)
box {S1}참고{S2} 법정 최고금리는 연 20%이며, 이를 넘는 이자 약정은 무효입니다.
= insurance-fraud 보험사기 적발 실적 및 향후 대응 방향
lead {B} 상반기 보험사기 적발 금액과 인원이 모두 전년 같은 기간보다 증가
lead {B} 조직형 보험사기에 대해 수사기관과 공조를 강화할 계획
body {B} 금융감독원은 보험회사와 함께 상반기 보험사기 적발 실적을 분석하였습니다.
body {B} 자동차 사고를 고의로 일으키거나 입원 기간을 부풀리는 유형이 전체 적발 금액의 절반 이상을
  차지하였습니다.
body {B} 특히 {Q1}고액 알바{Q2}를 미끼로 젊은 층을 끌어들이는 조직형 범죄가 늘고 있어 각별한 주의가
  필요합니다.
body {B} 보험사기에 가담하면 {K1}보험사기방지 특별법{K2}에 따라 처벌받을 수 있습니다.
row 유형 | 적발 금액 | 비중
row {B} 사고 내용 조작 | 3,104억원 | 54.2%
row 허위·과다 입원 | 1,088억원 | 19.0%
row 고의 사고 | 861억원 | 15.0%
note * 보험회사 {Q1}특별조사팀(SIU){Q2} 적발 기준
box {S1}유의사항{S2} 보험사기 제보는 보험사기 신고센터에서 받습니다.
= complaints 2025년 상반기 금융민원 및 상담 동향
lead {B} 상반기 금융민원은 전년 같은 기간보다 소폭 감소
lead {B} 보험 권역 민원 비중이 가장 크고, 은행 권역은 대출 관련 민원이 늘어
body {B} 금융감독원에 접수된 상반기 금융민원은 모두 4만 8천여 건으로 집계되었습니다.
body {B} 권역별로는 보험이 가장 많았고, 중소서민 금융과 은행이 뒤를 이었습니다.
body {B} 은행 권역에서는 {Q1}대출 금리 및 중도상환수수료{Q2} 관련 민원이 증가하였습니다.
body {B} 금융감독원은 민원이 잦은 유형을 분석하여 {K1}민원 예방 안내{K2} 자료를 각 금융회사에 배포할
  예정입니다.
row 권역 | 민원 건수 | 전년 대비
row {B} 보험 | 23,402건 | -3.1%
row 중소서민 | 12,915건 | -5.4%
row 은행 | 7,330건 | +6.2%
row 금융투자 | 4,871건 | -8.0%
note * {Q1}분쟁조정 신청{Q2} 건을 포함한 접수 기준
box {S1}참고{S2} 민원 처리 결과는 금융소비자 정보포털에서 확인할 수 있습니다.
= virtual-assets 가상자산 이용자 보호를 위한 사업자 점검 결과
lead {B} 가상자산 사업자의 이용자 예치금 관리 실태를 점검
lead {B} 미흡 사항은 개선 계획을 제출받아 이행 여부를 확인할 예정
body {B} 금융감독원은 {Q1}가상자산 이용자 보호 등에 관한 법률{Q2} 시행 1년을 맞아 주요 사업자를
  점검하였습니다.
body {B} 일부 사업자는 예치금 분리 보관 내역을 제때 대사하지 않는 등 내부통제가 미흡하였습니다.
body {B} 이용자는 거래 전 사업자의 신고 수리 여부와 {K1}이용자 보호 안내{K2}를 확인하는 것이
  좋습니다.
row 점검 항목 | 대상 | 미흡
row {B} 예치금 분리 보관 | 22개사 | 3개사
row 콜드월렛 보관 비율 | 22개사 | 2개사
row 이상거래 감시 | 22개사 | 5개사
note * {Q1}원화 마켓{Q2} 및 {Q1}코인 마켓{Q2} 사업자 포함
box {S1}주의{S2} 고수익을 보장한다는 코인 투자 권유는 사기일 가능성이 높습니다.
= voice-phishing 휴가철 보이스피싱 피해 예방 안내
lead {B} 가족이나 지인을 사칭한 메신저 피싱이 휴가철에 집중
lead {B} 송금 전 반드시 전화로 본인 여부를 확인
body {B} 여름 휴가철에는 {Q1}휴대전화가 고장 났다{Q2}며 가족을 사칭하는 메신저 피싱이 늘어나는
  경향이 있습니다.
body {B} 사기범은 신분증 사진과 계좌 비밀번호를 요구하거나 원격 조종 앱 설치를 유도합니다.
body {B} 피해가 의심되면 즉시 금융회사 콜센터에 {K1}지급정지{K2}를 요청하시기 바랍니다.
row 월 | 피해 신고 | 피해액
row {B} 5월 | 1,612건 | 142억원
row 6월 | 1,755건 | 151억원
row 7월 | 2,031건 | 178억원
note * 금융회사 {Q1}피해 신고{Q2} 접수 기준
box {S1}신고{S2} 경찰청 112, 금융감독원 1332
= loan-rates 은행권 가계대출 금리 비교 공시 개선
lead {B} 가산금리 구성 항목을 세분하여 공시
lead {B} 소비자가 은행별 금리 차이를 쉽게 비교하도록 개선
body {B} 금융감독원은 은행연합회와 함께 가계대출 금리 공시 방식을 개선하였습니다.
body {B} 앞으로는 기준금리, 가산금리, 우대금리가 {Q1}신용점수 구간별{Q2}로 함께 공시됩니다.
body {B} 개선된 공시는 다음 달 공시분부터 은행연합회 누리집에서 볼 수 있습니다.
row 구분 | 현행 | 개선
row {B} 가산금리 | 합계만 공시 | 항목별 공시
row 우대금리 | 최대치만 공시 | 평균 적용치 공시
note * {Q1}분할상환식{Q2} 주택담보대출 및 일반 신용대출 대상
box {S1}참고{S2} 금리 인하 요구권 안내도 함께 공시합니다.
= internal-control 금융회사 내부통제 강화를 위한 임원 간담회 개최
lead {B} 책무구조도 도입에 맞춰 내부통제 운영 현황 점검
lead {B} 최고경영자의 내부통제 관리 의무를 재차 강조
body {B} 금융감독원은 은행, 보험, 금융투자 회사의 준법감시인과 간담회를 열었습니다.
body {B} 참석자들은 {Q1}책무구조도{Q2} 시행 이후의 운영 경험과 개선 과제를 공유하였습니다.
body {B} 금융감독원은 형식적인 점검에 그치지 않도록 {K1}실효성 평가{K2}를 강화하겠다고 밝혔습니다.
row 권역 | 참석 회사
row {B} 은행 | 17개사
row 보험 | 12개사
row 금융투자 | 9개사
note * 간담회는 {Q1}비공개{Q2}로 진행
box {S1}붙임{S2} 간담회 주요 발언 요지
= youth-education 청년층 대상 찾아가는 금융교육 확대
lead {B} 대학과 사회초년생을 대상으로 하반기 금융교육을 확대
lead {B} 신용관리와 투자 사기 예방을 중심으로 교육 과정 개편
body {B} 금융감독원은 하반기에 전국 40여 개 대학에서 찾아가는 금융교육을 실시합니다.
body {B} 교육은 {Q1}신용점수 관리{Q2}, {Q1}대출 상품 고르기{Q2}, {Q1}투자 사기 피하기{Q2} 등 실생활
  주제로 구성됩니다.
body {B} 교육 신청은 {K1}금융교육센터{K2} 누리집에서 받습니다.
row 과정 | 대상 | 시간
row {B} 기초 금융 | 대학생 | 2시간
row 첫 월급 관리 | 사회초년생 | 2시간
note * 교육 일정은 {Q1}기관 사정{Q2}에 따라 바뀔 수 있음
box {S1}문의{S2} 금융교육국 교육기획팀
= flood-support 집중호우 피해 지역 금융 지원 방안
lead {B} 피해 주민과 기업에 대출 만기 연장과 상환 유예 지원
lead {B} 보험금은 신속하게 지급하도록 보험회사에 요청
body {B} 금융감독원은 집중호우로 피해를 입은 주민과 중소기업을 위해 금융회사와 함께 지원에 나섭니다.
body {B} 피해 사실이 확인되면 기존 대출의 만기를 최대 1년 연장하고 {Q1}원리금 상환 유예{Q2}를 받을
  수 있습니다.
body {B} 보험회사는 피해 조사를 서둘러 보험금의 일부를 먼저 지급하는 {K1}추정 지급{K2} 제도를
  운영합니다.
row 지원 내용 | 대상 | 기간
row {B} 만기 연장 | 가계·기업 대출 | 최대 1년
row 상환 유예 | 가계·기업 대출 | 최대 6개월
note * 지방자치단체의 {Q1}피해 사실 확인서{Q2} 필요
box {S1}안내{S2} 각 금융회사 영업점에서 신청할 수 있습니다.
= unfair-trading 상장회사 불공정거래 조사 결과 및 조치
lead {B} 미공개 정보 이용과 시세 조종 혐의자를 수사기관에 통보
lead {B} 투자자는 근거 없는 풍문에 따른 추종 매매를 삼가야
body {B} 금융감독원은 상반기 중 처리한 불공정거래 사건의 조사 결과를 공개하였습니다.
body {B} 주요 혐의는 {Q1}미공개 중요정보 이용{Q2}과 {Q1}시세 조종{Q2}이었습니다.
body {B} 조사 결과는 {K1}자본시장과 금융투자업에 관한 법률{K2}에 따라 조치되었습니다.
row 혐의 유형 | 사건 수
row {B} 미공개 정보 이용 | 31건
row 시세 조종 | 18건
row 부정 거래 | 14건
note * {Q1}증권선물위원회{Q2} 의결 기준
box {S1}제보{S2} 불공정거래 신고센터에서 받습니다.
= pension-returns 퇴직연금 상품별 수익률 비교 공시
lead {B} 퇴직연금 사업자별 수익률을 한눈에 비교할 수 있도록 공시
lead {B} 원리금 보장형과 실적 배당형의 수익률 격차 확대
body {B} 금융감독원은 2분기 퇴직연금 수익률을 사업자별로 비교 공시하였습니다.
body {B} 가입자는 {Q1}통합연금포털{Q2}에서 본인 상품의 수익률과 수수료를 확인할 수 있습니다.
body {B} 장기 수익률을 함께 살펴보고 {K1}디폴트옵션{K2} 상품의 구성도 점검하시기 바랍니다.
row 유형 | 1년 수익률 | 10년 연환산
row {B} 원리금 보장형 | 3.4% | 2.1%
row 실적 배당형 | 8.9% | 3.8%
note * 2025년 6월 말 {Q1}적립금{Q2} 기준
box {S1}참고{S2} 수익률은 과거 실적이며 미래 수익을 보장하지 않습니다.
"""


def _parse_stories(text: str) -> tuple[Story, ...]:
    """The stories of *text* (see :data:`_STORY_TEXT`)."""
    stories = []
    for block in text.replace("\n  ", " ").strip().removeprefix("= ").split("\n= "):
        head, *lines = block.splitlines()
        slug, subject = head.split(" ", 1)
        parts: dict[str, list[str]] = {"lead": [], "body": [], "row": [], "note": [], "box": []}
        for line in lines:
            part, value = line.split(" ", 1)
            parts[part].append(value)
        rows = tuple(tuple(row.split(" | ")) for row in parts["row"])
        lead, body = tuple(parts["lead"]), tuple(parts["body"])
        stories.append(Story(slug, subject, lead, body, rows, parts["note"][0], parts["box"][0]))
    return tuple(stories)


STORIES = _parse_stories(_STORY_TEXT)


#: Parts of a story that can carry PUA characters (see :func:`hwp5_blocks`).
PARTS = frozenset({"lead", "body", "table", "note", "box", "header"})
_FOOTNOTE_ANCHOR = "위 수치는 잠정치로 추후 변동될 수 있습니다."


def _r(text: str, part: str, pua: frozenset[str]) -> str:
    return render(text, pua=part in pua)


def story_texts(story: Story, pua: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """Every string of *story* by part, rendered (PUA only in the parts named in *pua*).

    >>> texts = story_texts(STORIES[0], frozenset({"table"}))
    >>> texts["subject"] == [STORIES[0].subject], texts["lead"][0][0]
    (True, '□')
    """
    unknown = pua - PARTS
    if unknown:
        raise ValueError(f"unknown parts: {sorted(unknown)}")
    return {
        "subject": [story.subject],
        "header": [_r("{B} " + story.header, "header", pua)],
        "lead": [_r(t, "lead", pua) for t in story.lead],
        "body": [_r(t, "body", pua) for t in story.body],
        "table": [_r(cell, "table", pua) for row in story.table for cell in row],
        "anchor": [_FOOTNOTE_ANCHOR],
        "note": [_r(story.note, "note", pua)],
        "box": [_r(story.box, "box", pua)],
        "contact": [story.contact],
    }


def hwp5_blocks(story: Story, pua: frozenset[str] = frozenset()) -> list[Block]:
    """*story* as HWP 5 blocks: subject, page header, lead, body, table, footnote, text
    box, contact -- every one of them document text a reader must see."""
    t = story_texts(story, pua)
    rows = [[_r(cell, "table", pua) for cell in row] for row in story.table]
    note, box = Footnote(t["note"][0], anchor=_FOOTNOTE_ANCHOR), TextBox(t["box"][0])
    return [
        *t["subject"],
        HeaderFooter(t["header"][0]),
        *t["lead"],
        *t["body"],
        Table(rows),
        note,
        box,
        *t["contact"],
    ]


def flat_blocks(story: Story, pua: frozenset[str] = frozenset()) -> list[FlatBlock]:
    """*story* as HWPX blocks: paragraphs and one table (notes become paragraphs)."""
    flat: list[FlatBlock] = []
    for block in hwp5_blocks(story, pua):
        if isinstance(block, Table):
            flat.append(block.rows)
        elif isinstance(block, Footnote):
            flat.append(f"{block.anchor} {block.text}")
        else:
            flat.append(block if isinstance(block, str) else block.text)
    return flat


def pdf_pages(
    story: Story, pua: frozenset[str] = frozenset(), *, width: int = 40, per_page: int = 40
) -> list[list[str]]:
    """*story* as PDF pages: lines wrapped at *width* characters, table rows joined."""
    lines: list[str] = []
    for block in flat_blocks(story, pua):
        if isinstance(block, str):
            lines.extend(textwrap.wrap(block, width) or [""])
        else:
            lines.extend(" | ".join(row) for row in block)
        lines.append("")
    return [lines[i : i + per_page] for i in range(0, len(lines), per_page)]
