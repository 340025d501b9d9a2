"""The worker pool feeds files in chunks and keeps the per-file time limit.

A worker answers with batches of rows and writes which file it is on into a shared
progress word, so the supervisor knows which file of a chunk is being read: the one that
overruns is stopped and gets its row, the rest of its files (those it had done and not
sent too) go to another worker. Files are made by our own writers.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from pathlib import Path

import pytest
from hwpscan.execution.process_pool import MAX_CHUNK, _chunk_size

from hwpscan.execution import process_pool
from hwpscan.scanning import many_files as scan_mod
from hwpscan.models import FileResult, Status
from hwpscan.rehearsal.synth.hwp5 import build_hwp5
from hwpscan.scanning.many_files import scan_paths

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
import hostile  # the reproducers' builders
from test_hostile_scan import LIMIT, hang_on


def _files(tmp: Path, n: int, slow_at: set[int]) -> list[Path]:
    # the slow file takes seconds to read (2.5 s here), far past the limits used below
    slow = hostile.slow_hwpx() if slow_at else b""
    paths = []
    for i in range(n):
        if i in slow_at:
            p = tmp / f"f{i:03}.hwpx"
            p.write_bytes(slow)
        else:
            p = tmp / f"f{i:03}.hwp"
            p.write_bytes(build_hwp5([f"문단 {i}"]))
        paths.append(p)
    return paths


def test_chunks_shrink_towards_the_end_of_the_queue() -> None:
    assert _chunk_size(100_000, 2) == MAX_CHUNK
    assert [_chunk_size(n, 2) for n in (64, 32, 16, 15, 1, 0)] == [4, 2, 1, 1, 1, 1]


@pytest.mark.slow
def test_a_slow_file_inside_a_chunk_costs_only_its_own_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = {6, 30}
    files = _files(tmp_path, 48, slow)
    assert _chunk_size(len(files), 1) > 1  # the slow files sit inside chunks
    for index in slow:  # their worker never ends them: only the limit can
        hang_on(monkeypatch, files[index])
    # the others take milliseconds: a limit of seconds holds them on any machine
    rows = list(scan_paths(files, jobs=1, file_timeout=LIMIT, ordered=False))
    assert sorted(r.index for r in rows if r.index is not None) == list(range(48))
    for row in rows:
        if row.index in slow:
            assert row.status is Status.ERROR and "per-file limit" in (row.reason or "")
        else:
            assert row.status is Status.CLEAN, row
    ordered = list(scan_paths(files, jobs=2, file_timeout=LIMIT))
    assert [r.index for r in ordered] == list(range(48))
    assert {r.index for r in ordered if r.status is Status.ERROR} == slow


@pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")
def test_a_worker_that_dies_between_files_blames_no_file(tmp_path: Path) -> None:
    """A worker killed while it holds no file (the OOM killer between two files) and
    then handed a chunk: none of those files was begun, so none gets a 'worker died'
    row; they all go back to the queue for the next worker."""
    import signal

    files = _files(tmp_path, 6, set())
    work = [(os.fspath(p), None, None) for p in files]
    setup = process_pool._Setup(scan_mod._scan_task, scan_mod._failed_task, None, os.getpid(), True)
    pool = process_pool._Pool(work, 1, None, setup)
    worker = process_pool._Worker(setup)
    pool.workers.append(worker)
    worker.give(pool.chunk())
    answered = []
    while worker.tasks:  # its first chunk, all answered
        if pool.wait([worker]):
            answered += pool.receive(worker)
    assert [i for i, _ in answered] == [0]
    os.kill(worker.proc.pid, signal.SIGKILL)
    worker.proc.join(10)
    worker.give(pool.chunk())  # the hand-over meets a dead worker: no error
    given = set(worker.tasks)
    assert given and pool.wait([worker])
    assert pool.receive(worker) == []  # EOF, and no file blamed
    assert worker not in pool.workers
    assert given <= {i for i, _ in pool.queue}  # back in the queue, first in line
    work = [job for _, job in sorted(pool.queue)]
    rest = [row for batch in scan_mod._pooled_rows(work, 1, None, None) for row in batch]
    assert all(row.status is Status.CLEAN for _, row in rest)


@pytest.mark.skipif(os.name != "posix", reason="relies on fork copying the patched module")
def test_a_worker_that_dies_right_after_sending_its_rows_costs_only_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that sends its rows and dies on its next file, before the supervisor has
    handed it more: the hand-over meets a closed pipe. That is one lost file (its row
    says the worker died), not the end of the scan. The supervisor takes its time over
    each row here, so every death comes before the next hand-over."""
    if multiprocessing.get_start_method(allow_none=True) not in (None, "fork"):
        pytest.skip("needs the fork start method")
    files = _files(tmp_path, 40, set())
    dies = {os.fspath(files[i]) for i in (3, 17, 29)}
    real = scan_mod.scan_file

    def dying(path: str | Path, date: str | None = None, repair: object = None) -> FileResult:
        if os.fspath(path) in dies:
            os._exit(9)  # a crash in native code, the moment the file is begun
        return real(path, date, repair)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_mod, "scan_file", dying)
    monkeypatch.setattr(process_pool, "MAX_BATCH", 1)  # each row sent as it is made
    rows = list(scan_paths(files, jobs=2, ordered=False, on_result=lambda _: time.sleep(0.02)))
    assert sorted(r.index for r in rows if r.index is not None) == list(range(40))
    lost = sorted(r.index for r in rows if r.status is not Status.CLEAN)  # type: ignore[type-var]
    assert lost == [3, 17, 29]
    assert all("worker process died" in (r.reason or "") for r in rows if r.index in lost)


@pytest.mark.skipif(os.name != "posix", reason="relies on fork copying the patched module")
def test_a_worker_that_dies_mid_batch_costs_only_the_file_it_was_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if multiprocessing.get_start_method(allow_none=True) not in (None, "fork"):
        pytest.skip("needs the fork start method")
    files = _files(tmp_path, 120, set())
    dies = files[70]
    real = scan_mod.scan_file

    def dying(path: str | Path, date: str | None = None, repair: object = None) -> FileResult:
        if os.fspath(path) == os.fspath(dies):  # a worker is given the path as text
            os._exit(9)  # what a segfault in native code looks like to the pool
        return real(path, date, repair)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_mod, "scan_file", dying)
    assert _chunk_size(len(files), 1) > 1  # rows before it were held, not sent yet
    rows = list(scan_paths(files, jobs=1, ordered=False))
    assert sorted(r.index for r in rows if r.index is not None) == list(range(120))
    lost = [r for r in rows if r.status is not Status.CLEAN]
    assert [r.index for r in lost] == [70]
    assert "worker process died" in (lost[0].reason or "")
