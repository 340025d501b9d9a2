"""Ctrl-C (SIGINT) to real processes mid-run: each long command says what it kept and
the exact command that goes on, exits 130, and leaves only whole or marked-partial files.

Children restore SIGINT's default themselves (a test runner may start them with it
ignored), and every wait is bounded.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_signals import wait_until  # the same wait on a child process

from hwpscan.atomic import TEMP_PREFIX
from hwpscan.manifest import MANIFEST_NAME, read_entries
from hwpscan.rehearsal.emulator.quirks import Quirks
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

KEY = "TESTKEY" + "7" * 25
BOOT = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from hwpscan.cli import main; sys.argv[0] = 'hwpscan'; main()"
)
FILES = 1500

pytestmark = pytest.mark.slow


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", BOOT, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    return err


def _results(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("in") / "2025-07-21"
    folder.mkdir()
    data = build_hwp5(["금융감독원 보도자료 본문 " * 200])
    for n in range(FILES):
        (folder / f"f{n:04}.hwp").write_bytes(data)
    return folder


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, HWPSCAN_HOME=str(tmp_path / "home"), HWPSCAN_API_KEY=KEY)


@pytest.mark.parametrize("trial", range(3))
def test_a_stopped_scan_says_what_it_kept_and_its_resume_command_finishes_it(
    tmp_path: Path, corpus: Path, trial: int
) -> None:
    env = _env(tmp_path)
    db = tmp_path / "home" / "runs.sqlite"
    out, report = tmp_path / "rows.jsonl", tmp_path / "report"
    args = ["scan", str(corpus), "--jobs", "1", "-f", "jsonl", "-o", str(out)]
    proc = _start([*args, "--report", str(report), "--no-progress"], env)
    wait_until(lambda: _results(db) > 0, proc, "the first results were recorded")
    err = _stop(proc)
    text = " ".join(err.split())
    pattern = r"interrupted: ([\d,]+) of ([\d,]+) files scanned, recorded as run (\S+)"
    found = re.search(pattern, text)
    assert found, err
    done, total, run = int(found[1].replace(",", "")), int(found[2].replace(",", "")), found[3]
    assert total == FILES and 0 < done <= FILES
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) == done and all(json.loads(r)["path"] for r in rows)
    assert f"{out} holds their {done:,} rows" in text
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert f"Partial: stopped after {done:,} of {FILES:,} files" in summary
    assert f"Partial: stopped after {done:,} of {FILES:,} files" in (
        report / "report.html"
    ).read_text(encoding="utf-8")
    assert f"to report what was kept: hwpscan report {run}" in text
    assert not list(tmp_path.glob(TEMP_PREFIX + "*"))
    (line,) = [ln for ln in err.splitlines() if ln.startswith("to go on: ")]
    again = shlex.split(line.removeprefix("to go on: "))
    assert again[0] == "hwpscan" and again[-2:] == ["--resume", run]
    finished = subprocess.run(
        [sys.executable, "-m", "hwpscan", *again[1:]],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    assert f"{done:,} files carried over from run {run}" in finished.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == FILES


def test_a_stopped_repair_says_where_its_text_is(tmp_path: Path, corpus: Path) -> None:
    repaired = tmp_path / "repaired"
    args = ["repair", str(corpus), "--out", str(repaired), "--jobs", "1", "--no-progress"]
    proc = _start(args, _env(tmp_path))
    # rows reach the parent in batches, after their text is written: wait for some
    wait_until(lambda: len(list(repaired.rglob("*.txt"))) > 200, proc, "text was written")
    text = " ".join(_stop(proc).split())
    assert re.search(r"interrupted: [\d,]+ of 1,500 files scanned \(not recorded", text), text
    assert f"the repaired text of the files read is below {repaired}" in text
    assert "to go on: hwpscan repair" in text


@pytest.fixture
def slow_emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread(quirks=Quirks(download_delay=0.5)) as emu:
        yield emu


@pytest.mark.parametrize("trial", range(2))
def test_a_stopped_fetch_counts_its_files_and_gives_the_command(
    tmp_path: Path, slow_emulator: RunningEmulator, trial: int
) -> None:
    out = tmp_path / "out"
    args = ["fetch", "--from", "2025-07-21", "--to", "2025-08-11", "--out", str(out)]
    args += ["--api-url", slow_emulator.api_url, "--no-progress", "--downloads", "1"]
    proc = _start(args, _env(tmp_path))
    manifest = out / MANIFEST_NAME
    wait_until(lambda: bool(read_entries(manifest)), proc, "the first file was kept")
    text = " ".join(_stop(proc).split())
    kept = len(read_entries(manifest))
    assert f"({kept:,} file" in text and "downloaded there" in text, text
    assert "to go on: hwpscan fetch --from 2025-07-21 --to 2025-08-11" in text
    assert KEY not in text
