"""``hwpscan check-json``: prove a pipeline's chokepoints let no unencodable string through."""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from hwpscan.cli.app import app, console, err_console, fail
from hwpscan.forensics.checkjson import BadString, Counts, SkippedLine, decode_input, iter_check
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import ExitCode


class CheckFormat(str, enum.Enum):
    text = "text"
    jsonl = "jsonl"


@app.command("check-json", rich_help_panel="Scan files")
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
    fmt: Annotated[
        CheckFormat,
        typer.Option("--format", "-f", help="text: a table; jsonl: one object per finding."),
    ] = CheckFormat.text,
    max_shown: Annotated[
        int,
        typer.Option("--max-shown", min=0, help="Text format: findings shown of each kind."),
    ] = 1000,
) -> None:
    """Report every JSON string (value or key) that would fail UTF-8 encoding.

    Reads one JSON document or SSE event per line (or one whole JSON document), with
    undecodable bytes kept as lone surrogates. Exit 1 when any string is bad, 0 when
    none is, 2 when the input cannot be read or holds no JSON document at all (a wrong
    capture file proves nothing).
    """
    if source == "-" and sys.stdin.isatty():  # nothing piped in: say how, do not wait
        err_console.print(ctx.get_usage(), markup=False, highlight=False)
        err_console.print(
            "give a capture file, or pipe one in: `hwpscan check-json capture.jsonl`, "
            "`tool | hwpscan check-json -` (hwpscan check-json -h for more)",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(code=ExitCode.USAGE)
    counts = Counts()
    findings = iter_check(decode_input(_read(source)), counts)
    first: BadString | None
    if fmt is CheckFormat.jsonl:
        first = _print_jsonl(findings, counts)
    else:
        first = _print_text(findings, counts, max_shown)
    if counts.empty:
        name = "stdin" if source == "-" else escape_snippet(source)
        message = (
            f"no JSON document found in {name} ({counts.skipped} line(s) skipped): nothing checked"
        )
        raise fail(message, ExitCode.USAGE)
    if first is not None:
        raise typer.Exit(code=ExitCode.FINDINGS)


def _read(source: str) -> bytes:
    if source == "-":
        return typer.get_binary_stream("stdin").read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise fail(f"cannot read {escape_snippet(source)}: {reason}", ExitCode.USAGE) from None


def _print_jsonl(findings: Iterator[BadString | SkippedLine], counts: Counts) -> BadString | None:
    """Every finding as it is found, then the counts; returns the first bad string."""
    first: BadString | None = None
    for item in findings:  # every field is escaped: the output always encodes
        if first is None and isinstance(item, BadString):
            first = item
        console.out(json.dumps(item.to_json(), ensure_ascii=False), highlight=False)
    console.out(json.dumps(counts.summary(), ensure_ascii=False), highlight=False)
    return first


def _print_text(
    findings: Iterator[BadString | SkippedLine], counts: Counts, max_shown: int
) -> BadString | None:
    """One line per finding as it is found, the first *max_shown* of each kind; then how
    many more there were, and the verdict. Returns the first bad string."""
    first: BadString | None = None
    shown_bad = shown_skipped = 0
    for item in findings:
        if isinstance(item, SkippedLine):
            if shown_skipped < max_shown:
                shown_skipped += 1
                line = f"skipped line {item.line}: {item.reason}"
                console.print(Text(line, style="dim"), soft_wrap=True)
            continue
        if first is None:
            first = item
        if shown_bad < max_shown:
            shown_bad += 1
            units = f"{item.surrogates} surrogate(s), {item.pairs} pair{'s' * (item.pairs != 1)}"
            path = item.path + (" (key)" if item.kind == "key" else "")
            text = f"line {item.line}, {path}, position {item.position}: {units}: {item.snippet}"
            console.print(Text(text), soft_wrap=True)
    for what, total, shown in (
        ("bad string(s)", counts.bad, shown_bad),
        ("skipped line(s)", counts.skipped, shown_skipped),
    ):
        if total > shown:
            more = f"... and {total - shown:,} more {what} (--max-shown, or --format jsonl for all)"
            console.print(Text(more, style="dim"), soft_wrap=True)
    if first is not None:
        console.print(
            Text(f"first: line {first.line}, {first.path}: {first.message}"), soft_wrap=True
        )
    if counts.empty:
        return first  # no verdict: nothing was checked (the error follows)
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
    console.print(verdict, soft_wrap=True)
    return first
