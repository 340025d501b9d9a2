"""The scan tables at 80 to 200 columns: nothing wider than the terminal, nothing cut.

The corpus is our generator's (see :mod:`report_corpus`) plus a long Korean file name;
below the width a table of it needs, each file is a stacked record. The whole command is
also run in a pseudo-terminal of each width, and piped with ``COLUMNS``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from report_corpus import build_corpus, clean_hwp, contaminated_hwp, scan_folder
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.models import FileResult, Status
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.report.tables import Show, scan_view

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


def squeezed(text: str) -> str:
    """*text* without any whitespace: what is left of a name or reason wrapped anywhere."""
    return re.sub(r"\s+", "", text)


def shown_name(result: FileResult, root: Path) -> str:
    """The name as the tables show it: below the root, without the date folder."""
    name = Path(result.path).relative_to(root).as_posix()
    return name.removeprefix(f"{result.date}/") if result.date else name


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_nothing_is_wider_than_the_terminal_or_cut(
    corpus: tuple[Path, list[FileResult]], width: int
) -> None:
    root, results = corpus
    text = render(results, root, width)
    too_wide = [line for line in text.splitlines() if cell_len(line) > width]
    assert too_wide == []
    assert "…" not in text


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_every_name_status_and_reason_is_shown_whole(
    corpus: tuple[Path, list[FileResult]], width: int
) -> None:
    root, results = corpus
    text = render(results, root, width)
    flat = squeezed(text)
    for r in results:
        assert squeezed(shown_name(r, root)) in flat, r.path
        assert r.status.value in text
        if r.reason:
            assert squeezed(r.reason) in flat, r.reason


def test_the_long_name_is_whole_and_without_its_date_folder(
    corpus: tuple[Path, list[FileResult]],
) -> None:
    root, results = corpus
    name = LONG_NAME.split("/", 1)[1]
    for width in (80, 100):
        text = render(results, root, width)
        assert name in text.replace("\n", "") or squeezed(name) in squeezed(text)
        assert LONG_NAME not in text
    assert name in render(results, root, 200)  # 200 columns: one table row, one line


def test_a_table_that_does_not_fit_becomes_one_record_per_file(
    corpus: tuple[Path, list[FileResult]],
) -> None:
    root, results = corpus

    def headers(width: int) -> list[str]:
        head = render(results, root, width).split("┃ file ")[1].splitlines()[0]
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
        "reason",  # the corpus has a damaged file: its reason's number
    ]
    narrow = render(results, root, 80)
    assert "┃ file " not in narrow  # the long name does not leave room for a table
    for r in results:  # each record: the name, then its fields, every count kept
        assert re.search(rf"^{re.escape(shown_name(r, root)[:20])}", narrow, re.M), r.path
    assert "chars " in narrow and "pairs " in narrow and "orphans " in narrow


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


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _in_terminal(argv: list[str], columns: int, home: Path) -> str:
    """What *argv* shows in a pseudo-terminal *columns* wide (escape codes taken out)."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(HWPSCAN_HOME=str(home), TERM="xterm-256color")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, on the terminal
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    out = b""
    while select.select([fd], [], [], 180)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal closed with the command
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out[-2000:]
    text = out.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    return _ANSI.sub("", text)


def _fixture_rows() -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES), "-f", "jsonl"],
        capture_output=True,
        text=True,
        env={**os.environ, "HWPSCAN_HOME": "/nonexistent-hwpscan-home-unused"},
        timeout=300,
        check=False,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _assert_whole(text: str, columns: int, rows: list[dict[str, object]]) -> None:
    assert max(cell_len(line) for line in text.splitlines()) <= columns
    assert "…" not in text
    flat = squeezed(text)
    for row in rows:
        if row["status"] == "clean" and not row.get("reason"):
            continue  # clean files are counted, not listed (above 50 files)
        name = Path(str(row["path"])).relative_to(FIXTURES).as_posix()
        name = name.removeprefix(f"{row['date']}/") if row.get("date") else name
        assert squeezed(name) in flat, name
        if row.get("reason"):
            assert squeezed(str(row["reason"])) in flat, row["reason"]


@pytest.mark.parametrize(
    "columns",
    [80, pytest.param(100, marks=pytest.mark.slow), pytest.param(120, marks=pytest.mark.slow), 200],
)
def test_scan_fixtures_in_a_terminal(columns: int, tmp_path: Path) -> None:
    hwpscan = str(Path(sys.executable).parent / "hwpscan")
    text = _in_terminal([hwpscan, "scan", str(FIXTURES)], columns, tmp_path)
    _assert_whole(text, columns, _fixture_rows())


def test_scan_fixtures_piped_with_columns(tmp_path: Path) -> None:
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path), "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    _assert_whole(done.stdout, 80, _fixture_rows())


@pytest.mark.slow
@pytest.mark.parametrize("columns", [80, 100, 120, 200])
def test_demo_in_a_terminal(columns: int, tmp_path: Path) -> None:
    hwpscan = str(Path(sys.executable).parent / "hwpscan")
    text = _in_terminal([hwpscan, "demo"], columns, tmp_path)
    assert max(cell_len(line) for line in text.splitlines()) <= columns
    assert "…" not in text
