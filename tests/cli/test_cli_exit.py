"""The console script's end: the exit handlers run, every line written arrives, and the
status is the command's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.many_files import scan_paths

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _interpreter(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """This interpreter run with *args*, its state folder below *tmp*."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HWPSCAN_HOME": str(tmp / "home")},
        timeout=120,
        check=False,
    )


def _python(code: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _interpreter(tmp, "-c", textwrap.dedent(code), *args)


@pytest.mark.slow
def test_exit_handlers_run_and_every_row_arrives(tmp_path: Path) -> None:
    marker = tmp_path / "handler-ran"
    code = f"""
        import atexit, pathlib, sys
        atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text("yes"))
        sys.argv = ["hwpscan", *sys.argv[1:]]
        from hwpscan.cli import run
        run()
        print("not reached")
    """
    done = _python(
        code, tmp_path, "scan", str(FIXTURES), "-f", "jsonl", "--fail-on", "contaminated"
    )
    assert done.returncode == 1, done.stderr  # findings: main's status
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 63 and "not reached" not in done.stdout
    here = {r.path: r.status.value for r in scan_paths(collect_files([FIXTURES]), jobs=1)}
    assert {r["path"]: r["status"] for r in rows} == here  # every row, whole
    assert marker.read_text() == "yes"
    runs = _interpreter(tmp_path, "-m", "hwpscan", "history", "--format", "json")
    assert runs.returncode == 0, runs.stderr
    assert '"files": 63' in runs.stdout  # the run store was written and closed whole
