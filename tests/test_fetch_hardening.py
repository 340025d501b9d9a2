"""Hostile and broken servers against the fetch layer: no traceback, no key, no hang.

Each test starts a tiny hostile HTTP server on 127.0.0.1 (stdlib, in a thread, bounded)
that answers the way a broken or malicious API would, and checks what hwpscan does:
exit codes (2 usage, 3 API trouble), warnings instead of crashes, and the API key in no
file written and no output.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from hwpscan.fetch.download import TEMP_PREFIX, Downloader, DownloadJob

KEY = "K3yZ9qWvX7pLmN2bR8tY5uHc4dFgJ6sA"
API_PATH = "/fss/kr/openApi/api/bodoInfo.jsp"
FILE_PATH = "/fss/cmmn/file/fileDown.do"

Route = Callable[["Handler"], None]


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True
    route: Route
    hits: list[str]

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.base + API_PATH

    @property
    def file_url(self) -> str:
        return self.base + FILE_PATH

    def api_hits(self) -> int:
        return sum(1 for h in self.hits if h.startswith(API_PATH))

    def file_hits(self) -> int:
        return sum(1 for h in self.hits if h.startswith(FILE_PATH))


class Handler(BaseHTTPRequestHandler):
    server: HostileServer
    timeout = 10  # a stuck client cannot hold a server thread for ever

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        self.server.route(self)

    @property
    def query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def send(self, body: bytes, status: int = 200, ctype: str = "text/html;charset=euc-kr") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def hostile(route: Route) -> Iterator[HostileServer]:
    server = HostileServer(("127.0.0.1", 0), Handler)
    server.route, server.hits = route, []
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def drip(handler: Handler, *, count: int = 40, pause: float = 0.2) -> None:
    """An attachment sent one byte at a time (at most ``count`` bytes, then it ends)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.end_headers()
    try:
        for _ in range(count):
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(pause)
    except OSError:  # the client gave up: that is the point
        pass


def file_route(handler: Handler) -> None:
    if "drip" in handler.path:
        drip(handler)
    else:
        time.sleep(0.2)
        handler.send(b"HWP" * 10, ctype="application/octet-stream")


def no_temp_files(folder: Path) -> bool:
    return not list(folder.rglob(TEMP_PREFIX + "*"))


# --- 5: a slow drip must end --------------------------------------------------------


def test_a_dripping_download_stops_at_its_deadline(tmp_path: Path) -> None:
    with hostile(file_route) as server, httpx.Client(timeout=5) as http:
        downloader = Downloader(http, retries=0, deadline=1.0)
        result = downloader.download(DownloadJob(server.file_url + "?drip=1", tmp_path / "d.hwp"))
    assert result.status == "failed" and "deadline" in (result.reason or "")
    assert not (tmp_path / "d.hwp").exists() and no_temp_files(tmp_path)


def test_a_download_slower_than_the_minimum_rate_stops(tmp_path: Path) -> None:
    with hostile(file_route) as server, httpx.Client(timeout=5) as http:
        downloader = Downloader(http, retries=0, min_rate=1000, rate_grace=0.5)
        result = downloader.download(DownloadJob(server.file_url + "?drip=1", tmp_path / "d.hwp"))
    assert result.status == "failed" and "slower than 1000 bytes/s" in (result.reason or "")
    assert not (tmp_path / "d.hwp").exists() and no_temp_files(tmp_path)


def test_the_default_deadline_grows_with_the_size_cap() -> None:
    small = Downloader(httpx.Client(), max_bytes=1_000_000)
    large = Downloader(httpx.Client(), max_bytes=500_000_000)
    assert small.deadline == 60.0 and large.deadline == 5000.0


# --- 9: Ctrl-C cancels what is queued --------------------------------------------------


def test_interrupting_the_downloads_cancels_the_queued_ones(tmp_path: Path) -> None:
    with hostile(file_route) as server, httpx.Client(timeout=5) as http:
        jobs = [
            DownloadJob(f"{server.file_url}?fileSn={n}", tmp_path / f"{n}.hwp") for n in range(8)
        ]
        results = Downloader(http, jobs=1).run(jobs)
        assert next(results).status == "downloaded"
        with pytest.raises(KeyboardInterrupt):
            results.throw(KeyboardInterrupt)
        hits = server.file_hits()
    assert hits <= 2  # the first, and at most the one already running
    assert len(list(tmp_path.glob("*.hwp"))) <= 2 and no_temp_files(tmp_path)
