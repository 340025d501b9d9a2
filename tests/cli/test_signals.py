"""Stopping real processes: SIGTERM and Ctrl-C (SIGINT) to the emulator, scan, fetch, verify.

Every child is started with SIGINT's default restored in the child itself, so the
tests do not depend on the disposition they inherit: each test runs with SIGINT
*ignored* in the parent while it starts its child (as a background job of a script
would be), which is exactly the case that used to hang.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hwpscan.atomic import TEMP_PREFIX
from hwpscan.manifest import MANIFEST_NAME, read_entries
from hwpscan.rehearsal.emulator.quirks import Quirks
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

KEY = "TESTKEY" + "5" * 25
#: Restore SIGINT's default in the child, whatever it inherited, then run the CLI entry.
BOOT = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from hwpscan.cli import main; sys.argv[0] = 'hwpscan'; main()"
)


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Start children the way a script's background job would: SIGINT ignored."""
    if threading.current_thread() is not threading.main_thread():  # signal.signal needs it
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    with sigint_ignored():
        return subprocess.Popen(
            [sys.executable, "-c", BOOT, *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )


def wait_until(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str) -> None:
    for _ in range(600):  # 60 s at most
        if condition():
            return
        if proc.poll() is not None:
            _, err = proc.communicate()
            pytest.fail(f"the process ended ({proc.returncode}) before {what}: {err}")
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"timed out waiting for {what}")


def finish(proc: subprocess.Popen[str], timeout: float = 30) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def run_python(
    code: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run *code* with *args* in a child Python to its end (bounded), its output kept."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


def env_for(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, HWPSCAN_HOME=str(tmp_path / "home"), HWPSCAN_API_KEY=KEY)


# -- the emulator ------------------------------------------------------------------------


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_emulator_stops_cleanly_on_a_signal_sent_at_the_banner(
    tmp_path: Path, stop: signal.Signals
) -> None:
    proc = start(["emulator", "--port", "0"], env_for(tmp_path))
    try:
        first = proc.stdout.readline()  # type: ignore[union-attr]
        assert first.startswith("hwpscan emulator:"), first
        proc.send_signal(stop)  # at the first banner line, before "Press Ctrl-C"
        _, err = finish(proc, 20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Stopped after 0 API calls" in err


# -- scan --------------------------------------------------------------------------------


def _recorded(db: Path) -> tuple[int, int]:
    """(runs, results) in the run store, (0, 0) while it does not exist yet."""
    if not db.exists():
        return 0, 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            runs = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            results = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0, 0
    return runs, results


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
@pytest.mark.slow
def test_a_stopped_scan_keeps_and_records_what_it_did_and_drops_its_queue(
    tmp_path: Path, stop: signal.Signals
) -> None:
    files = 5000  # about 20 s of work on two workers: stopping must not wait for it
    data = build_hwp5(["금융감독원 보도자료 본문 " * 200])
    folder = tmp_path / "in"
    folder.mkdir()
    for n in range(files):
        (folder / f"f{n:04}.hwp").write_bytes(data)
    env = env_for(tmp_path)
    db = tmp_path / "home" / "runs.sqlite"
    out = tmp_path / "rows.jsonl"
    args = ["scan", str(folder), "--jobs", "2", "--format", "jsonl", "-o", str(out)]
    proc = start([*args, "--no-progress"], env)
    wait_until(lambda: _recorded(db)[1] > 0, proc, "the first results were recorded")
    proc.send_signal(stop)
    started = time.monotonic()
    _, err = finish(proc)
    took = time.monotonic() - started
    assert proc.returncode == 128 + stop, err
    assert "Traceback" not in err
    runs, results = _recorded(db)
    assert runs == 1 and 0 < results < files, (results, err)  # the queue was not scanned
    with sqlite3.connect(db) as conn:
        (finished,) = conn.execute("SELECT finished FROM runs").fetchone()
    assert finished is None  # shown as interrupted in `hwpscan history`
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) >= results  # every recorded result reached the output too
    assert took < 10


# -- fetch and verify --------------------------------------------------------------------


@pytest.fixture
def slow_emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread(quirks=Quirks(download_delay=0.5)) as emu:
        yield emu


@pytest.mark.parametrize(
    ("command", "stop"),
    [
        ("fetch", signal.SIGTERM),
        ("fetch", signal.SIGINT),
        ("verify", signal.SIGTERM),
    ],
    ids=["fetch-sigterm", "fetch-ctrl-c", "verify-sigterm"],
)
@pytest.mark.slow
def test_a_stopped_fetch_keeps_its_files_and_cancels_the_queue(
    tmp_path: Path, slow_emulator: RunningEmulator, command: str, stop: signal.Signals
) -> None:
    out = tmp_path / "out"
    common = ["--api-url", slow_emulator.api_url, "--out", str(out), "--no-progress"]
    if command == "fetch":
        args = ["fetch", "--from", "2025-07-21", "--to", "2025-08-11", *common, "--downloads", "1"]
    else:
        days = [f"2025-07-{d}" for d in (21, 22, 23, 24, 25, 28, 29, 30, 31)]
        args = ["verify", *(a for d in days for a in ("-d", d)), "--expect", "clean", *common]
    proc = start(args, env_for(tmp_path))
    manifest = out / MANIFEST_NAME
    wait_until(lambda: bool(read_entries(manifest)), proc, "the first file was kept")
    proc.send_signal(stop)
    _, err = finish(proc)
    text = " ".join(err.split())
    assert proc.returncode == 128 + stop, text
    assert "Traceback" not in text and "run the same command again" in text
    requested = slow_emulator.stats().downloads_total
    entries = read_entries(manifest)
    assert 1 <= len(entries) <= requested < 12  # the queue behind was not fetched
    for entry in entries:  # what was done is kept, complete, and in the manifest
        assert entry.status == "downloaded" and (out / str(entry.path)).is_file()
    assert not list(out.rglob(TEMP_PREFIX + "*"))


def _children(pid: int) -> list[int]:
    """The processes whose parent is *pid* (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie holds no file open


def _holders(path: Path) -> list[int]:
    """The processes other than this one that have *path* open (this one's look at the
    run store may leave a connection for the garbage collector)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fds = os.listdir(f"/proc/{entry}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    if int(entry) != os.getpid() and os.readlink(f"/proc/{entry}/fd/{fd}") == str(
                        path
                    ):
                        found.append(int(entry))
                except OSError:
                    continue
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("trial", range(3))
@pytest.mark.slow
def test_no_worker_outlives_a_killed_scan(tmp_path: Path, trial: int) -> None:
    """``kill -9`` of a scan (what the OOM killer does) mid-run: its workers end within
    seconds, so a reader of its output sees the end, and nothing holds its -o file or
    run store open."""
    data = build_hwp5(["금융감독원 보도자료 본문 " * 200])
    folder = tmp_path / "in"
    folder.mkdir()
    for n in range(3000):
        (folder / f"f{n:04}.hwp").write_bytes(data)
    env = env_for(tmp_path)
    out = tmp_path / "rows.jsonl"
    db = tmp_path / "home" / "runs.sqlite"
    args = ["scan", str(folder), "--jobs", "2", "--format", "jsonl", "--no-progress"]
    proc = start([*args, "-o", str(out), "--format", "jsonl"], env)
    wait_until(lambda: _recorded(db)[1] > 0, proc, "the first results were recorded")
    workers = _children(proc.pid)
    assert len(workers) >= 2  # the pool is up
    ended = threading.Event()

    def read_to_the_end() -> None:
        assert proc.stdout is not None
        while proc.stdout.read(65536):
            pass
        ended.set()

    threading.Thread(target=read_to_the_end, daemon=True).start()
    proc.kill()
    proc.wait(10)
    try:
        assert ended.wait(15), "the scan's stdout is still held open"
        deadline = time.monotonic() + 15
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [w for w in workers if _running(w)]
        assert _holders(out) == [] and _holders(db) == []
    finally:
        for worker in workers:
            if _running(worker):
                os.kill(worker, signal.SIGKILL)


#: An object whose finalizer is where Ctrl-C lands, then a wait it should cut short.
_CTRL_C_IN_A_FINALIZER = """
import signal, sys, time
from hwpscan.cli import stop

signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the parent ignores
stop.install()

class Collected:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)  # handled here, inside the finalizer
        time.sleep(0.01)

try:
    Collected()
    time.sleep(5)
except KeyboardInterrupt:
    print("stopped")
    sys.exit(stop.exit_code(0))
print("ran on")
"""


def test_a_ctrl_c_that_lands_in_a_finalizer_still_stops_the_command() -> None:
    done = run_python(_CTRL_C_IN_A_FINALIZER)
    assert done.stdout.strip() == "stopped"
    assert done.returncode == 130
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


_CTRL_C_IN_A_HAND_OVER = """
import pathlib, signal, tempfile
from hwpscan.cli import stop
from hwpscan.history.recording import recorded_run
from hwpscan.history.records import RunArgs
from hwpscan.history.store import RunStore
from hwpscan.models import FileResult, Format, Status
from hwpscan.scanning.row_handoff import Row

signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the parent ignores
stop.install()
shown = []

def show(rows):
    if len(shown) == 4:  # Ctrl-C while the results file is written
        signal.raise_signal(signal.SIGINT)
    shown.extend(rows)

with tempfile.TemporaryDirectory() as tmp, RunStore(pathlib.Path(tmp) / "r.sqlite") as db:
    try:
        with recorded_run("scan", RunArgs(), store=db, also_rows=show) as rec:
            for i in range(0, 12, 2):
                rec.take([Row.of(FileResult(f"{n}.pdf", "", 1, Format.PDF, Status.CLEAN))
                          for n in (i, i + 1)])
    except KeyboardInterrupt:
        pass
    print(len(shown), len(rec.results), len(db.load_run("latest").results))
"""


def test_the_commands_handler_lets_a_hand_over_of_rows_finish_before_it_stops() -> None:
    done = run_python(_CTRL_C_IN_A_HAND_OVER)
    # shown, counted, stored: the batch in hand reached all three, and no later one did
    assert done.stdout.split() == ["6", "6", "6"], done.stderr


_CTRL_C_WRITING_THE_REST = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from hwpscan.cli import input_order, main

class Deferred(input_order.InputOrder):
    # every row waits for the end (a bound of 0), and Ctrl-C comes after the third
    def __init__(self, **kwargs):
        super().__init__(**{**kwargs, "held_rows": 0})
        write = self._lines
        def lines(data):
            write(data)
            if self.written == 2:
                signal.raise_signal(signal.SIGINT)
        self._lines = lines

input_order.InputOrder = Deferred
sys.argv[0] = "hwpscan"
main()
"""


def test_a_stop_while_the_last_rows_come_from_the_store_says_the_run_is_whole(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    data = build_hwp5(["보도자료 본문"])
    for n in range(6):
        (folder / f"f{n}.hwp").write_bytes(data)
    out = tmp_path / "rows.jsonl"
    args = ["scan", str(folder), "--format", "jsonl", "-o", str(out), "--no-progress"]
    done = run_python(_CTRL_C_WRITING_THE_REST, *args, env=env_for(tmp_path))
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr
    assert "stopped while writing" in done.stderr and "all 6 files were scanned" in done.stderr
    assert f"{out} holds the first 3 rows" in done.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3


_CTRL_C_IN_A_STUCK_STEP = """
import signal, time
from hwpscan.cli import stop
from hwpscan.whole_steps import whole_step

signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the parent ignores
stop.install()
started = time.monotonic()
try:
    with whole_step():  # a step that does not end (a write to a pipe nobody reads)
        signal.raise_signal(signal.SIGINT)
        time.sleep(30)
    print("ran on")
except KeyboardInterrupt:
    print(f"stopped after {time.monotonic() - started:.1f} s")
"""


def test_one_ctrl_c_stops_a_step_that_does_not_end() -> None:
    done = run_python(_CTRL_C_IN_A_STUCK_STEP)
    said, _, seconds = done.stdout.strip().rpartition(" after ")
    assert said == "stopped", done.stderr
    assert float(seconds.removesuffix(" s")) < 20  # held for about a second, not 30
