"""``hwpscan check-json``: prove a pipeline's chokepoints let no unencodable string through."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from hwpscan.cli.app import app, console, err_console, fail
from hwpscan.forensics.checkjson import JsonCheck, check_json_bytes
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
    report = check_json_bytes(_read(source))
    if fmt is CheckFormat.jsonl:
        _print_jsonl(report)
    else:
        _print_text(report)
    if report.empty:
        name = "stdin" if source == "-" else escape_snippet(source)
        skipped = len(report.skipped)
        message = f"no JSON document found in {name} ({skipped} line(s) skipped): nothing checked"
        raise fail(message, ExitCode.USAGE)
    if not report.ok:
        raise typer.Exit(code=ExitCode.FINDINGS)


def _read(source: str) -> bytes:
    if source == "-":
        return typer.get_binary_stream("stdin").read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise fail(f"cannot read {escape_snippet(source)}: {reason}", ExitCode.USAGE) from None


def _print_jsonl(report: JsonCheck) -> None:
    rows: list[dict[str, Any]] = [b.to_json() for b in report.bad]
    rows += [s.to_json() for s in report.skipped]
    rows.append(report.summary())
    for row in rows:  # every field is escaped: the output always encodes
        console.out(json.dumps(row, ensure_ascii=False), highlight=False)


def _print_text(report: JsonCheck) -> None:
    if report.bad:
        table = Table(title="Strings that would fail UTF-8 encoding", title_justify="left")
        table.add_column("Line", justify="right")
        table.add_column("Path", overflow="fold")
        table.add_column("Pos", justify="right")
        table.add_column("Surrogates", justify="right")
        table.add_column("Context", overflow="fold")
        for bad in report.bad:
            units = f"{bad.surrogates} ({bad.pairs} pair{'s' * (bad.pairs != 1)})"
            path = bad.path + (" (key)" if bad.kind == "key" else "")
            table.add_row(str(bad.line), Text(path), str(bad.position), units, Text(bad.snippet))
        console.print(table)
        first = report.bad[0]
        console.print(Text(f"line {first.line}, {first.path}: {first.message}"), soft_wrap=True)
    for skip in report.skipped:
        console.print(Text(f"skipped line {skip.line}: {skip.reason}", style="dim"), soft_wrap=True)
    if report.empty:
        return  # no verdict: nothing was checked (the error follows)
    verdict = (
        Text(f"{len(report.bad)} bad string(s)", style="bold red")
        if report.bad
        else Text("no bad strings", style="bold green")
    )
    verdict.append(
        f" in {report.documents} document(s), {report.strings} string(s) checked, "
        f"{len(report.skipped)} line(s) skipped",
        style="default",
    )
    console.print(verdict, soft_wrap=True)
