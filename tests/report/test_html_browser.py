"""report.html in a real headless Chromium, driven over the DevTools protocol.

Skipped only when no Chromium binary exists (CI installs Debian's ``chromium``). The
screenshot is written under pytest's temp folder, or ``$HWPSCAN_ARTIFACTS`` when set,
and its path printed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from cdp import Page, chromium_binary, chromium_page, navigate, screenshot
from report_corpus import bundle, results  # noqa: F401  (module fixtures)

from hwpscan.models import FileResult, Status
from hwpscan.report.bundle import write_report
from hwpscan.report.html_rows import summarised

CHROMIUM = chromium_binary()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def page(bundle: Path) -> Page:
    assert CHROMIUM is not None
    with chromium_page(CHROMIUM) as p:
        navigate(p, bundle / "report.html")
        yield p


def _shown(page: Page) -> int:
    """Files the filters let through: rows of the file table and clean files listed."""
    return int(page.evaluate("document.getElementById('shown').dataset.count"))


def _type(page: Page, selector: str, text: str) -> None:
    """Focus a field, clear it, and type like a user (real input events)."""
    page.evaluate(
        f"(() => {{ const el = document.querySelector({json.dumps(selector)}); el.focus(); "
        "el.select(); })()"
    )
    page.call(
        "Input.dispatchKeyEvent",
        type="keyDown",
        key="Backspace",
        code="Backspace",
        windowsVirtualKeyCode=8,
    )
    page.call(
        "Input.dispatchKeyEvent",
        type="keyUp",
        key="Backspace",
        code="Backspace",
        windowsVirtualKeyCode=8,
    )
    if text:
        page.call("Input.insertText", text=text)


def _select(page: Page, selector: str, value: str) -> None:
    page.evaluate(
        f"(() => {{ const el = document.querySelector({json.dumps(selector)}); "
        f"el.value = {json.dumps(value)}; el.dispatchEvent(new Event('change')); }})()"
    )


def _reset(page: Page) -> None:
    page.evaluate("document.getElementById('reset').click()")


def test_page_loads_without_console_errors(page: Page, results: list[FileResult]) -> None:
    assert page.console_errors() == []
    assert page.evaluate("document.documentElement.lang") == "ko"
    assert _shown(page) == len(results)
    assert page.evaluate("document.getElementById('shown').dataset.count") == str(len(results))


def test_heatmap_cells_match_pivot_csv(page: Page, bundle: Path) -> None:
    cells = page.evaluate(
        "Array.from(document.querySelectorAll('#heatmap td.cell'))"
        ".filter(td => td.dataset.files !== '0')"
        ".map(td => [td.dataset.date, td.dataset.format, +td.dataset.files,"
        " +td.dataset.contaminated,"
        " +td.dataset.clean, +td.dataset.unreadable, getComputedStyle(td).backgroundColor])"
    )
    pivot = pd.read_csv(bundle / "pivot.csv", dtype={"date": str})
    assert sorted(tuple(c[:6]) for c in cells) == sorted(
        tuple(row)
        for row in pivot[
            ["date", "format", "files", "contaminated", "clean", "unreadable"]
        ].itertuples(index=False, name=None)
    )
    # the colour follows the share: clean cells are green, wholly contaminated ones dark red
    colours = {(c[0], c[1]): c[6] for c in cells}
    for row in pivot.itertuples():
        if row.unreadable == row.files:
            continue
        expected = "rgb(46, 158, 91)" if row.contaminated == 0 else None
        if row.contaminated == row.files:
            expected = "rgb(178, 24, 43)"
        if expected:
            assert colours[(row.date, row.format)] == expected, row


def test_typing_in_the_search_box_filters_rows(page: Page, results: list[FileResult]) -> None:
    _reset(page)
    _type(page, "#q", "orphan")
    expected = sum("orphan" in r.path.lower() for r in results)
    assert expected == 1 and _shown(page) == expected
    _type(page, "#q", "U+F02B1")  # PUA code points are searchable
    assert _shown(page) == sum("U+F02B1" in r.body.pua for r in results)
    _type(page, "#q", "존재하지 않는 이름")
    assert _shown(page) == 0
    assert page.evaluate("document.getElementById('none').hidden") is False
    _reset(page)
    assert _shown(page) == len(results)


def test_status_format_and_date_filters(page: Page, results: list[FileResult]) -> None:
    _reset(page)
    _select(page, "#f-status", "contaminated")
    assert _shown(page) == sum(r.status is Status.CONTAMINATED for r in results)
    _select(page, "#f-format", "hwp5")
    assert _shown(page) == sum(
        r.status is Status.CONTAMINATED and r.format.value == "hwp5" for r in results
    )
    _select(page, "#f-date", "2025-07-22")
    assert _shown(page) == 1
    _reset(page)


def test_clicking_a_heatmap_cell_filters_the_table(page: Page, results: list[FileResult]) -> None:
    _reset(page)
    page.evaluate(
        "document.querySelector("
        '\'#heatmap td.cell[data-date="2025-07-21"][data-format="hwp5"]\').click()'
    )
    assert _shown(page) == sum(r.date == "2025-07-21" and r.format.value == "hwp5" for r in results)
    assert page.evaluate("document.getElementById('f-date').value") == "2025-07-21"
    _reset(page)


def test_sorting_by_surrogates(page: Page, results: list[FileResult]) -> None:
    _reset(page)
    click = "document.querySelector('#files th[data-sort=\"surrogates\"]').click()"
    order = (
        "Array.from(document.querySelectorAll('#files tbody.file'))"
        ".map(b => +b.dataset.kSurrogates)"
    )
    rows = [r.body.surrogates for r in results if not summarised(r)]  # the file table's
    page.evaluate(click)
    assert page.evaluate(order) == sorted(rows)
    page.evaluate(click)
    assert page.evaluate(order) == sorted(rows, reverse=True)


def test_detail_shows_locations_with_escaped_context(page: Page, results: list[FileResult]) -> None:
    bad = next(r for r in results if r.body.orphans)
    _reset(page)
    _type(page, "#q", "orphan")
    body = "document.querySelector('#files tbody.file:not([hidden])')"
    assert page.evaluate(f"{body}.querySelector('tr.detail').hidden") is True
    page.evaluate(f"{body}.querySelector('button.toggle').click()")
    assert page.evaluate(f"{body}.querySelector('tr.detail').hidden") is False
    rows = page.evaluate(
        f"Array.from({body}.querySelectorAll('table.locs:not(.pua) tr[data-kind]'))"
        ".map(tr => Array.from(tr.cells).map(td => td.textContent))"
    )
    assert [(r[0], int(r[1]), int(r[2]), r[3], r[4], r[6], r[7]) for r in rows] == [
        (loc.stream, loc.paragraph, loc.offset, loc.kind, loc.codepoint, loc.units, loc.context)
        for loc in bad.body.locations
    ]
    names = page.evaluate(
        f"Array.from({body}.querySelectorAll('table.pua td:nth-child(2)')).map(t => t.textContent)"
    )
    assert names == ["HANCOM SQUARED DIGIT ONE"]
    assert page.console_errors() == []


def test_screenshot_is_written(page: Page, tmp_path: Path) -> None:
    _reset(page)
    _type(page, "#q", "orphan")
    page.evaluate(
        "(() => { const b = document.querySelector("
        "'#files tbody.file:not([hidden]) button.toggle');"
        " if (b.getAttribute('aria-expanded') !== 'true') b.click(); })()"
    )
    _reset(page)
    page.evaluate("window.scrollTo(0, 0)")
    folder = Path(os.environ.get("HWPSCAN_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = screenshot(page, folder / "report.png")
    head = shot.read_bytes()[:8]
    assert head == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    print(f"screenshot: {shot}")


def test_an_empty_report_loads_cleanly(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    write_report([], tmp_path)
    with chromium_page(CHROMIUM) as p:
        navigate(p, tmp_path / "report.html")
        assert p.console_errors() == []
        assert _shown(p) == 0


def _clean_rows(page: Page) -> list[list[str]]:
    return page.evaluate(
        "Array.from(document.querySelectorAll('#clean tr.clean-file'))"
        ".map(tr => Array.from(tr.cells).map(td => td.textContent))"
    )


def test_clean_files_are_listed_compactly_and_searchable(
    page: Page, results: list[FileResult]
) -> None:
    clean = [r for r in results if summarised(r)]
    assert clean and len(clean) < len(results)
    _reset(page)
    assert len(_clean_rows(page)) == len(clean)  # all of them, under the file table
    target = clean[-1]
    name = target.path.rsplit("/", 1)[-1]
    _type(page, "#q", name)
    expected = [r for r in results if name.lower() in r.path.lower()]
    assert _shown(page) == len(expected)
    rows = _clean_rows(page)
    assert [row[0].rsplit("/", 1)[-1] for row in rows] == [
        r.path.rsplit("/", 1)[-1] for r in expected if summarised(r)
    ]
    assert rows[0][1:3] == [target.date or "—", target.format.value]
    _select(page, "#f-status", "contaminated")  # a status other than clean hides them all
    assert _clean_rows(page) == []
    _reset(page)
    assert page.console_errors() == []


def test_a_long_clean_list_shows_the_first_matches_and_finds_any(
    tmp_path: Path, results: list[FileResult]
) -> None:
    assert CHROMIUM is not None
    from dataclasses import replace

    base = next(r for r in results if summarised(r))
    many = [replace(base, path=f"/data/2025-07-21/clean-{n:04d}.hwp") for n in range(450)]
    write_report([*many, *(r for r in results if not summarised(r))], tmp_path)
    with chromium_page(CHROMIUM) as p:
        navigate(p, tmp_path / "report.html")
        assert p.console_errors() == []
        assert len(_clean_rows(p)) == 200  # the first matches, and a note of the rest
        assert p.evaluate("document.getElementById('clean-more').hidden") is False
        assert "250 more" in p.evaluate("document.getElementById('clean-more').textContent")
        _type(p, "#q", "clean-0321")
        assert [row[0].rsplit("/", 1)[-1] for row in _clean_rows(p)] == ["clean-0321.hwp"]
        assert _shown(p) == 1
        assert p.evaluate("document.getElementById('clean-more').hidden") is True
