"""Messages in a log: a real ``hwpscan`` subprocess with stderr on a pipe, long paths."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "hwpscan"]


def _long_folder(tmp_path: Path, length: int = 200) -> Path:
    """A folder whose absolute path is at least *length* characters, in 50-char parts."""
    folder = tmp_path
    while len(str(folder)) < length:
        folder = folder / ("깊은폴더-" + "d" * 44)[:50]
    return folder


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env=env or dict(os.environ),
        check=False,
    )


@pytest.mark.slow
def test_an_error_about_a_long_path_keeps_the_path_on_one_line(tmp_path: Path) -> None:
    missing = _long_folder(tmp_path) / "보도자료-없는-파일.hwp"
    assert len(str(missing)) >= 200
    for columns in (None, "80"):  # rich's default width, and a CI that sets COLUMNS
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        if columns:
            env["COLUMNS"] = columns
        result = _run("scan", str(missing), "--no-progress", env=env)
        assert result.returncode == 2, result.stderr
        lines = [line for line in result.stderr.splitlines() if str(missing) in line]
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("error: ") and "Traceback" not in result.stderr


def test_warnings_and_summaries_are_not_wrapped_either(tmp_path: Path) -> None:
    folder = _long_folder(tmp_path, 230)
    folder.mkdir(parents=True)
    (folder / "note.txt").write_text("보도자료 본문", encoding="utf-8")
    (folder / "garbage.hwp").write_bytes(bytes(range(256)) * 8)
    out = folder / "rows.jsonl"
    env = dict(os.environ, COLUMNS="80")
    result = _run("scan", str(folder), "--format", "jsonl", "-o", str(out), env=env)
    assert result.returncode == 0, result.stderr
    # the summary names the output file, 230+ characters: one line, not several
    assert [line for line in result.stderr.splitlines() if str(out) in line], result.stderr
    # a line naming the folder (its summary, its no-document warning) is kept whole
    assert all(len(line) <= 80 or str(folder) in line for line in result.stderr.splitlines())


@pytest.mark.slow
def test_an_unknown_option_is_one_plain_line_off_a_terminal() -> None:
    result = _run("scan", "--no-such-option-" + "x" * 120)
    assert result.returncode == 2
    error = [line for line in result.stderr.splitlines() if "No such option" in line]
    assert len(error) == 1 and "x" * 120 in error[0], result.stderr
    assert "╭" not in result.stderr  # no box drawn into a log
