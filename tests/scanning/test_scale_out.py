"""Scanning beyond one machine: URL sources, the Dask executor, faults and --resume.

Real parts only: a Dask scheduler and workers started as processes on 127.0.0.1, moto's
standalone S3 server on 127.0.0.1, a stalling HTTP server on 127.0.0.1, and the CLI run
as a subprocess. Tests that need dask or moto skip, saying why, when they are missing
(``pip install -e '.[test,dask,cloud]' 'moto[server]'`` installs them).
"""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hwpscan.rowcodec import encode_row
from hwpscan.scanning.inputs import collect_files, resolve_dates
from hwpscan.scanning.one_file import scan_file
from hwpscan.scanning.sources import iter_items

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
#: A credential no real account has: it must never appear in anything hwpscan writes.
FAKE_SECRET = "hwpscanFAKEsecretQ7v2Lx9Rt0Wm"
BUCKET = "audit-store"
PREFIX = "uploads/2025/fixtures"

HAVE_DASK = all(importlib.util.find_spec(m) for m in ("dask", "distributed"))
HAVE_FSSPEC = importlib.util.find_spec("fsspec") is not None
HAVE_S3 = HAVE_FSSPEC and all(importlib.util.find_spec(m) for m in ("s3fs", "moto", "flask"))
HAVE_HTTP = HAVE_FSSPEC and importlib.util.find_spec("aiohttp") is not None

needs_dask = pytest.mark.skipif(
    not HAVE_DASK, reason="dask.distributed is not installed (pip install 'hwpscan[dask]')"
)
needs_fsspec = pytest.mark.skipif(
    not HAVE_FSSPEC, reason="fsspec is not installed (pip install 'hwpscan[cloud]')"
)
needs_s3 = pytest.mark.skipif(
    not HAVE_S3, reason="s3fs or moto[server] is not installed (hwpscan[cloud], moto[server])"
)
needs_http = pytest.mark.skipif(
    not HAVE_HTTP, reason="fsspec's HTTP filesystem needs aiohttp (pip install 'hwpscan[cloud]')"
)


# -- helpers ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hwpscan(
    *args: str, env: dict[str, str], timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hwpscan", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=timeout,
        check=False,
        cwd=ROOT,
    )


def rows_of(text: str, *, strip: str = "") -> dict[str, dict[str, Any]]:
    """JSON Lines rows by path (with *strip* cut from the front of each path)."""
    out: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        row = json.loads(line)
        assert row["path"].startswith(strip), row["path"]
        row["path"] = row["path"][len(strip) :]
        assert row["path"] not in out, f"{row['path']} reported twice"
        out[row["path"]] = row
    return out


def base_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HWPSCAN_DASK"))}
    env.update(HWPSCAN_HOME=str(home), COLUMNS="200", **extra)
    return env


def make_corpus(folder: Path, copies: int) -> Path:
    """*copies* readable fixture files below dated folders (a bigger corpus, same kinds)."""
    sources = [p for p in collect_files([FIXTURES]) if p.parent.name != "broken"]
    for i in range(copies):
        src = sources[i % len(sources)]
        day = folder / src.parent.name
        day.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, day / f"{i:04d}_{src.name}")
    return folder


@contextmanager
def dask_cluster(
    tmp: Path,
    *,
    workers: int = 2,
    env: dict[str, str] | None = None,
    preload: Path | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes], subprocess.Popen[bytes] | None]]:
    """A scheduler and *workers* worker processes (none: the scheduler alone) on
    127.0.0.1, started as a user would; each worker runs *preload* as it starts."""
    tmp.mkdir(parents=True, exist_ok=True)
    run_env = {
        **(env or os.environ),
        "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0",
        "DASK_TEMPORARY_DIRECTORY": str(tmp / "scratch"),
    }
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = []
    with (tmp / "scheduler.log").open("wb") as slog, (tmp / "workers.log").open("wb") as wlog:
        options = ["--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", *options],
            stdout=slog,
            stderr=subprocess.STDOUT,
            env=run_env,
        )
        started.append(scheduler)
        pool = None
        try:
            if workers:
                options = ["--host", "127.0.0.1", "--nworkers", str(workers), "--no-dashboard"]
                if preload is not None:
                    options += ["--preload", str(preload)]
                pool = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "distributed.cli.dask_worker",
                        address,
                        *options,
                        "--nthreads=1",
                    ],
                    stdout=wlog,
                    stderr=subprocess.STDOUT,
                    env=run_env,
                )
                started.insert(0, pool)
            wait_for_workers(address, workers)
            yield address, scheduler, pool
        finally:
            for proc in started:
                if proc.poll() is None:
                    proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def wait_for_workers(address: str, count: int, timeout: float = 120) -> None:
    from distributed import Client

    deadline = time.monotonic() + timeout
    with Client(address, timeout=timeout, set_as_default=False) as client:
        while len(client.scheduler_info()["workers"]) < count:
            assert time.monotonic() < deadline, "the Dask workers did not start"
            time.sleep(0.2)


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """moto's standalone S3 server on 127.0.0.1, holding the fixtures under a prefix."""
    if not HAVE_S3:
        pytest.skip("s3fs or moto[server] is not installed")
    port = free_port()
    log = (tmp_path_factory.mktemp("moto") / "moto.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    creds = {
        "AWS_ACCESS_KEY_ID": "hwpscantestkeyid",
        "AWS_SECRET_ACCESS_KEY": FAKE_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
    }
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "moto did not start"
                time.sleep(0.2)
        import s3fs

        fs = s3fs.S3FileSystem(
            key=creds["AWS_ACCESS_KEY_ID"],
            secret=FAKE_SECRET,
            endpoint_url=creds["AWS_ENDPOINT_URL"],
            skip_instance_cache=True,
        )
        fs.mkdir(BUCKET)
        for path in sorted(FIXTURES.rglob("*")):
            if path.is_file():
                key = f"{BUCKET}/{PREFIX}/{path.relative_to(FIXTURES).as_posix()}"
                fs.pipe_file(key, path.read_bytes())
        yield creds
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[str, dict[str, str]]]:
    """A two-worker cluster shared by the tests that do not break it (S3 settings too)."""
    if not HAVE_DASK:
        pytest.skip("dask.distributed is not installed")
    creds: dict[str, str] = request.getfixturevalue("s3_server") if HAVE_S3 else {}
    env = {**os.environ, **creds}
    with dask_cluster(tmp_path_factory.mktemp("cluster"), env=env) as (address, _, _):
        yield address, creds


# -- sources ----------------------------------------------------------------------------


@needs_fsspec
def test_a_url_is_listed_and_dated_as_the_same_folder_is(tmp_path: Path) -> None:
    """file:// listing: same files, same order, same dates (manifests included)."""
    folder = tmp_path / "store" / "docs"
    shutil.copytree(FIXTURES, folder)
    # a manifest above the files dates one file against its folder name; one in a
    # sub-folder dates another; a later line wins over an earlier one
    lines = [
        {"path": "2025-07-22/보도자료_금융민원_동향.hwp", "date": "2025-06-30"},
        {"path": "2025-07-22/보도자료_금융민원_동향.hwp", "date": "2025-07-01"},
    ]
    inner = [{"path": "distribution.hwp", "date": "2025-08-20"}]
    for where, entries in ((folder, lines), (folder / "broken", inner)):
        with (where / "manifest.jsonl").open("w", encoding="utf-8") as out:
            for entry in entries:
                base = {"content_id": "1", "subject": "s", "name": "n", "url": "u"}
                full = {**base, "sha256": None, "bytes": 0, "content_type": None}
                out.write(json.dumps({**full, **entry, "status": "downloaded"}) + "\n")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "x.hwp").write_bytes(b"not listed")

    files = collect_files([folder])
    dates = resolve_dates(files)
    want = [(p.relative_to(folder).as_posix(), dates.get(p), p.stat().st_size) for p in files]
    items = iter_items([folder.as_uri()])
    assert not isinstance(items, list)  # a generator: listed as consumed
    prefix = folder.as_uri() + "/"
    got = [(i.shown.removeprefix(prefix), i.date, i.size) for i in items]
    assert got == want
    dated = {p: d for p, d, _ in got}
    assert dated["2025-07-22/보도자료_금융민원_동향.hwp"] == "2025-07-01"
    assert dated["broken/distribution.hwp"] == "2025-08-20"


@needs_fsspec
@pytest.mark.slow
def test_a_file_url_scans_like_the_folder(tmp_path: Path) -> None:
    """The local executor over a file:// URL: the same tables and rows as the folder."""
    env = base_env(tmp_path / "home")
    folder = hwpscan("scan", str(FIXTURES), "-j", "2", env=env)
    url = hwpscan("scan", FIXTURES.as_uri(), "-j", "2", env=env)
    assert folder.returncode == url.returncode == 0, url.stderr
    assert url.stdout == folder.stdout
    rows = hwpscan("scan", FIXTURES.as_uri(), "-f", "jsonl", env=env)
    local = hwpscan("scan", str(FIXTURES), "-f", "jsonl", env=env)
    assert rows_of(rows.stdout, strip=FIXTURES.as_uri() + "/") == rows_of(
        local.stdout, strip=str(FIXTURES) + "/"
    )


@pytest.mark.slow
def test_resume_skips_what_the_run_already_holds(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "in", 12)
    env = base_env(tmp_path / "home")
    first = hwpscan("scan", str(corpus), "-f", "jsonl", "-j", "2", env=env)
    assert first.returncode == 0, first.stderr
    changed = sorted(corpus.rglob("*.hwp"))[0]
    changed.write_bytes(changed.read_bytes() + b"\0" * 512)  # the size no longer matches
    shutil.copyfile(FIXTURES / "broken" / "garbage.hwp", corpus / "2025-07-21" / "new.hwp")

    resumed = hwpscan("scan", str(corpus), "-f", "jsonl", "--resume", "latest", env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed: 11 files carried over" in resumed.stderr
    assert "2 scanned" in resumed.stderr
    fresh = hwpscan("scan", str(corpus), "-f", "jsonl", env=env)
    assert rows_of(resumed.stdout) == rows_of(fresh.stdout)
    assert len(rows_of(resumed.stdout)) == 13


def test_resume_of_an_unknown_run_is_a_usage_error(tmp_path: Path) -> None:
    done = hwpscan("scan", str(FIXTURES), "--resume", "nosuchrun", env=base_env(tmp_path))
    assert done.returncode == 2
    assert "no run matches" in done.stderr and "Traceback" not in done.stderr


def test_without_dask_the_executor_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None; "
        "sys.argv = ['hwpscan', 'scan', sys.argv[1], '--executor', 'dask']; "
        "from hwpscan.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(FIXTURES)],
        capture_output=True,
        text=True,
        env=base_env(tmp_path),
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "pip install 'hwpscan[dask]'" in done.stderr
    assert "Traceback" not in done.stderr


# -- per-file limit on workers ----------------------------------------------------------


class _Stall(http.server.BaseHTTPRequestHandler):
    """Says a file is 4,096 bytes long, sends 16 and then nothing until released."""

    release = threading.Event()

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "4096")
        self.end_headers()

    def do_GET(self) -> None:
        self.do_HEAD()
        self.wfile.write(b"\xd0\xcf\x11\xe0" * 4)
        self.wfile.flush()
        self.release.wait(60)

    def log_message(self, *args: object) -> None:
        pass


@needs_http
@pytest.mark.slow
def test_a_stalled_read_is_stopped_at_the_limit_and_its_process_replaced() -> None:
    from hwpscan.execution.guard_process import Guard
    from hwpscan.scanning.sources import WorkItem
    from hwpscan.scanning.work_items import SCAN_TASK, item_row

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stall)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    guard = Guard(SCAN_TASK, timeout=3.0)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/2025-07-21/slow.hwp"
        fixture = FIXTURES / "2025-07-22" / "보도자료_금융민원_동향.hwp"
        warm = guard.run(WorkItem(0, str(fixture), str(fixture), "2025-07-22"))
        assert encode_row(warm) == encode_row(scan_file(fixture, "2025-07-22"))
        # one batch: a file before the stalled one, the stalled one, a file after it
        batch = [WorkItem(i, str(fixture), str(fixture), "2025-07-22") for i in (1, 3)]
        batch.insert(1, WorkItem(2, url, url, "2025-07-21", remote=True))
        started = time.monotonic()
        before, slow, after = (
            item_row(i, a) for i, a in zip(batch, guard.run_many(batch), strict=True)
        )
        took = time.monotonic() - started
        assert slow.status.value == "error" and not slow.body_read
        assert slow.reason == "not finished within the per-file limit of 3 s"
        assert slow.path == url and slow.date == "2025-07-21"
        assert 2.5 < took < 20
        # a new process took over
        assert encode_row(before) == encode_row(after) == encode_row(warm)
    finally:
        _Stall.release.set()
        guard.close()
        server.shutdown()


# -- the Dask executor ------------------------------------------------------------------


@pytest.mark.dask
@needs_dask
@pytest.mark.slow
def test_a_local_cluster_gives_the_local_executors_results(tmp_path: Path) -> None:
    """hwpscan scan fixtures --executor dask: a LocalCluster of 2 workers on loopback."""
    env = base_env(tmp_path / "home")
    local = hwpscan("scan", "fixtures", env=env)
    dask = hwpscan("scan", "fixtures", "--executor", "dask", "-j", "2", env=env)
    assert local.returncode == dask.returncode == 0, dask.stderr
    assert dask.stdout == local.stdout  # the same tables, row for row
    local_rows = hwpscan("scan", "fixtures", "-f", "jsonl", env=env)
    dask_rows = hwpscan(
        "scan", "fixtures", "--executor", "dask", "-j", "2", "-f", "jsonl", "--batch-size", "3",
        env=env,
    )  # fmt: skip
    assert rows_of(dask_rows.stdout) == rows_of(local_rows.stdout)
    assert len(rows_of(dask_rows.stdout)) == len(collect_files([FIXTURES]))


@pytest.mark.dask
@pytest.mark.s3
@needs_dask
@needs_s3
@pytest.mark.slow
def test_s3_on_a_running_scheduler_matches_the_folder_and_keeps_the_secret(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    address, creds = cluster
    home = tmp_path / "home"
    env = base_env(home, **creds)
    url = f"s3://{BUCKET}/{PREFIX}"
    local = hwpscan("scan", str(FIXTURES), env=base_env(tmp_path / "home-local"))
    remote = hwpscan(
        "scan", url, "--executor", "dask", "--scheduler", address, "--report", str(tmp_path / "r"),
        env=env,
    )  # fmt: skip
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout  # paths are shown relative to the one source
    out = tmp_path / "rows.jsonl"
    rows = hwpscan(
        "scan", url, "--executor", "dask", "-f", "jsonl", "-o", str(out),
        env={**env, "HWPSCAN_DASK_SCHEDULER": address},
    )  # fmt: skip
    assert rows.returncode == 0, rows.stderr
    local_rows = hwpscan("scan", str(FIXTURES), "-f", "jsonl", env=base_env(tmp_path / "h2"))
    want = rows_of(local_rows.stdout, strip=str(FIXTURES) + "/")
    assert rows_of(out.read_text("utf-8"), strip=url + "/") == want
    here = hwpscan("scan", url, "-f", "jsonl", env=env)  # the local executor over S3
    assert rows_of(here.stdout, strip=url + "/") == want
    missing = hwpscan("scan", f"s3://{BUCKET}/no/such/prefix", env=env)
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    texts = [remote.stdout, remote.stderr, rows.stdout, rows.stderr, here.stdout, here.stderr]
    for text in [*texts, missing.stdout, missing.stderr]:
        assert FAKE_SECRET not in text
    for folder in (home, tmp_path / "r", tmp_path):
        for path in folder.rglob("*"):
            if path.is_file():
                assert FAKE_SECRET.encode() not in path.read_bytes(), path
                assert FAKE_SECRET not in path.name


@pytest.mark.dask
@pytest.mark.slow
@needs_dask
def test_a_worker_killed_mid_scan_costs_nothing(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    from distributed import Client

    from hwpscan.scanning.on_dask import dask_client, scan_on_dask

    address, _ = cluster
    items = list(iter_items([make_corpus(tmp_path / "in", 240)]))
    expected = {i.index: encode_row(scan_file(Path(i.location), i.date)) for i in items}
    got: dict[int, dict[str, Any]] = {}
    killed_at = 0
    with Client(address, set_as_default=False) as watcher, dask_client(address) as client:
        for index, result in scan_on_dask(items, client, batch_size=8):
            assert index not in got, f"row {index} came twice"
            got[index] = encode_row(result)
            if len(got) >= 24 and not killed_at:
                pids = watcher.run(os.getpid)  # {worker address: its process id}
                os.kill(int(next(iter(pids.values()))), signal.SIGKILL)
                killed_at = len(got)
    assert 0 < killed_at < len(items) - 16, "the kill came too late to test anything"
    assert got == expected  # every file once, retried files scanned right elsewhere
    wait_for_workers(address, 2)  # the nanny replaced the worker for the next tests


@pytest.mark.dask
@pytest.mark.slow
@needs_dask
def test_a_file_whose_retry_dies_too_is_an_error_row(tmp_path: Path) -> None:
    from hwpscan.scanning.on_dask import dask_client, scan_on_dask

    items = list(iter_items([make_corpus(tmp_path / "in", 3)]))
    # Every worker process dies the moment it runs a scan task (its nanny starts another).
    # Killing workers from outside instead can hit one while its nanny is still starting
    # it, and a nanny whose worker dies then gives up: a cluster left without workers.
    die = tmp_path / "die_on_scan.py"
    die.write_text(
        "import os\n"
        "import hwpscan.scanning.work_items as scanning\n\n"
        "def _die(*args, **kwargs):\n"
        "    os._exit(1)\n\n"
        "scanning.scan_batch = _die\n"
    )
    with (
        dask_cluster(tmp_path / "c", workers=1, preload=die) as (address, _, _),
        dask_client(address) as client,
    ):
        got = dict(scan_on_dask(items, client, batch_size=2, worker_wait=60))
    assert sorted(got) == [i.index for i in items]
    for index, result in got.items():
        assert result.status.value == "error"
        assert result.reason == (
            "the Dask worker died while reading this file, and again on the retry"
        )
        assert not result.body_read and result.path == items[index].shown


@pytest.mark.dask
@pytest.mark.slow
@needs_dask
def test_a_cluster_without_workers_stops_with_exit_3_after_the_wait(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "in", 2)
    home = tmp_path / "home"
    with dask_cluster(tmp_path / "c", workers=0) as (address, _, _):
        args = ["scan", str(corpus), "--executor", "dask", "--scheduler", address]
        started = time.monotonic()
        done = hwpscan(*args, "--worker-wait", "2", "-f", "jsonl", env=base_env(home), timeout=120)
        took = time.monotonic() - started
    assert done.returncode == 3, done.stderr
    assert "the Dask cluster has had no worker for 2 seconds" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert took < 60  # it gave up; without the wait it would never end


@pytest.mark.dask
@pytest.mark.slow
@needs_dask
def test_a_scheduler_that_goes_away_ends_with_exit_3_keeping_every_row(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "in", 400)
    home = tmp_path / "home"
    with dask_cluster(tmp_path / "c") as (address, scheduler, _):
        out = tmp_path / "rows.jsonl"
        with out.open("w", encoding="utf-8") as sink, (tmp_path / "err").open("w") as err:
            args = ["scan", str(corpus), "--executor", "dask", "--scheduler", address]
            scan = subprocess.Popen(
                [sys.executable, "-m", "hwpscan", *args, "--batch-size", "2", "-f", "jsonl"],
                stdout=sink,
                stderr=err,
                env=base_env(home),
                text=True,
            )
            deadline = time.monotonic() + 120
            while out.stat().st_size == 0 or len(out.read_text("utf-8").splitlines()) < 10:
                assert scan.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            scheduler.kill()
            code = scan.wait(timeout=120)
    stderr = (tmp_path / "err").read_text()
    assert code == 3, stderr
    assert "the Dask scheduler went away" in stderr and "Traceback" not in stderr
    written = rows_of(out.read_text("utf-8"))
    assert 10 <= len(written) < 400
    from hwpscan.history import RunStore

    with RunStore(home / "runs.sqlite") as store:
        run = store.load_run("latest")
    assert {r.path for r in run.results} == set(written)
    assert run.info.summary.get("stopped")
    assert all(row["status"] != "error" for row in written.values())


@pytest.mark.dask
@pytest.mark.slow
@needs_dask
def test_ctrl_c_cancels_the_outstanding_tasks(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    from distributed import Client

    address, _ = cluster
    corpus = make_corpus(tmp_path / "in", 600)
    out = tmp_path / "rows.jsonl"
    with out.open("w", encoding="utf-8") as sink:
        # the child installs Python's own SIGINT handler whatever this process ignores
        args = ["scan", str(corpus), "--executor", "dask", "--scheduler", address]
        scan = subprocess.Popen(
            [sys.executable, "-c", _WITH_SIGINT, *args, "--batch-size", "2", "-f", "jsonl"],
            stdout=sink,
            stderr=subprocess.PIPE,
            env=base_env(tmp_path / "home"),
            text=True,
        )
        deadline = time.monotonic() + 120
        while out.stat().st_size == 0:
            assert scan.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        scan.send_signal(signal.SIGINT)
        _, stderr = scan.communicate(timeout=60)
    assert scan.returncode != 0
    assert "Traceback" not in stderr
    assert len(out.read_text("utf-8").splitlines()) < 600
    with Client(address, set_as_default=False) as client:
        deadline = time.monotonic() + 30
        # a lambda travels by value: the scheduler cannot import this test module
        while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
            assert time.monotonic() < deadline, "tasks were left running on the cluster"
            time.sleep(0.2)


_WITH_SIGINT = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv = ['hwpscan', *sys.argv[1:]]; from hwpscan.cli import main; main()"
)


def test_only_the_schedulers_answer_no_worker_counts_towards_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watcher of a Dask scan, with a stand-in client and clock: failed questions
    and answers with workers never add up to "no worker for the wait"."""
    from types import SimpleNamespace

    from hwpscan.scanning import on_dask as dask_cluster

    clock = [1000.0]
    # the module's own clock only (patching time.monotonic would stop every clock here)
    monkeypatch.setattr(dask_cluster, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    answers: list[Any] = []

    class Client:
        def nthreads(self) -> dict[str, int]:
            answer = answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer

    def ask(answer: Any, later: float = 1.0) -> bool:
        clock[0] += later
        answers.append(answer)
        workers.refresh(every=1.0)
        return workers.gone()

    answers.append({"w1": 2})
    workers = dask_cluster._Workers(Client(), wait=5)  # type: ignore[arg-type]
    assert workers.threads == 2
    # the scheduler unreachable for a long while: nothing is concluded from that
    assert not any(ask(OSError("connection refused"), later=10) for _ in range(3))
    assert not ask({}) and not ask({}, later=3)  # none, for 3 s of the 5 allowed
    assert not ask({"w2": 1})  # one came back: the count starts again
    assert [ask({}, later=2) for _ in range(4)] == [False, False, False, True]
    assert workers.threads == 1
    answers.append({})
    never = dask_cluster._Workers(Client(), wait=None)  # type: ignore[arg-type]
    clock[0] += 10_000
    assert not never.gone()  # without a wait it waits for ever
