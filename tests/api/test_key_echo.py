"""A server that echoes the API key back in every encoding it can: nothing keeps it.

The server on 127.0.0.1 writes the key it received into the answer (raw, percent-encoded
in upper and lower case, fully and in part, twice-encoded, as JSON ``\\u`` escapes in
either case, as HTML character references), into each download's ``Content-Type`` and
``Content-Disposition`` (so the key would become a file name), and serves real HWP files
from our generator. A fetch, a rerun from the cache, and scans writing every report are
then grepped, file by file under ``HWPSCAN_HOME``, ``--out`` and ``--report``, and in
every line of output, for the key in each of those spellings.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

KEY = "Qm7Tz2Kx9Wv4Lp8Rb3Nc6Hd5Fg1Js0Ay"
API_PATH = "/fss/kr/openApi/api/bodoInfo.jsp"
FILE_PATH = "/fss/cmmn/file/fileDown.do"


def _pct(key: str, *, upper: bool) -> str:
    return "".join(f"%{ord(c):02X}" if upper else f"%{ord(c):02x}" for c in key)


def _json_u(key: str, *, upper: bool) -> str:
    return "".join(f"\\u{ord(c):04X}" if upper else f"\\u{ord(c):04x}" for c in key)


#: How the server spells the key, by name.
SPELLINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda k: k,
    "pct-upper": lambda k: _pct(k, upper=True),
    "pct-lower": lambda k: _pct(k, upper=False),
    "pct-mixed": lambda k: "".join(c if i % 2 else f"%{ord(c):02x}" for i, c in enumerate(k)),
    "pct-twice": lambda k: "".join(f"%25{ord(c):02X}" for c in k),
    "json-u-lower": lambda k: _json_u(k, upper=False),
    "json-u-upper": lambda k: _json_u(k, upper=True),
    "html-ref": lambda k: "".join(f"&#{ord(c)};" for c in k),
}


def forbidden_forms() -> list[str]:
    """What must appear nowhere (lower-cased): each spelling, and 6-character cuts of the
    raw key (a cut key still leaks)."""
    forms = {spell(KEY).lower() for spell in SPELLINGS.values()}
    forms |= {KEY[i : i + 6].lower() for i in range(len(KEY) - 5)}
    forms |= {_pct(KEY[i : i + 4], upper=False) for i in range(len(KEY) - 3)}
    forms |= {_json_u(KEY[i : i + 4], upper=False) for i in range(len(KEY) - 3)}
    return sorted(forms)


def leaks(data: str | bytes) -> list[str]:
    text = (data.decode("latin-1") if isinstance(data, bytes) else data).lower()
    if isinstance(data, bytes):  # UTF-16 too: a report could store text that way
        text += "\n" + data.decode("utf-16-le", "replace").lower()
    return [form for form in forbidden_forms() if form in text]


HWP = build_hwp5(["보도자료 본문입니다."])


class EchoServer(ThreadingHTTPServer):
    daemon_threads = True

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class EchoHandler(BaseHTTPRequestHandler):
    server: EchoServer
    timeout = 10

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        if self.path.startswith(API_PATH):
            self._answer(query.get("authKey", ""), query.get("startDate", "2025-07-21"))
        else:
            self._file(int(query.get("fileSn", "0")), query.get("k", ""))

    def _send(self, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, key: str, day: str) -> None:
        """Every spelling in the subject, the message, the names and the URLs; the JSON
        escapes are written into the JSON text itself, not as values json.dumps quotes."""
        names, urls = [], []
        marks: dict[str, str] = {}
        for n, (label, spell) in enumerate(SPELLINGS.items(), 1):
            mark = f"@@{label}@@"
            marks[mark] = spell(key)
            # odd files: the API names them (with the key); even ones: the server names them
            names.append(f"{mark}.hwp" if n % 2 else "")
            urls.append(f"{self.server.base}{FILE_PATH}?fileSn={n}&k={_pct(key, upper=True)}")
        item = {
            "contentId": "77",
            "subject": "보도 " + " ".join(marks),
            "regDate": f"{day} 10:00:00",
            "atchfileNm": "|".join(names),
            "atchfileUrl": "|".join(urls),
            "contentKor": "본문 " + " ".join(marks),
        }
        envelope = {"resultCode": "1", "resultMsg": "ok " + " ".join(marks), "resultCnt": 1}
        text = json.dumps({"reponse": envelope | {"result": [item]}}, ensure_ascii=False)
        for mark, spelled in marks.items():
            text = text.replace(mark, spelled)
        self._send(text.encode("utf-8"), {"Content-Type": f"application/json; echo={key}"})

    def _file(self, serial: int, key: str) -> None:
        labels = list(SPELLINGS)
        spelled = SPELLINGS[labels[(serial - 1) % len(labels)]](key)
        if serial % 4 == 0:  # RFC 5987: percent-encoded UTF-8
            disposition = f"attachment; filename*=UTF-8''{_pct(key, upper=serial % 8 == 0)}.hwp"
        else:
            disposition = f'attachment; filename="{spelled}.hwp"'
        headers = {
            "Content-Type": f"application/x-hwp; name={spelled}",
            "Content-Disposition": disposition,
            "ETag": f'"{spelled}"',  # kept in the manifest for revalidation
        }
        self._send(HWP, headers)


@contextmanager
def echo_server() -> Iterator[EchoServer]:
    server = EchoServer(("127.0.0.1", 0), EchoHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_the_spellings_are_what_they_claim() -> None:
    from urllib.parse import unquote

    for label in ("pct-upper", "pct-lower", "pct-mixed"):
        assert unquote(SPELLINGS[label](KEY)) == KEY
    assert unquote(unquote(SPELLINGS["pct-twice"](KEY))) == KEY
    for label in ("json-u-lower", "json-u-upper"):
        assert json.loads('"' + SPELLINGS[label](KEY) + '"') == KEY
    assert leaks("x" + SPELLINGS["json-u-upper"](KEY)) and not leaks("REDACTED")


@pytest.mark.slow
def test_a_key_echoed_in_every_encoding_reaches_no_file_and_no_output(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import hwpscan.cli.fetch_command  # registers fetch
    import hwpscan.cli.scan_command  # noqa: F401  (registers scan)
    from hwpscan.cli import app

    home, out, reports = tmp_path / "home", tmp_path / "out", tmp_path / "reports"
    env = {"HWPSCAN_API_KEY": KEY, "HWPSCAN_HOME": str(home), "COLUMNS": "200"}
    outputs: list[str] = []
    with echo_server() as server:
        api = server.base + API_PATH
        common = ["--from", "2025-07-21", "--to", "2025-07-21", "--api-url", api]
        fetch = ["fetch", *common, "--out", str(out), "--no-progress", "--retries", "0"]
        fetch += ["--allow-host", "127.0.0.1:" + str(server.server_address[1])]
        for _ in range(2):  # the second run reads the cached answer
            result = CliRunner().invoke(app, fetch, env=env)
            outputs.append(result.output)
            assert result.exit_code == 0, result.output
        assert "files: 0 downloaded, 8 already there" in " ".join(result.output.split())
        for fmt in ("table", "jsonl", "csv", "junit"):
            argv = ["scan", str(out), "-f", fmt, "--no-progress", "--report", str(reports / fmt)]
            result = CliRunner().invoke(app, argv, env=env)
            outputs.append(result.output)
            assert result.exit_code == 0, result.output
        # the cached answer is read again; its attachments are already there
        fetch_scan = ["scan", *common, "--out", str(out), "-f", "jsonl", "--no-progress"]
        result = CliRunner().invoke(app, fetch_scan, env=env)
        outputs.append(result.output)
        assert result.exit_code == 0 and "calls: 0 made, 1 from cache" in result.output, (
            result.output
        )
    assert "REDACTED" in (out / "manifest.jsonl").read_text(encoding="utf-8")
    for output in outputs:
        assert not leaks(output), output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".html" for p in written) and any(p.suffix == ".body" for p in written)
    for path in written:
        assert not leaks(str(path.relative_to(tmp_path))), path
        assert not leaks(path.read_bytes()), path
