"""``check-json`` over real captured payloads: JSON Lines, SSE, whole documents, raw bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hwpscan.cli.checkjson_command  # noqa: F401  (registers the command)
from hwpscan.cli import app
from hwpscan.forensics.checkjson import check_json_bytes, check_json_text
from hwpscan.forensics.guard import sanitize
from hwpscan.models import ExitCode
from hwpscan.rehearsal.synth.press import STORIES, render

runner = CliRunner()


def codeunit_view(text: str) -> str:
    """What a parser that emits UTF-16 code units one by one makes of ``text``."""
    data = text.encode("utf-16-le")
    return "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))


def tool_result(story_index: int) -> dict[str, object]:
    """A tool result as the incident's API tool built it: attachment text from the parser."""
    story = STORIES[story_index]
    return {
        "status": "ok",
        "result": [
            {"title": story.subject, "text": "첨부 없음"},
            {"title": story.subject, "text": codeunit_view(render(story.body[0], pua=True))},
        ],
    }


def invoke(*args: str, stdin: bytes | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["check-json", *args], input=stdin)


def jsonl_rows(output: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in output.splitlines()]


def test_raw_surrogatepass_bytes_are_caught_with_path_line_and_message(tmp_path: Path) -> None:
    # a logger that wrote the tool result with errors="surrogatepass"
    lines = [
        json.dumps({"status": "ok", "result": []}),
        json.dumps(tool_result(0), ensure_ascii=False),
    ]
    path = tmp_path / "tool-results.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass") + b"\n")
    result = invoke(str(path), "--format", "jsonl")
    assert result.exit_code == ExitCode.FINDINGS
    rows = jsonl_rows(result.stdout)
    bad = [r for r in rows if r["type"] == "bad-string"]
    assert [(r["line"], r["path"], r["kind"]) for r in bad] == [(2, "$.result[1].text", "value")]
    text = tool_result(0)["result"][1]["text"]  # type: ignore[index]
    first = text.index(chr(0xDB80))
    assert bad[0]["position"] == first  # the bullet is the first character of the body
    # the three bytes of each half decode back to that half: the pair is one pair
    assert bad[0]["message"] == (
        f"'utf-8' codec can't encode characters in position {first}-{first + 1}: "
        "surrogates not allowed"
    )
    assert (bad[0]["surrogates"], bad[0]["pairs"]) == (text.count(chr(0xDB80)) * 2, 1)
    assert rows[-1] == {
        "schema": "hwpscan.check-json/1",
        "type": "summary",
        "documents": 2,
        "strings": 14,
        "bad": 1,
        "skipped": 0,
    }


def test_lone_json_escapes_are_bad_but_escaped_pairs_are_characters(tmp_path: Path) -> None:
    # json.dumps escapes every half; a reader merges an escaped pair back into its character
    payload = tool_result(1)
    payload["orphan"] = "끝" + chr(0xDC00)
    payload[chr(0xDB80) + "key"] = 1
    path = tmp_path / "escaped.jsonl"
    path.write_text(json.dumps(payload) + "\n", encoding="ascii")
    assert "\\udb80\\udeb1" in path.read_text(encoding="ascii")
    report = check_json_bytes(path.read_bytes())
    assert [(b.path, b.kind, b.position) for b in report.bad] == [
        ("$.orphan", "value", 1),
        ('$["\\udb80key"]', "key", 0),
    ]
    assert report.bad[0].message == (
        "'utf-8' codec can't encode character '\\udc00' in position 1: surrogates not allowed"
    )


def test_sse_stream_reports_the_data_line_and_ignores_control_lines(tmp_path: Path) -> None:
    chunks = [
        ": keepalive",
        "event: tool_start",
        "id: 1",
        'data: {"type": "tool_start", "name": "press_api"}',
        "",
        "event: tool_result",
        "id: 2",
        "retry: 3000",
        "data: " + json.dumps({"type": "tool_result", "output": tool_result(2)}),
        "",
        "data: [DONE]",
        "",
    ]
    text = "\n".join(chunks).replace("\\udeb1", "")  # leave the bullet's high half alone
    path = tmp_path / "run.sse"
    path.write_text(text, encoding="utf-8")
    result = invoke(str(path))
    assert result.exit_code == ExitCode.FINDINGS
    assert "$.output.result[1].text" in result.stdout
    assert "1 bad string(s) in 2 document(s)" in result.stdout
    assert "0 line(s) skipped" in result.stdout
    (bad,) = check_json_text(text).bad
    assert bad.line == 9 and bad.surrogates >= 1 and bad.pairs == 0


def test_multi_line_sse_event_is_joined(tmp_path: Path) -> None:
    text = 'data: {"a":\ndata: "\\udfff"}\n\n'
    (bad,) = check_json_text(text).bad
    assert (bad.line, bad.path) == (1, "$.a")


def test_whole_pretty_printed_document(tmp_path: Path) -> None:
    payload = {"data": {"items": [{"본문": "x" + chr(0xDEB1)}]}}
    path = tmp_path / "response.json"
    path.write_text("\n\n" + json.dumps(payload, indent=2), encoding="ascii")
    result = invoke(str(path), "-f", "jsonl")
    assert result.exit_code == ExitCode.FINDINGS
    bad = jsonl_rows(result.stdout)[0]
    assert (bad["line"], bad["path"], bad["snippet"]) == (3, '$.data.items[0]["본문"]', "x\\udeb1")


def test_non_json_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "mixed.log"
    path.write_bytes(
        b"2025-08-05 12:00:01 INFO start\n"
        + b'2025-08-05 12:00:02 INFO tool_result {"text": "\\udb80"}\n'
        + b"\xff\xfe garbage\n"
        + b'{"clean": "\xea\xb0\x80"}\n'
    )
    result = invoke(str(path), "--format", "jsonl")
    assert result.exit_code == ExitCode.FINDINGS
    rows = jsonl_rows(result.stdout)
    assert [(r["type"], r["line"]) for r in rows[:-1]] == [  # streamed in input order
        ("skipped", 1),
        ("bad-string", 2),
        ("skipped", 3),
    ]
    assert rows[2]["excerpt"] == "\\udcff\\udcfe garbage"
    assert rows[-1]["documents"] == 2


def test_clean_input_and_sanitized_payloads_exit_zero(tmp_path: Path) -> None:
    # the chokepoint guard at work: sanitize the tool result, then serialize it
    dirty = [tool_result(i) for i in range(3)]
    path = tmp_path / "guarded.jsonl"
    path.write_bytes(
        b"".join(json.dumps(sanitize(d), ensure_ascii=False).encode("utf-8") + b"\n" for d in dirty)
    )
    result = invoke(str(path))
    assert result.exit_code == ExitCode.OK, result.output
    assert "no bad strings in 3 document(s)" in result.stdout


def test_reads_stdin() -> None:
    data = json.dumps({"text": chr(0xDC80)}).encode("ascii") + b"\n"
    result = invoke("-", "-f", "jsonl", stdin=data)
    assert result.exit_code == ExitCode.FINDINGS
    assert jsonl_rows(result.stdout)[0]["path"] == "$.text"
    assert invoke(stdin=b'{"ok": true}\n').exit_code == ExitCode.OK


def test_jsonl_output_always_encodes(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"\xed\xa0\x80": "\xed\xb0\x80", "k": "\\udc00"}\n')
    result = invoke(str(path), "-f", "jsonl")
    assert result.exit_code == ExitCode.FINDINGS
    result.stdout.encode("utf-8")
    kinds = [r["kind"] for r in jsonl_rows(result.stdout) if r["type"] == "bad-string"]
    assert kinds == ["key", "value", "value"]


def test_pair_and_orphan_written_with_surrogatepass_are_seen_as_surrogates(tmp_path: Path) -> None:
    high, low, orphan = chr(0xDB80), chr(0xDEB1), chr(0xDC00)
    value = "가" + high + low + "나" + orphan
    path = tmp_path / "wrapper.jsonl"
    line = json.dumps({"text": value}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    path.write_bytes(line + b"\n" + b'{"raw": "\xff"}\n')
    report = check_json_bytes(path.read_bytes())
    first, raw = report.bad
    assert (first.path, first.position, first.surrogates, first.pairs) == ("$.text", 1, 3, 1)
    assert first.snippet == "가\\udb80\\udeb1나\\udc00"
    # a byte that is not UTF-8 even with surrogatepass is kept as surrogateescape does
    assert (raw.path, raw.surrogates, raw.snippet) == ("$.raw", 1, "\\udcff")


@pytest.mark.parametrize(
    "data",
    [b"garbage{\n", b"", b"\n\n", b"event: ping\ndata: [DONE]\n", b"\xff\xfe\x00<html>\n"],
)
def test_input_without_any_json_document_is_an_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "wrong-capture.txt"
    path.write_bytes(data)
    for fmt in ("text", "jsonl"):
        result = invoke(str(path), "-f", fmt)
        assert result.exit_code == ExitCode.USAGE, result.output
        assert "no JSON document found in" in result.stderr and path.name in result.stderr
        assert "no bad strings" not in result.stdout
    assert invoke("-", stdin=data).exit_code == ExitCode.USAGE
    assert check_json_bytes(data).empty


def test_empty_json_documents_still_count_as_documents() -> None:
    # "{}" and "[]" are documents with no strings: clean, not empty input
    assert invoke(stdin=b"{}\n[]\n").exit_code == ExitCode.OK


@pytest.mark.parametrize("make", ["missing", "directory"])
def test_unreadable_input_is_a_usage_error_without_traceback(tmp_path: Path, make: str) -> None:
    target = tmp_path / "nope.jsonl"
    if make == "directory":
        target.mkdir()
    result = invoke(str(target))
    assert result.exit_code == ExitCode.USAGE
    assert "cannot read" in result.stderr and str(target) in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.slow
def test_bad_format_option_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    assert invoke(str(path), "--format", "xml").exit_code == ExitCode.USAGE


def test_command_has_help() -> None:
    result = runner.invoke(app, ["check-json", "--help"])
    assert result.exit_code == 0
    assert "UTF-8" in result.stdout
