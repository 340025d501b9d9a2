"""The conventions of good command-line tools: a closed pipe is not findings, and an
option that does nothing in this use is an error, not ignored. (What the report files
and headlines promise is in tests/report/test_report_conventions.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hwpscan.models import ExitCode

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "120"}


@pytest.mark.parametrize("fmt", ["table", "jsonl", "csv"])
def test_a_closed_pipe_is_not_findings(tmp_path: Path, fmt: str) -> None:
    """``hwpscan scan ... | head``: the reader is gone before the first write. The exit
    is 141 (128 + SIGPIPE, as for a tool the signal ends), never 1 (findings), and
    nothing is said about it."""
    read, write = os.pipe()
    os.close(read)  # every write to the pipe now fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES), "-f", fmt, "--no-progress"],
            stdout=write,
            stderr=subprocess.PIPE,
            env=_env(tmp_path),
            check=False,
        )
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr


def test_scan_out_without_a_range_is_an_error_not_ignored(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES / "2025-07-21"),
         "--out", str(tmp_path / "kept")],
        capture_output=True, env=_env(tmp_path), check=False,
    )  # fmt: skip
    assert done.returncode == ExitCode.USAGE
    assert b"--out is where --from/--to keeps the attachments" in done.stderr
    assert not (tmp_path / "kept").exists()
