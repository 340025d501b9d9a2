"""``check-json`` on hostile captures: deep nesting, invalid bytes, floods of findings,
huge strings and CR line ends. Every capture is written here, by this test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hwpscan.forensics.checkjson import check_json_bytes, check_json_text, decode_utf8


def run(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "hwpscan", "check-json", str(path), *args]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def test_a_line_nested_past_the_parser_limit_is_skipped_and_the_rest_reported(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.jsonl"
    deep = b"[" * 5000 + b"]" * 5000
    path.write_bytes(b'{"a": "\\udc00"}\n' + deep + b'\n{"b": "\\ud800"}\n')
    done = run(path, "--format", "jsonl")
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["type"], r.get("line")) for r in rows[:-1]] == [
        ("bad-string", 1),
        ("skipped", 2),
        ("bad-string", 3),
    ]
    assert "nested too deeply" in rows[1]["reason"]


def test_a_document_nested_990_deep_in_one_whole_file_is_not_a_traceback() -> None:
    text = "[" * 990 + '"\\udc00"' + "]" * 990
    report = check_json_text(text + "\n")  # the parser's limit depends on the stack in use
    if report.bad:
        assert len(report.bad) == 1 and report.bad[0].path.endswith("…")  # the path is capped
    else:
        assert "nested too deeply" in report.skipped[0].reason


def test_invalid_bytes_decode_like_surrogateescape_with_surrogates_restored() -> None:
    lone = chr(0xD800).encode("utf-8", "surrogatepass")
    data = b"a\xff" + lone + b"\xed\xa0" + "가".encode() + b"\xfe" * 3 + lone + b"\xc3"
    text, invalid = decode_utf8(data)
    expected = ["a", "\udcff", "\ud800", "\udced", "\udca0", "가"]
    assert list(text) == [*expected, "\udcfe", "\udcfe", "\udcfe", "\ud800", "\udcc3"]
    assert invalid == 1 + 2 + 3 + 1
    skipped, count = decode_utf8(data, "skip")
    assert skipped == "a\ud800가\ud800" and count == invalid


def test_megabytes_of_invalid_bytes_are_one_pass() -> None:
    text, invalid = decode_utf8(b'{"a": "' + b"\xff" * 3_000_000 + b'"}')
    assert invalid == 3_000_000 and len(text) == 3_000_009


def test_text_output_streams_a_capped_number_of_findings_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    path = tmp_path / "many.jsonl"
    path.write_bytes(b'{"t": "\\udc00"}\n' * 5000)
    done = run(path, "--max-shown", "10")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("line ") for line in lines) == 10
    assert "and 4,990 more bad string(s)" in done.stdout
    assert "5,000 bad string(s) in 5,000 document(s)" in done.stdout


def test_a_snippet_is_capped_whatever_the_length_of_the_bad_run() -> None:
    report = check_json_bytes(b'{"t": "' + b"\\udc00" * 200_000 + b'"}\n')
    (bad,) = report.bad
    assert bad.surrogates == 200_000 and len(bad.snippet) < 400
    assert len(json.dumps(bad.to_json())) < 2000


def test_cr_only_line_ends_split_documents() -> None:
    report = check_json_text('{"a": "ok"}\r{"b": "\\udc00"}\r{"c": "\\ud800"}\r')
    assert [b.line for b in report.bad] == [2, 3] and report.documents == 3
