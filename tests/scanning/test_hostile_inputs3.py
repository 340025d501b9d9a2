"""Hostile inputs, third round: no false clean, no endless loop, no leaked secret.

Each file or name is made here or by our own writers (``hwpscan.rehearsal.synth``);
every test fails on the code before its fix.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shlex
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from hwpscan.api import FetchSettings
from hwpscan.api.download import Downloader, DownloadJob
from hwpscan.cli import app
from hwpscan.forensics.checkjson import check_json_bytes, check_json_text
from hwpscan.formats.pdf import read_pdf
from hwpscan.matrix.parsers import parse_parser_options
from hwpscan.matrix.runner import run_extractor
from hwpscan.models import Status
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf
from hwpscan.scanning.many_files import scan_paths
from hwpscan.scanning.one_file import scan_bytes
from hwpscan.verify.tool import tool_environment

runner = CliRunner()


# --- 1. a PDF pypdf can only read in part is never clean ------------------------------


def _deep(kind: str, text: str = "보도자료 본문", **more: bool) -> bytes:
    return build_pdf([[text]], extras=PdfExtras(deep_resources=(kind, 100_000)), **more)


@pytest.mark.parametrize("kind", ["array", "dict"])
def test_a_pdf_whose_resources_nest_100000_deep_is_not_clean(kind: str) -> None:
    """A contaminated page made so passed the gate as clean with 0 characters. Now
    PDFium reads it (the array: contaminated, as it is), or neither engine can (the
    dictionary: read in part, corrupt): never clean."""
    data = _deep(kind, "보도자료 " + chr(0xF02B1), broken_cmap=True)
    row = scan_bytes(data, path="deep.pdf")
    expected = {"array": Status.CONTAMINATED, "dict": Status.CORRUPT}[kind]
    assert row.status is expected, row
    if expected is Status.CORRUPT:
        assert "PDFium read no text; pypdf: no text either" in (row.reason or "")


@pytest.mark.parametrize("kind", ["array", "dict"])
def test_read_by_pypdf_alone_a_deep_pdf_is_read_in_part(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where PDFium cannot open a file, pypdf reads it alone: an object it could parse
    only in part (it logs the error and keeps the rest) makes the file read in part."""
    from hwpscan.formats import pdfium_text

    def refuse(data: bytes) -> object:
        raise ValueError("not a PDF or damaged")

    monkeypatch.setattr(pdfium_text, "open_document", refuse)
    doc = read_pdf(_deep(kind))
    assert doc.status is Status.CORRUPT
    assert doc.reason is not None and "could not parse part of an object" in doc.reason


def test_a_deep_contaminated_pdf_fails_the_gate(tmp_path: Path) -> None:
    (tmp_path / "deep.pdf").write_bytes(_deep("array", "본문" + chr(0xF02B1), broken_cmap=True))
    result = runner.invoke(
        app, ["scan", str(tmp_path), "-j", "1", "--format", "jsonl", "--fail-on", "contaminated"]
    )
    assert result.exit_code == 1, result.output
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["status"] == "contaminated"


def test_a_shallow_nesting_is_read_and_clean() -> None:
    data = build_pdf([["본문"]], extras=PdfExtras(deep_resources=("dict", 20)))
    doc = read_pdf(data)
    assert doc.status is None and [s.text for s in doc.body] == ["본문"]


# --- 2. a compound file whose root is its own child: corrupt at once -----------------


def root_its_own_child() -> bytes:
    """An HWP 5 file whose root directory entry is typed as a storage and lists itself
    as its child: olefile opens it, and never marks the root as placed."""
    out = bytearray(build_hwp5(["본문"]))
    (dir_start,) = struct.unpack_from("<I", out, 48)
    root = 512 * (1 + dir_start)
    out[root + 66] = 1  # storage, not root
    struct.pack_into("<I", out, root + 76, 0)  # child: itself
    return bytes(out)


# in a child process: on a walk that loops, the test fails by its timeout instead of
# holding the whole suite
READ_BOTH_WAYS = textwrap.dedent(
    """
    import sys
    from hwpscan.formats.hwp5 import read_ole
    data = open(sys.argv[1], "rb").read()
    for fast in (True, False):
        doc = read_ole(data, fast=fast)
        print(doc.status.value, doc.reason)
    """
)


def test_a_root_that_is_its_own_child_is_corrupt_through_the_library(tmp_path: Path) -> None:
    path = tmp_path / "loop.hwp"
    path.write_bytes(root_its_own_child())
    done = subprocess.run(
        [sys.executable, "-c", READ_BOTH_WAYS, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("corrupt ") for line in lines), lines
    assert all("directory loops" in line for line in lines)


def test_a_root_that_is_its_own_child_is_a_corrupt_row_without_a_time_limit(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "loop.hwp").write_bytes(root_its_own_child())
    argv = [sys.executable, "-m", "hwpscan", "scan", str(folder), "-f", "jsonl"]
    argv += ["--no-progress", "-j", "1", "--file-timeout", "0"]
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home")}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=False)
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["status"] == "corrupt" and "directory loops" in row["reason"], row


# --- 3. a folder that cannot be listed is an error row, never a silent skip ----------


def too_long_to_list(top: Path, file_name: str = "deep.pdf") -> Path:
    """Folders nested (through descriptors) until their path is over ``PATH_MAX``: the
    parent lists the last one, but no call taking its path can open it -- as for root,
    who reads every mode, so the test holds for any user. Returns the first folder
    whose path is too long."""
    fd = os.open(top, os.O_RDONLY)
    path, first = top, None
    try:
        while len(os.fsencode(path)) <= 4200:
            name = "d" * 200
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd, path = child, path / name
            if first is None and len(os.fsencode(path)) >= 4096:
                first = path
        out = os.open(file_name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, build_pdf([["본문"]]))
        os.close(out)
    finally:
        os.close(fd)
    assert first is not None
    return first


@pytest.mark.skipif(sys.platform != "linux", reason="PATH_MAX of Linux")
def test_a_folder_too_long_to_list_is_an_error_row_and_fails_the_gate(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.pdf").write_bytes(build_pdf([["본문"]]))
    too_long_to_list(folder)
    result = runner.invoke(
        app, ["scan", str(folder), "-j", "1", "-f", "jsonl", "--fail-on", "unreadable"]
    )
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["status"] for r in rows] == ["clean", "error"], rows
    assert result.exit_code == 1, result.output


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root lists any folder")
def test_a_folder_without_read_permission_is_an_error_row(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    (folder / "closed").mkdir(parents=True)
    (folder / "closed" / "b.pdf").write_bytes(build_pdf([["본문"]]))
    (folder / "closed").chmod(0)
    try:
        rows = list(scan_paths([folder], jobs=1))
    finally:
        (folder / "closed").chmod(0o755)
    (row,) = rows
    assert row.status is Status.ERROR and row.reason is not None
    assert row.reason.startswith("cannot list folder: Permission denied"), row.reason


# --- 4. --parser-cmd children get no secret of ours ---------------------------------

SHOW_ENV = "import json, os, sys; print(json.dumps(sorted(os.environ)))"


def test_a_parser_command_gets_the_scrubbed_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "HWPSCAN_API_KEY": "k-4f1d9e",
        "AWS_SECRET_ACCESS_KEY": "aws-9d8c7b",
        "AWS_ACCESS_KEY_ID": "AKIAFAKE",
        "GOOGLE_APPLICATION_CREDENTIALS": "/tmp/creds.json",
        "DB_URL": "postgres://u:pw1234@db/x",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HWPSCAN_HARMLESS", "stays")
    command = f"env={shlex.join([sys.executable, '-c', SHOW_ENV])} {{path}}"
    spec = parse_parser_options(None, [command])[-1]
    doc = tmp_path / "a.pdf"
    doc.write_bytes(build_pdf([["본문"]]))
    got = run_extractor(spec, doc, timeout=120)
    assert got.status == "ok", got
    names = json.loads(got.text)
    assert "HWPSCAN_HARMLESS" in names and "PATH" in names
    assert not set(secrets) & set(names), names
    assert names == sorted(tool_environment())  # one mechanism for --tool-cmd and this


# --- 5. a password in an s3:// URL is never printed ---------------------------------


def test_a_password_in_an_s3_url_is_not_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("s3fs")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "hwpscantestkeyid")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hwpscantestsecret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # never reached
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    url = "s3://scanner:Hunter2pw%21@bucket/prefix/"
    result = runner.invoke(app, ["scan", url, "--no-progress"])
    shown = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code == 2, shown  # a source that cannot be listed, not a bug (70)
    assert "cannot list" in shown
    for secret in ("Hunter2pw", "scanner:"):
        assert secret not in shown, shown


# --- 6. a download redirected to data: fails that file, not the fetch ---------------


@pytest.mark.parametrize("location", ["data:text/html,<b>x</b>", "about:blank"])
def test_a_redirect_to_a_hostless_url_fails_that_download_only(
    tmp_path: Path, location: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/moved"):
            return httpx.Response(302, headers={"Location": location})
        return httpx.Response(200, content=build_hwp5(["본문"]))

    base = "https://www.fss.or.kr/fss/cmmn/file"
    jobs = [
        DownloadJob(f"{base}/moved", tmp_path / "a.hwp"),
        DownloadJob(f"{base}/fine", tmp_path / "b.hwp"),
    ]
    http = httpx.Client(transport=httpx.MockTransport(answer))
    results = {r.job.dest.name: r for r in Downloader(http, FetchSettings()).run(jobs)}
    assert results["b.hwp"].status == "downloaded"
    moved = results["a.hwp"]
    assert moved.status == "failed" and "unusable URL" in (moved.reason or ""), moved
    assert moved.attempts == 1 and not (tmp_path / "a.hwp").exists()


# --- 7. a bare CR in a file name cannot forge a CSV row -----------------------------


def test_a_carriage_return_in_a_file_name_stays_inside_its_csv_cell(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    name = "a\r=SUM(1+1)*cmd|x!A0\r.pdf"
    (folder / name).write_bytes(build_pdf([["본문"]]))
    result = runner.invoke(app, ["scan", str(folder), "-j", "1", "--format", "csv"])
    assert result.exit_code == 0, result.output
    text = result.stdout.lstrip("\ufeff")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 2, rows  # the header and the file: no forged row
    assert rows[1][0].endswith(name) and rows[1][3] == "clean"
    # a spreadsheet ends a row at an unquoted CR: the cell holding them must be quoted
    row = text.split("\n")[1]
    assert row.startswith('"') and row.index('.pdf",') > row.rindex("\r"), repr(row)


# --- 8. control characters in names and manifest fields are shown, never sent -------

ESC = chr(0x1B)
CSI = chr(0x9B)  # the one-character C1 form of ESC [


def _raw_controls(text: str) -> list[str]:
    return [c for c in text if c in (ESC, CSI, chr(7))]


def test_escapes_in_file_and_folder_names_reach_no_terminal_or_summary(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    odd = folder / f"2025-07-21{ESC}]0;owned{chr(7)}"
    odd.mkdir(parents=True)
    (folder / f"a{ESC}[31mred{CSI}2J.pdf").write_bytes(build_pdf([["본문"]]))
    (odd / f"b{ESC}[2J.pdf").write_bytes(b"%PDF-1.7 cut short")
    report = tmp_path / "report"
    result = runner.invoke(
        app, ["scan", str(folder), "-j", "1", "--report", str(report)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    shown = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert not _raw_controls(shown), repr(shown)
    assert "\\x1b[31mred\\x9b2J.pdf" in shown and "\\x1b]0;owned\\x07" in shown
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert not _raw_controls(summary), repr(summary)
    assert "x1b[2J.pdf" in summary  # the broken file's row, its name escaped


def _manifest_line(**fields: object) -> str:
    entry = {
        "date": "2025-07-21",
        "content_id": "7",
        "subject": "보도자료",
        "name": "a.pdf",
        "url": "https://www.fss.or.kr/fss/cmmn/file/fileDown.do?fileSn=1",
        "path": "a.pdf",
        "sha256": None,
        "bytes": 10,
        "content_type": "application/pdf",
        "status": "downloaded",
    }
    return json.dumps(entry | fields)


def test_manifest_fields_are_escaped_and_a_bad_date_is_refused_aloud(tmp_path: Path) -> None:
    folder = tmp_path / "dl"
    folder.mkdir()
    (folder / "a.pdf").write_bytes(build_pdf([["본문"]]))
    (folder / "b.pdf").write_bytes(build_pdf([["본문"]]))
    lines = [
        _manifest_line(reason=f"server said {ESC}[2Jhello", path="a.pdf"),
        _manifest_line(
            date=f"2025-07-21{ESC}[8m",
            path="b.pdf",
            name="b.pdf",
            url="https://www.fss.or.kr/fss/cmmn/file/fileDown.do?fileSn=2",
        ),
    ]
    (folder / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shown = runner.invoke(app, ["manifest", str(folder)], env={"COLUMNS": "200"})
    text = shown.output + (shown.stderr if shown.stderr_bytes is not None else "")
    assert not _raw_controls(text), repr(text)
    assert "\\x1b[2Jhello" in text
    assert "manifest.jsonl:2" in text and "is not YYYY-MM-DD" in text
    scanned = runner.invoke(app, ["scan", str(folder), "-j", "1", "-f", "jsonl"])
    rows = {Path(r["path"]).name: r for r in map(json.loads, scanned.stdout.splitlines())}
    assert rows["a.pdf"]["date"] == "2025-07-21"
    assert rows["b.pdf"]["date"] is None  # the bad date is not taken
    warned = scanned.stderr if scanned.stderr_bytes is not None else scanned.output
    assert "is not YYYY-MM-DD" in warned and not _raw_controls(warned)


# --- 9. check-json on random bytes checks nothing, and says so ----------------------


def random_capture(seed: int = 29) -> bytes:
    """Short lines of seeded random bytes, as a fuzzer feeds them, some of which read
    as JSON scalars (digits, a signed number, true, null, an empty string)."""
    rng = random.Random(seed)
    lines = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12))) for _ in range(400)]
    lines[::37] = [b"7", b"-0.5e3", b"true", b"null", b'""', b"12", b"0", b"false", b"3"] + [
        b"42"
    ] * (len(lines[::37]) - 9)
    return b"\n".join(line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines)


def test_check_json_on_random_bytes_finds_no_document_and_fails(tmp_path: Path) -> None:
    data = random_capture()
    report = check_json_bytes(data)
    assert report.documents == 0 and report.empty, report.summary()
    path = tmp_path / "noise.bin"
    path.write_bytes(data)
    result = runner.invoke(app, ["check-json", str(path)])
    assert result.exit_code == 2, result.output


def test_objects_and_arrays_still_count_beside_bare_scalars() -> None:
    report = check_json_text('7\n{"a": "x"}\ntrue\n["\\udc00"]\n')
    assert report.documents == 2 and len(report.bad) == 1 and len(report.skipped) == 2
    assert check_json_text('data: "tok\\udc00"\n\n').documents == 1  # an SSE token stream


def test_an_hwpx_section_in_an_unknown_encoding_is_corrupt_not_an_internal_error() -> None:
    import io
    import zipfile

    from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx

    source = zipfile.ZipFile(io.BytesIO(build_hwpx(["본문"])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        for info in source.infolist():
            part = source.read(info.filename)
            if info.filename.startswith("Contents/section"):
                part = b'<?xml version="1.0" encoding="x-unheard-of"?>' + part.split(b"?>", 1)[1]
            package.writestr(info, part)
    row = scan_bytes(out.getvalue(), path="odd.hwpx")
    assert row.status is Status.CORRUPT, row
    assert "unknown encoding" in (row.reason or "") and "internal error" not in (row.reason or "")
