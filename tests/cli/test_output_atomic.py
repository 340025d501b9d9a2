"""A results file (``-o``) is written atomically: two runs on the same file each leave it
whole, the last to finish wins, and a reader never sees a mix of their rows.

The race is real: two CLI processes released together at a multiprocessing barrier,
over many rounds, each scanning its own folder into the same file. Afterwards the file
must be exactly one run's complete output.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hwpscan.atomic import TEMP_PREFIX
from hwpscan.cli.scan_view import open_output
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

FILES = 120  # per folder: long enough that two streams overlap in time


def _folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    data = build_hwp5(["금융감독원 보도자료 본문 " * 40])
    for n in range(FILES):
        (folder / f"{name}-{n:03}.hwp").write_bytes(data)
    return folder


def _run_at_barrier(barrier: Any, argv: list[str], env: dict[str, str], rc: Any) -> None:
    barrier.wait(timeout=60)
    done = subprocess.run(argv, env=env, capture_output=True, timeout=300, check=False)
    rc.put(done.returncode)


def _paths(fmt: str, text: str) -> list[str]:
    """The file paths the results file holds, failing on any line that does not parse."""
    if fmt == "jsonl":
        return [json.loads(line)["path"] for line in text.splitlines()]
    if fmt == "json":
        return [row["path"] for row in json.loads(text)["rows"]]
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    return [row["path"] for row in reader]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "fmt", "rounds"),
    [("scan", "jsonl", 10), ("scan", "csv", 4), ("scan", "json", 4), ("repair", "jsonl", 4)],
)
def test_two_runs_on_one_results_file_leave_one_whole_output(
    tmp_path: Path, command: str, fmt: str, rounds: int
) -> None:
    folders = {name: _folder(tmp_path / "in", name) for name in ("alpha", "beta")}
    out = tmp_path / "rows.out"
    env = dict(os.environ, HWPSCAN_HOME=str(tmp_path / "home"))
    ctx = multiprocessing.get_context("spawn")
    outcomes = []
    for trial in range(rounds):
        barrier = ctx.Barrier(2)
        codes = ctx.Queue()
        procs = []
        for name, folder in folders.items():
            argv = [sys.executable, "-m", "hwpscan", command, str(folder), "--jobs", "1"]
            argv += ["--format", fmt, "-o", str(out), "--no-progress"]
            if command == "repair":
                argv += ["--out", str(tmp_path / f"repaired-{name}")]
            proc = ctx.Process(target=_run_at_barrier, args=(barrier, argv, env, codes))
            proc.start()
            procs.append(proc)
        for proc in procs:
            proc.join(timeout=300)
        assert sorted(codes.get(timeout=5) for _ in procs) == [0, 0], trial
        paths = _paths(fmt, out.read_text(encoding="utf-8"))
        owners = {Path(p).name.split("-")[0] for p in paths}
        assert len(owners) == 1 and len(paths) == FILES == len(set(paths)), (trial, owners)
        outcomes.append(owners.pop())
        assert not list(out.parent.glob(TEMP_PREFIX + "*"))  # no temp file left behind
    assert set(outcomes) <= set(folders)


def test_a_results_file_appears_whole_only_when_the_run_ends(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    out.write_text("old\n", encoding="utf-8")
    with open_output(out) as stream:
        stream.write('{"a": 1}\n')
        stream.flush()
        assert out.read_text(encoding="utf-8") == "old\n"  # the old file until the end
        (temp,) = tmp_path.glob(TEMP_PREFIX + "*.part")
    assert out.read_text(encoding="utf-8") == '{"a": 1}\n'
    assert not temp.exists()


def test_a_failed_run_leaves_the_results_file_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    out.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), open_output(out) as stream:
        stream.write("half")
        raise RuntimeError("boom")
    assert out.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]


@pytest.mark.parametrize("keep", [True, False])
def test_a_stopped_stream_keeps_its_whole_lines_unless_written_at_the_end(
    tmp_path: Path, keep: bool
) -> None:
    out = tmp_path / "rows.jsonl"
    with pytest.raises(KeyboardInterrupt), open_output(out, keep_partial=keep) as stream:
        stream.write('{"a": 1}\n')
        raise KeyboardInterrupt
    assert (out.read_text(encoding="utf-8") if out.exists() else None) == (
        '{"a": 1}\n' if keep else None
    )
    assert not list(tmp_path.glob(TEMP_PREFIX + "*"))


def test_a_results_file_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with open_output(tmp_path / "rows.jsonl") as stream:
            stream.write("x\n")
    finally:
        os.umask(old)
    assert (tmp_path / "rows.jsonl").stat().st_mode & 0o777 == 0o644


def test_a_device_is_written_directly() -> None:
    with open_output(Path(os.devnull)) as stream:
        stream.write("x\n")
    assert Path(os.devnull).exists() and not Path(os.devnull).is_file()
