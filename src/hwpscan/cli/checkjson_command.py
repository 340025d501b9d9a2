"""``hwpscan check-json``: prove a pipeline's chokepoints let no unencodable string through."""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from hwpscan.cli.app import app, console, epilog, err_console, fail, warn
from hwpscan.cli.machine import ResultsOutOpt, check_results_file, results_lines
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import ExitCode

if TYPE_CHECKING:
    from hwpscan.forensics.checkjson import BadString, Counts, SkippedLine

#: Each ``--format jsonl`` line: a bad string, a skipped line or the closing summary.
CHECK_SCHEMA = "hwpscan.check-json/1"
#: ``--format json``: ``findings`` (the JSON Lines without their schema) and ``summary``.
CHECK_DOCUMENT_SCHEMA = "hwpscan.check-json.document/1"


class CheckFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    text = "text"  # the table's older name (hidden from --help; a warning when used)


CheckFormatOpt = Annotated[
    CheckFormat,
    typer.Option(
        "--format",
        "-f",
        help="table for people; json: one document; jsonl: one object per finding, then "
        "the counts.",
        metavar="[table|json|jsonl]",
    ),
]


@app.command(
    "check-json",
    rich_help_panel="Scan files",
    epilog=epilog(
        [
            ("hwpscan check-json capture.jsonl", "check captured tool results"),
            ("curl -sN URL | hwpscan check-json -", "check an SSE stream from stdin"),
        ],
        ["COLUMNS"],
        [
            "0  no bad string",
            "1  at least one string would fail UTF-8 encoding",
            "2  the input cannot be read or holds no JSON document",
        ],
    ),
)
def check_json(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(
            metavar="[FILE|-]",
            help="Captured tool results, log lines or an SSE stream; '-' reads stdin.",
            show_default=False,
        ),
    ] = "-",
    fmt: CheckFormatOpt = CheckFormat.table,
    max_shown: Annotated[
        int, typer.Option(min=0, help="Table: findings shown of each kind.")
    ] = 1000,
    output: ResultsOutOpt = None,
) -> None:
    """Report every JSON string (value or key) that would fail UTF-8 encoding.

    Reads one JSON document or SSE event per line (or one whole JSON document), with
    undecodable bytes kept as lone surrogates. Exit 1 when any string is bad, 0 when
    none is, 2 when the input cannot be read or holds no JSON document at all (a wrong
    capture file proves nothing).
    """
    from hwpscan.forensics.checkjson import Counts, decode_input, iter_check

    if fmt is CheckFormat.text:  # the table's older name
        warn("--format text is deprecated: use table")
        fmt = CheckFormat.table
    output = check_results_file(output, fmt.value, "json or jsonl")
    if source == "-" and sys.stdin.isatty():  # nothing piped in: say how, do not wait
        _usage_hint(ctx)
    counts = Counts()
    findings = iter_check(decode_input(_read(source)), counts)
    first = _print(fmt, findings, counts, output, max_shown)
    if counts.empty:  # a wrong capture file proves nothing
        name = "stdin" if source == "-" else escape_snippet(source)
        skipped = f"{counts.skipped} line(s) skipped"
        raise fail(f"no JSON document found in {name} ({skipped}): nothing checked", ExitCode.USAGE)
    if first is not None:
        raise typer.Exit(code=ExitCode.FINDINGS)


def _usage_hint(ctx: typer.Context) -> None:
    err_console.print(ctx.get_usage(), markup=False, highlight=False)
    err_console.print(
        "give a capture file, or pipe one in: `hwpscan check-json capture.jsonl`, "
        "`tool | hwpscan check-json -` (hwpscan check-json -h for more)",
        markup=False,
        highlight=False,
    )
    raise typer.Exit(code=ExitCode.USAGE)


def _read(source: str) -> bytes:
    if source == "-":
        return typer.get_binary_stream("stdin").read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise fail(f"cannot read {escape_snippet(source)}: {reason}", ExitCode.USAGE) from None


def _print(
    fmt: CheckFormat,
    findings: Iterator[BadString | SkippedLine],
    counts: Counts,
    output: Path | None,
    max_shown: int,
) -> BadString | None:
    """Every finding in *fmt*, as it is found, then the counts (json: one document with
    a finding per line, none held); returns the first bad string."""
    from hwpscan.forensics.checkjson import BadString

    if fmt is CheckFormat.table:
        return _print_table(findings, counts, max_shown)
    document = fmt is CheckFormat.json
    first: BadString | None = None
    with results_lines(output) as write:
        if document:
            write(f'{{"schema": {json.dumps(CHECK_DOCUMENT_SCHEMA)}, "findings": [')
        separator = ""
        for item in findings:
            if first is None and isinstance(item, BadString):
                first = item
            row = item.to_json() if document else {"schema": CHECK_SCHEMA, **item.to_json()}
            write(separator + json.dumps(row, ensure_ascii=False))
            separator = "," if document else ""
        summary = counts.summary()
        if document:
            write(f'], "summary": {json.dumps(summary, ensure_ascii=False)}}}')
        else:
            write(json.dumps({"schema": CHECK_SCHEMA, **summary}, ensure_ascii=False))
    return first


def _print_table(
    findings: Iterator[BadString | SkippedLine], counts: Counts, max_shown: int
) -> BadString | None:
    """One line per finding as it is found, the first *max_shown* of each kind; then how
    many more there were, and the verdict. Returns the first bad string."""
    from hwpscan.forensics.checkjson import SkippedLine

    first: BadString | None = None
    shown = {"bad string(s)": 0, "skipped line(s)": 0}
    for item in findings:
        if isinstance(item, SkippedLine):
            what, style, line = "skipped line(s)", "dim", f"skipped line {item.line}: {item.reason}"
        else:
            first = first or item
            units = f"{item.surrogates} surrogate(s), {item.pairs} pair{'s' * (item.pairs != 1)}"
            path = item.path + (" (key)" if item.kind == "key" else "")
            what, style = "bad string(s)", ""
            line = f"line {item.line}, {path}, position {item.position}: {units}: {item.snippet}"
        if shown[what] < max_shown:
            shown[what] += 1
            console.print(Text(line, style=style), soft_wrap=True)
    for what, total in (("bad string(s)", counts.bad), ("skipped line(s)", counts.skipped)):
        if total > shown[what]:
            more = f"... and {total - shown[what]:,} more {what} (--max-shown, or --format jsonl"
            more += " for all)"
            console.print(Text(more, style="dim"), soft_wrap=True)
    if first is not None:
        line = f"first: line {first.line}, {first.path}: {first.message}"
        console.print(Text(line), soft_wrap=True)
    if not counts.empty:  # else no verdict: nothing was checked (the error follows)
        console.print(_verdict(counts), soft_wrap=True)
    return first


def _verdict(counts: Counts) -> Text:
    verdict = (
        Text(f"{counts.bad:,} bad string(s)", style="bold red")
        if counts.bad
        else Text("no bad strings", style="bold green")
    )
    verdict.append(
        f" in {counts.documents:,} document(s), {counts.strings:,} string(s) checked, "
        f"{counts.skipped:,} line(s) skipped",
        style="default",
    )
    return verdict
