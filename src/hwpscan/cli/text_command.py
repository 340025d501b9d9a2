"""``hwpscan text``: each file's repaired text (:func:`hwpscan.extract`) on standard
output, in UTF-8; a file that gives no text is a line on stderr, not the end of the run.
"""

from __future__ import annotations

import enum
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from hwpscan.cli.app import EXIT_USAGE, app, epilog, err_console, fail
from hwpscan.cli.options import PuaChoice, split_list
from hwpscan.errors import EncryptedFileError, FormatError, UsageError
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import ExitCode, Status


class TextOrphans(str, enum.Enum):
    # upper-case names: a member called ``replace`` would shadow str.replace
    BOX = "box"
    REPLACE = "replace"
    DROP = "drop"
    ESCAPE = "escape"
    RAISE = "raise"


PuaChoiceOpt = Annotated[
    PuaChoice,
    typer.Option(
        "--pua",
        help="Private use: keep (lossless), map (display equivalents, as repair --pua "
        "map), placeholder (U+25A1 for each), drop.",
    ),
]
TextOrphansOpt = Annotated[
    TextOrphans,
    typer.Option(
        "--orphans",
        help="Halves with no partner: box (U+25A1, as Hancom writes one), replace "
        "(U+FFFD), drop, escape (\\udc00), raise (the file fails).",
    ),
]
ReceiptOpt = Annotated[
    str | None,
    typer.Option(
        "--receipt",
        help="Write each file's receipt (format, defects, what was done) as a JSON line "
        "to this file, or - for standard error.",
        show_default=False,
    ),
]
TextFailOnOpt = Annotated[
    list[str],
    typer.Option(
        "--fail-on",
        help="Exit 1 as scan does: contaminated, unreadable or a defect class "
        "(repeatable, or comma-separated).",
    ),
]


@app.command(
    rich_help_panel="Scan files",
    epilog=epilog(
        [
            ("hwpscan text a.hwp > a.txt", "the text as UTF-8, lossless, lone halves as U+25A1"),
            ("hwpscan text a.hwp --pua map --receipt -", "display equivalents; receipt on stderr"),
        ],
        ["COLUMNS"],
        ["0  every file printed or reported", "1  a file matched --fail-on", EXIT_USAGE],
    ),
)
def text(
    files: Annotated[list[Path], typer.Argument(help="Files to print.", show_default=False)],
    *,
    pua: PuaChoiceOpt = PuaChoice.KEEP,
    orphans: TextOrphansOpt = TextOrphans.BOX,
    receipt: ReceiptOpt = None,
    fail_on: TextFailOnOpt = [],  # noqa: B006 - typer reads the default; it is never changed
) -> None:
    """Print each file's text as UTF-8: pairs joined, folded symbols restored, halves boxed.

    The text is what repair writes for the same policy. With several files, each text ends
    with a newline. A file that gives no text (protected, not a document) is named on
    standard error with the reason; the others are still printed.
    """
    from hwpscan.scanning.exit_gate import statuses_exit_code
    from hwpscan.usecases.run_scan import check_fail_on

    try:
        gate = check_fail_on(split_list(fail_on))
    except UsageError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    for path in files:  # as scan: a path that is not there is a mistake in the command
        if not os.path.lexists(path):
            raise fail(f"no such file or folder: {escape_snippet(os.fspath(path))}", ExitCode.USAGE)
    statuses: list[Status] = []
    masks: list[int] = []
    with _receipts(receipt) as receipts:
        for path in files:
            row, status, mask = _one(path, sys.stdout.buffer, pua.value, orphans.value)
            statuses.append(status)
            masks.append(mask)
            if receipts is not None:
                receipts.write(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")
    raise typer.Exit(code=statuses_exit_code(statuses, gate, masks))


def _one(path: Path, out: IO[bytes], pua: Any, orphans: Any) -> tuple[dict[str, Any], Status, int]:
    """Print one file's text; its receipt row, its status and its defect mask."""
    from hwpscan.usecases.extract import extract

    shown = escape_snippet(os.fspath(path))
    try:
        done = extract(path, pua=pua, orphans=orphans)
    except EncryptedFileError as exc:
        return _failed(shown, Status.ENCRYPTED, str(exc))
    except FormatError as exc:
        return _failed(shown, Status.UNSUPPORTED, str(exc))
    except UnicodeEncodeError as exc:  # --orphans raise
        return _failed(shown, Status.CONTAMINATED, f"lone surrogate half: {exc}")
    except OSError as exc:
        return _failed(shown, Status.ERROR, f"cannot read file: {exc.strerror or exc}")
    out.write(done.text.encode("utf-8"))
    out.write(b"\n")
    out.flush()
    found = done.receipt
    return {"path": shown, **found.as_dict()}, found.status, found.defects.mask


def _failed(shown: str, status: Status, reason: str) -> tuple[dict[str, Any], Status, int]:
    line = escape_snippet(f"{shown}: {reason}")
    err_console.print(f"error: {line}", markup=False, highlight=False)
    return {"path": shown, "status": status.value, "error": escape_snippet(reason)}, status, 0


@contextmanager
def _receipts(target: str | None) -> Iterator[IO[bytes] | None]:
    """Where the receipts go, as UTF-8: None, standard error, or a file (closed after)."""
    if target is None or target == "-":
        yield None if target is None else sys.stderr.buffer
        return
    try:
        file = open(target, "wb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise fail(f"--receipt {target}: {exc.strerror or exc}", ExitCode.USAGE) from None
    with file:
        yield file
