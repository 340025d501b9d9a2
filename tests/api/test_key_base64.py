"""An API that refuses the call and echoes the key base64-encoded (standard and URL
alphabet, the key at each of the three byte alignments): the key reaches neither the
terminal, nor the response cache, nor runs.sqlite, nor ``hwpscan history -f json``.

The server is real (127.0.0.1); ``hwpscan fetch`` and ``hwpscan history`` run as child
processes, so stderr is what a terminal would show.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from hwpscan.redaction import REDACTED, base64_forms, redact_bytes, redact_text

KEY = "Qm7Tz2Kx9Wv4Lp8Rb3Nc6Hd5Fg1Js0Ay"
API_PATH = "/fss/kr/openApi/api/bodoInfo.jsp"


def encodings(key: str) -> dict[str, str]:
    """The key inside a message, base64-encoded: at byte offsets 0, 1 and 2, in the
    standard and the URL alphabet."""
    out = {}
    for prefix in (b"", b"key=", b"k="):  # the key at byte offset 0, 1 and 2 (mod 3)
        raw = prefix + key.encode() + b"&day=2025-07-21"
        out[f"b64-{len(prefix) % 3}"] = base64.b64encode(raw).decode()
        out[f"b64url-{len(prefix) % 3}"] = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return out


def forbidden(key: str) -> list[str]:
    """What must appear nowhere: the key, and 12-character cuts of each base64 form of it
    (case-sensitive, as base64 is)."""
    cuts = {form[i : i + 12] for form in base64_forms(key) for i in range(len(form) - 11)}
    return [key, *sorted(cuts)]


def leaks(data: bytes | str, key: str = KEY) -> list[str]:
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    return [form for form in forbidden(key) if form in text]


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        key = query.get("authKey", "")
        echoed = " ".join(f"{label}:{text}" for label, text in encodings(key).items())
        envelope = {"resultCode": "010", "resultMsg": f"bad key {echoed}", "resultCnt": 0}
        body = json.dumps({"reponse": envelope | {"result": []}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def refusing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_the_echoes_hold_the_key_and_the_forms_find_it() -> None:
    """The server's spellings decode to the key, and each holds one of its forms."""
    for text in encodings(KEY).values():
        padded = text + "=" * (-len(text) % 4)
        assert KEY.encode() in base64.urlsafe_b64decode(padded) or KEY.encode() in (
            base64.b64decode(padded)
        )
        assert leaks(text) and REDACTED in redact_text(text, [KEY])
        assert not leaks(redact_text(text, [KEY]))


@pytest.mark.parametrize("key", ["?>~?>~?>~?>~ok", "~~~???>>>~~~???>>>"])
def test_plus_and_slash_are_found_however_a_text_carries_them(key: str) -> None:
    """A key whose encoding holds ``+`` and ``/``: found as written, with ``/`` escaped
    (``\\/``, as some JSON writers do), and with both percent-encoded (in a URL)."""
    spelled = encodings(key)
    assert "+" in spelled["b64-0"] + spelled["b64-1"] + spelled["b64-2"]
    assert "/" in spelled["b64-0"] + spelled["b64-1"] + spelled["b64-2"]
    for raw in spelled.values():
        for text in (raw, raw.replace("/", "\\/"), raw.replace("+", "%2B").replace("/", "%2f")):
            found = redact_bytes(text.encode(), [key])
            assert REDACTED.encode() in found, text
            plain = found.decode().replace("\\/", "/").replace("%2B", "+").replace("%2f", "/")
            assert not leaks(plain, key), text


def test_a_short_secret_is_not_looked_for_in_base64() -> None:
    """Four characters of base64 occur by chance: short secrets keep their other forms."""
    assert base64_forms("abc") == []
    assert redact_text("YWJj and abc", ["abc"]) == "YWJj and REDACTED"


@pytest.mark.slow
def test_a_key_echoed_in_base64_reaches_no_file_and_no_output(tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    env = {**os.environ, "HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(home), "COLUMNS": "200"}
    with refusing_server() as base:
        fetch = [sys.executable, "-m", "hwpscan", "fetch", "--from", "2025-07-21"]
        fetch += ["--to", "2025-07-21", "--api-url", base + API_PATH, "--out", str(out)]
        fetch += ["--no-progress", "--retries", "0"]
        done = subprocess.run(fetch, capture_output=True, env=env, timeout=300, check=False)
    assert done.returncode != 0  # refused
    assert b"bad key" in done.stderr + done.stdout, done.stderr
    history = subprocess.run(
        [sys.executable, "-m", "hwpscan", "history", "-f", "json"],
        capture_output=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert history.returncode == 0, history.stderr
    assert json.loads(history.stdout), history.stdout  # the refused run is in it
    found = {
        "stderr": leaks(done.stderr),
        "stdout": leaks(done.stdout),
        "history": leaks(history.stdout) + leaks(history.stderr),
    }
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "runs.sqlite" for p in written)
    assert any(p.suffix == ".body" for p in written)  # the cached answer
    for path in written:
        found[str(path.relative_to(tmp_path))] = leaks(path.read_bytes())
    assert not {place: forms for place, forms in found.items() if forms}
    assert REDACTED.encode() in done.stderr + done.stdout
