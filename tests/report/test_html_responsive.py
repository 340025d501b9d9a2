"""report.html at 1,400, 1,024 and 390 CSS pixels in headless Chromium.

The checks are on layout boxes, not pixels: the page never scrolls sideways, the file
name column stays readable and its header visible, the status badge is never cut, the
heatmap scrolls inside its card, and on a phone each file is a card. Every kind of date
on the page filters the file list. A screenshot per width is written to
``$HWPSCAN_ARTIFACTS`` (or pytest's temp folder) and its path printed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cdp import Page, chromium_binary, chromium_page, navigate, screenshot
from report_corpus import bundle, contaminated_hwp, results, scan_folder  # noqa: F401

from hwpscan.models import FileResult
from hwpscan.report.bundle import write_report
from hwpscan.report.html_rows import summarised

CHROMIUM = chromium_binary()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install chromium)"),
]
WIDTHS = (1400, 1024, 390)


@pytest.fixture(scope="module")
def browser() -> Iterator[Page]:
    assert CHROMIUM is not None
    with chromium_page(CHROMIUM) as page:
        yield page


def _open(page: Page, report: Path, width: int) -> None:
    page.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=900,
        deviceScaleFactor=1,
        mobile=width < 600,
    )
    navigate(page, report)


def _box(page: Page, selector: str) -> dict[str, float] | None:
    """The first visible match's box and scroll sizes, or None when hidden/absent."""
    return page.evaluate(
        f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
        " if (!el || !el.getClientRects().length) return null;"
        " const r = el.getBoundingClientRect();"
        " return {left: r.left, right: r.right, width: r.width,"
        " scrollWidth: el.scrollWidth, clientWidth: el.clientWidth}; })()"
    )


def _shown(page: Page) -> int:
    """Files the filters let through: rows of the file table and clean files listed."""
    return int(page.evaluate("document.getElementById('shown').dataset.count"))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_fits_its_width(browser: Page, bundle: Path, width: int) -> None:
    _open(browser, bundle / "report.html", width)
    assert browser.console_errors() == []
    assert browser.evaluate("window.innerWidth") == width
    assert browser.evaluate("document.documentElement.scrollWidth") <= width
    # the heatmap scrolls inside its card, the card stays inside the page
    heat = _box(browser, ".heatscroll")
    card = _box(browser, "#pivot-section")
    assert heat is not None and card is not None
    assert heat["right"] <= card["right"] <= width
    assert browser.evaluate(
        "getComputedStyle(document.querySelector('.heatscroll')).overflowX"
    ) in (
        "auto",
        "scroll",
    )


@pytest.mark.parametrize("width", [1400, 1024])
def test_file_table_columns_on_a_desktop(browser: Page, bundle: Path, width: int) -> None:
    _open(browser, bundle / "report.html", width)
    head = _box(browser, "#files th.c-path")
    assert head is not None and head["width"] >= 220, head  # the name column stays readable
    assert browser.evaluate("document.querySelector('#files th.c-path').textContent") == "파일 file"
    for column in ("c-date", "c-fmt", "c-status", "c-surr", "c-orph"):
        assert _box(browser, f"#files th.{column}") is not None, column
    secondary = _box(browser, "#files th.c-chars")
    assert (secondary is None) == (width < 1200)  # chars and pairs give way on a laptop
    # no status badge and no date is cut
    cut = browser.evaluate(
        "Array.from(document.querySelectorAll('#files td.c-status, #files td.c-date'))"
        ".filter(td => td.scrollWidth > td.clientWidth).length"
    )
    assert cut == 0
    assert _box(browser, "#files")["right"] <= width  # type: ignore[index]


def test_file_table_is_cards_on_a_phone(
    browser: Page, bundle: Path, results: list[FileResult]
) -> None:
    _open(browser, bundle / "report.html", 390)
    assert _box(browser, "#files thead") is None
    cards = browser.evaluate(
        "Array.from(document.querySelectorAll('#files tbody.file tr.main')).map(tr => {"
        " const box = s => { const el = tr.querySelector(s); const r = el.getBoundingClientRect();"
        " return [r.left, r.right, r.width, el.scrollWidth - el.clientWidth]; };"
        " return {path: box('td.c-path'), status: box('td.c-status'), date: box('td.c-date')}; })"
    )
    assert len(cards) == sum(not summarised(r) for r in results)
    for card in cards:
        left, right, width, _ = card["path"]
        assert width >= 300 and right <= 390, card  # the name gets the card's width
        for part in ("status", "date"):
            left, right, width, overflow = card[part]
            assert left >= 0 and right <= 390 and overflow <= 0, card
    labels = browser.evaluate(
        "getComputedStyle(document.querySelector('#files td.c-status'), '::before').content"
    )
    assert "status" in labels
    visible = (
        "(s => Array.from(document.querySelectorAll(s))"
        ".filter(el => el.getClientRects().length).length)"
    )
    assert browser.evaluate(f"{visible}('#files tr.detail')") == 0  # closed details stay closed
    _click(browser, '.cal .day.has[data-date="2025-07-23"]')
    shown = sum(r.date == "2025-07-23" and not summarised(r) for r in results)
    assert browser.evaluate(f"{visible}('#files tbody.file')") == shown
    clean = sum(r.date == "2025-07-23" and summarised(r) for r in results)
    assert browser.evaluate(f"{visible}('#clean tr.clean-file')") == clean
    assert shown + clean == 2


def test_a_phone_card_has_its_toggle_beside_the_name(browser: Page, bundle: Path) -> None:
    _open(browser, bundle / "report.html", 390)
    offsets = browser.evaluate(
        "Array.from(document.querySelectorAll('#files tbody.file tr.main')).map(tr => {"
        " const top = s => tr.querySelector(s).getBoundingClientRect().top;"
        " return top('td.c-path') - top('td.c-tog'); })"
    )
    assert offsets and all(abs(dy) < 4 for dy in offsets), offsets


def _click(page: Page, selector: str) -> None:
    page.evaluate(f"document.querySelector({json.dumps(selector)}).click()")


@pytest.mark.parametrize(
    "selector",
    [
        '.cal .day.has[data-date="2025-07-22"]',
        '#heatmap tbody th[data-date="2025-07-22"]',
        '#heatmap tr[data-date="2025-07-22"] td.daystate .badge',
        '.verdict button.date-pick[data-date="2025-07-22"]',
        '#files tbody.file[data-date="2025-07-22"] button.date-pick',
    ],
    ids=["calendar-day", "heatmap-date", "day-badge", "banner-date", "row-date"],
)
def test_every_date_filters_the_file_list(
    browser: Page, bundle: Path, results: list[FileResult], selector: str
) -> None:
    _open(browser, bundle / "report.html", 1400)
    assert _shown(browser) == len(results)
    _click(browser, selector)
    assert _shown(browser) == sum(r.date == "2025-07-22" for r in results) == 3
    visible = "Array.from(document.querySelectorAll('#files tbody.file, #clean tr.clean-file'))"
    assert browser.evaluate(f"{visible}.filter(b => b.getClientRects().length).length") == 3
    assert browser.evaluate("document.getElementById('f-date').value") == "2025-07-22"
    browser.evaluate("document.getElementById('reset').click()")
    assert _shown(browser) == len(results)
    assert browser.console_errors() == []


def test_a_date_filters_from_the_keyboard(browser: Page, bundle: Path) -> None:
    _open(browser, bundle / "report.html", 1400)
    browser.evaluate("document.querySelector('.cal .day.has[data-date=\"2025-07-23\"]').focus()")
    for kind in ("keyDown", "keyUp"):
        browser.call(
            "Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13
        )
    assert browser.evaluate("document.getElementById('f-date').value") == "2025-07-23"


def _fonts_with_korean() -> bool | None:
    """What fontconfig says: any font covering Korean? None when it cannot be asked."""
    if shutil.which("fc-list") is None:
        return None
    out = subprocess.run(["fc-list", ":lang=ko"], capture_output=True, text=True, check=False)
    return bool(out.stdout.strip())


def test_missing_korean_font_is_said(browser: Page, bundle: Path) -> None:
    _open(browser, bundle / "report.html", 1400)
    family = browser.evaluate("getComputedStyle(document.body).fontFamily")
    assert family.index("Noto Sans KR") < family.index("Malgun Gothic") < family.index("sans-serif")
    has_korean = browser.evaluate("document.documentElement.dataset.koreanFont")
    note_hidden = browser.evaluate("document.getElementById('font-note').hidden")
    assert note_hidden is (has_korean == "yes")
    expected = _fonts_with_korean()
    if expected is not None:
        assert has_korean == ("yes" if expected else "no")


def _font_files(*pattern: str) -> set[str]:
    out = subprocess.run(
        ["fc-list", *pattern, "--format", "%{file}\n"], capture_output=True, text=True, check=True
    )
    return {line for line in out.stdout.splitlines() if line}


@pytest.fixture
def no_korean_font(tmp_path: Path) -> dict[str, str]:
    """An environment whose fontconfig offers only this machine's fonts without Korean."""
    if shutil.which("fc-list") is None:
        pytest.skip("no fontconfig to choose fonts with")
    latin = sorted(_font_files() - _font_files(":lang=ko"))
    if not latin:
        pytest.skip("every font here covers Korean")
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    for n, path in enumerate(latin):
        (fonts / f"{n}-{Path(path).name}").symlink_to(path)
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f"<dir>{fonts}</dir><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>",
        encoding="utf-8",
    )
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}


def test_the_font_note_shows_without_a_korean_font(
    bundle: Path, no_korean_font: dict[str, str], tmp_path: Path
) -> None:
    assert CHROMIUM is not None
    with chromium_page(CHROMIUM, env=no_korean_font) as page:
        _open(page, bundle / "report.html", 1400)
        assert page.evaluate("document.documentElement.dataset.koreanFont") == "no"
        note = _box(page, "#font-note")
        assert note is not None and note["width"] > 0  # shown, not hidden
        assert "fonts-noto-cjk" in page.evaluate("document.getElementById('font-note').textContent")
        folder = Path(os.environ.get("HWPSCAN_ARTIFACTS") or tmp_path)
        folder.mkdir(parents=True, exist_ok=True)
        screenshot(page, folder / "report-1400-no-korean-font.png", full_page=False)


@pytest.fixture(scope="module")
def many_dates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """15 days with one contaminated file each: more than the banner names."""
    root = tmp_path_factory.mktemp("many-dates")
    for day in range(1, 16):
        folder = root / f"2025-07-{day:02}"
        folder.mkdir()
        (folder / "press.hwp").write_bytes(contaminated_hwp(str(day)))
    out = root / "report"
    write_report(scan_folder(root), out)
    return out


def test_the_banner_counts_the_dates_it_does_not_name(browser: Page, many_dates: Path) -> None:
    _open(browser, many_dates / "report.html", 1024)
    named = browser.evaluate("document.querySelectorAll('.verdict button.date-pick').length")
    more = browser.evaluate("document.querySelector('.verdict .more-dates').textContent")
    assert named == 12 and more == "외 3일 +3 more"
    assert "…" not in browser.evaluate("document.querySelector('.verdict').textContent")
    assert browser.evaluate("document.documentElement.scrollWidth") <= 1024


@pytest.mark.parametrize("width", WIDTHS)
def test_screenshots_at_three_widths(
    browser: Page, bundle: Path, width: int, tmp_path: Path
) -> None:
    _open(browser, bundle / "report.html", width)
    folder = Path(os.environ.get("HWPSCAN_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = screenshot(browser, folder / f"report-{width}.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {shot}")
