"""Rich tables for the terminal: the per-file table and the date x format table."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import RenderableType
from rich.text import Text

from hwpscan.forensics.pua import pua_info, pua_summary
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.history.records import RunInfo
from hwpscan.history.stored_rows import defect_files, status_counts
from hwpscan.models import LOSSY_CLASSES, FileResult, RepairSummary, Status
from hwpscan.report.cells import EMPTY_CELL, contamination_cells

if TYPE_CHECKING:  # rich.table loads when a table is drawn: not for a scan's machine output
    from rich.table import Table


def _table(*args: Any, **kwargs: Any) -> Table:
    """A rich ``Table`` (rich.table imported at the first table drawn)."""
    from rich.table import Table

    return Table(*args, **kwargs)


#: The defect classes a UTF-8 verdict does not show (the surrogate classes make a file
#: contaminated), with the words the tables use for them.
QUIET_DEFECTS = {
    "folded_symbols": "folded",
    "pdf_folded": "PDF-folded",
    "old_hangul_pua": "old Hangul",
    "unmapped_pua": "unmapped PUA",
}
#: The same, as the files table's defects column says them (short).
_DEFECT_CELL = {
    "folded_symbols": "folded",
    "pdf_folded": "PDF fold",
    "old_hangul_pua": "old Hangul",
    "unmapped_pua": "unmapped",
}
STATUS_STYLE = {
    Status.CLEAN: "green",
    Status.CONTAMINATED: "bold red",
    Status.ENCRYPTED: "yellow",
    Status.DISTRIBUTION: "yellow",
    Status.UNSUPPORTED: "dim",
    Status.CORRUPT: "magenta",
    Status.ERROR: "bold magenta",
}


def pua_legend(results: Sequence[FileResult], *, brief: bool = False) -> Table | None:
    """The private-use characters seen, with their Hancom names where known.

    *brief* (narrow terminals) leaves out how each renders and the note.
    """
    seen: Counter[str] = Counter()
    files: Counter[str] = Counter()
    for r in results:
        seen.update(r.body.pua)
        files.update(r.body.pua.keys())
    if not seen:
        return None
    table = _table(title="Private-use characters seen", title_justify="left")
    columns = ("code point", "count", "files", "name", "renders as", "--pua map gives", "note")
    shown = [i for i, col in enumerate(columns) if not (brief and col in ("renders as", "note"))]
    for i in shown:
        justify = "right" if columns[i] in ("count", "files") else "left"
        table.add_column(columns[i], justify=justify, overflow="fold")  # type: ignore[arg-type]
    kept = Text("kept", style="dim")
    for cp in sorted(seen, key=lambda c: (-seen[c], c)):
        info = pua_info(int(cp[2:], 16))
        cells: list[str | Text] = [cp, f"{seen[cp]:,}", f"{files[cp]:,}"]
        if info:
            note = Text(info.note or "", style="dim")
            cells += [info.name, info.renders_as or "", info.replacement or kept, note]
        else:
            cells += [Text("unknown", style="dim"), "", kept, ""]
        table.add_row(*(cells[i] for i in shown))
    return table


def short_path(path: str, root: str | None) -> str:
    """*path* relative to *root* when it lies below it.

    >>> short_path("/data/scan/2025-07-21/a.hwp", "/data/scan")
    '2025-07-21/a.hwp'
    >>> short_path("/elsewhere/b.pdf", "/data/scan")
    '/elsewhere/b.pdf'
    """
    if root:
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


#: Below this many columns the secondary counts (chars, pairs) are dropped.
WIDE = 160
#: Below this many columns only the surrogate count is kept, and pivot cells are compact.
NARROW = 100


@dataclass(frozen=True, slots=True)
class _Col:
    header: str
    cells: list[str | Text]
    justify: str = "left"


def shown_name(result: FileResult, root: str | None) -> str:
    """A file's name as the tables show it: relative to *root*, without the date folder
    the date column already gives (control characters shown as escapes).

    >>> from hwpscan.models import Format, Status
    >>> r = FileResult("/s/2025-07-21/a.hwp", "", 1, Format.HWP5, Status.CLEAN, date="2025-07-21")
    >>> shown_name(r, "/s"), shown_name(r, None)
    ('a.hwp', '/s/2025-07-21/a.hwp')
    """
    shown = short_path(result.path, root)
    if result.date and shown.startswith(f"{result.date}/"):
        shown = shown[len(result.date) + 1 :]
    return escape_snippet(shown)  # ESC in a name: shown, never sent


def file_table(
    results: Sequence[FileResult],
    *,
    title: str = "Files",
    root: str | None = None,
    width: int | None = None,
) -> list[RenderableType]:
    """The files, one line each in a table when it fits in *width* columns (None: as wide
    as needed), else one stacked record each; then their reasons, each written once and
    numbered in the rows. Nothing is cut; narrower terminals get fewer columns."""
    reasons = _Reasons(results)
    wide = width is None or width >= WIDE
    narrow = width is not None and width < NARROW
    cols = _file_cols(results, reasons, wide=wide, narrow=narrow)
    names = [shown_name(r, root) for r in results]
    out: list[RenderableType] = []
    texts = [["file", *names], *([c.header, *map(str, c.cells)] for c in cols)]
    if width is None or _table_width(texts) <= width:
        table = _table(title=title, title_justify="left", expand=False)
        table.add_column("file", no_wrap=True)
        for c in cols:
            table.add_column(c.header, justify=c.justify, no_wrap=True)  # type: ignore[arg-type]
        for i, name in enumerate(names):
            table.add_row(Text(name), *(c.cells[i] for c in cols))
        out.append(table)
    else:
        out.append(Text(title, style="italic"))
        full = _file_cols(results, reasons, wide=True, narrow=False)
        out += [_record(name, full, i, width) for i, name in enumerate(names)]
    if reasons.groups:
        out.append(reasons.footer())
    return out


def _file_cols(
    results: Sequence[FileResult], reasons: _Reasons, *, wide: bool, narrow: bool
) -> list[_Col]:
    """The columns that fit: chars and pairs only when *wide*; orphans, UTF-8 and PUA
    unless *narrow*; defects and reasons when a file has any."""

    def count(attr: str) -> _Col:
        header = "surr." if attr == "surrogates" else attr
        cells: list[str | Text] = [_num(getattr(r.body, attr), r.status.scanned) for r in results]
        return _Col(header, cells, "right")

    cols = [
        _Col("date", [r.date or "—" for r in results]),
        _Col("format", [r.format.value for r in results]),
        _Col("status", [Text(r.status.value, style=STATUS_STYLE[r.status]) for r in results]),
    ]
    if wide:
        chars: list[str | Text] = [f"{r.body.chars:,}" if r.status.scanned else "" for r in results]
        cols += [_Col("chars", chars, "right"), count("surrogates"), count("pairs")]
    else:
        cols.append(count("surrogates"))
    if not narrow:
        cols += [
            count("orphans"),
            _Col("UTF-8", [_utf8_cell(r) for r in results]),
            _Col("PUA", [pua_summary(r.body.pua, limit=3 if wide else 1) for r in results]),
        ]
    defects: list[str | Text] = [_defects_cell(r) for r in results]
    if any(c.plain for c in defects if isinstance(c, Text)):
        cols.append(_Col("defects", defects))
    if reasons.groups:
        cols.append(_Col("reason", reasons.cells()))
    return cols


def _table_width(columns: Iterable[Iterable[str]]) -> int:
    """The cells a table takes: each column as wide as its widest text, plus the borders
    and padding (three per column, one more)."""
    widths = [max(map(cell_len, column)) for column in columns]
    return sum(widths) + 3 * len(widths) + 1


def _record(name: str, cols: Sequence[_Col], i: int, width: int) -> Text:
    """One file as a stacked record: its name, then ``header value`` of each field it has,
    packed into indented lines of *width* cells, a field never split between two lines.

    >>> cols = [_Col("status", ["clean"]), _Col("surr.", ["0"]), _Col("PUA", ["U+F02B1×1"])]
    >>> print(_record("a.hwp", cols, 0, 20).plain)
    a.hwp
      clean  surr. 0
      PUA U+F02B1×1
    """
    fields = []
    for c in cols:
        cell = c.cells[i]
        value = cell if isinstance(cell, Text) else Text(str(cell))
        if not value.plain or value.plain == "—":
            continue
        label = "" if c.header in ("date", "format", "status") else f"{c.header} "
        fields.append(Text(label, style="dim") + value)
    record = Text(name, style="bold")
    line: list[Text] = []
    for field in fields:
        if line and cell_len("  ".join(t.plain for t in [*line, field])) > width - 2:
            record.append("\n  ")
            record.append(Text("  ").join(line))
            line = []
        line.append(field)
    if line:
        record.append("\n  ")
        record.append(Text("  ").join(line))
    return record


class _Reasons:
    """The files' reasons, numbered in order of first appearance, the same text once."""

    def __init__(self, results: Sequence[FileResult]) -> None:
        self.files = Counter(r.reason for r in results if r.reason)
        self.groups = {reason: k for k, reason in enumerate(self.files, 1)}
        self.of = [self.groups[r.reason] if r.reason else None for r in results]

    def cells(self) -> list[str | Text]:
        """Each row's reason: its number (the reason is written out below the table)."""
        return ["" if k is None else Text(f"[{k}]", style="dim") for k in self.of]

    def footer(self) -> Text:
        lines = Text(style="dim")
        for reason, k in self.groups.items():
            n = self.files[reason]
            text = " ".join(escape_snippet(reason).split())  # ESC in a reason: shown, never sent
            files = f" ({n:,} files)" if n > 1 else ""
            lines.append(f"{chr(10) if k > 1 else ''}[{k}]{files} {text}")
        return lines


def _defects_cell(r: FileResult) -> Text:
    """The quiet defects of a file (``2 folded, 1 unmapped``), bold when lossy."""
    found = r.defect_counts()
    parts = [] if found is None else [
        (f"{getattr(found, k):,} {word}", k in LOSSY_CLASSES)
        for k, word in _DEFECT_CELL.items()
        if getattr(found, k)
    ]  # fmt: skip
    style = "bold yellow" if any(lossy for _, lossy in parts) else "dim"
    return Text(", ".join(p for p, _ in parts), style=style)


def _utf8_cell(r: FileResult) -> Text:
    if not r.status.scanned:
        return Text("")
    return Text("ok", style="green") if r.body.utf8_ok else Text("FAIL", style="bold red")


def _num(n: int, scanned: bool) -> Text:
    if not scanned:
        return Text("")
    return Text(f"{n:,}", style="bold red" if n else "")


def pivot_table(
    results: Sequence[FileResult],
    *,
    width: int | None = None,
) -> Table:
    """The date x format table: which days carried contaminated attachments.

    Below :data:`NARROW` columns, or wherever the full cells would not fit in *width*,
    the cells are compact (``2/3``, ``1 unread.``) and the caption says how to read them.
    """
    columns, cells = contamination_cells(results)
    texts = [
        ["date".ljust(10)],
        *([c, *(row[i] for _, row in cells)] for i, c in enumerate(columns)),
    ]
    compact = width is not None and (width < NARROW or _table_width(texts) > width)
    table = _table(
        title="Contamination by date and format",
        title_justify="left",
        caption="cells: contaminated/files" if compact else None,
        caption_justify="left",
    )
    table.add_column("date", no_wrap=True, min_width=10)
    for col in columns:
        table.add_column(col, no_wrap=True)
    for date, row in cells:
        shown = [Text(date)]
        for value in row:
            style = (
                "dim"
                if value == EMPTY_CELL
                else "yellow"
                if (value.endswith(" unreadable") and "/" not in value)
                or (value.startswith("0/") and " lossy" in value)
                else "green"
                if value.startswith("0/")
                else "bold red"
            )
            shown.append(Text(compact_cell(value) if compact else value, style=style))
        table.add_row(*shown)
    return table


def compact_cell(value: str) -> str:
    """A pivot cell in a few characters, for narrow terminals.

    >>> compact_cell("2/3 contaminated"), compact_cell("0/2 contaminated, 1 unreadable")
    ('2/3', '0/2 +1 unread.')
    >>> compact_cell("1 unreadable"), compact_cell("—")
    ('1 unread.', '—')
    """
    return value.replace(" contaminated", "").replace(", ", " +").replace("unreadable", "unread.")


def summary_line(results: Sequence[FileResult]) -> str:
    """``12 files: 5 contaminated, 6 clean, 1 unreadable``, and the files holding the
    defects a UTF-8 verdict does not show, when any do.

    >>> from hwpscan.models import Defects, Format
    >>> found = Defects(folded_symbols=2)
    >>> row = FileResult("a.hwp", "", 1, Format.HWP5, Status.CLEAN, defects=found)
    >>> summary_line([row])
    '1 files: 0 contaminated, 1 clean, 0 unreadable; files with folded symbols: 1'
    """
    n = len(results)
    statuses = status_counts(results)  # the rows may be on disk: their tally, if kept
    bad, clean = statuses[Status.CONTAMINATED], statuses[Status.CLEAN]
    unreadable = n - bad - clean
    line = f"{n} files: {bad} contaminated, {clean} clean, {unreadable} unreadable"
    quiet = quiet_defect_files(results)
    if quiet:
        line += "; files with " + ", ".join(
            f"{QUIET_DEFECTS[k]}{' symbols' * (k == 'folded_symbols')}: {v}"
            for k, v in quiet.items()
        )
    return line


def quiet_defect_files(results: Sequence[FileResult]) -> dict[str, int]:
    """Files per quiet defect class (:data:`QUIET_DEFECTS`), from the rows' tally."""
    return {k: v for k, v in defect_files(results).items() if k in QUIET_DEFECTS}


#: Dates named in the verdict before "+N more".
VERDICT_DATES = 3


def verdict_line(results: Sequence[FileResult], *, width: int | None = None) -> Text:
    """The one-line answer: contaminated or not, the counts, and the dates hit.

    The dates named are as many as fit in *width* columns (three when None), the rest
    counted as "+N more".

    >>> from hwpscan.models import Format
    >>> rows = [FileResult(f"{d}.hwp", "", 1, Format.HWP5, Status.CONTAMINATED, date=d)
    ...         for d in ("2025-07-21", "2025-07-22", "2025-07-23", "2025-07-24")]
    >>> verdict_line(rows).plain[62:]
    'on 2025-07-21, 2025-07-22, 2025-07-23 +1 more'
    >>> verdict_line(rows, width=90).plain
    'CONTAMINATED: 4 files: 4 contaminated, 0 clean, 0 unreadable; on 2025-07-21 +3 more'
    >>> verdict_line(rows, width=70).plain
    'CONTAMINATED: 4 files: 4 contaminated, 0 clean, 0 unreadable; on 4 dates'
    """
    bad = sorted({r.date or "unknown" for r in results if r.status is Status.CONTAMINATED})
    if not bad:
        return _quiet_head(results) + Text(f": {summary_line(results)}")
    start = f"CONTAMINATED: {summary_line(results)}; on "

    def dates(n: int) -> str:
        return ", ".join(bad[:n]) + (f" +{len(bad) - n} more" if n < len(bad) else "")

    def fits(n: int) -> bool:
        return n <= VERDICT_DATES if width is None else cell_len(start + dates(n)) <= width

    shown = next((n - 1 for n in range(1, len(bad) + 1) if not fits(n)), len(bad))
    tail = dates(shown) if shown else f"{len(bad)} date{'s' * (len(bad) != 1)}"  # none fit
    return Text("CONTAMINATED", style="bold red") + Text(start[len("CONTAMINATED") :] + tail)


def _quiet_head(results: Sequence[FileResult]) -> Text:
    """The verdict's word when no file is contaminated: CLEAN only when every file was
    read whole and shows its characters as they are.

    >>> from hwpscan.models import Format
    >>> ok = FileResult("a.hwp", "", 1, Format.HWP5, Status.CLEAN)
    >>> bad = FileResult("b.hwp", "", 1, Format.HWP5, Status.CORRUPT, body_read=False)
    >>> [_quiet_head(rows).plain for rows in ([ok], [ok, bad], [bad])]
    ['CLEAN', 'INCOMPLETE', 'NOTHING READ']
    """
    statuses = status_counts(results)
    if not statuses[Status.CLEAN]:
        return Text("NOTHING READ", style="bold yellow")
    if sum(statuses.values()) > statuses[Status.CLEAN]:  # some file could not be judged
        return Text("INCOMPLETE", style="bold yellow")
    if any(k in LOSSY_CLASSES for k in quiet_defect_files(results)):
        return Text("LOSSY", style="bold yellow")  # it encodes, but shows other characters
    return Text("CLEAN", style="bold green")


class Show(str, enum.Enum):
    """Which rows of the per-file table ``scan`` prints."""

    ALL = "all"
    PROBLEMS = "problems"
    NONE = "none"


#: Above this many files ``scan`` lists only the problems unless told ``--show all``.
SHOW_ALL_UP_TO = 50


def default_show(files: int) -> Show:
    """``all`` for a small scan, ``problems`` above :data:`SHOW_ALL_UP_TO` files.

    >>> default_show(50).value, default_show(51).value
    ('all', 'problems')
    """
    return Show.ALL if files <= SHOW_ALL_UP_TO else Show.PROBLEMS


def is_problem(result: FileResult) -> bool:
    """Anything but a clean file: contaminated, not read in full, or holding characters
    shown as others (:data:`~hwpscan.models.LOSSY_CLASSES`)."""
    return result.status is not Status.CLEAN or bool(result.reason) or result.lossy


def scan_view(
    results: Sequence[FileResult],
    *,
    root: str | None = None,
    width: int | None = None,
    show: Show | None = None,
) -> list[RenderableType]:
    """What ``scan`` prints, in order, for a terminal of *width* columns.

    The verdict, the date x format table, the file rows asked for by *show* (default:
    :func:`default_show`) with a line counting the hidden ones, the PUA legend, and the
    verdict again so it is the last thing on screen.
    """
    show = show or default_show(len(results))
    verdict = verdict_line(results, width=width)
    out: list[RenderableType] = [verdict, pivot_table(results, width=width)]
    rows = [] if show is Show.NONE else [r for r in results if show is Show.ALL or is_problem(r)]
    if rows:
        title = "Files" if show is Show.ALL else "Files with problems"
        out += file_table(rows, root=root, width=width, title=title)
    hidden = len(results) - len(rows)
    if hidden:
        what = "clean file" if show is Show.PROBLEMS else "file row"
        line = f"{hidden} {what}{'s' * (hidden != 1)} not listed (--show all lists every file)"
        out.append(Text(line, style="dim"))
    legend = pua_legend(rows, brief=width is not None and width < NARROW)
    lost = pdf_loss_lines(results, root=root)
    return [*out, *(x for x in (legend, lost) if x is not None), verdict]


#: PDFs named in the "what the PDFs lost" lines before "+N more".
LOSSES_SHOWN = 10


def pdf_loss_lines(results: Sequence[FileResult], *, root: str | None = None) -> Text | None:
    """What each PDF lost against its HWP twin (same folder and name), or None."""
    if not any(r.format.value == "pdf" for r in results):
        return None
    from hwpscan.forensics.twins import pdf_losses  # only where a PDF was scanned

    losses = pdf_losses(results)
    if not losses:
        return None
    text = Text("What the PDFs lost against their HWP twins:", style="bold yellow")
    for loss in losses[:LOSSES_SHOWN]:
        shown = loss._replace(  # ESC in a name: shown, never sent
            pdf=escape_snippet(short_path(loss.pdf, root)),
            source=escape_snippet(short_path(loss.source, root)),
        )
        text.append(f"\n  {shown.line()}")
    if len(losses) > LOSSES_SHOWN:
        text.append(f"\n  +{len(losses) - LOSSES_SHOWN} more PDFs", style="dim")
    return text


def repair_table(
    results: Sequence[FileResult],
    *,
    out: object,
    root: str | None = None,
    pua: str = "keep",
) -> Table:
    """What ``repair`` wrote per file: the file its text went to, pairs restored, orphans
    handled, folded symbols restored, and what the private-use mode *pua* did with
    private use, the characters it could not map named."""
    title = Text(f"Repaired text in {escape_snippet(str(out))} (--pua {pua})")  # no markup
    table = _table(title=title, title_justify="left")
    table.add_column("file", overflow="fold")
    table.add_column("status")
    table.add_column("written to", overflow="fold")
    for col in ("pairs restored", "orphans removed", "folded restored"):
        table.add_column(col, justify="right")
    table.add_column("private use", overflow="fold")
    for r in results:
        done = r.repair
        status = Text(r.status.value, style=STATUS_STYLE[r.status])
        if done is None and r.reason:
            status += Text(f": {escape_snippet(r.reason)}", style="dim")
        table.add_row(
            escape_snippet(short_path(r.path, root)),
            status,
            escape_snippet(_below(done.target, out)) if done and done.target else "",
            f"{done.restored_pairs:,}" if done else "",
            f"{done.removed_orphans:,}" if done else "",
            f"{done.folded_restored:,}" if done else "",
            _pua_done(done) if done else "",
        )
    return table


def _below(target: str, out: object) -> str:
    """*target* as a path below *out* (the table's title names it), else whole.

    >>> _below("fixed/2025-07-21/a.hwp.txt", "fixed"), _below("/x/a.txt", "fixed")
    ('2025-07-21/a.hwp.txt', '/x/a.txt')
    """
    try:
        return PurePath(target).relative_to(str(out)).as_posix()
    except ValueError:
        return target


def _pua_done(done: RepairSummary) -> Text:
    """``3 mapped (1 old Hangul), 1 kept: U+F0850``: what the mode did with private use.

    >>> _pua_done(RepairSummary(pua="map", pua_replaced={"U+F02B1": 3},
    ...                         pua_kept={"U+F0850": 1})).plain
    '3 mapped, 1 kept: U+F0850×1'
    """
    parts: list[str] = []
    mapped = sum(done.pua_replaced.values())
    if mapped:
        old = f" ({done.old_hangul_mapped:,} old Hangul)" if done.old_hangul_mapped else ""
        parts.append(f"{mapped:,} mapped{old}")
    for counts, word in ((done.pua_placeheld, "as U+25A1"), (done.pua_dropped, "dropped")):
        if counts:
            parts.append(f"{sum(counts.values()):,} {word}: {pua_summary(counts)}")
    if done.pua_kept:
        parts.append(f"{sum(done.pua_kept.values()):,} kept: {pua_summary(done.pua_kept)}")
    style = "yellow" if done.pua_dropped or (done.pua == "map" and done.pua_kept) else ""
    return Text(", ".join(parts), style=style)


# -- history ------------------------------------------------------------------------

#: From this many columns ``history`` shows whole run ids and every count.
HISTORY_WIDE = 120


def korea_time(stamp: str) -> str:
    """A stored UTC time stamp as Korea time, to the minute.

    >>> korea_time("2025-11-30T15:20:07+00:00")
    '2025-12-01 00:20'
    """
    from datetime import datetime

    from hwpscan.api.dates import KST  # the fetch package: only for history's times

    return datetime.fromisoformat(stamp).astimezone(KST).strftime("%Y-%m-%d %H:%M")


def run_kind(info: RunInfo) -> str:
    """``scan``, ``fetch``, ``verify``, or ``demo`` for the demo's recorded scan."""
    return "demo" if info.args.get("demo") else info.kind


def run_files(info: RunInfo) -> int:
    """Files the run is about: scanned, or for a fetch those listed for its range."""
    if info.kind != "fetch":
        return info.files
    s = info.summary
    return sum(int(s.get(k) or 0) for k in ("files_downloaded", "files_skipped", "files_failed"))


def verdict_tally(verdicts: Iterable[object]) -> Text:
    """``2/3 dates PASS, 1 FAIL``: green only when every date passed, red on a FAIL.

    >>> verdict_tally([{"verdict": "PASS"}, {"verdict": "INCONCLUSIVE"}]).plain
    '1/2 dates PASS, 1 INCONCLUSIVE'
    >>> verdict_tally(["ok", "still contaminated"]).plain
    '1/2 dates PASS, 1 FAIL'
    """
    from hwpscan.report.verify_report import stored_verdict, tally  # for history only

    words = [stored_verdict("", v).verdict for v in verdicts]
    style = "bold green" if words.count("PASS") == len(words) else "bold yellow"
    return Text(tally(words, of="/"), style="bold red" if "FAIL" in words else style)


def run_outcome(info: RunInfo) -> Text:
    """What the run found or did, in a few words.

    >>> run_outcome(RunInfo("r", "verify", "t", "t", {}, "0", {"clean": 2},
    ...     {"verdicts": {"2025-07-21": {"verdict": "PASS"}, "2025-07-22": {"verdict": "PASS"}}}
    ...     )).plain
    '2/2 dates PASS; 2 clean'
    >>> run_outcome(RunInfo("r", "fetch", "t", "t", {}, "0", {},
    ...     {"files_downloaded": 3, "files_skipped": 60, "files_failed": 1})).plain
    '3 downloaded, 60 already there, 1 failed'
    """
    if info.finished is None:
        return Text("interrupted", style="yellow")
    s = info.summary
    if info.kind == "fetch":
        parts = [f"{s.get('files_downloaded') or 0} downloaded"]
        if s.get("files_skipped"):
            parts.append(f"{s['files_skipped']} already there")
        for key, word in (("files_failed", "failed"), ("files_refused", "refused")):
            if s.get(key):
                parts.append(f"{s[key]} {word}")
        out = Text(", ".join(parts))
        if s.get("error"):
            out.append("; stopped", style="yellow")
        return out
    out = Text()
    verdicts = s.get("verdicts")
    if isinstance(verdicts, dict) and verdicts:
        out.append(verdict_tally(verdicts.values()))
        out.append("; ")
    counts = []
    if info.contaminated:
        counts.append(Text(f"{info.contaminated} contaminated", style="bold red"))
    counts.append(Text(f"{info.clean} clean"))
    if info.unreadable:
        counts.append(Text(f"{info.unreadable} unreadable", style="yellow"))
    return out + Text(", ").join(counts)


def history_table(
    runs: Sequence[RunInfo],
    *,
    title: str,
    short_ids: dict[str, str] | None = None,
    width: int | None = None,
    args_line: Callable[[RunInfo], str] = lambda _info: "",
    took: Callable[[RunInfo], str] = lambda _info: "",
) -> Table:
    """The runs, newest first, laid out for *width* columns.

    From :data:`HISTORY_WIDE` columns: whole ids, how long each took, the counts in
    columns. Below: the short ids (any of them names the run), Korea time to the
    minute, the outcome in words and the arguments on a dim second line.
    """
    wide = width is None or width >= HISTORY_WIDE
    table = _table(title=title, title_justify="left")
    table.add_column("run", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("started (KST)", no_wrap=True)
    if wide:
        table.add_column("took", justify="right", no_wrap=True)
    table.add_column("files", justify="right", no_wrap=True)
    table.add_column("outcome", overflow="fold", ratio=1 if not wide else None)
    if wide:
        table.add_column("arguments", overflow="fold")
    for info in runs:
        run_id = info.id if wide else (short_ids or {}).get(info.id, info.id)
        start = (run_id, run_kind(info), korea_time(info.started))
        files, outcome, shown = f"{run_files(info):,}", run_outcome(info), args_line(info)
        if wide:
            table.add_row(*start, took(info), files, outcome, shown)
        else:
            if shown:
                outcome.append(f"\n{shown}", style="dim")
            table.add_row(*start, files, outcome)
    return table
