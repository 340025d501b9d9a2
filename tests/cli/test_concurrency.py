"""Runs that start at the same instant on one fresh state folder and one output folder.

Eight real ``hwpscan`` processes (scan, fetch and verify against the emulator on
127.0.0.1) load everything, wait at a barrier (a pipe they all block on), and are
released together on a ``HWPSCAN_HOME`` that does not exist yet. Every one must
succeed, every run must be recorded, and no API call may be paid twice. A second
test has two fetches share one ``--out`` folder, round after round.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hwpscan.api.quota import QuotaLedger
from hwpscan.atomic import TEMP_PREFIX
from hwpscan.errors import BusyError, LedgerBusyError, LedgerError, StoreBusyError
from hwpscan.history import RunStore
from hwpscan.manifest import MANIFEST_NAME, read_entries
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.shared_sqlite import retry_busy

KEY = "TESTKEY" + "8" * 25
FETCH = ["--from", "2025-07-21", "--to", "2025-07-25"]  # one window
# --cached: a fresh verify asks the API again by design; cache-first runs share a window
VERIFY = ["-d", "2025-07-21", "--expect", "contaminated", "--cached"]  # another window
WINDOWS = 2  # all the distinct windows a round asks for: each is paid for once

#: Import everything, report ready, block until the parent releases all children at once.
BOOT = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from hwpscan.cli import main
import hwpscan.api, hwpscan.scanning.many_files, hwpscan.history
ready, go = int(sys.argv[1]), int(sys.argv[2])
os.write(ready, b"r")
os.close(ready)
os.read(go, 1)
args = sys.argv[3:]
if args[0].startswith("--home="):  # this child's own state folder
    os.environ["HWPSCAN_HOME"] = args.pop(0).partition("=")[2]
sys.argv = ["hwpscan", *args]
main()
"""


@pytest.fixture(scope="module")
def emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread() as emu:
        yield emu


def start_together(
    commands: list[list[str]], env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    """Run each command as a CLI process; all leave the barrier at the same instant."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    procs = []
    try:
        for args in commands:
            argv = [sys.executable, "-c", BOOT, str(ready_w), str(go_r), *args]
            procs.append(
                subprocess.Popen(
                    argv,
                    env=env,
                    pass_fds=(ready_w, go_r),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    encoding="utf-8",
                )
            )
        os.close(ready_w)
        os.close(go_r)
        ready_w = go_r = -1
        seen = b""
        while len(seen) < len(commands):  # every child has loaded hwpscan
            chunk = os.read(ready_r, 64)
            if not chunk:
                break
            seen += chunk
        assert len(seen) == len(commands), "a child died before the barrier"
        os.close(go_w)  # EOF for everyone at once: the barrier opens
        go_w = -1
        results = []
        for proc, args in zip(procs, commands, strict=True):
            out, err = proc.communicate(timeout=180)
            results.append(subprocess.CompletedProcess(args, proc.returncode, out, err))
        return results
    finally:
        for fd in (ready_r, ready_w, go_r, go_w):
            if fd >= 0:
                os.close(fd)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _inputs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "a.hwp").write_bytes(build_hwp5(["보도자료 본문"]))
    (folder / "b.hwpx").write_bytes(build_hwpx(["보도자료 본문 둘"]))
    return folder


def one_round(emulator: RunningEmulator, root: Path, processes: int = 8) -> None:
    emulator.reset()
    home, out = root / "home", root / "out"  # neither exists yet
    scanned = _inputs(root / "in")
    api = ["--api-url", emulator.api_url, "--out", str(out), "--no-progress"]
    kinds = [("scan", "fetch", "verify")[n % 3] for n in range(processes)]
    commands = {
        "scan": ["scan", str(scanned), "--no-progress", "--jobs", "1"],
        "fetch": ["fetch", *FETCH, *api, "--downloads", "2"],
        "verify": ["verify", *VERIFY, *api, "--jobs", "1"],
    }
    env = dict(os.environ, HWPSCAN_HOME=str(home), HWPSCAN_API_KEY=KEY)
    env.pop("COLUMNS", None)
    results = start_together([commands[k] for k in kinds], env)
    for kind, result in zip(kinds, results, strict=True):
        text = " ".join(result.stderr.split())
        assert result.returncode == 0, f"{kind}: {text}"
        assert "Traceback" not in text and "not recorded" not in text, f"{kind}: {text}"
        assert "busy" not in text and "move it aside" not in text, f"{kind}: {text}"
        assert "run recorded: " in text, f"{kind}: {text}"
    with sqlite3.connect(home / "runs.sqlite") as conn:
        runs = conn.execute("SELECT kind, finished FROM runs").fetchall()
    assert sorted(k for k, _ in runs) == sorted(kinds)  # every run recorded ...
    assert all(finished for _, finished in runs)  # ... and finished
    stats = emulator.stats()
    assert stats.calls_total == WINDOWS  # no window paid twice
    assert QuotaLedger(home / "quota.sqlite").status(KEY).used == WINDOWS
    check_downloads(out)


def check_downloads(out: Path) -> None:
    """Every file the manifest lists is complete; no temp file is left."""
    entries = read_entries(out / MANIFEST_NAME)
    assert entries
    for entry in entries:
        assert entry.status == "downloaded", entry
        data = (out / str(entry.path)).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.bytes
    assert not list(out.rglob(TEMP_PREFIX + "*"))


@pytest.mark.slow
def test_eight_runs_started_together_on_a_fresh_home(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    for n in range(3):
        one_round(emulator, tmp_path / f"round-{n}")


@pytest.mark.slow
def test_eight_runs_started_together_twenty_rounds(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    for n in range(20):
        one_round(emulator, tmp_path / f"round-{n}")


@pytest.mark.slow
def test_two_fetches_into_one_out_folder_both_finish(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    for n in range(5):
        emulator.reset()
        root = tmp_path / f"round-{n}"
        out = root / "out"
        # one home each: neither finds the other's cached answer, both download into out
        commands = [
            [
                f"--home={root / f'home-{i}'}",
                "fetch",
                *FETCH,
                *(
                    "--api-url",
                    emulator.api_url,
                    "--out",
                    str(out),
                    "--no-progress",
                    "--downloads",
                    "4",
                ),
            ]
            for i in range(2)
        ]
        results = start_together(commands, dict(os.environ, HWPSCAN_API_KEY=KEY))
        for result in results:
            text = " ".join(result.stderr.split())
            assert result.returncode == 0, text
            assert "Traceback" not in text and "partial file" not in text, text
        stats = emulator.stats()
        assert stats.calls_total == 2  # one each: the homes are separate
        assert set(stats.downloads.values()) == {1}  # but each file fetched once, by one
        check_downloads(out)


# -- the same at the library level: the moment a fresh file is created ----------------------


def _open_fresh(barrier: Any, folder: str, n: int) -> str | None:
    """In a pool worker: wait for all, then open, write and close store and ledger."""
    barrier.wait(timeout=60)
    try:
        with RunStore(Path(folder) / "runs.sqlite") as store:
            run = store.start_run("scan", {"n": n})
            store.finish_run(run)
        QuotaLedger(Path(folder) / "quota.sqlite").reserve(KEY)
    except Exception as exc:  # reported to the test, which names it
        return f"{type(exc).__name__}: {exc}"
    return None


def _at_a_barrier(
    tmp_path: Path, job: Callable[[Any, str, int], str | None], processes: int, rounds: int
) -> Iterator[Path]:
    """Each round, *processes* pool workers run ``job(barrier, folder, i)``, released
    together; the round's folder (made, unless made beforehand) once every one of them
    answered without an error."""
    # forkserver: workers forked from a clean server, not from this threaded process; a
    # manager's barrier releases every waiter at once (a semaphore one releases in turn)
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Manager() as manager, ctx.Pool(processes) as pool:
        barrier = manager.Barrier(processes)
        for n in range(rounds):
            folder = tmp_path / f"round-{n}"
            folder.mkdir(exist_ok=True)
            work = [(barrier, str(folder), i) for i in range(processes)]
            errors = [e for e in pool.starmap(job, work, chunksize=1) if e]
            assert errors == [], f"round {n}: {errors}"
            yield folder


@pytest.mark.slow
def test_eight_processes_create_one_store_and_ledger_at_the_same_instant(
    tmp_path: Path,
) -> None:
    for folder in _at_a_barrier(tmp_path, _open_fresh, processes=8, rounds=20):
        with sqlite3.connect(folder / "runs.sqlite") as conn:
            assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 8
        assert QuotaLedger(folder / "quota.sqlite").status(KEY).used == 8


def _write_big(barrier: Any, folder: str, n: int) -> str | None:
    """In a pool worker: wait for all, then write 3 MB of results to the shared store
    (its checkpoint thread copying the log while the others write), then close."""
    from hwpscan.models import FileResult, Format, Status

    barrier.wait(timeout=60)
    try:
        with RunStore(Path(folder) / "runs.sqlite") as store:
            run = store.start_run("scan", {"n": n})
            rows = [
                FileResult(f"{n}/{i}.hwp", "", i, Format.HWP5, Status.CORRUPT, reason="x" * 20_000)
                for i in range(150)
            ]
            for k in range(0, len(rows), 10):
                store.add_results(run, rows[k : k + 10])
            store.finish_run(run)
    except Exception as exc:  # reported to the test, which names it
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.mark.slow
def test_four_processes_write_megabytes_to_one_store_while_their_checkpoints_run(
    tmp_path: Path,
) -> None:
    for folder in _at_a_barrier(tmp_path, _write_big, processes=4, rounds=5):
        with RunStore(folder / "runs.sqlite") as store:
            runs = store.list_runs(10)
            assert len(runs) == 4 and all(r.finished for r in runs)
            for info in runs:
                got = [r.path for r in store.load_run(info.id).results]
                assert got == [f"{info.args['n']}/{i}.hwp" for i in range(150)]
        with sqlite3.connect(folder / "runs.sqlite") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _keep_one_copy(barrier: Any, folder: str, n: int) -> str | None:
    """In a pool worker: wait for all, then keep the same earlier copy of one file (as
    two fetches that re-download one changed attachment into one folder do)."""
    from hwpscan.api.download import keep_copy

    src = Path(folder) / "a.hwp"
    barrier.wait(timeout=60)
    try:
        keep_copy(src, Path(folder) / ".superseded" / "0123456789ab_a.hwp")
    except Exception as exc:  # reported to the test, which names it
        return f"{type(exc).__name__}: {exc}"
    return None


def test_runs_sharing_a_folder_keep_one_superseded_copy_without_failing(
    tmp_path: Path,
) -> None:
    """A run found another's hard link there and copied the file onto itself
    ('are the same file'): the fetch ended with exit 2."""
    for n in range(10):  # each round's file, there before its workers start
        (tmp_path / f"round-{n}").mkdir()
        (tmp_path / f"round-{n}" / "a.hwp").write_bytes(b"earlier bytes %d" % n)
    for n, folder in enumerate(_at_a_barrier(tmp_path, _keep_one_copy, processes=4, rounds=10)):
        kept = folder / ".superseded" / "0123456789ab_a.hwp"
        assert kept.read_bytes() == b"earlier bytes %d" % n
        assert [p.name for p in (folder / ".superseded").iterdir()] == [kept.name]


# -- a lock is a lock, not damage ---------------------------------------------------------


@contextmanager
def write_locked(db: Path) -> Iterator[None]:
    """Another connection holds the write lock on *db* for the duration."""
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_locked_run_store_is_busy_and_names_the_open_run(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as first:
        other = first.start_run("fetch", {"from": "2025-07-21"})
    store = RunStore(db, timeout=0.3)
    with write_locked(db), pytest.raises(StoreBusyError) as caught:
        store.start_run("scan", {})
    message = str(caught.value)
    assert "is busy" in message and other in message and "fetch" in message
    assert "move it aside" not in message and "not a usable" not in message
    assert store.start_run("scan", {})  # the lock is gone: the same handle works
    store.close()


def test_a_locked_ledger_is_busy_and_a_damaged_one_is_damaged(tmp_path: Path) -> None:
    ledger = QuotaLedger(tmp_path / "quota.sqlite", timeout=0.3)
    with write_locked(ledger.path), pytest.raises(LedgerBusyError) as caught:
        ledger.reserve(KEY)
    assert "is busy" in str(caught.value) and "move it aside" not in str(caught.value)
    assert ledger.reserve(KEY) == 1
    (tmp_path / "bad.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(LedgerError) as damaged:
        QuotaLedger(tmp_path / "bad.sqlite", timeout=0.3)
    assert not isinstance(damaged.value, LedgerBusyError)
    assert "move it aside" in str(damaged.value)


def test_only_busy_errors_are_retried_and_only_for_a_while() -> None:
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 4:
            raise sqlite3.OperationalError("database is locked")
        return "done"

    assert retry_busy(flaky, timeout=5, sleep=lambda _: None) == "done" and len(calls) == 4

    def broken() -> None:
        calls.append(1)
        raise sqlite3.OperationalError("no such table: runs")

    calls.clear()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry_busy(broken, timeout=5, sleep=lambda _: None)
    assert len(calls) == 1

    def locked() -> None:
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(BusyError):
        retry_busy(locked, timeout=0.05)
