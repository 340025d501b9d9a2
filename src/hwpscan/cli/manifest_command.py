"""``hwpscan manifest``: the current entry of each attachment in a download folder.

``manifest.jsonl`` is append-only, so an attachment may have several lines (failed, then
downloaded); the last one counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from hwpscan.cli.app import ENV_LOCAL, app, console, epilog, err_console, fail
from hwpscan.cli.machine import (
    EntriesFormat,
    ResultsOutOpt,
    check_results_file,
    print_json,
    write_entries,
)
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.manifest import MANIFEST_NAME, ManifestEntry, read_entries
from hwpscan.models import ExitCode

if TYPE_CHECKING:
    from rich.table import Table


#: ``manifest --format json`` (its keys: docs/scanning.md).
MANIFEST_SCHEMA = "hwpscan.manifest/1"


def manifest_json(path: Path, rows: Sequence[ManifestEntry], superseded: int) -> dict[str, Any]:
    """``manifest --format json``'s document.

    >>> def e(status):
    ...     return ManifestEntry("2025-07-21", "7", "s", "a.hwp", "u", None, None, 0, None, status)
    >>> doc = manifest_json(Path("m.jsonl"), [e("failed"), e("downloaded")], 1)
    >>> doc["schema"], doc["attachments"], doc["counts"], doc["entries"][0]["status"]
    ('hwpscan.manifest/1', 2, {'downloaded': 1, 'failed': 1}, 'failed')
    """
    counts = Counter(entry.status for entry in rows)
    return {
        "schema": MANIFEST_SCHEMA,
        "manifest": str(path),
        "attachments": len(rows),
        "counts": dict(sorted(counts.items())),
        "superseded": superseded,
        "entries": [entry.to_json() for entry in rows],
    }


def current_entries(entries: list[ManifestEntry]) -> tuple[list[ManifestEntry], int]:
    """The last entry per attachment (release and URL), in first-seen order, and how many
    earlier lines they supersede.

    >>> def e(status, path=None):
    ...     return ManifestEntry("2025-07-21", "7", "s", "a.hwp", "u", path, None, 0, None, status)
    >>> rows, superseded = current_entries([e("failed"), e("downloaded", "a.hwp")])
    >>> [r.status for r in rows], superseded
    (['downloaded'], 1)
    """
    latest: dict[tuple[str, str], ManifestEntry] = {}
    for entry in entries:
        latest[(entry.content_id, entry.url)] = entry  # a later line wins, in place
    return list(latest.values()), len(entries) - len(latest)


def manifest_table(path: Path, rows: Sequence[ManifestEntry]) -> Table:
    """One line per attachment: date, status, file, reason."""
    from rich.table import Table

    table = Table(title=f"{path}: the current entry per attachment", title_justify="left")
    for name in ("date", "status"):
        table.add_column(name, no_wrap=True)
    for name in ("file", "reason"):
        table.add_column(name, overflow="fold")
    for entry in rows:
        table.add_row(  # every field is the file's text: its controls shown, not sent
            Text(escape_snippet(entry.date or "undated")),
            Text(escape_snippet(entry.status)),
            Text(escape_snippet(entry.path or entry.name)),
            Text(escape_snippet(entry.reason or "")),
        )
    return table


def tally_line(rows: Sequence[ManifestEntry], superseded: int) -> str:
    """How many attachments per status, and how many lines the last-wins rule set aside.

    >>> def e(status):
    ...     return ManifestEntry("2025-07-21", "7", "s", "a.hwp", "u", None, None, 0, None, status)
    >>> tally_line([e("failed"), e("downloaded"), e("failed")], 1).split(";")[0]
    '3 attachment(s): 1 downloaded, 2 failed'
    """
    counts = Counter(entry.status for entry in rows)
    tally = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none"
    return (
        f"{len(rows)} attachment(s): {tally}; {superseded} earlier line(s) superseded "
        "(the last line for an attachment wins)"
    )


@app.command(
    rich_help_panel="Runs and reports",
    epilog=epilog(
        [
            ("hwpscan manifest press/", "one line per attachment: its current status"),
            (
                "hwpscan manifest press/ --format jsonl",
                "the same as JSON Lines, superseded lines left out",
            ),
        ],
        ENV_LOCAL,
        ["0  shown", "2  no manifest.jsonl in the folder"],
    ),
)
def manifest(
    folder: Annotated[
        Path,
        typer.Argument(
            help="A download folder (holding manifest.jsonl).", metavar="FOLDER", show_default=True
        ),
    ] = Path("hwpscan-downloads"),
    fmt: Annotated[
        EntriesFormat,
        typer.Option(
            "--format",
            "-f",
            help="table for people; json: one document; jsonl: one entry per line.",
        ),
    ] = EntriesFormat.table,
    output: ResultsOutOpt = None,
) -> None:
    """Show the current entry of each attachment in a download folder's manifest.

    manifest.jsonl only ever grows: when an attachment has several lines (failed, then
    downloaded), the last one counts. This shows that one, per attachment.
    """
    output = check_results_file(output, fmt.value, "json or jsonl")
    path = folder if folder.is_file() and folder.suffix == ".jsonl" else folder / MANIFEST_NAME
    if not path.is_file():
        raise fail(f"{folder}: no {MANIFEST_NAME} there (fetch into it first)", ExitCode.USAGE)
    problems: list[str] = []
    rows, superseded = current_entries(read_entries(path, problems=problems))
    for problem in problems:
        err_console.print(f"warning: {escape_snippet(problem)}", markup=False, highlight=False)
    if fmt is EntriesFormat.jsonl:
        write_entries(rows, output)
    elif fmt is EntriesFormat.json:
        print_json(manifest_json(path, rows, superseded), output)
    else:
        console.print(manifest_table(path, rows))
    err_console.print(tally_line(rows, superseded), highlight=False)
