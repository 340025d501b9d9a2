"""Korean press-release text for fixtures: written for hwpscan, shaped like 금융감독원 releases.

The sentences are our own, in ``stories.json``. Their markers stand for the characters
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

import json
import pkgutil
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


def _load_stories() -> tuple[Story, ...]:
    """The stories of ``stories.json`` beside this module (tables as tuples of rows)."""
    raw = pkgutil.get_data(__name__, "stories.json")
    assert raw is not None  # a regular package: its loader reads files
    data = json.loads(raw)
    for story in data:
        story.update(lead=tuple(story["lead"]), body=tuple(story["body"]))
        story["table"] = tuple(map(tuple, story["table"]))
    return tuple(Story(**story) for story in data)


STORIES = _load_stories()


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
