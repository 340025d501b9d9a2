"""The scan tables at 80, 100 and 200 columns, rendered by a rich Console of fixed width.

The corpus is our generator's (see :mod:`report_corpus`) plus long Korean file names, so
the name column has to give way; status, date and format never may.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from report_corpus import build_corpus, clean_hwp, contaminated_hwp, scan_folder
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.models import FileResult, Status
from hwpscan.rehearsal.synth.pdf import build_pdf
from hwpscan.report.tables import Show, scan_view, shorten_middle

LONG_NAME = "2025-07-22/(보도자료) 불법사금융 피해 예방을 위한 집중 점검 결과 및 향후 계획 안내.hwp"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[FileResult]]:
    root = build_corpus(tmp_path_factory.mktemp("layout"))
    (root / LONG_NAME).write_bytes(contaminated_hwp("long"))
    return root, scan_folder(root)


def render(results: list[FileResult], root: Path, width: int, show: Show = Show.ALL) -> str:
    console = Console(width=width, record=True, color_system=None, legacy_windows=False)
    for part in scan_view(results, root=str(root), width=width, show=show):
        console.print(part)
    return console.export_text()


def file_rows(text: str) -> list[str]:
    """The body lines of the per-file table that start a row (they hold a date)."""
    block = text.split("┃ file")[1].split("└")[0]
    return [line for line in block.splitlines() if re.search(r"│ \d{4}-\d\d-\d\d │", line)]


@pytest.mark.parametrize("width", [80, 100, 200])
def test_nothing_is_wider_than_the_terminal(
    corpus: tuple[Path, list[FileResult]], width: int
) -> None:
    root, results = corpus
    text = render(results, root, width)
    too_wide = [line for line in text.splitlines() if cell_len(line) > width]
    assert too_wide == []


@pytest.mark.parametrize("width", [80, 100, 200])
def test_status_date_and_format_are_never_cut(
    corpus: tuple[Path, list[FileResult]], width: int
) -> None:
    root, results = corpus
    rows = file_rows(render(results, root, width))
    assert len(rows) == len(results)
    seen = sorted(
        tuple(cell.strip() for cell in line.split("│")[2:5])  # date, format, status
        for line in rows
    )
    assert seen == sorted((r.date or "—", r.format.value, r.status.value) for r in results)


def test_the_long_name_is_shortened_in_the_middle_at_80_and_100(
    corpus: tuple[Path, list[FileResult]],
) -> None:
    root, results = corpus
    for width in (80, 100):
        rows = file_rows(render(results, root, width))
        name = next(line.split("│")[1].strip() for line in rows if "안내.hwp" in line)
        assert "…" in name and name.endswith("안내.hwp") and name.startswith("20")
    wide = render(results, root, 200)
    assert LONG_NAME in wide  # 200 columns: the whole name


def test_secondary_counts_are_dropped_as_the_terminal_narrows(
    corpus: tuple[Path, list[FileResult]],
) -> None:
    root, results = corpus

    def headers(width: int) -> list[str]:
        head = render(results, root, width).split("┃ file")[1].splitlines()[0]
        return [h.strip() for h in head.split("┃") if h.strip()]

    assert headers(200) == [
        "date",
        "format",
        "status",
        "chars",
        "surr.",
        "pairs",
        "orphans",
        "UTF-8",
        "PUA",
        "reason",  # the corpus has a damaged file: its reason, short, numbered
    ]
    assert headers(100) == [
        "date", "format", "status", "surr.", "orphans", "UTF-8", "PUA", "reason"
    ]  # fmt: skip
    assert headers(80) == ["date", "format", "status", "surr.", "reason"]


@pytest.mark.parametrize("width", [80, 100, 200])
def test_the_verdict_comes_first_and_last_on_one_line(
    corpus: tuple[Path, list[FileResult]], width: int
) -> None:
    root, results = corpus
    lines = render(results, root, width).rstrip().splitlines()
    bad = sum(r.status is Status.CONTAMINATED for r in results)
    assert lines[0].startswith(f"CONTAMINATED: {len(results)} files: {bad} contaminated")
    assert lines[-1] == lines[0]
    assert "2025-07-21" in lines[0] or "on 2 dates" in lines[0]
    assert cell_len(lines[0]) <= width
    # the date x format table comes right after it
    assert lines[1].startswith("Contamination by date and format")
    if width < 100:  # compact cells, and a caption saying how to read them
        assert "cells: contaminated/files" in [line.strip() for line in lines]
    else:
        assert "2/2 contaminated" in lines[5]


def test_shorten_middle_counts_wide_characters() -> None:
    name = "보도자료 " * 10 + ".hwp"
    for width in (5, 12, 30):
        short = shorten_middle(name, width)
        assert cell_len(short) <= width and "…" in short
    assert shorten_middle("a.hwp", 5) == "a.hwp"


@pytest.fixture(scope="module")
def big_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """58 files: 55 clean, 2 contaminated, 1 truncated: more than 50, so problems by default."""
    root = tmp_path_factory.mktemp("big") / "in"
    day = root / "2025-07-21"
    day.mkdir(parents=True)
    for i in range(45):
        (day / f"clean-{i:02}.hwp").write_bytes(clean_hwp(str(i)))
    for i in range(10):
        (day / f"clean-{i:02}.pdf").write_bytes(build_pdf([[f"본문 {i}"]]))
    (day / "bad-1.hwp").write_bytes(contaminated_hwp("1"))
    (day / "bad-2.hwp").write_bytes(contaminated_hwp("2"))
    (day / "cut.hwp").write_bytes(clean_hwp("cut")[:1500])
    return root


@pytest.fixture
def _80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's console as an 80-column terminal (its width is fixed when it is made)."""
    from hwpscan.cli.app import console

    monkeypatch.setattr(console, "width", 80)


def _scan(folder: Path, *extra: str) -> str:
    result = CliRunner().invoke(app, ["scan", str(folder), "-j", "1", "--no-progress", *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.usefixtures("_80_columns")
def test_above_50_files_only_the_problems_are_listed_with_the_hidden_count(
    big_folder: Path,
) -> None:
    out = _scan(big_folder)
    assert "Files with problems" in out
    assert "bad-1.hwp" in out and "bad-2.hwp" in out and "cut.hwp" in out
    assert "clean-00.hwp" not in out
    assert "55 clean files not listed (--show all lists every file)" in out
    assert max(cell_len(line) for line in out.splitlines()) <= 80


def test_show_all_and_show_none(big_folder: Path) -> None:
    everything = _scan(big_folder, "--show", "all")
    assert "clean-44.hwp" in everything and "not listed" not in everything
    nothing = _scan(big_folder, "--show", "none")
    assert "bad-1.hwp" not in nothing
    assert "58 file rows not listed" in nothing
    assert "Contamination by date and format" in nothing
    assert nothing.strip().splitlines()[-1].startswith("CONTAMINATED: 58 files: 2 contaminated")


def test_a_small_scan_lists_every_file_by_default(tmp_path: Path) -> None:
    folder = build_corpus(tmp_path / "small")
    out = _scan(folder)
    assert "Files with problems" not in out and "not listed" not in out
    assert "c.hwpx" in out
