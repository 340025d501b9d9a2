"""Small pieces every part of ``report.html`` uses: escaping, Korean labels, colours.

>>> share_colour(0, 3), share_colour(3, 3)
('#2e9e5b', '#b2182b')
>>> weekday_ko("2025-07-21"), weekday_label("2025-07-27")
('월', '일 Sun')
"""

from __future__ import annotations

import html
from datetime import date as _date

from hwpscan.models import Status

STATUS_KO = {
    Status.CLEAN: "정상",
    Status.CONTAMINATED: "오염",
    Status.ENCRYPTED: "암호화",
    Status.DISTRIBUTION: "배포용",
    Status.UNSUPPORTED: "미지원",
    Status.CORRUPT: "손상",
    Status.ERROR: "오류",
}
WEEKDAYS = "월화수목금토일"
WEEKDAYS_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def e(value: object) -> str:
    """Escape for HTML text and attribute values."""
    return html.escape(str(value), quote=True)


def weekday_ko(day: str) -> str:
    """The Korean weekday of a ``YYYY-MM-DD`` date, or '' for anything else."""
    try:
        return WEEKDAYS[_date.fromisoformat(day).weekday()]
    except ValueError:
        return ""


def weekday_label(day: str) -> str:
    """The weekday of a ``YYYY-MM-DD`` date in Korean and English ('월 Mon'), or ''."""
    ko = weekday_ko(day)
    return f"{ko} {WEEKDAYS_EN[WEEKDAYS.index(ko)]}" if ko else ""


def share_colour(contaminated: int, files: int) -> str:
    """Green when nothing is contaminated, light to dark red as the share grows.

    >>> share_colour(1, 3)
    '#de7665'
    """
    if contaminated == 0:
        return "#2e9e5b"
    share = contaminated / files
    light, dark = (0xF4, 0xA5, 0x82), (0xB2, 0x18, 0x2B)
    rgb = (round(lo + (hi - lo) * share) for lo, hi in zip(light, dark, strict=True))
    return "#" + "".join(f"{c:02x}" for c in rgb)


def share_style(contaminated: int, files: int) -> str:
    """The style of a cell: :func:`share_colour` behind a text colour readable on it."""
    text = "#fff" if contaminated == 0 or contaminated / files > 0.4 else "#3a0a0f"
    return f"background:{share_colour(contaminated, files)};color:{text}"
