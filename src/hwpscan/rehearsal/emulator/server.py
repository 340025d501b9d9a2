"""The emulator's HTTP layer: a stdlib threading server in front of :class:`EmulatorApp`.

Routes: the listing (``bodoInfo.jsp``, GET or POST), downloads (``fileDown.do``),
``GET /_emulator/stats`` (the counters as JSON), ``POST /_emulator/reset`` (clears
them) and ``POST /_emulator/reissue`` (``?date=YYYY-MM-DD``, ``new_urls=1``: see
:meth:`EmulatorApp.reissue`). Request lines go to a ``log`` callable only when one is
given, ``authKey`` redacted.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from hwpscan.redaction import redact_params
from hwpscan.rehearsal.emulator.catalogue_loader import Post, bundled_posts, from_releases
from hwpscan.rehearsal.emulator.quirks import Quirks
from hwpscan.rehearsal.emulator.replies import (
    DOWNLOAD_PATH,
    LIST_PATH,
    DownloadPlan,
    EmulatorApp,
    Reply,
    parse_day,
)
from hwpscan.rehearsal.emulator.state import Stats
from hwpscan.rehearsal.emulator.wire import EUCKR_HTML, html_page, utc_now

STATS_PATH = "/_emulator/stats"
RESET_PATH = "/_emulator/reset"
REISSUE_PATH = "/_emulator/reissue"
_MAX_FORM = 64 * 1024
_CHUNK = 64 * 1024
_HOST_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")


class EmulatorServer(ThreadingHTTPServer):
    """A threading HTTP server that owns one :class:`EmulatorApp`."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        app: EmulatorApp,
        *,
        log: Callable[[str], None] | None = None,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.app = app
        self.log = log
        self.stopping = threading.Event()
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Count a request that raised instead of printing a traceback."""
        self.app.counters.error("server_exception")
        if self.log is not None:
            self.log("request handler raised; see the 'server_exception' counter")


class _Handler(BaseHTTPRequestHandler):
    server: EmulatorServer
    server_version = "hwpscan-emulator"

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log is not None:
            self.server.log(redact_params(f"{self.address_string()} {format % args}"))

    def _base_url(self) -> str:
        host = self.headers.get("Host", "")
        return f"http://{host if host and set(host) <= _HOST_OK else _bound(self.server)}"

    def _send(self, reply: Reply, *, length: int | None = None, close: bool = False) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        for name, value in reply.headers:
            self.send_header(name, value)
        if not close:
            self.send_header("Content-Length", str(len(reply.body) if length is None else length))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(reply.body)

    def _params(self, query: str, form: str = "") -> dict[str, str]:
        """The query's and then the form's parameters; the first of a name wins."""
        pairs = parse_qsl(query, keep_blank_values=True) + parse_qsl(form, keep_blank_values=True)
        return dict(reversed(pairs))

    def do_GET(self) -> None:
        self._route("")

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length", "0")
        size = min(int(length), _MAX_FORM) if length.strip().isdigit() else 0
        self._route(self.rfile.read(size).decode("utf-8", errors="replace") if size > 0 else "")

    def _route(self, form: str) -> None:
        app = self.server.app
        app.counters.count("requests")
        parts = urlsplit(self.path)
        path, verb = parts.path, self.command
        if path == LIST_PATH:
            self._send(app.listing(self._params(parts.query, form), self._base_url()))
        elif (path, verb) == (DOWNLOAD_PATH, "GET"):
            plan = app.download(
                self._params(parts.query),
                path + (f"?{parts.query}" if parts.query else ""),
                with_credentials="Authorization" in self.headers,
                if_none_match=self.headers.get("If-None-Match"),
            )
            self._deliver(plan)
        elif (path, verb) == (STATS_PATH, "GET"):
            self._json(200, json.dumps(app.counters.snapshot().to_json(), ensure_ascii=False))
        elif (path, verb) == (RESET_PATH, "POST"):
            app.counters.reset()
            self._json(200, '{"reset":true}')
        elif (path, verb) == (REISSUE_PATH, "POST"):
            params = self._params(parts.query, form)
            day = parse_day(params.get("date"))
            if "date" in params and day is None:
                self._json(400, '{"error":"date must be YYYY-MM-DD"}')
                return
            new_urls = params.get("new_urls", "").lower() in ("1", "true", "yes")
            self._json(200, json.dumps({"reissued": app.reissue(day, new_urls=new_urls)}))
        else:
            app.counters.error("not_found")
            self._send(Reply(404, EUCKR_HTML, html_page("404", "페이지를 찾을 수 없습니다.")))

    def _json(self, status: int, body: str) -> None:
        self._send(Reply(status, "application/json; charset=utf-8", body.encode()))

    def _deliver(self, plan: DownloadPlan) -> None:
        if plan.delay and self.server.stopping.wait(plan.delay):
            return  # shutting down: drop the connection
        try:
            if plan.stream_bytes:
                self._send(plan.reply, close=True)
                self._stream_padding(plan.stream_bytes - len(plan.reply.body))
            else:
                self._send(plan.reply, length=plan.announced_length)
        except (BrokenPipeError, ConnectionResetError):
            self.server.app.counters.error("client_disconnected")
        if plan.announced_length is not None:
            self.close_connection = True

    def _stream_padding(self, remaining: int) -> None:
        chunk = bytes(_CHUNK)
        while remaining > 0 and not self.server.stopping.is_set():
            piece = chunk[: min(remaining, _CHUNK)]
            self.wfile.write(piece)
            remaining -= len(piece)


def _bound(server: EmulatorServer) -> str:
    """The server's ``host:port``, an IPv6 host in brackets."""
    name, port = server.server_address[:2]
    name = name.decode() if isinstance(name, bytes) else str(name)
    return f"[{name}]:{port}" if ":" in name else f"{name}:{port}"


def _posts(catalogue: Sequence[Any] | None) -> tuple[Post, ...]:
    if catalogue is None:
        return bundled_posts()
    if all(isinstance(p, Post) for p in catalogue):
        return tuple(catalogue)
    return from_releases(catalogue)


class RunningEmulator(AbstractContextManager["RunningEmulator"]):
    """An emulator serving from a background thread; a context manager. ``url`` is the
    base (``http://127.0.0.1:PORT``), ``api_url`` the listing endpoint for ``--api-url``."""

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self.app = server.app  # catalogue, quirks, counters
        self.port = server.server_address[1]
        self.url = f"http://{_bound(server)}"
        self.api_url = self.url + LIST_PATH
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="hwpscan-emulator",
            daemon=True,
        )
        self._thread.start()

    def stats(self) -> Stats:
        """A snapshot of the counters (same data as ``GET /_emulator/stats``)."""
        return self.app.counters.snapshot()

    def reset(self) -> None:
        """Clear the counters, the daily quota included."""
        self.app.counters.reset()

    def close(self) -> None:
        """Stop serving, wake delayed or streaming handlers, release the socket."""
        if self.server.stopping.is_set():
            return
        self.server.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run and the serving thread has ended."""
        return self.server.stopping.is_set() and not self._thread.is_alive()

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_in_thread(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    quirks: Quirks | None = None,
    catalogue: Sequence[Any] | None = None,
    clock: Callable[[], datetime] = utc_now,
    log: Callable[[str], None] | None = None,
) -> RunningEmulator:
    """Start an emulator of *catalogue* (:class:`Post` or catalogue ``Release`` objects;
    None: the bundled one) on *port* (0: a free one) and return it running."""
    app = EmulatorApp(_posts(catalogue), quirks=quirks, clock=clock)
    return RunningEmulator(EmulatorServer((host, port), app, log=log))
