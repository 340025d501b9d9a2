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

from hwpscan.api import FetchHooks, FetchSettings, RetryPolicy
from hwpscan.api.dates import KST
from hwpscan.api.download import Downloader, DownloadJob
from hwpscan.atomic import TEMP_PREFIX
from hwpscan.usecases.run_fetch import FetchReport

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


@pytest.mark.slow
def test_a_dripping_download_stops_at_its_deadline(tmp_path: Path) -> None:
    with hostile(file_route) as server, httpx.Client(timeout=5) as http:
        downloader = Downloader(http, FetchSettings(retry=RetryPolicy(0), download_deadline=1.0))
        result = downloader.download(DownloadJob(server.file_url + "?drip=1", tmp_path / "d.hwp"))
    assert result.status == "failed" and "deadline" in (result.reason or "")
    assert not (tmp_path / "d.hwp").exists() and no_temp_files(tmp_path)


def test_a_download_slower_than_the_minimum_rate_stops(tmp_path: Path) -> None:
    with hostile(file_route) as server, httpx.Client(timeout=5) as http:
        downloader = Downloader(
            http, FetchSettings(retry=RetryPolicy(0)), min_rate=1000, rate_grace=0.5
        )
        result = downloader.download(DownloadJob(server.file_url + "?drip=1", tmp_path / "d.hwp"))
    assert result.status == "failed" and "slower than 1000 bytes/s" in (result.reason or "")
    assert not (tmp_path / "d.hwp").exists() and no_temp_files(tmp_path)


@pytest.mark.slow
def test_the_default_deadline_grows_with_the_size_cap() -> None:
    small = Downloader(httpx.Client(), FetchSettings(max_bytes=1_000_000))
    large = Downloader(httpx.Client(), FetchSettings(max_bytes=500_000_000))
    assert small.deadline == 60.0 and large.deadline == 5000.0


# --- 9: Ctrl-C cancels what is queued --------------------------------------------------


def test_interrupting_the_downloads_cancels_the_queued_ones(tmp_path: Path) -> None:
    with hostile(file_route) as server, httpx.Client(timeout=5) as http:
        jobs = [
            DownloadJob(f"{server.file_url}?fileSn={n}", tmp_path / f"{n}.hwp") for n in range(8)
        ]
        results = Downloader(http, FetchSettings(downloads=1)).run(jobs)
        assert next(results).status == "downloaded"
        with pytest.raises(KeyboardInterrupt):
            results.throw(KeyboardInterrupt)
        hits = server.file_hits()
    assert hits <= 2  # the first, and at most the one already running
    assert len(list(tmp_path.glob("*.hwp"))) <= 2 and no_temp_files(tmp_path)


# --- hostile API answers through the real CLI ----------------------------------------


def listing(items: list[dict[str, str]]) -> bytes:
    envelope = {"resultCode": "1", "resultMsg": "ok", "resultCnt": len(items), "result": items}
    return json.dumps({"reponse": envelope}).encode("utf-8")  # \\ud800 stays an escape


def release(handler: Handler, cid: str, **fields: str) -> dict[str, str]:
    day = handler.query.get("startDate", "2025-07-21")
    item = {
        "contentId": cid,
        "subject": f"보도자료 {cid}",
        "regDate": f"{day} 10:00:00",
        "atchfileNm": "a.hwp",
        "atchfileUrl": f"{handler.server.file_url}?fileSn=1",
    }
    return item | fields


def api_route(answer: Callable[[Handler], bytes | None]) -> Route:
    """``answer`` builds the listing's body (None: it already replied); files are served."""

    def route(handler: Handler) -> None:
        if not handler.path.startswith(API_PATH):
            handler.send(b"HWP file", ctype="application/octet-stream")
            return
        body = answer(handler)
        if body is not None:
            handler.send(body)

    return route


def bad_date(h: Handler) -> bytes:
    return listing([release(h, "1", regDate="2025-13-45 00:00:00")])


def surrogate_name(h: Handler) -> bytes:
    return listing([release(h, "2", atchfileNm="\ud800bad.hwp", subject="제목\udc00")])


def deep_json(h: Handler) -> bytes:
    return b'{"reponse": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


def html_echo(h: Handler) -> bytes:
    return f"<html><head><title>500 Error at {h.path}</title></head></html>".encode()


def message_echo(h: Handler) -> bytes:
    key = h.query.get("authKey", "")
    return json.dumps({"reponse": {"resultCode": "010", "resultMsg": "bad key " + key}}).encode()


def key_in_urls(h: Handler) -> bytes:
    key, base = h.query.get("authKey", ""), h.server.file_url
    urls = f"{base}?fileSn=1&crtfc_key={key}|{base}/{key}?fileSn=2|{base}?fileSn=3#{key}"
    return listing(
        [release(h, "7", subject=f"s {key}", atchfileNm="a.hwp|b.hwp|c.hwp", atchfileUrl=urls)]
    )


def run_cli(server: HostileServer, tmp_path: Path, *args: str, start: str = "2025-07-21"):
    from typer.testing import CliRunner

    import hwpscan.cli.fetch_command  # noqa: F401  (registers plan and fetch)
    from hwpscan.cli import app

    env = {"HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    argv = ["fetch", "--from", start, "--to", start, "--api-url", server.api_url]
    argv += ["--out", str(tmp_path / "out"), "--no-progress", "--retries", "0", *args]
    return CliRunner().invoke(app, argv, env=env)


def key_pieces(text: str | bytes) -> list[str]:
    """Every 6-character piece of the key found in ``text`` (a cut key still leaks)."""
    data = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return [KEY[i : i + 6] for i in range(len(KEY) - 5) if KEY[i : i + 6] in data]


def assert_no_key_anywhere(tmp_path: Path, *outputs: str) -> None:
    for output in outputs:
        assert not key_pieces(output), output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written  # the run did write a cache, a ledger, a manifest...
    for path in written:
        assert not key_pieces(path.read_bytes()), path


HOSTILE_ANSWERS = [
    # 3a: a regDate that is no date: a warning, the file is kept as undated
    (bad_date, 0, "regDate '2025-13-45 00:00:00' is not a date"),
    # 3b: a lone surrogate in a name and a subject: replaced, the file is kept
    (surrogate_name, 0, "lone surrogates in subject, atchfileNm replaced"),
    # 3c: JSON nested 100,000 deep
    (deep_json, 3, "nested too deeply"),
    # 4a: an HTML error page whose title echoes the URL with the key
    (html_echo, 3, "HTML page"),
    # the key echoed in a refusal message
    (message_echo, 3, "bad key REDACTED"),
    # 4b: the key in attachment URLs (query, path, fragment) and in the subject
    (key_in_urls, 0, "files: 3 downloaded"),
]


@pytest.mark.parametrize(("answer", "code", "says"), HOSTILE_ANSWERS)
@pytest.mark.slow
def test_hostile_answers_end_cleanly_and_never_leak_the_key(
    tmp_path: Path, answer: Callable[[Handler], bytes], code: int, says: str
) -> None:
    with hostile(api_route(answer)) as server:
        first = run_cli(server, tmp_path)
        again = run_cli(server, tmp_path)  # a rerun reads what the first one cached
    for result in (first, again):
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
        assert result.exit_code == code, result.output
    assert says in " ".join(first.output.split())
    assert_no_key_anywhere(tmp_path, first.output, again.output)


@pytest.mark.slow
def test_a_bad_date_release_is_kept_undated_and_its_answer_reused(tmp_path: Path) -> None:
    with hostile(api_route(bad_date)) as server:
        run_cli(server, tmp_path)
        again = run_cli(server, tmp_path)
        calls = server.api_hits()
    assert calls == 1 and "1 from cache" in again.output
    assert (tmp_path / "out" / "undated" / "1_a.hwp").is_file()


# --- 11: a bad --api-url is a usage error and costs no call ---------------------------


@pytest.mark.parametrize("url", ["ftp://x/y", "not a url", "http://", "http://h:0/x"])
def test_a_bad_api_url_is_a_usage_error_that_spends_no_call(tmp_path: Path, url: str) -> None:
    from typer.testing import CliRunner

    import hwpscan.cli.fetch_command  # noqa: F401
    from hwpscan.api.quota import QuotaLedger
    from hwpscan.cli import app

    home = tmp_path / "home"
    env = {"HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(home)}
    argv = ["fetch", "--from", "2025-07-21", "--to", "2025-07-21", "--api-url", url]
    result = CliRunner().invoke(
        app, [*argv, "--out", str(tmp_path / "out"), "--no-progress"], env=env
    )
    assert result.exit_code == 2 and "--api-url" in result.output, result.output
    assert QuotaLedger(home / "quota.sqlite").status(KEY).used == 0


# --- 6: an empty weekday (a holiday) is a warning, not a stop ----------------------------


def empty_listing(h: Handler) -> bytes:
    return listing([])


@pytest.mark.slow
def test_an_empty_weekday_is_a_warning_and_is_asked_again_next_run(tmp_path: Path) -> None:
    with hostile(api_route(empty_listing)) as server:
        first = run_cli(server, tmp_path, start="2025-10-06")  # Chuseok, a Monday
        again = run_cli(server, tmp_path, start="2025-10-06")
        calls = server.api_hits()
    for result in (first, again):
        assert result.exit_code == 0, result.output
        assert "no releases on 1 weekday(s): a holiday, or a silent quota refusal" in " ".join(
            result.output.split()
        )
    assert calls == 2  # not cached as trusted: the rerun asks again


def test_an_empty_weekday_near_the_daily_limit_stops_as_a_likely_refusal(tmp_path: Path) -> None:
    with hostile(api_route(empty_listing)) as server:
        result = run_cli(server, tmp_path, "--daily-limit", "3", start="2025-10-06")
    assert result.exit_code == 3
    assert "possibly a silent quota refusal" in " ".join(result.output.split())


@pytest.mark.slow
def test_more_empty_weekdays_in_a_row_than_a_holiday_explains_stop_the_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import hwpscan.cli.fetch_command  # noqa: F401
    from hwpscan.cli import app

    env = {"HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(tmp_path / "home")}
    with hostile(api_route(empty_listing)) as server:
        argv = ["fetch", "--from", "2025-07-21", "--to", "2025-08-08", "--window-days", "1"]
        argv += ["--api-url", server.api_url, "--out", str(tmp_path / "out"), "--no-progress"]
        result = CliRunner().invoke(app, argv, env=env)
        calls = server.api_hits()
    assert result.exit_code == 3
    assert "7 weekdays in a row without a release" in " ".join(result.output.split())
    assert calls == 9  # Mon..Fri, Sat, Sun, Mon, and the Tuesday that tipped it


# --- 7: local trouble is a usage error, never a traceback -------------------------------


def cli(tmp_path: Path, *argv: str):
    from typer.testing import CliRunner

    import hwpscan.cli.fetch_command  # noqa: F401
    from hwpscan.cli import app

    env = {"HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    result = CliRunner().invoke(app, list(argv), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.mark.slow
def test_out_naming_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with hostile(api_route(bad_date)) as server:
        result = run_cli(server, tmp_path, "--out", str(tmp_path / "afile"))
        calls = server.api_hits()
    assert result.exit_code == 2 and "output folder" in result.output and calls == 0


@pytest.mark.slow
def test_a_garbage_ledger_is_a_usage_error_for_fetch_and_a_warning_for_plan(
    tmp_path: Path,
) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "quota.sqlite").write_bytes(b"not a database at all" * 100)
    with hostile(api_route(bad_date)) as server:
        fetched = run_cli(server, tmp_path)
        calls = server.api_hits()
    assert fetched.exit_code == 2 and "move it aside" in " ".join(fetched.output.split())
    assert calls == 0
    planned = cli(tmp_path, "plan", "--from", "2025-07-21", "--to", "2025-07-21")
    assert planned.exit_code == 0 and "cannot be used" in planned.output


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--from", "0001-01-01", "--to", "9999-12-31"],
        ["plan", "--from", "9999-12-01", "--to", "9999-12-31", "--window-days", "99999999"],
    ],
)
def test_extreme_ranges_end_cleanly(tmp_path: Path, argv: list[str]) -> None:
    result = cli(tmp_path, *argv)
    assert result.exit_code in (0, 2) and "Traceback" not in result.output


def test_windows_reach_the_last_date_without_overflow() -> None:
    from hwpscan.api.dates import split_windows

    windows = split_windows(date(9999, 12, 1), date.max, 21)
    assert windows[-1].end == date.max and sum(w.days for w in windows) == 31
    assert split_windows(date.max, date.max, 21)[0].days == 1
    from hwpscan.errors import UsageError

    with pytest.raises(UsageError, match="more than the API's 21 days per call"):
        split_windows(date.max, date.max, 99_999_999)  # refused, not an overflow


# --- 10: two runs sharing a state folder pay for each window once ----------------------


@pytest.mark.slow
def test_concurrent_fetches_sharing_the_state_pay_for_each_window_once(tmp_path: Path) -> None:
    from hwpscan.usecases.run_fetch import fetch_range

    def slow_listing(h: Handler) -> bytes:
        time.sleep(0.2)
        return listing([release(h, h.query["startDate"], atchfileNm="", atchfileUrl="")])

    def run(out: str) -> None:
        report = fetch_range(
            date(2025, 7, 21),
            date(2025, 7, 26),
            FetchSettings(
                api_url=server.api_url,
                out_dir=tmp_path / out,
                state=tmp_path / "state",
                window_days=1,
            ),
            key=KEY,
            hooks=FetchHooks(clock=lambda: datetime(2025, 7, 27, 9, 0, tzinfo=KST)),
        )
        reports.append(report)

    reports: list[FetchReport] = []
    with hostile(api_route(slow_listing)) as server:
        threads = [threading.Thread(target=run, args=(f"out{n}",)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        calls = server.api_hits()
    assert len(reports) == 2 and all(r.ok for r in reports)
    assert calls == 6  # six windows, each paid once
    assert sorted(r.calls_made for r in reports) and sum(r.calls_made for r in reports) == 6
    assert sum(r.calls_cached for r in reports) == 6


# --- 7: a damaged manifest or a symlink loop does not lose the scan ----------------------


def test_foreign_manifest_lines_are_skipped_and_described(tmp_path: Path) -> None:
    from hwpscan.manifest import MANIFEST_NAME, ManifestEntry, dates_for, read_entries

    good = ManifestEntry("2025-07-21", "1", "s", "a.hwp", "u", "a.hwp", None, 4, None, "downloaded")
    lines = [json.dumps(good.to_json()), "[1]", '{"date": 5}', "7", "{" * 5000 + "}" * 5000]
    lines.append(json.dumps(good.to_json() | {"bytes": "4"}))
    (tmp_path / MANIFEST_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "a.hwp").write_bytes(b"HWP!")
    problems: list[str] = []
    assert read_entries(tmp_path / MANIFEST_NAME, problems=problems) == [good]
    assert len(problems) == 5 and all("not a manifest entry" in p for p in problems)
    assert dates_for([tmp_path / "a.hwp"]) == {tmp_path / "a.hwp": "2025-07-21"}


def test_a_symlink_loop_is_left_undated_not_a_crash(tmp_path: Path) -> None:
    from hwpscan.manifest import MANIFEST_NAME, dates_for, load_manifest

    loop = tmp_path / "loop.hwp"
    loop.symlink_to(tmp_path / "loop.hwp")
    entry = {"date": "2025-07-21", "content_id": "1", "subject": "s", "name": "loop.hwp",
             "url": "u", "path": "loop.hwp", "sha256": None, "bytes": 1,
             "content_type": None, "status": "downloaded"}  # fmt: skip
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(entry) + "\n", encoding="utf-8")
    assert dates_for([loop]) == {}
    assert load_manifest(tmp_path) == {}


def json_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def escaped_key(h: Handler) -> bytes:
    """The key JSON-escaped, so no byte of the answer spells it: the parsed text does."""
    key, base = json_escaped(h.query.get("authKey", "")), h.server.file_url
    day = h.query.get("startDate", "2025-07-21")
    item = (
        f'{{"contentId": "8", "subject": "s {key}", "regDate": "{day} 10:00:00", '
        f'"atchfileNm": "{key}.hwp|b.hwp", '
        f'"atchfileUrl": "{base}?fileSn=1&x={key}|{base}?fileSn=2#t{key}"}}'
    )
    return f'{{"reponse": {{"resultCode": "1", "resultCnt": 1, "result": [{item}]}}}}'.encode()


def test_a_json_escaped_key_is_kept_out_of_the_manifest(tmp_path: Path) -> None:
    with hostile(api_route(escaped_key)) as server:
        result = run_cli(server, tmp_path)
    assert result.exit_code == 0, result.output
    manifest = (tmp_path / "out" / "manifest.jsonl").read_text(encoding="utf-8")
    assert "REDACTED" in manifest and not key_pieces(manifest)
    assert not key_pieces(result.output)
    for path in (tmp_path / "out").rglob("*"):
        assert not key_pieces(path.name)


# --- 9: Ctrl-C on a real fetch process ----------------------------------------------------


@pytest.mark.slow
def test_ctrl_c_stops_a_fetch_without_downloading_the_queue(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    names = "|".join(f"f{n}.hwp" for n in range(8))

    def many(h: Handler) -> bytes:
        urls = "|".join(f"{h.server.file_url}?fileSn={n}" for n in range(8))
        return listing([release(h, "5", atchfileNm=names, atchfileUrl=urls)])

    def route(handler: Handler) -> None:
        if handler.path.startswith(FILE_PATH):
            time.sleep(1.0)
            handler.send(b"HWP file", ctype="application/octet-stream")
        else:
            api_route(many)(handler)

    env = dict(os.environ, HWPSCAN_API_KEY=KEY, HWPSCAN_HOME=str(tmp_path / "home"))
    with hostile(route) as server:
        # SIGINT's default restored in the child: the test works whatever the runner ignores
        boot = (
            "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from hwpscan.cli import main; main()"
        )
        argv = [sys.executable, "-c", boot, "fetch", "--from", "2025-07-21"]
        argv += ["--to", "2025-07-21", "--api-url", server.api_url, "--out", str(tmp_path / "out")]
        argv += ["--no-progress", "--downloads", "1"]
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            for _ in range(200):  # until the first download has started (at most 20 s)
                if server.file_hits() or proc.poll() is not None:
                    break
                time.sleep(0.1)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
        hits = server.file_hits()
    text = " ".join((out + err).decode("utf-8", "replace").split())
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "run the same command again" in text
    assert hits <= 2  # the one running when Ctrl-C came, not the queue behind it
    assert not key_pieces(text)


@pytest.mark.slow
def test_fetch_range_passes_its_download_deadline_on(tmp_path: Path) -> None:
    from hwpscan.usecases.run_fetch import fetch_range

    def dripping(h: Handler) -> bytes:
        return listing([release(h, "9", atchfileUrl=f"{h.server.file_url}?drip=1")])

    def route(handler: Handler) -> None:
        if handler.path.startswith(FILE_PATH):
            drip(handler)
        else:
            api_route(dripping)(handler)

    with hostile(route) as server:
        report = fetch_range(
            date(2025, 7, 21),
            date(2025, 7, 21),
            FetchSettings(
                api_url=server.api_url,
                out_dir=tmp_path / "out",
                state=tmp_path / "state",
                retry=RetryPolicy(retries=0),
                download_deadline=1.0,
            ),
            key=KEY,
            hooks=FetchHooks(clock=lambda: datetime(2025, 7, 22, 9, 0, tzinfo=KST)),
        )
    assert report.files_failed == 1 and report.exit_code == 3
    assert any("deadline" in w for w in report.warnings)
