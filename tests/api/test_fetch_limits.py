"""Answer and run budgets of ``fetch`` against a hostile API on 127.0.0.1.

An answer over a budget is refused before it is cached (nothing under the cache, the
run stops with exit 3 naming the flag that raises the budget); the per-run budgets stop
downloading and record what was left; paid retries per window are capped.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hwpscan.manifest import read_entries

KEY = "Lm4Kx8Wq2Zr6Tn1Vb9Pc3Hd7Fg5Js0Ay"
API_PATH = "/fss/kr/openApi/api/bodoInfo.jsp"
FILE_PATH = "/fss/cmmn/file/fileDown.do"


class Server(ThreadingHTTPServer):
    daemon_threads = True
    answer: Callable[[Handler], None]
    api_hits: int = 0
    file_hits: int = 0


class Handler(BaseHTTPRequestHandler):
    server: Server
    timeout = 10

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith(API_PATH):
            self.server.api_hits += 1
        else:
            self.server.file_hits += 1
        self.server.answer(self)

    def send(self, body: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving(answer: Callable[[Handler], None]) -> Iterator[Server]:
    server = Server(("127.0.0.1", 0), Handler)
    server.answer = answer
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def listing(handler: Handler, attachments: int) -> bytes:
    base = f"http://{handler.headers['Host']}{FILE_PATH}?fileSn="
    item = {
        "contentId": "9",
        "subject": "보도",
        "regDate": "2025-07-21 10:00:00",
        "atchfileNm": "|".join(f"{n}.hwp" for n in range(attachments)),
        "atchfileUrl": "|".join(f"{base}{n}" for n in range(attachments)),
    }
    return json.dumps({"reponse": {"resultCode": "1", "resultCnt": 1, "result": [item]}}).encode()


def files_route(attachments: int, size: int = 100) -> Callable[[Handler], None]:
    def answer(handler: Handler) -> None:
        if handler.path.startswith(API_PATH):
            handler.send(listing(handler, attachments))
        else:
            handler.send(b"H" * size)

    return answer


def run(server: Server, tmp_path: Path, *args: str):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    import hwpscan.cli.fetch_command  # noqa: F401  (registers fetch)
    from hwpscan.cli import app

    env = {"HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    api = f"http://127.0.0.1:{server.server_address[1]}{API_PATH}"
    argv = ["fetch", "--from", "2025-07-21", "--to", "2025-07-21", "--api-url", api]
    argv += ["--out", str(tmp_path / "out"), "--no-progress", *args]
    result = CliRunner().invoke(app, argv, env=env)
    assert "Traceback" not in result.output
    return result


def cached_bodies(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "home").rglob("*.body"))


@pytest.mark.slow
def test_an_answer_of_too_many_items_is_refused_before_it_is_cached(tmp_path: Path) -> None:
    body = b'{"reponse": {"resultCode": "1", "result": [' + b"{}," * 200_000 + b"{}]}}"
    with serving(lambda h: h.send(body)) as server:
        result = run(server, tmp_path, "--max-items", "100")
    assert result.exit_code == 3, result.output
    said = " ".join(result.output.split())
    assert "refused, not cached" in said and "--max-items" in said
    assert not cached_bodies(tmp_path)


def test_a_release_with_too_many_attachments_is_refused_and_nothing_downloaded(
    tmp_path: Path,
) -> None:
    with serving(files_route(300)) as server:
        result = run(server, tmp_path)
        files = server.file_hits
    assert result.exit_code == 3, result.output
    assert "300 attachments, more than 50" in " ".join(result.output.split())
    assert files == 0 and not cached_bodies(tmp_path)


def test_the_per_run_file_budget_stops_downloading_and_records_the_rest(tmp_path: Path) -> None:
    with serving(files_route(5)) as server:
        result = run(server, tmp_path, "--max-files", "3")
        files = server.file_hits
    assert result.exit_code == 3, result.output
    assert files == 3
    entries = read_entries(tmp_path / "out" / "manifest.jsonl")
    assert [e.status for e in entries].count("downloaded") == 3
    skipped = [e for e in entries if e.status == "skipped"]
    assert len(skipped) == 2 and "--max-files" in (skipped[0].reason or "")
    assert cached_bodies(tmp_path)  # the answer itself was within its budgets


def test_the_per_run_byte_budget_fails_what_is_over_it(tmp_path: Path) -> None:
    with serving(files_route(6, size=300_000)) as server:
        result = run(server, tmp_path, "--max-total-mb", "1", "--downloads", "1")
    assert result.exit_code == 3, result.output
    entries = read_entries(tmp_path / "out" / "manifest.jsonl")
    downloaded = [e for e in entries if e.status == "downloaded"]
    failed = [e for e in entries if e.status == "failed"]
    assert len(downloaded) == 3 and len(failed) == 3
    assert all("--max-total-mb" in (e.reason or "") for e in failed)
    assert sum(e.bytes for e in downloaded) <= 1_000_000


@pytest.mark.parametrize(("api_retries", "calls"), [("0", 1), ("1", 2)])
def test_paid_retries_per_window_are_capped(tmp_path: Path, api_retries: str, calls: int) -> None:
    with serving(lambda h: h.send(b"busy", status=503)) as server:
        result = run(server, tmp_path, "--retries", "5", "--api-retries", api_retries)
        hits = server.api_hits
    assert result.exit_code == 3, result.output
    assert hits == calls
