"""The overview of ``report.html``: the date x format heatmap and the calendar."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date as _date
from datetime import timedelta
from typing import Any

from hwpscan.models import FileResult, Status
from hwpscan.report.cells import FORMAT_ORDER, UNKNOWN_DATE, cell_text, pivot_counts
from hwpscan.report.html_common import (
    WEEKDAYS,
    WEEKDAYS_EN,
    e,
    share_style,
    weekday_ko,
    weekday_label,
)

#: The tooltip of every date that filters the file list.
PICK_TITLE = "이 날짜의 파일 보기 show this date's files"
#: Longest date span drawn as a calendar; longer runs keep the table only.
CALENDAR_MAX_DAYS = 400


def heatmap(results: Sequence[FileResult]) -> str:
    """Files per date and format, coloured by the contaminated share."""
    counts = pivot_counts(results)
    if counts.empty:
        return '<p class="none">결과가 없습니다. No results.</p>'
    formats = sorted(set(counts["format"]), key=FORMAT_ORDER.index)
    dates = sorted(set(counts["date"]), key=lambda d: (d == UNKNOWN_DATE, d))
    # rows of pivot_counts: plain named tuples of ints under their column names
    cells: dict[tuple[Any, Any], Any] = {
        (r.date, r.format): r for r in counts.itertuples(index=False)
    }
    head = "".join(f'<th scope="col">{e(fmt)}</th>' for fmt in formats)
    rows = []
    for day in dates:
        wd = weekday_ko(day)
        we = " we" if wd in "토일" and wd else ""
        tds = "".join(heat_cell(day, fmt, cells.get((day, fmt))) for fmt in formats)
        present = [cells[day, fmt] for fmt in formats if (day, fmt) in cells]
        day_files, day_bad, day_unread = (
            sum(getattr(c, k) for c in present) for k in ("files", "contaminated", "unreadable")
        )
        pick = f'data-date="{e(day)}" tabindex="0" role="button" title="{e(day)}: {PICK_TITLE}"'
        state = (
            f'<span class="badge contaminated" {pick}>'
            f"{day_bad}/{day_files} 오염 contaminated</span>"
            if day_bad
            else f'<span class="badge clean" {pick}>정상 clean</span>'
            if day_files > day_unread
            else ""
        )
        if day_unread:
            state += f' <span class="badge other" {pick}>읽기 불가 unreadable {day_unread}</span>'
        rows.append(
            f'<tr data-date="{e(day)}"><th scope="row" {pick}>{e(day)}'
            f'<span class="wd{we}">{e(weekday_label(day))}</span></th>{tds}'
            f'<td class="daystate">{state}</td></tr>'
        )
    return (
        f'<table id="heatmap" class="heat"><thead><tr><th scope="col">날짜 date</th>{head}'
        f"<th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def heat_cell(day: str, fmt: str, c: Any | None) -> str:
    """One heatmap cell; *c* is a row of :func:`pivot_counts` (None: no file)."""
    files, bad, clean, unread = (c.files, c.contaminated, c.clean, c.unreadable) if c else (0,) * 4
    attrs = (
        f'data-date="{e(day)}" data-format="{e(fmt)}" data-files="{files}" '
        f'data-contaminated="{bad}" data-clean="{clean}" data-unreadable="{unread}" '
    )
    if c is None:
        return f'<td class="cell empty" {attrs}title="파일 없음 no file">—</td>'
    attrs += f'title="{e(day)} {e(fmt)}: {e(cell_text(files, bad, unread))}" tabindex="0"'
    if unread == files:
        return (
            f'<td class="cell unread" {attrs}><span class="big">{unread}</span>'
            '<span class="small">읽기 불가 unread.</span></td>'
        )
    style = share_style(bad, files)
    small = "오염 contam." if bad else "정상 clean"
    small += f" · 불가 unread. {unread}" if unread else ""
    return (
        f'<td class="cell" {attrs} style="{style}"><span class="big">{bad}/{files}</span>'
        f'<span class="small">{small}</span></td>'
    )


def calendar(results: Sequence[FileResult]) -> str:
    """A month-style calendar of the dates (all formats); '' for one day or a long span."""
    per_day: dict[str, list[int]] = {}
    for r in results:
        if r.date and r.date != UNKNOWN_DATE:
            tally = per_day.setdefault(r.date, [0, 0])
            tally[0] += 1
            tally[1] += r.status is Status.CONTAMINATED
    try:
        days = sorted(_date.fromisoformat(d) for d in per_day)
    except ValueError:
        return ""
    if len(days) < 2 or (days[-1] - days[0]).days > CALENDAR_MAX_DAYS:
        return ""
    first = days[0] - timedelta(days=days[0].weekday())
    cells = [
        f'<div class="wh">{ko} <span lang="en">{en}</span></div>'
        for ko, en in zip(WEEKDAYS, WEEKDAYS_EN, strict=True)
    ]
    cursor = first
    while cursor <= days[-1] or cursor.weekday() != 0:
        if cursor < days[0] or cursor > days[-1]:
            cells.append('<div class="day pad"></div>')
        else:
            key = cursor.isoformat()
            files, bad = per_day.get(key, [0, 0])
            if files:
                note = f"{bad}/{files} 오염 contam." if bad else f"{files} 정상 clean"
                cells.append(
                    f'<div class="day has" data-date="{key}" data-files="{files}" '
                    f'data-contaminated="{bad}" style="{share_style(bad, files)}" tabindex="0" '
                    f'role="button" title="{key}: {PICK_TITLE}"><b>{cursor.month}/{cursor.day}</b>'
                    f"{note}</div>"
                )
            else:
                cells.append(
                    f'<div class="day" data-date="{key}" title="{key}: 자료 없음 no files">'
                    f"<b>{cursor.month}/{cursor.day}</b>자료 없음 no files</div>"
                )
        cursor += timedelta(days=1)
    return (
        f'<div class="calendar"><h3>달력 calendar <small>(모든 형식 all formats)</small></h3>'
        f'<div class="cal" id="calendar">{"".join(cells)}</div></div>'
    )
