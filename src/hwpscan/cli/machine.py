"""Machine output: ``-o/--output``, and the JSON documents of ``plan``, ``history`` and
``diff``. Every document and JSON Lines object has a ``"schema"``,
``hwpscan.<command>[.<row>]/<version>``; its keys (docs/scanning.md) only ever grow.
"""

from __future__ import annotations

import enum
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from hwpscan.atomic import atomic_file
from hwpscan.cli.app import check_writable_folder, console, fail
from hwpscan.models import ExitCode

if TYPE_CHECKING:
    from hwpscan.api.plan import Plan
    from hwpscan.history import RunInfo
    from hwpscan.history.diff import RunDiff
    from hwpscan.manifest import ManifestEntry
    from hwpscan.models import FileResult


#: What each line of ``manifest --format jsonl`` and ``fetch --format jsonl`` is: a
#: manifest entry (the manifest file's own lines carry no schema).
MANIFEST_ROW_SCHEMA = "hwpscan.manifest.entry/1"


class EntriesFormat(str, enum.Enum):
    """``--format`` of ``fetch`` and ``manifest``: jsonl is a manifest entry per line."""

    table = "table"
    json = "json"
    jsonl = "jsonl"


#: ``--output -``: standard output.
STDOUT_NAME = Path("-")

ResultsOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the results (--format other than table) to this file instead of "
        "stdout ('-': stdout).",
        show_default=False,
    ),
]


class MachineFormat(str, enum.Enum):
    table = "table"
    json = "json"


MachineFormatOpt = Annotated[
    MachineFormat,
    typer.Option("--format", "-f", help="table for people; json: one document for tools."),
]


def check_results_file(output: Path | None, fmt: str, formats: str) -> Path | None:
    """The results file ``-o/--output`` names (``None``: stdout); exit 2 before any work
    when it goes with the table, is a folder or cannot be written. *formats* is what the
    message asks for instead."""
    if output is None or output == STDOUT_NAME:
        return None
    if fmt == "table":
        message = f"--output needs --format {formats} (tables go to the terminal)"
        raise fail(message, ExitCode.USAGE)
    if output.is_dir():
        raise fail(f"--output {output} is a folder; give a file name", ExitCode.USAGE)
    check_writable_folder(output.parent, "--output")
    return output


@contextmanager
def results_lines(output: Path | None) -> Iterator[Callable[[str], None]]:
    """A writer of result lines: to stdout as they come, or to *output*, which gets them
    whole when the block ends (readable by others, as a file a shell redirect makes)."""
    if output is None:
        yield lambda line: console.out(line, highlight=False)
        return
    buffer = io.StringIO()

    def write(line: str) -> None:
        buffer.write(line + "\n")

    yield write
    with atomic_file(output, shared=True) as handle:
        handle.write(buffer.getvalue().encode("utf-8"))


def write_entries(entries: Iterable[ManifestEntry], output: Path | None) -> None:
    """Manifest entries as JSON Lines, each with :data:`MANIFEST_ROW_SCHEMA`."""
    with results_lines(output) as write:
        for entry in entries:
            write(
                json.dumps({"schema": MANIFEST_ROW_SCHEMA, **entry.to_json()}, ensure_ascii=False)
            )


def print_json(doc: dict[str, Any], output: Path | None = None) -> None:
    """One JSON document on stdout, or in the results file *output*."""
    with results_lines(output) as write:
        write(json.dumps(doc, ensure_ascii=False, indent=2, default=str))


def plan_json(plan: Plan) -> dict[str, Any]:
    quota = plan.quota
    return {
        "schema": "hwpscan.plan/1",
        "start": plan.start.isoformat(),
        "end": plan.end.isoformat(),
        "windows": [
            {
                "start": w.window.start.isoformat(),
                "end": w.window.end.isoformat(),
                "days": w.window.days,
                "cached": w.cached,
            }
            for w in plan.windows
        ],
        "calls_needed": plan.calls_needed,
        "calls_cached": plan.calls_cached,
        "quota": None
        if quota is None
        else {
            "day": quota.day.isoformat(),
            "used": quota.used,
            "limit": quota.limit,
            "remaining": quota.remaining,
            "resets_at": quota.resets_at.isoformat(),
        },
        "fits_quota": plan.fits_quota,
        "warnings": list(plan.warnings),
    }


#: The keys of each run in ``history --format json``, in their order.
_RUN_KEYS = (
    *("id", "kind", "started", "finished", "args", "version"),
    *("counts", "files", "contaminated", "clean", "unreadable", "summary"),
)


def history_json(runs: Sequence[RunInfo]) -> dict[str, Any]:
    return {
        "schema": "hwpscan.history/1",
        "runs": [{k: getattr(r, k) for k in _RUN_KEYS} for r in runs],
    }


def diff_json(d: RunDiff) -> dict[str, Any]:
    from hwpscan.history.diff import CHANGE_KINDS  # loaded with the diff it describes

    files = [asdict(c) for c in d.files]
    regressed = bool(d.of_kind("became_contaminated") or d.dates_of_kind("became_contaminated"))
    return {
        "schema": "hwpscan.diff/1",
        "a": d.a,
        "b": d.b,
        "files": files,
        "dates": [asdict(c) for c in d.dates],
        "unchanged": d.unchanged,
        "counts": {k: len(d.of_kind(k)) for k in CHANGE_KINDS},
        "regressed": regressed,
    }


def write_rows_document(
    stream: IO[str], head: dict[str, object], results: Sequence[FileResult]
) -> None:
    """One JSON document: *head*'s keys, then ``rows``, the JSON Lines rows, one a line."""
    from hwpscan.history.stored_rows import row_lines

    stream.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "rows": [')
    for i, line in enumerate(row_lines(results)):
        stream.write(("," if i else "") + "\n" + line)
    stream.write("\n]}\n" if results else "]}\n")
