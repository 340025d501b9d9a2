"""``report.html``: one self-contained page (no network) people read at a glance.

The page is rendered here, server side, with every untrusted string (file names,
reasons, context snippets) passed through :func:`html.escape`; the inline script only
sorts, filters and expands rows that are already there. The template, style sheet
and script are package data under ``assets/``.

Parts: :mod:`~hwpscan.report.html_common` (escaping, labels, colours),
:mod:`~hwpscan.report.html_charts` (heatmap, calendar) and
:mod:`~hwpscan.report.html_rows` (the file table).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from importlib import resources
from itertools import islice
from typing import TYPE_CHECKING

from hwpscan import __version__
from hwpscan.forensics.twins import pdf_losses
from hwpscan.matrix.matrix_rows import MatrixRow
from hwpscan.models import FileResult, Status
from hwpscan.report.cells import FORMAT_ORDER, UNKNOWN_DATE
from hwpscan.report.html_charts import calendar, heatmap
from hwpscan.report.html_common import STATUS_KO, e
from hwpscan.report.html_rows import (
    clean_entry,
    common_root,
    date_button,
    file_body,
    json_text,
    summarised,
)
from hwpscan.report.matrix_report import matrix_section
from hwpscan.report.summary import TITLE, Figures, figures

if TYPE_CHECKING:
    from hwpscan.history.records import RunInfo

_MARKER_RE = re.compile(r"@[A-Z_]+@")


def _asset(name: str) -> str:
    return resources.files("hwpscan.report").joinpath("assets", name).read_text(encoding="utf-8")


# -- sections --------------------------------------------------------------------


def _meta(run: RunInfo | None, root: str = "") -> str:
    rows = (
        [("실행 run", run.id), ("종류 kind", run.kind), ("시작 started", run.started)]
        if run
        else []
    )
    rows.append(("폴더 folder", root))
    shown = ", ".join(
        f"{k}={' '.join(map(str, v)) if isinstance(v, list) else v}"
        for k, v in sorted((run.args if run else {}).items())
        if v not in (None, [], "", False)
    )
    rows.append(("인자 args", shown[:160]))
    return "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in rows if v)


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


#: Contaminated dates named in the banner; the rest are counted ("+N more").
BANNER_DATES = 12


def _verdict(f: Figures) -> tuple[str, str]:
    """The banner's class and HTML: the counts, then the contaminated dates (clickable)."""
    if f.contaminated:
        shown = f.contaminated_dates[:BANNER_DATES]
        rest = len(f.contaminated_dates) - len(shown)
        days = ", ".join(date_button(d, "이 날짜만 보기 show this date only") for d in shown)
        if rest:
            days += f' <span class="more-dates">외 {rest}일 +{rest} more</span>'
        text = e(
            f"파일 {f.files:,}개 중 {f.contaminated:,}개 오염 "
            f"({f.contaminated} of {f.files} contaminated)"
        )
        return "bad", text + (f" · 오염된 날짜 dates: {days}" if days else "")
    text = e(f"오염된 파일 없음 · no contaminated file among {f.files:,}")
    if f.lossy:
        text += e(
            f" · 손실 {f.lossy:,}개: 기호가 다른 글자로 보임 "
            f"({f.lossy} lossy: symbols shown as other characters)"
        )
    return "ok", text


def _losses(results: Sequence[FileResult]) -> str:
    """What each PDF lost against its HWP twin, as a list (HTML), or ''."""
    losses = pdf_losses(results)
    if not losses:
        return ""
    items = "".join(f"<li>{e(loss.line())}</li>" for loss in losses[:LOSSES_SHOWN])
    more = len(losses) - LOSSES_SHOWN
    if more > 0:
        items += f"<li>외 {more:,}개 +{more:,} more</li>"
    return (
        '<div class="pdf-losses"><p>PDF가 HWP 원본에서 잃은 기호 '
        f"<small>what the PDFs lost against their HWP twins</small></p><ul>{items}</ul></div>"
    )


#: PDFs named in the report's list of what they lost.
LOSSES_SHOWN = 50


def _options(values: Iterable[str], labels: dict[str, str] | None = None) -> str:
    labels = labels or {}
    return "".join(f'<option value="{e(v)}">{e(labels.get(v, v))}</option>' for v in values)


# -- the page ----------------------------------------------------------------------


def html_chunks(
    results: Sequence[FileResult],
    *,
    run: RunInfo | None = None,
    matrix: Sequence[MatrixRow] = (),
    strict_markup: bool = False,
    lead: str = "",
) -> Iterator[str]:
    """The page in pieces, for writing as they come, files in the order given: *run*
    heads it, *lead* (escaped HTML: a verify run's verdicts, a partial run's note) opens
    it, *matrix* rows add the parser matrix."""
    f = figures(results)
    verdict_class, verdict = _verdict(f)
    statuses = [s.value for s in Status if any(r.status is s for r in results)]
    formats = sorted({r.format.value for r in results}, key=FORMAT_ORDER.index)
    dates = sorted({r.date or UNKNOWN_DATE for r in results}, key=lambda d: (d == UNKNOWN_DATE, d))
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    root = common_root([r.path for r in results])
    clean = sum(1 for r in results if summarised(r))
    parts: dict[str, str | Callable[[], Iterator[str]]] = {
        "@CSS@": _asset("report.css"),
        "@JS@": _asset("report.js"),
        "@TITLE@": e(TITLE),
        "@VERSION@": e(__version__),
        "@GENERATED@": e(stamp),
        "@META@": _meta(run, root),
        "@LEAD@": lead,  # HTML: escaped by its maker
        "@VERDICT_CLASS@": verdict_class,
        "@VERDICT@": verdict,  # HTML: escaped piece by piece in _verdict
        "@LOSSES@": _losses(results),
        "@CARDS@": _cards(f),
        "@HEATMAP@": heatmap(results),
        "@CALENDAR@": calendar(results),
        "@MATRIX@": matrix_section(matrix, strict_markup=strict_markup),
        "@STATUS_OPTIONS@": _options(
            statuses, {s.value: f"{STATUS_KO[s]} {s.value}" for s in Status}
        ),
        "@FORMAT_OPTIONS@": _options(formats),
        "@DATE_OPTIONS@": _options(dates),
        "@CLEAN_COUNT@": f"{clean:,}",
        "@ROWS@": lambda: (
            file_body(i, r, root) + "\n" for i, r in enumerate(results) if not summarised(r)
        ),
        "@CLEAN@": lambda: _clean_list(results, root),
    }
    # one pass over the template: text put in by one marker is never scanned for another
    template = _asset("report.html")
    at = 0
    for match in _MARKER_RE.finditer(template):
        yield template[at : match.start()]
        at = match.end()
        part = parts.get(match.group(), match.group())
        if isinstance(part, str):
            yield part
        else:
            yield from part()
    yield template[at:]


def _clean_list(results: Sequence[FileResult], root: str) -> Iterator[str]:
    """The clean files as one JSON array (``[path, date, format, chars, pua, names]``
    each), written a thousand at a time."""
    inner = (json_text(clean_entry(r, root)) for r in results if summarised(r))
    yield '<script type="application/json" id="clean-data">['
    sep = ""
    while chunk := list(islice(inner, 1000)):
        yield sep + ",".join(chunk)
        sep = ","
    yield "]</script>"
