"""``report.html``: one self-contained page (no network) people read at a glance.

The page is rendered here, server side, with every untrusted string (file names,
reasons, context snippets) passed through :func:`html.escape`; the inline script only
sorts, filters and expands rows that are already there. The template, style sheet
and script are package data under ``assets/``.

>>> share_colour(0, 3), share_colour(3, 3)
('#2e9e5b', '#b2182b')
>>> weekday_ko("2025-07-21")
'월'
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from datetime import date as _date
from importlib import resources
from typing import Any

from hwpscan.models import FileResult, Location, Status, TextStats
from hwpscan.report.pivot import FORMAT_ORDER, UNKNOWN_DATE, cell_text, pivot_counts
from hwpscan.report.summary import Figures, figures

__all__ = ["render_html", "share_colour", "weekday_ko"]

STATUS_KO = {
    Status.CLEAN: "정상",
    Status.CONTAMINATED: "오염",
    Status.ENCRYPTED: "암호화",
    Status.DISTRIBUTION: "배포용",
    Status.UNSUPPORTED: "미지원",
    Status.CORRUPT: "손상",
    Status.ERROR: "오류",
}
_WEEKDAYS = "월화수목금토일"
#: Longest date span drawn as a calendar; longer runs keep the table only.
CALENDAR_MAX_DAYS = 400
#: PUA code points named in a file's row; the detail lists them all.
PUA_SHOWN = 1
_MARKER_RE = re.compile(r"@[A-Z_]+@")


def e(value: object) -> str:
    """Escape for HTML text and attribute values."""
    return html.escape(str(value), quote=True)


def _asset(name: str) -> str:
    return resources.files("hwpscan.report").joinpath("assets", name).read_text(encoding="utf-8")


def weekday_ko(day: str) -> str:
    """The Korean weekday of a ``YYYY-MM-DD`` date, or '' for anything else."""
    try:
        return _WEEKDAYS[_date.fromisoformat(day).weekday()]
    except ValueError:
        return ""


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


def _text_colour(contaminated: int, files: int) -> str:
    return "#fff" if contaminated == 0 or contaminated / files > 0.4 else "#3a0a0f"


# -- sections --------------------------------------------------------------------


def _meta(
    run_id: str | None,
    kind: str | None,
    started: str | None,
    args: dict[str, Any] | None,
    root: str = "",
) -> str:
    rows = []
    if run_id:
        rows.append(("실행 run", run_id))
    if kind:
        rows.append(("종류 kind", kind))
    if started:
        rows.append(("시작 started", started))
    if root:
        rows.append(("폴더 folder", root))
    if args:
        shown = ", ".join(
            f"{k}={' '.join(map(str, v)) if isinstance(v, list) else v}"
            for k, v in sorted(args.items())
            if v not in (None, [], "", False)
        )
        if shown:
            rows.append(("인자 args", shown[:160]))
    return "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in rows)


def _cards(f: Figures) -> str:
    cards = [
        ("files", "파일 files", f.files, ""),
        ("contaminated", "오염 contaminated", f.contaminated, "bad" if f.contaminated else "ok"),
        ("clean", "정상 clean", f.clean, "ok"),
        ("unreadable", "읽기 불가 unreadable", f.unreadable, "warn" if f.unreadable else ""),
        ("surrogates", "서로게이트 surrogates", f.surrogates, "bad" if f.surrogates else ""),
        ("pairs", "복원 가능한 쌍 pairs", f.pairs, ""),
        ("orphans", "고아 orphans", f.orphans, "bad" if f.orphans else ""),
        ("pua", "사용자 정의 영역 PUA", f.pua, ""),
        ("dates", "오염된 날짜 / 전체 dates", f"{len(f.contaminated_dates)} / {f.dates}", ""),
    ]
    return "".join(
        f'<div class="card {cls}" data-figure="{key}"><div class="v">'
        f'{e(f"{v:,}" if isinstance(v, int) else v)}</div><div class="k">{e(label)}</div></div>'
        for key, label, v, cls in cards
    )


def _verdict(f: Figures) -> tuple[str, str]:
    if f.contaminated:
        days = ", ".join(f.contaminated_dates[:12]) + (
            " …" if len(f.contaminated_dates) > 12 else ""
        )
        text = (
            f"파일 {f.files:,}개 중 {f.contaminated:,}개 오염 "
            f"({f.contaminated} of {f.files} contaminated)"
        )
        return "bad", text + (f" · 오염된 날짜: {days}" if days else "")
    return "ok", f"오염된 파일 없음 · no contaminated file among {f.files:,}"


def _heatmap(results: Sequence[FileResult]) -> str:
    counts = pivot_counts(results)
    if counts.empty:
        return '<p class="none">결과가 없습니다. No results.</p>'
    formats = sorted(set(counts["format"]), key=FORMAT_ORDER.index)
    dates = sorted(set(counts["date"]), key=lambda d: (d == UNKNOWN_DATE, d))
    cells = {(r.date, r.format): r for r in counts.itertuples(index=False)}
    head = "".join(f'<th scope="col">{e(fmt)}</th>' for fmt in formats)
    rows = []
    for day in dates:
        wd = weekday_ko(day)
        we = " we" if wd in "토일" and wd else ""
        tds = []
        day_files = day_bad = 0
        for fmt in formats:
            c = cells.get((day, fmt))
            tds.append(_heat_cell(day, fmt, c))
            if c is not None:
                day_files += c.files
                day_bad += c.contaminated
        day_unread = sum(cells[(day, f)].unreadable for f in formats if (day, f) in cells)
        state = (
            f'<span class="badge contaminated">{day_bad}/{day_files} 오염</span>'
            if day_bad
            else '<span class="badge clean">정상</span>'
            if day_files > day_unread
            else ""
        )
        if day_unread:
            state += f' <span class="badge other">읽기 불가 {day_unread}</span>'
        rows.append(
            f'<tr data-date="{e(day)}"><th scope="row">{e(day)}'
            f'<span class="wd{we}">{e(wd)}</span></th>{"".join(tds)}'
            f'<td class="daystate">{state}</td></tr>'
        )
    return (
        f'<table id="heatmap" class="heat"><thead><tr><th scope="col">날짜 date</th>{head}'
        f"<th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _heat_cell(day: str, fmt: str, c: Any | None) -> str:
    """One heatmap cell; *c* is a row of :func:`pivot_counts` (None: no file)."""
    if c is None:
        return (
            f'<td class="cell empty" data-date="{e(day)}" data-format="{e(fmt)}" data-files="0" '
            f'data-contaminated="0" data-clean="0" data-unreadable="0" title="파일 없음">—</td>'
        )
    files, bad, clean, unread = c.files, c.contaminated, c.clean, c.unreadable
    label = cell_text(files, bad, unread)
    attrs = (
        f'data-date="{e(day)}" data-format="{e(fmt)}" data-files="{files}" '
        f'data-contaminated="{bad}" data-clean="{clean}" data-unreadable="{unread}" '
        f'title="{e(day)} {e(fmt)}: {e(label)}" tabindex="0"'
    )
    if unread == files:
        return (
            f'<td class="cell unread" {attrs}><span class="big">{unread}</span>'
            '<span class="small">읽기 불가</span></td>'
        )
    style = f"background:{share_colour(bad, files)};color:{_text_colour(bad, files)}"
    small = "오염" if bad else "정상"
    small += f" · 불가 {unread}" if unread else ""
    return (
        f'<td class="cell" {attrs} style="{style}"><span class="big">{bad}/{files}</span>'
        f'<span class="small">{small}</span></td>'
    )


def _calendar(results: Sequence[FileResult]) -> str:
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
    cells = [f'<div class="wh">{w}</div>' for w in _WEEKDAYS]
    cursor = first
    while cursor <= days[-1] or cursor.weekday() != 0:
        if cursor < days[0] or cursor > days[-1]:
            cells.append('<div class="day pad"></div>')
        else:
            key = cursor.isoformat()
            files, bad = per_day.get(key, [0, 0])
            if files:
                colours = f"background:{share_colour(bad, files)};color:{_text_colour(bad, files)}"
                style = f' style="{colours}"'
                note = f"{bad}/{files} 오염" if bad else f"{files} 정상"
                cells.append(
                    f'<div class="day has" data-date="{key}" data-files="{files}" '
                    f'data-contaminated="{bad}"{style}><b>{cursor.month}/{cursor.day}</b>{note}</div>'
                )
            else:
                cells.append(
                    f'<div class="day" data-date="{key}"><b>{cursor.month}/{cursor.day}</b>'
                    "자료 없음</div>"
                )
        cursor += timedelta(days=1)
    return (
        f'<div class="calendar"><h3>달력 calendar <small>(모든 형식 all formats)</small></h3>'
        f'<div class="cal" id="calendar">{"".join(cells)}</div></div>'
    )


def _options(values: Iterable[str], labels: dict[str, str] | None = None) -> str:
    labels = labels or {}
    return "".join(f'<option value="{e(v)}">{e(labels.get(v, v))}</option>' for v in values)


def _pua_label(cp: str) -> str:
    try:
        from hwpscan.forensics.pua import pua_name
    except ImportError:  # pragma: no cover - the PUA table ships with the package
        return ""
    try:
        return pua_name(int(cp.removeprefix("U+"), 16)) or ""
    except ValueError:
        return ""


def common_root(paths: Sequence[str]) -> str:
    """The folder all paths share (shown once in the header), or ''.

    >>> common_root(["/a/b/2025-07-21/x.hwp", "/a/b/2025-07-22/y.pdf"])
    '/a/b/'
    >>> common_root(["x.hwp"]), common_root([])
    ('', '')
    """
    if not paths:
        return ""
    prefix = os.path.commonprefix(list(paths))
    cut = max(prefix.rfind("/"), prefix.rfind("\\"))
    return prefix[: cut + 1] if cut >= 0 else ""


def _badge(status: Status) -> str:
    cls = status.value if status in (Status.CLEAN, Status.CONTAMINATED) else "other"
    return (
        f'<span class="badge {cls}">{e(STATUS_KO[status])}<small>{e(status.value)}</small></span>'
    )


def _file_body(index: int, r: FileResult, root: str = "") -> str:
    # counts are shown only for a body that was read (null in the JSON record otherwise)
    b, scanned = r.body, r.body_read
    pua_total = sum(b.pua.values())
    search = " ".join(
        [
            r.path,
            r.date or "",
            r.format.value,
            r.status.value,
            STATUS_KO[r.status],
            r.reason or "",
            *b.pua,
            *(_pua_label(cp) for cp in b.pua),
        ]
    ).lower()
    keys = {
        "path": r.path,
        "date": r.date or "",
        "format": r.format.value,
        "status": r.status.value,
        "chars": b.chars if scanned else "",
        "surrogates": b.surrogates if scanned else "",
        "pairs": b.pairs if scanned else "",
        "orphans": b.orphans if scanned else "",
        "utf8": ("ok" if b.utf8_ok else "fail") if scanned else "",
        "pua": pua_total,
    }
    data = " ".join(f'data-k-{k}="{e(v)}"' for k, v in keys.items())

    def num(n: int) -> str:
        if not scanned:
            return '<td class="n"></td>'
        return f'<td class="n{" hot" if n else ""}">{n:,}</td>'

    reason = (
        f'<span class="reason">{e(r.reason)}</span>' if r.reason and not r.status.scanned else ""
    )
    utf8 = (
        ""
        if not scanned
        else '<span class="utf8-ok">ok</span>'
        if b.utf8_ok
        else '<span class="utf8-fail">FAIL</span>'
    )
    ranked = sorted(b.pua.items(), key=lambda kv: (-kv[1], kv[0]))
    pua = " ".join(
        f'<code title="{e(_pua_label(cp))}">{e(cp)}×{n}</code>' for cp, n in ranked[:PUA_SHOWN]
    )
    if len(ranked) > PUA_SHOWN:
        pua += (
            f' <span class="more" title="상세 보기 see details">+{len(ranked) - PUA_SHOWN}</span>'
        )
    main = (
        f'<tr class="main"><td><button class="toggle" type="button" aria-expanded="false" '
        f'aria-controls="d{index}" title="상세 details">▶</button></td>'
        f'<td class="path" title="{e(r.path)}">{e(r.path[len(root) :])}{reason}</td>'
        f'<td class="mono nw">{e(r.date or "—")}</td>'
        f"<td>{e(r.format.value)}</td><td>{_badge(r.status)}</td>"
        f"{num(b.chars).replace(' hot', '')}{num(b.surrogates)}{num(b.pairs)}{num(b.orphans)}"
        f'<td>{utf8}</td><td class="pua">{pua}</td></tr>'
    )
    return (
        f'<tbody class="file" data-status="{e(r.status.value)}" data-format="{e(r.format.value)}" '
        f'data-date="{e(r.date or UNKNOWN_DATE)}" data-search="{e(search)}" {data}>\n{main}\n'
        f'<tr class="detail" id="d{index}" hidden><td colspan="11">{_detail(r)}</td></tr>\n</tbody>'
    )


def _detail(r: FileResult) -> str:
    b = r.body
    facts = [("경로 path", r.path), ("sha256", r.sha256 or "—"), ("크기 bytes", f"{r.bytes:,}")]
    if r.reason:
        facts.append(("사유 reason", r.reason))
    if not r.body_read:
        facts.append(("본문 body", "읽지 못함: 개수 없음 not read: no counts"))
    if b.utf8_error:
        facts.append(("UTF-8 오류 error", b.utf8_error))
    if b.replacement_chars:
        facts.append(("U+FFFD", str(b.replacement_chars)))
    for name, stats in (("미리보기 PrvText", r.preview), ("문서 정보 DocInfo", r.meta)):
        if stats is not None:
            facts.append((name, _stats_line(stats)))
    facts += [("경고 warning", w) for w in r.warnings]
    out = ["<dl>" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts) + "</dl>"]
    if b.pua:
        out.append("<h4>사용자 정의 영역 문자 private-use characters</h4>" + _pua_table(b.pua))
    if b.locations:
        out.append(
            f"<h4>결함 위치 defect locations (처음 {len(b.locations)}개 first)</h4>"
            + _locations_table(b.locations)
        )
    return "".join(out)


def _stats_line(s: TextStats) -> str:
    return (
        f"surrogates {s.surrogates} (pairs {s.pairs}, orphans {s.orphans}), "
        f"UTF-8 {'ok' if s.utf8_ok else 'FAIL'}, PUA {sum(s.pua.values())}"
    )


def _pua_table(pua: dict[str, int]) -> str:
    rows = "".join(
        f'<tr><td class="mono">{e(cp)}</td><td>{e(_pua_label(cp) or "(알 수 없음 unknown)")}</td>'
        f'<td class="n">{n:,}</td></tr>'
        for cp, n in sorted(pua.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    head = "<tr><th>코드 포인트</th><th>이름 name</th><th>개수</th></tr>"
    return f'<table class="locs pua">{head}{rows}</table>'


def _locations_table(locations: Sequence[Location]) -> str:
    rows = "".join(
        f'<tr data-kind="{e(loc.kind)}"><td class="mono">{e(loc.stream)}</td>'
        f'<td class="n">{loc.paragraph}</td><td class="n">{loc.offset}</td><td>{e(loc.kind)}</td>'
        f'<td class="mono">{e(loc.codepoint)}</td>'
        f'<td>{e(_pua_label(loc.codepoint))}</td><td class="mono">{e(loc.units)}</td>'
        f'<td><span class="ctx">{e(loc.context)}</span></td></tr>'
        for loc in locations
    )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "스트림 stream",
            "문단 paragraph",
            "오프셋 offset",
            "종류 kind",
            "코드 포인트 code point",
            "PUA 이름 name",
            "코드 단위 units",
            "문맥 context",
        )
    )
    return f'<table class="locs"><tr>{head}</tr>{rows}</table>'


# -- the page ----------------------------------------------------------------------


def render_html(
    results: Sequence[FileResult],
    *,
    title: str = "hwpscan 보고서",
    run_id: str | None = None,
    kind: str | None = None,
    started: str | None = None,
    args: dict[str, Any] | None = None,
    generated: datetime | None = None,
) -> str:
    """The complete page as a string."""
    from hwpscan import __version__

    f = figures(results)
    verdict_class, verdict = _verdict(f)
    statuses = [s.value for s in Status if any(r.status is s for r in results)]
    formats = sorted({r.format.value for r in results}, key=FORMAT_ORDER.index)
    dates = sorted({r.date or UNKNOWN_DATE for r in results}, key=lambda d: (d == UNKNOWN_DATE, d))
    stamp = (generated or datetime.now(UTC)).isoformat(timespec="seconds")
    root = common_root([r.path for r in results])
    parts = {
        "@CSS@": _asset("report.css"),
        "@JS@": _asset("report.js"),
        "@TITLE@": e(title),
        "@VERSION@": e(__version__),
        "@GENERATED@": e(stamp),
        "@META@": _meta(run_id, kind, started, args, root),
        "@VERDICT_CLASS@": verdict_class,
        "@VERDICT@": e(verdict),
        "@CARDS@": _cards(f),
        "@HEATMAP@": _heatmap(results),
        "@CALENDAR@": _calendar(results),
        "@STATUS_OPTIONS@": _options(
            statuses, {s.value: f"{STATUS_KO[s]} {s.value}" for s in Status}
        ),
        "@FORMAT_OPTIONS@": _options(formats),
        "@DATE_OPTIONS@": _options(dates),
        "@ROWS@": "\n".join(_file_body(i, r, root) for i, r in enumerate(results)),
    }
    # one pass: text put in by one marker is never scanned for another
    return _MARKER_RE.sub(lambda m: parts.get(m.group(), m.group()), _asset("report.html"))
