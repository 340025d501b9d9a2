"""Hostile files against the scanner: budgets on objects, a time limit, no lost row.

Every file is made by our own writers (``hwpscan.rehearsal.synth`` and the reproducers of
``benchmarks/hostile.py``); the memory test runs the real CLI in a subprocess under an
address-space limit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5_text import (
    MAX_PARAGRAPHS,
    MAX_WARNINGS,
    Budget,
    WarningList,
    section_segments,
)
from hwpscan.models import Segment, Status
from hwpscan.rehearsal.synth.hwp5_records import record
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.scanning.many_files import scan_paths
from hwpscan.scanning.one_file import MAX_REASON_CHARS, scan_bytes

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import hostile  # the reproducers' builders

from hwpscan.rowcodec import encode_row

ONE = "가".encode("utf-16-le")
PARA_END = b"\r\x00"


def paragraphs(n: int, text: bytes = ONE + PARA_END) -> bytes:
    return (record(spec.PARA_HEADER, 0, b"") + record(spec.PARA_TEXT, 0, text)) * n


# --- the section walk's budgets ------------------------------------------------------


def test_the_walk_stops_at_the_paragraph_budget_and_keeps_what_came_before() -> None:
    out: list[Segment] = []
    budget = Budget(paragraphs=10)
    assert section_segments(paragraphs(25), "s", out, [], budget) == 10
    assert [s.paragraph for s in out] == list(range(10))
    assert budget.exceeded is not None and "more than 10 paragraphs" in budget.exceeded


def test_the_paragraph_budget_is_shared_by_the_sections_of_a_document() -> None:
    out: list[Segment] = []
    budget = Budget(paragraphs=30)
    section_segments(paragraphs(20), "s0", out, [], budget)
    assert budget.exceeded is None
    section_segments(paragraphs(20), "s1", out, [], budget)
    assert len(out) == 30 and budget.exceeded is not None and budget.exceeded.startswith("s1:")


def test_the_record_budget_counts_every_record_not_only_text() -> None:
    other = record(spec.PARA_CHAR_SHAPE, 1, b"\0" * 8) * 100
    budget = Budget(records=50)
    section_segments(other + paragraphs(5), "s", [], [], budget)
    assert budget.exceeded is not None and "more than 50 records" in budget.exceeded


def test_text_past_the_unit_budget_is_cut_in_the_middle_of_a_paragraph() -> None:
    out: list[Segment] = []
    budget = Budget(units=7)
    section_segments(paragraphs(1, ONE * 20 + PARA_END), "s", out, [], budget)
    assert "".join(s.text for s in out) == "가" * 7
    assert budget.exceeded is not None and "code units of text" in budget.exceeded


def test_the_segment_budget_holds_inside_a_paragraph_full_of_controls() -> None:
    tab = bytes.fromhex("0900") + b"\0" * 12 + bytes.fromhex("0900")
    out: list[Segment] = []
    budget = Budget(segments=40)
    section_segments(paragraphs(1, (ONE + tab) * 100 + PARA_END), "s", out, [], budget)
    assert len(out) == 40 and budget.exceeded is not None and "segments" in budget.exceeded


def test_a_warning_list_keeps_its_cap_and_counts_the_rest() -> None:
    w = WarningList(cap=3)
    for n in range(10):
        w.append(f"w{n}")
    assert w.total == 10 and w.final() == ("w0", "w1", "w2", "and 7 more warnings")


# --- whole files ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_file_over_the_paragraph_budget_is_read_in_part_with_its_text_counted() -> None:
    data = hostile._hwp5_with([record(spec.PARA_TEXT, 0, ONE) * (MAX_PARAGRAPHS + 10)])
    row = scan_bytes(data, path="many.hwp")
    assert row.status is Status.CORRUPT and not row.status.scanned
    assert (row.reason or "").startswith("read in part")
    assert f"more than {MAX_PARAGRAPHS:,} paragraphs" in (row.reason or "")
    assert row.body.chars == MAX_PARAGRAPHS  # one character per paragraph read


def test_one_warning_per_damaged_record_becomes_a_capped_list() -> None:
    data = hostile._hwp5_with([record(spec.PARA_TEXT, 0, b"a") * 5000])
    row = scan_bytes(data, path="odd.hwp")
    assert len(row.warnings) <= MAX_WARNINGS + 1
    assert any(w.startswith("and ") and "more warning" in w for w in row.warnings)
    assert len(row.reason or "") <= MAX_REASON_CHARS + 40
    assert len(encode_row(row)) < 20_000


@pytest.mark.slow
def test_pua_pairs_past_the_text_budget_are_counted_and_the_file_contaminated() -> None:
    row = scan_bytes(hostile.pua_sections(), path="pua.hwp")
    # read in part, and what was read holds surrogates: contaminated, never hidden
    assert row.status is Status.CONTAMINATED and "code units of text" in (row.reason or "")
    assert row.body.surrogates > 0 and row.body.pairs * 2 == row.body.surrogates
    assert row.body.pua == {"U+F02B1": row.body.pairs}


def test_big_astral_text_is_split_and_merged_the_same_as_small() -> None:
    from hwpscan.forensics.surrogates import merge_pairs
    from hwpscan.formats.hwp5_text import codeunit_view

    unit = "가".encode("utf-16-le") + bytes.fromhex("80dbb1de") + bytes.fromhex("00dc")
    small = codeunit_view(unit)
    big = codeunit_view(unit * 500_000)
    assert big == small * 500_000 and merge_pairs(big) == merge_pairs(small) * 500_000


# --- time limit, streaming, memory ----------------------------------------------------


#: The per-file limit of the time-limit tests: thousands of times what a small file takes.
LIMIT = 4.0


def hang_on(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Make the workers (forked from this process) never finish reading *path*, so the
    test does not depend on how long a slow file takes on this machine."""
    from hwpscan.scanning import many_files as scan_mod

    real = scan_mod._scan_job

    def job(item: Any) -> Any:
        if Path(item[0]) == path:
            while True:
                time.sleep(3600)
        return real(item)

    monkeypatch.setattr(scan_mod, "_scan_job", job)


def normal(tmp: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        p = tmp / f"n{i}.hwp"
        p.write_bytes(build_hwp5([f"문단 {i}"]))
        paths.append(p)
    return paths


@pytest.mark.slow
def test_a_file_past_the_time_limit_is_a_row_and_the_others_stream_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tmp_path / "slow.hwpx"
    slow.write_bytes(hostile.slow_hwpx())
    hang_on(monkeypatch, slow)  # its worker never ends it: only the limit can
    files = [slow, *normal(tmp_path, 6)]
    # the others take milliseconds: a limit of seconds holds them on any machine
    rows = list(scan_paths(files, jobs=2, file_timeout=LIMIT, ordered=False))
    assert sorted(r.index for r in rows if r.index is not None) == list(range(7))
    assert rows[0].index != 0  # the slow file held nothing back
    late = next(r for r in rows if r.index == 0)
    assert late.status is Status.ERROR and f"{LIMIT:g}-second per-file limit" in (late.reason or "")
    assert all(r.status is Status.CLEAN for r in rows if r.index != 0)
    ordered = list(scan_paths(files, jobs=2, file_timeout=LIMIT))
    assert [r.index for r in ordered] == list(range(7))


@pytest.mark.slow
def test_cli_sort_input_restores_the_input_order(tmp_path: Path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "a.hwpx").write_bytes(hostile.slow_hwpx())  # seconds of work
    normal(folder, 5)
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-m", "hwpscan", "scan", str(folder), "-f", "jsonl"]
    argv += ["--no-progress", "-j", "2", "--file-timeout", "0.3"]
    done = subprocess.run([*argv, "--sort", "input"], capture_output=True, env=env, check=False)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0, done.stderr
    assert [r["index"] for r in rows] == list(range(6))
    assert rows[0]["status"] == "error" and "--file-timeout" in rows[0]["reason"]


MEMORY_LIMITED_SCAN = textwrap.dedent(
    """
    import re, resource, sys
    import hwpscan.cli
    status = open("/proc/self/status").read()
    size = int(re.search(r"VmSize:\\s+(\\d+) kB", status).group(1)) * 1024
    limit = size + 48 * 2**20  # a 64 MB section cannot be inflated under this
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.argv = ["hwpscan", *sys.argv[1:]]
    hwpscan.cli.main()
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_out_of_memory_in_a_worker_is_that_files_row_and_the_batch_goes_on(
    tmp_path: Path,
) -> None:
    pair = bytes.fromhex("80dbb1de")
    big = record(spec.PARA_HEADER, 0, b"") + record(spec.PARA_TEXT, 0, pair * (15 * 2**20))
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "big.hwp").write_bytes(hostile._hwp5_with([big]))
    normal(folder, 5)
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home")}
    for jobs in ("1", "2"):
        argv = ["-c", MEMORY_LIMITED_SCAN, "scan", str(folder), "-f", "jsonl"]
        argv += ["--no-progress", "-j", jobs, "--sort", "input"]
        done = subprocess.run([sys.executable, *argv], capture_output=True, env=env, check=False)
        assert b"Traceback" not in done.stderr, done.stderr.decode()
        assert done.returncode == 0, done.stderr.decode()
        rows = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(rows) == 6
        assert rows[0]["path"].endswith("big.hwp") and rows[0]["status"] == "error"
        assert "out of memory" in rows[0]["reason"]
        assert all(r["status"] == "clean" for r in rows[1:])


def _data_segment_mb() -> int:
    status = Path("/proc/self/status").read_text()
    match = re.search(r"VmData:\s+(\d+) kB", status)
    assert match is not None
    return int(match.group(1)) // 1024


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_file_over_the_memory_budget_is_an_error_row_that_names_the_budget(
    tmp_path: Path,
) -> None:
    """The worker's data segment is capped at the budget: a file that needs more (a
    60 MB text run, inflated and decoded) is an ``error`` row naming the budget, and the
    other files, in the same workers, are read as usual."""
    pair = bytes.fromhex("80dbb1de")
    big = record(spec.PARA_HEADER, 0, b"") + record(spec.PARA_TEXT, 0, pair * (15 * 2**20))
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "big.hwp").write_bytes(hostile._hwp5_with([big]))
    normal(folder, 5)
    budget = _data_segment_mb() + 48  # a worker starts as a copy of this process
    files = sorted(folder.iterdir())
    rows = list(scan_paths(files, jobs=2, memory_mb=budget))
    assert len(rows) == 6
    by_name = {Path(r.path).name: r for r in rows}
    bomb = by_name.pop("big.hwp")
    assert bomb.status is Status.ERROR and not bomb.body_read
    assert f"over the {budget:,} MB per-file memory budget" in (bomb.reason or "")
    assert all(r.status is Status.CLEAN for r in by_name.values())
