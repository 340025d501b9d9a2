"""A tiny Chrome DevTools Protocol client over a stdlib websocket, for browser tests.

Only what the tests need: launch headless Chromium on a free port, open the page
target's websocket (RFC 6455 client framing, masked text frames), send commands and
collect events. No third-party dependency.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-allow-origins=*",
)
_LISTENING_RE = re.compile(r"DevTools listening on (ws://\S+)")


def chromium_binary() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class WebSocket:
    """A blocking websocket client: enough for CDP's JSON text messages."""

    def __init__(self, url: str, timeout: float = 60.0) -> None:
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        if m is None:
            raise ValueError(f"not a ws:// url: {url}")
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("websocket handshake closed")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise ConnectionError(f"websocket handshake refused: {status[:200]!r}")
        self.buffer = rest

    def send(self, text: str) -> None:
        payload = text.encode()
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("websocket closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def recv(self) -> str:
        parts: list[bytes] = []
        while True:
            b1, b2 = self._read(2)
            n = b2 & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8))
            data = self._read(n)
            opcode = b1 & 0x0F
            if opcode == 0x8:
                raise ConnectionError("websocket closed by peer")
            if opcode in (0x9, 0xA):  # ping/pong: not used by Chromium here
                continue
            parts.append(data)
            if b1 & 0x80:
                return b"".join(parts).decode()

    def close(self) -> None:
        self.sock.close()


class Page:
    """One page target: ``call`` a CDP method, read the events seen so far."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
            if "method" in msg:
                self.events.append(msg)

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, event: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in self.events:
                if ev["method"] == event:
                    return ev
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError(event)

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for ev in self.events:
            p = ev.get("params", {})
            if ev["method"] == "Runtime.exceptionThrown":
                out.append(json.dumps(p.get("exceptionDetails"), ensure_ascii=False))
            elif ev["method"] == "Runtime.consoleAPICalled" and p.get("type") in (
                "error",
                "assert",
            ):
                out.append(json.dumps(p.get("args"), ensure_ascii=False))
            elif ev["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out


@contextmanager
def chromium_page(
    binary: str, *, width: int = 1400, height: int = 1000, env: dict[str, str] | None = None
) -> Iterator[Page]:
    """Start headless Chromium with a fresh profile and yield its first page.

    *env*: the browser's environment (default: ours), e.g. a fontconfig of chosen fonts.
    """
    profile = tempfile.mkdtemp(prefix="hwpscan-chromium-")
    proc = subprocess.Popen(
        [
            binary,
            *FLAGS,
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            f"--window-size={width},{height}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        browser_ws = _await_listening(proc)
        port = int(re.match(r"ws://[^:]+:(\d+)/", browser_ws).group(1))  # type: ignore[union-attr]
        target = _page_target(port)
        ws = WebSocket(target["webSocketDebuggerUrl"])
        try:
            page = Page(ws)
            for domain in ("Page", "Runtime", "Log"):
                page.call(f"{domain}.enable")
            yield page
        finally:
            ws.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


def _await_listening(proc: subprocess.Popen[str], timeout: float = 60.0) -> str:
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        seen.append(line)
        m = _LISTENING_RE.search(line)
        if m:
            return m.group(1)
    raise RuntimeError("chromium did not start:\n" + "".join(seen[-20:]))


def _page_target(port: int, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        pages = [t for t in targets if t.get("type") == "page"]
        if pages:
            return pages[0]
        time.sleep(0.1)
    raise RuntimeError("no page target")


def navigate(page: Page, path: Path) -> None:
    """Load a local file and wait for its load event."""
    page.events.clear()
    page.call("Page.navigate", url=path.resolve().as_uri())
    page.wait_for("Page.loadEventFired")


def screenshot(page: Page, out: Path, *, full_page: bool = True) -> Path:
    params: dict[str, Any] = {"format": "png"}
    if full_page:
        params["captureBeyondViewport"] = True
        metrics = page.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        params["clip"] = {
            "x": 0,
            "y": 0,
            "width": size["width"],
            "height": min(size["height"], 8000),
            "scale": 1,
        }
    data = page.call("Page.captureScreenshot", **params)["data"]
    out.write_bytes(base64.b64decode(data))
    return out
