"""The API emulator's bundled catalogue: dated press releases that replay the incident.

Built on demand, never stored, from :mod:`hwpscan.rehearsal.synth.press`. As the
incident write-up found: HWP attachments contaminated on 7/21, 7/22, 7/24, 7/29-7/31 and
8/5-8/11, clean on the other days; HWPX and PDF always clean; no release on 8/2-8/3.
Bodies are HTML with the API's backslash-less escapes (``nn``, ``rn``, ``u203B``).

>>> releases = incident_catalogue()
>>> releases[0].date, releases[0].attachments[0].name.endswith(".hwp")
('2025-07-21', True)
>>> sorted(expected_contaminated_dates())[:3]
['2025-07-21', '2025-07-22', '2025-07-24']
"""

from __future__ import annotations

import functools
import html
from dataclasses import dataclass
from datetime import date as _date

from hwpscan.rehearsal.synth.hwp5_writer import Block, build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.rehearsal.synth.press import (
    PARTS,
    STORIES,
    Story,
    flat_blocks,
    hwp5_blocks,
    pdf_pages,
    story_texts,
)

FIRST_CONTENT_ID = 138_201
_WEEKDAYS = "월화수목금토일"
_ALL = frozenset(PARTS)
_NONE: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attached file. ``kind`` is ``hwp``, ``hwpx`` or ``pdf``; ``contaminated`` is
    the ground truth (an HWP whose body holds surrogate pairs)."""

    name: str
    data: bytes
    kind: str
    contaminated: bool = False


@dataclass(frozen=True, slots=True)
class Release:
    """One press release as the API lists it."""

    date: str  # YYYY-MM-DD
    content_id: int
    subject: str
    body_html: str
    reg_time: str  # YYYY-MM-DD HH:MM:SS
    attachments: tuple[Attachment, ...]


# Attachment codes: "H!" contaminated HWP, "H" clean HWP, "X" HWPX, "P" PDF, "h!" the
# small one-paragraph contaminated HWP. One string per release.
_SCHEDULE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("2025-07-21", ("H! P", "H!", "X P")),
    ("2025-07-22", ("H! X", "H! P")),
    ("2025-07-23", ("H P", "H", "X")),
    ("2025-07-24", ("H! P", "H X", "H!")),
    ("2025-07-25", ("X P", "X")),
    ("2025-07-26", ("H",)),
    ("2025-07-27", ("H P",)),
    ("2025-07-28", ("H P", "H X")),
    ("2025-07-29", ("H! P", "H!")),
    ("2025-07-30", ("H! X", "H P")),
    ("2025-07-31", ("H! P", "H! X")),
    ("2025-08-01", ("H P", "X")),
    ("2025-08-04", ("H P", "H X")),
    ("2025-08-05", ("h! P", "H! X", "P")),
    ("2025-08-06", ("H! P", "H")),
    ("2025-08-07", ("H! X",)),
    ("2025-08-08", ("H! P", "H!")),
    ("2025-08-09", ("H!",)),
    ("2025-08-10", ("H! P",)),
    ("2025-08-11", ("H! P", "X P")),
)

_SUBJECT_FORMS = ("{s}", "{s} 관련 후속 조치", "{s} (2차)", "{s} 세부 추진 계획")
_REG_HOURS = (6, 9, 12, 14, 16)


def korean_date(iso: str) -> str:
    """``2025. 7. 21.(월)`` as Korean press releases write dates.

    >>> korean_date("2025-08-05")
    '2025. 8. 5.(화)'
    """
    d = _date.fromisoformat(iso)
    return f"{d.year}. {d.month}. {d.day}.({_WEEKDAYS[d.weekday()]})"


def body_html(story: Story, iso: str, hour: int) -> str:
    """The ``contentKor`` HTML of a release, with the API's backslash-less escapes.

    >>> page = body_html(STORIES[0], "2025-07-21", 12)
    >>> page.startswith("<p>u203B 이 자료는 2025. 7. 21.(월) 12:00 이후"), "nn<p>" in page
    (True, True)
    """
    texts = story_texts(story)
    paras = [
        f"u203B 이 자료는 {korean_date(iso)} {hour:02d}:00 이후 보도하여 주시기 바랍니다.",
        "&nbsp;",
        f"<strong>{_entities(story.subject)}</strong>",
        *(_entities(t) for t in texts["lead"]),
        "&nbsp;",
        *(_entities(t) for t in texts["body"]),
        f"&lt;붙임&gt; u2018{_entities(story.subject)}u2019 세부 자료",
    ]
    return (
        "nn".join(f"<p>{p}</p>" for p in paras)
        + "rn<p>u203B 자세한 내용은 첨부파일을 참고하시기 바랍니다.</p>"
    )


def _entities(text: str) -> str:
    return html.escape(text, quote=False).replace("·", "&middot;")


def _attachments(codes: str, story: Story, subject: str, iso: str) -> tuple[Attachment, ...]:
    dateline = f"보도 시점: {korean_date(iso)} 12:00"
    out: list[Attachment] = []
    for code in codes.split():
        label = "(보도참고자료) " if out else "(보도자료) "
        name = label + subject
        if code == "h!":
            blocks: list[Block] = [chr(0xF02B1) + f" 보도 일정 변경: {korean_date(iso)} 자료 배포"]
            out.append(
                Attachment(label + "보도 일정 변경 안내.hwp", build_hwp5(blocks), "hwp", True)
            )
        elif code[0] == "H":
            blocks = [dateline, *hwp5_blocks(story, _ALL if code == "H!" else _NONE)]
            out.append(Attachment(name + ".hwp", build_hwp5(blocks), "hwp", code == "H!"))
        elif code == "X":
            data = build_hwpx([dateline, *flat_blocks(story, _ALL)], title=subject)
            out.append(Attachment(name + ".hwpx", data, "hwpx"))
        else:  # "P"
            pages = pdf_pages(story, _ALL)
            pages[0] = [dateline, *pages[0]]
            out.append(Attachment(name + ".pdf", build_pdf(pages), "pdf"))
    return tuple(out)


@functools.cache
def _catalogue() -> tuple[Release, ...]:
    releases: list[Release] = []
    for n, (iso, codes) in enumerate((iso, codes) for iso, day in _SCHEDULE for codes in day):
        story = STORIES[n % len(STORIES)]
        subject = _SUBJECT_FORMS[(n // len(STORIES)) % len(_SUBJECT_FORMS)].format(s=story.subject)
        content_id, hour = FIRST_CONTENT_ID + n, _REG_HOURS[n % len(_REG_HOURS)]
        reg_time = f"{iso} {hour:02d}:{(content_id * 7) % 60:02d}:{(content_id * 13) % 60:02d}"
        body, attachments = body_html(story, iso, hour), _attachments(codes, story, subject, iso)
        releases.append(Release(iso, content_id, subject, body, reg_time, attachments))
    return tuple(releases)


def incident_catalogue() -> list[Release]:
    """Every release from 2025-07-21 to 2025-08-11, in date order (built once, cached)."""
    return list(_catalogue())


def expected_contaminated_dates() -> set[str]:
    """The dates the incident found contaminated (from the write-up, not the catalogue).

    >>> "2025-08-04" in expected_contaminated_dates(), "2025-08-10" in expected_contaminated_dates()
    (False, True)
    """
    july = {f"2025-07-{d}" for d in (21, 22, 24, 29, 30, 31)}
    august = {f"2025-08-{d:02d}" for d in range(5, 12)}
    return july | august
