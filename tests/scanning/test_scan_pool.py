"""The worker pool feeds files in chunks and keeps the per-file time limit.

A worker answers with batches of rows and writes which file it is on into a shared
progress word, so the supervisor knows which file of a chunk is being read: the one that
overruns is stopped and gets its row, the rest of its files (those it had done and not
sent too) go to another worker. Files are made by our own writers.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hwpscan.execution import process_pool
from hwpscan.execution.process_pool import MAX_CHUNK, _chunk_size
from hwpscan.models import FileResult, Status
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.scanning import many_files as scan_mod
from hwpscan.scanning.many_files import scan_paths

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
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
    pool = process_pool._Pool(work, 1, None, lambda: process_pool._Worker(setup))
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


# -- the time limit is measured right (a stamp is never read as later than the clock) ----


def _stamp_forever(progress: object, ready: object) -> None:
    """A stand-in worker: stamps item 0 as begun, as fast as it can, until killed."""
    ready.set()  # type: ignore[attr-defined]
    while True:
        progress.value = process_pool._progress_word(0, time.monotonic())  # type: ignore[attr-defined]


def test_an_item_stamped_while_the_supervisor_reads_is_never_overdue() -> None:
    """The supervisor reads a worker's progress word while the worker stamps it, on
    another core. Whatever the interleaving, the item has been running for no more
    than the time since the last stamp: never 49.7 days (a stamp read as later than the
    clock, modulo 2**32 ms), which would make a file of a few milliseconds overrun."""
    ctx = multiprocessing.get_context()
    progress = ctx.RawValue("Q", 0)
    ready = ctx.Event()
    stamper = ctx.Process(target=_stamp_forever, args=(progress, ready), daemon=True)
    stamper.start()
    try:
        assert ready.wait(30)
        worker = object.__new__(process_pool._Worker)
        worker.progress = progress
        worker.tasks = {0: None}
        worker.started = time.monotonic()
        worst = 0.0
        for _ in range(200_000):
            _, since = worker.current()
            worst = max(worst, time.monotonic() - since)
        # a stamp is at most a scheduling pause old; a wrap would be 4.29e6 s
        assert worst < 60, worst
    finally:
        stamper.kill()
        stamper.join(10)


@pytest.mark.slow
def test_tiny_files_on_busy_workers_never_overrun(tmp_path: Path) -> None:
    """Many files of a few milliseconds, several workers, several scans started together
    at a barrier and each run for several rounds: not one row over the time limit."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    for i in range(400):
        (folder / f"t{i:03}.hwp").write_bytes(build_hwp5([f"짧은 문단 {i}"]))
    go = tmp_path / "go"
    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from hwpscan.scanning.inputs import collect_files\n"
        "from hwpscan.scanning.many_files import scan_paths\n"
        "files = collect_files([Path(sys.argv[1])])\n"
        "while not os.path.exists(sys.argv[2]): time.sleep(0.001)\n"
        "over = 0\n"
        "for _ in range(int(sys.argv[3])):\n"
        "    rows = list(scan_paths(files, jobs=3, file_timeout=30, ordered=False))\n"
        "    assert len(rows) == len(files)\n"
        "    over += sum('per-file limit' in (r.reason or '') for r in rows)\n"
        "print(over)\n"
    )
    rounds, scans = 20, 3
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(folder), str(go), str(rounds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(scans)
    ]
    time.sleep(1.0)  # every scan imported and waiting at the barrier
    go.touch()
    overruns = []
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0
        overruns.append(int(out))
    assert overruns == [0] * scans  # 3 scans x 20 rounds x 400 files: 24,000 rows
