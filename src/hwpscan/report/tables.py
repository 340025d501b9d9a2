"""Rich tables for the terminal: the per-file table and the date x format table."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from hwpscan.forensics.pua import pua_info, pua_summary
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.models import FileResult, Status
from hwpscan.runs.records import RunInfo
from hwpscan.runs.rows import status_counts

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
    seen: dict[str, int] = {}
    files: dict[str, int] = {}
    for r in results:
        for cp, n in r.body.pua.items():
            seen[cp] = seen.get(cp, 0) + n
            files[cp] = files.get(cp, 0) + 1
    if not seen:
        return None
    table = Table(title="Private-use characters seen", title_justify="left")
    columns = (
        ("code point", "left"),
        ("count", "right"),
        ("files", "right"),
        ("name", "left"),
        ("renders as", "left"),
        ("--pua-map gives", "left"),
        ("note", "left"),
    )
    for col, justify in columns:
        if brief and col in ("renders as", "note"):
            continue
        table.add_column(col, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for cp in sorted(seen, key=lambda c: (-seen[c], c)):
        info = pua_info(int(cp[2:], 16))
        kept = Text("kept", style="dim")
        name = info.name if info else Text("unknown", style="dim")
        renders = (info.renders_as or "") if info else ""
        gives = (info.replacement or kept) if info else kept
        note = Text(info.note or "", style="dim") if info else ""
        if brief:
            table.add_row(cp, f"{seen[cp]:,}", f"{files[cp]:,}", name, gives)
        else:
            table.add_row(cp, f"{seen[cp]:,}", f"{files[cp]:,}", name, renders, gives, note)
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
#: The file column never gets narrower than this.
MIN_NAME = 12


def shorten_middle(text: str, width: int) -> str:
    """*text* cut in the middle to at most *width* terminal cells (wide characters count 2).

    Three quarters go to the end, which holds the name and extension.

    >>> shorten_middle("2025-07-21/보도자료-최종본.hwp", 20)
    '2025…자료-최종본.hwp'
    >>> shorten_middle("short.pdf", 20)
    'short.pdf'
    """
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    room = width - 1
    head_room, tail_room = room // 4, room - room // 4
    head = _fit(text, head_room)
    tail = _fit(text[::-1], tail_room)[::-1]
    return f"{head}…{tail}"


def _fit(text: str, width: int) -> str:
    """The longest start of *text* within *width* cells."""
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Col:
    header: str
    cells: list[str | Text]
    justify: str = "left"


def file_table(
    results: Sequence[FileResult],
    *,
    title: str = "Files",
    root: str | None = None,
    width: int | None = None,
) -> Table:
    """One row per file (paths shown relative to *root*); a broken file shows its reason.

    Laid out for a terminal of *width* columns (None: as wide as needed): status, date
    and format are never cut; the name is shortened in the middle to what is left,
    with the reason wrapped below it; below :data:`WIDE` columns the secondary counts
    (chars, pairs) are dropped and below :data:`NARROW` also orphans, UTF-8 and PUA.
    """
    wide = width is None or width >= WIDE
    narrow = width is not None and width < NARROW
    cols = [*_identity_cols(results), *_count_cols(results, wide=wide, narrow=narrow)]
    if not narrow:
        cols += _encoding_cols(results, wide=wide)
    name_width = _name_width(cols, width)
    table = _table_of(cols, title, name_width)
    for i, r in enumerate(results):
        table.add_row(_name_cell(r, root, name_width), *(c.cells[i] for c in cols))
    return table


def _identity_cols(results: Sequence[FileResult]) -> list[_Col]:
    """Date, format and status: never dropped, never cut."""
    return [
        _Col("date", [r.date or "—" for r in results]),
        _Col("format", [r.format.value for r in results]),
        _Col("status", [Text(r.status.value, style=STATUS_STYLE[r.status]) for r in results]),
    ]


def _count_cols(results: Sequence[FileResult], *, wide: bool, narrow: bool) -> list[_Col]:
    """The counts that fit: surrogates always, chars and pairs when wide, orphans unless
    narrow."""
    counts: list[tuple[str, str]] = [("surrogates", "surr.")]
    if wide:
        counts = [("chars", "chars"), ("surrogates", "surr."), ("pairs", "pairs")]
    if not narrow:
        counts.append(("orphans", "orphans"))
    return [_Col(header, _count_cells(results, attr), "right") for attr, header in counts]


def _count_cells(results: Sequence[FileResult], attr: str) -> list[str | Text]:
    cells: list[str | Text] = []
    for r in results:
        n = getattr(r.body, attr)
        if attr == "chars":
            cells.append(f"{n:,}" if r.status.scanned else "")
        else:
            cells.append(_num(n, r.status.scanned))
    return cells


def _encoding_cols(results: Sequence[FileResult], *, wide: bool) -> list[_Col]:
    """UTF-8 verdict and the PUA summary (three code points when wide, else one)."""
    limit = 3 if wide else 1
    return [
        _Col("UTF-8", [_utf8_cell(r) for r in results]),
        _Col("PUA", [pua_summary(r.body.pua, limit=limit) for r in results]),
    ]


def _utf8_cell(r: FileResult) -> Text:
    if not r.status.scanned:
        return Text("")
    return Text("ok", style="green") if r.body.utf8_ok else Text("FAIL", style="bold red")


def _name_width(cols: Sequence[_Col], width: int | None) -> int | None:
    """Cells left for the file name once the other columns and the borders are laid out."""
    if width is None:
        return None
    used = sum(_col_width(c) for c in cols) + 3 * (len(cols) + 1) + 1
    return max(MIN_NAME, width - used)


def _table_of(cols: Sequence[_Col], title: str, name_width: int | None) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("file", overflow="fold", max_width=name_width or 60)
    for c in cols:
        table.add_column(
            c.header,
            justify=c.justify,  # type: ignore[arg-type]
            no_wrap=True,
            min_width=_col_width(c),
        )
    return table


def _name_cell(r: FileResult, root: str | None, name_width: int | None) -> Text:
    """The path (shortened in the middle to fit), with the reason dimmed below it."""
    shown = escape_snippet(short_path(r.path, root))  # ESC in a name: shown, never sent
    name = Text(shorten_middle(shown, name_width) if name_width else shown)
    if r.reason:  # why it could not be read, or the damage met while reading it
        name.append(f"\n{escape_snippet(r.reason)}", style="dim")
    return name


def _col_width(col: _Col) -> int:
    return max([cell_len(col.header), *(cell_len(str(c)) for c in col.cells)])


def _num(n: int, scanned: bool) -> Text:
    if not scanned:
        return Text("")
    return Text(f"{n:,}", style="bold red" if n else "")


def pivot_table(
    results: Sequence[FileResult],
    *,
    title: str = "Contamination by date and format",
    width: int | None = None,
) -> Table:
    """The date x format table: which days carried contaminated attachments.

    Below :data:`NARROW` columns the cells are compact (``2/3``, ``1 unread.``) and the
    caption says how to read them.
    """
    from hwpscan.report.pivot import EMPTY_CELL, contamination_pivot  # pandas, when needed

    compact = width is not None and width < NARROW
    frame = contamination_pivot(results)
    table = Table(
        title=title,
        title_justify="left",
        caption="cells: contaminated/files" if compact else None,
        caption_justify="left",
    )
    table.add_column("date", no_wrap=True, min_width=10)
    for col in frame.columns:
        table.add_column(str(col), no_wrap=True)
    for date, row in frame.iterrows():
        cells = [Text(str(date))]
        for value in row:
            style = (
                "dim"
                if value == EMPTY_CELL
                else "yellow"
                if value.endswith(" unreadable") and "/" not in value
                else "green"
                if value.startswith("0/")
                else "bold red"
            )
            cells.append(Text(compact_cell(value) if compact else value, style=style))
        table.add_row(*cells)
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
    """``12 files: 5 contaminated, 6 clean, 1 unreadable``."""
    n = len(results)
    statuses = status_counts(results)  # the rows may be on disk: their tally, if kept
    bad, clean = statuses[Status.CONTAMINATED], statuses[Status.CLEAN]
    unreadable = n - bad - clean
    return f"{n} files: {bad} contaminated, {clean} clean, {unreadable} unreadable"


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
        clean = any(r.status is Status.CLEAN for r in results)
        head = Text("CLEAN", style="bold green") if clean else Text("NOTHING READ", "bold yellow")
        return head + Text(f": {summary_line(results)}")
    start = f"CONTAMINATED: {summary_line(results)}; on "
    shown = 0
    while shown < len(bad):
        more = shown + 1
        rest = f" +{len(bad) - more} more" if more < len(bad) else ""
        if width is None and more > VERDICT_DATES:
            break
        if width is not None and cell_len(start + ", ".join(bad[:more]) + rest) > width:
            break
        shown = more
    if shown == 0:  # not even one date fits: say how many
        tail = f"{len(bad)} date{'s' * (len(bad) != 1)}"
    else:
        tail = ", ".join(bad[:shown]) + (f" +{len(bad) - shown} more" if shown < len(bad) else "")
    return Text("CONTAMINATED", style="bold red") + Text(start[len("CONTAMINATED") :] + tail)


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
    """Anything but a clean file: contaminated, or not read in full."""
    return result.status is not Status.CLEAN or bool(result.reason)


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
        out.append(file_table(rows, root=root, width=width, title=title))
    hidden = len(results) - len(rows)
    if hidden:
        what = "clean file" if show is Show.PROBLEMS else "file row"
        out.append(
            Text(
                f"{hidden} {what}{'s' * (hidden != 1)} not listed (--show all lists every file)",
                style="dim",
            )
        )
    legend = pua_legend(rows, brief=width is not None and width < NARROW)
    if legend is not None:
        out.append(legend)
    out.append(verdict)
    return out


def repair_table(
    results: Sequence[FileResult], *, out: object, root: str | None = None, pua_map: bool = False
) -> Table:
    """What ``repair`` did per file: pairs restored, orphans removed, PUA replaced and kept."""
    table = Table(title=f"Repaired text in {out}", title_justify="left")
    table.add_column("file", overflow="fold")
    table.add_column("status")
    for col in ("pairs restored", "orphans removed", "PUA replaced", "PUA kept"):
        table.add_column(col, justify="right")
    for r in results:
        done = r.repair
        status = Text(r.status.value, style=STATUS_STYLE[r.status])
        if done is None and r.reason:
            status += Text(f": {escape_snippet(r.reason)}", style="dim")
        table.add_row(
            escape_snippet(short_path(r.path, root)),
            status,
            f"{done.restored_pairs:,}" if done else "",
            f"{done.removed_orphans:,}" if done else "",
            f"{sum(done.pua_replaced.values()):,}" if done and pua_map else "",
            f"{sum(done.pua_kept.values()):,}" if done and pua_map else "",
        )
    return table


# -- history ------------------------------------------------------------------------

#: From this many columns ``history`` shows whole run ids and every count.
HISTORY_WIDE = 120


def korea_time(stamp: str) -> str:
    """A stored UTC time stamp as Korea time, to the minute.

    >>> korea_time("2025-11-30T15:20:07+00:00")
    '2025-12-01 00:20'
    """
    from datetime import datetime

    from hwpscan.fetch.dates import KST  # the fetch package: only for history's times

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


def run_outcome(info: RunInfo) -> Text:
    """What the run found or did, in a few words.

    >>> run_outcome(RunInfo("r", "verify", "t", "t", {}, "0", {"clean": 2},
    ...     {"verdicts": {"2025-07-21": "ok", "2025-07-22": "still contaminated"}})).plain
    '1/2 dates as expected; 2 clean'
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
        ok = sum(v == "ok" for v in verdicts.values())
        style = "bold green" if ok == len(verdicts) else "bold red"
        out.append(f"{ok}/{len(verdicts)} dates as expected", style=style)
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
    table = Table(title=title, title_justify="left")
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
        cells: list[str | Text] = [run_id, run_kind(info), korea_time(info.started)]
        if wide:
            cells.append(took(info))
        cells.append(f"{run_files(info):,}")
        outcome = run_outcome(info)
        if wide:
            cells += [outcome, args_line(info)]
        else:
            shown = args_line(info)
            if shown:
                outcome.append(f"\n{shown}", style="dim")
            cells.append(outcome)
        table.add_row(*cells)
    return table
