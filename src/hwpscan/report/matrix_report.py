"""The parser matrix in the report: an extractor x defect-class table with a per-file
drill-down for ``report.html``, and a short ranking for ``summary.md``.

Every string from an extractor or a file name is escaped (:func:`~.html_common.e`,
:func:`~.cells.md_cell`); the drill-down is native ``<details>``, no script needed.

>>> from hwpscan.matrix.matrix_rows import MatrixRow
>>> rows = [MatrixRow("a.hwp", "bad", "ok", dropped_chars=2, lost_pua=2, compared=True),
...         MatrixRow("a.hwp", "good", "ok", markup_chars=9, compared=True)]
>>> print("\\n".join(ranking_markdown(rows)[2:5]))
| rank | extractor | guilty files | failed | leaked | lost (PUA) | replaced | markup |
|---|---|---|---|---|---|---|---|
| 1 | good | 0 of 1 | 0 | 0 | 0 (0) | 0 | 9 |
"""

from __future__ import annotations

from collections.abc import Sequence

from hwpscan.matrix.matrix_rows import MatrixRow, ParserSummary, by_parser, ranking
from hwpscan.report.cells import md_cell
from hwpscan.report.html_common import e

#: Files listed per extractor in the drill-down before "and N more".
DRILL_LIMIT = 500
_CLASSES = (
    ("leaked", "유출 leaked", "bad"),
    ("lost", "손실 lost", "bad"),
    ("lost_pua", "PUA 손실 PUA lost", "bad"),
    ("replaced", "대체 replaced", "warn"),
    ("markup", "마크업 markup", "info"),
)


def _cell(s: ParserSummary, key: str, style: str) -> str:
    chars, files = s.totals.get(key, 0), s.files_with.get(key, 0)
    if not chars:
        return '<td class="n zero">0</td>'
    return (
        f'<td class="n {style}" data-class="{key}">{chars:,}'
        f"<small>{files:,} file{'s' if files != 1 else ''}</small></td>"
    )


def matrix_section(rows: Sequence[MatrixRow], *, strict_markup: bool = False) -> str:
    """The ``<section>`` for report.html ('' when the run has no matrix)."""
    if not rows:
        return ""
    ranked = ranking(rows, strict_markup=strict_markup)
    head = "".join(f'<th class="n">{e(label)}</th>' for _, label, _ in _CLASSES)
    lines = []
    for place, s in enumerate(ranked, 1):
        if s.not_installed == s.files:
            lines.append(
                f'<tr data-parser="{e(s.parser)}"><td>{place}</td><th scope="row">{e(s.parser)}'
                f'</th><td colspan="{3 + len(_CLASSES)}" class="muted">'
                f"{e(s.missing_reason or 'not installed')}</td></tr>"
            )
            continue
        verdict = "bad" if s.guilty else "ok"
        cells = "".join(_cell(s, key, style) for key, _, style in _CLASSES)
        lines.append(
            f'<tr data-parser="{e(s.parser)}"><td>{place}</td>'
            f'<th scope="row" class="{verdict}">{e(s.parser)}</th>'
            f'<td class="n">{s.judged:,}</td>'
            f'<td class="n {verdict}">{s.guilty:,}</td>'
            f'<td class="n {"bad" if s.failed else "zero"}">{s.failed:,}</td>{cells}</tr>'
        )
    grouped = by_parser(rows)
    drill = "".join(
        _drill(s, grouped[s.parser], strict_markup) for s in ranked if s.not_installed != s.files
    )
    guilt = "유출·손실·실패 leaked, lost or failed" + (
        " + 마크업·대체 markup, replaced (--strict-markup)" if strict_markup else ""
    )
    return (
        '<section id="matrix-section">'
        "<h2>추출기 비교 <small>parser matrix: which extractor should we use?</small></h2>"
        f'<p class="hint">각 추출기의 텍스트를 strict 보기와 정렬해 비교했습니다 (공백 무시). '
        f"숫자는 글자 수, 작은 글씨는 파일 수입니다. 유죄 guilty = {e(guilt)}.</p>"
        '<table id="matrix" class="matrix"><thead><tr><th>#</th><th>추출기 extractor</th>'
        '<th class="n">파일 files</th><th class="n">유죄 guilty</th><th class="n">실패 failed</th>'
        f"{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>"
        f'<div class="drill">{drill}</div></section>'
    )


def _drill(s: ParserSummary, rows: list[MatrixRow], strict_markup: bool) -> str:
    """One extractor's ``<details>``: every file where it differs, worst first."""
    differing = [r for r in rows if r.is_guilty(strict_markup=True) or r.reason]
    differing.sort(
        key=lambda r: (
            not r.is_guilty(strict_markup=strict_markup),
            -r.leaked,
            -r.lost_pua,
            -r.dropped_chars,
            -r.changed_chars,
            -r.markup_chars,
        )
    )
    body = []
    for r in differing[:DRILL_LIMIT]:
        guilty = r.is_guilty(strict_markup=strict_markup)
        examples = "".join(f"<li><code>{e(x)}</code></li>" for x in _examples(r))
        reason = f'<div class="reason">{e(r.reason)}</div>' if r.reason else ""
        body.append(
            f'<tr class="{"bad" if guilty else "ok"}" data-path="{e(r.path)}">'
            f'<td class="path">{e(r.path)}</td><td>{e(r.status)}</td>'
            f'<td class="n">{r.leaked:,}</td><td class="n">{r.dropped_chars:,}</td>'
            f'<td class="n">{r.lost_pua:,}</td><td class="n">{r.changed_chars:,}</td>'
            f'<td class="n">{r.markup_chars:,}</td>'
            f"<td>{reason}<ul>{examples}</ul></td></tr>"
        )
    more = ""
    if len(differing) > DRILL_LIMIT:
        more = f'<p class="muted">… and {len(differing) - DRILL_LIMIT:,} more</p>'
    if not body:
        content = (
            '<p class="ok">모든 파일이 strict 보기와 같습니다. '
            "Matches the reference on every file.</p>"
        )
    else:
        content = (
            '<table class="drill-files"><thead><tr><th>파일 file</th><th>상태 status</th>'
            '<th class="n">leaked</th><th class="n">lost</th><th class="n">PUA lost</th>'
            '<th class="n">replaced</th><th class="n">markup</th><th>예시 examples</th>'
            f"</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"
        )
    label = (
        f"guilty on {s.guilty:,} of {s.judged:,} files"
        if s.guilty
        else f"clean on all {s.judged:,} files"
    )
    return (
        f'<details class="drill-parser" data-parser="{e(s.parser)}"><summary><b>{e(s.parser)}</b> '
        f"— {e(label)}; {len(differing):,} file{'s' if len(differing) != 1 else ''} differ"
        f"</summary>{content}</details>"
    )


def _examples(row: MatrixRow) -> list[str]:
    """The severity-ordered examples, then one per class not shown yet (up to six)."""
    shown = list(row.examples[:3])
    for values in row.class_examples.values():
        if values and values[0] not in shown:
            shown.append(values[0])
    return shown[:6]


def ranking_markdown(rows: Sequence[MatrixRow], *, strict_markup: bool = False) -> list[str]:
    """``summary.md``'s "which extractor should we use?" (no lines without a matrix)."""

    if not rows:
        return []
    ranked = ranking(rows, strict_markup=strict_markup)
    lines = [
        "## Which extractor should we use?",
        "",
        "| rank | extractor | guilty files | failed | leaked | lost (PUA) | replaced | markup |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for place, s in enumerate(ranked, 1):
        if s.not_installed == s.files:
            lines.append(
                f"| {place} | {md_cell(s.parser)} | not installed: "
                f"{md_cell(s.missing_reason or '')} | | | | | |"
            )
            continue
        t = s.totals
        lines.append(
            f"| {place} | {md_cell(s.parser)} | {s.guilty:,} of {s.judged:,} | {s.failed:,} | "
            f"{t['leaked']:,} | {t['lost']:,} ({t['lost_pua']:,}) | {t['replaced']:,} | "
            f"{t['markup']:,} |"
        )
    ours = {"strict", "codeunit"}  # the reference and the defect's imitation: not advice
    candidates = [s for s in ranked if s.parser not in ours] or ranked
    best = next((s for s in candidates if s.judged and not s.guilty), None)
    guilt = "leaked or lost text, or failed" + (
        "; markup and replaced text count too (--strict-markup)" if strict_markup else ""
    )
    lines.append("")
    if best is not None:
        t = best.totals
        notes = []
        if t["replaced"]:
            notes.append(f"replaced {t['replaced']:,} characters ({t['replaced_pua']:,} PUA)")
        if t["markup"]:
            notes.append(f"added {t['markup']:,} characters of markup")
        lines.append(
            f"**{md_cell(best.parser)}** leaked and lost nothing on any of its {best.judged:,} "
            "readable files"
            + (f"; it {' and '.join(notes)}" if notes else "")
            + f". Guilty means {guilt}; counts are characters."
        )
    else:
        lines.append(f"No extractor was clean on every file. Guilty means {guilt}.")
    lines.append("")
    return lines
