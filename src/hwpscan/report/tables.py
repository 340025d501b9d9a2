"""Rich tables for the terminal: the per-file table and the date x format table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from hwpscan.forensics.pua import pua_info
from hwpscan.models import FileResult, Status

STATUS_STYLE = {
    Status.CLEAN: "green",
    Status.CONTAMINATED: "bold red",
    Status.ENCRYPTED: "yellow",
    Status.DISTRIBUTION: "yellow",
    Status.UNSUPPORTED: "dim",
    Status.CORRUPT: "magenta",
    Status.ERROR: "bold magenta",
}


def pua_summary(pua: dict[str, int], *, limit: int = 3) -> str:
    """``U+F02B1×3 U+F0854×1`` (most frequent first), ``+N`` when cut.

    >>> pua_summary({"U+F0854": 1, "U+F02B1": 3})
    'U+F02B1×3 U+F0854×1'
    >>> pua_summary({})
    ''
    """
    items = sorted(pua.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = " ".join(f"{cp}×{n}" for cp, n in items[:limit])
    return f"{shown} +{len(items) - limit}" if len(items) > limit else shown


def pua_legend(results: Sequence[FileResult]) -> Table | None:
    """The private-use characters seen, with their Hancom names where known."""
    seen: dict[str, int] = {}
    files: dict[str, int] = {}
    for r in results:
        for cp, n in r.body.pua.items():
            seen[cp] = seen.get(cp, 0) + n
            files[cp] = files.get(cp, 0) + 1
    if not seen:
        return None
    table = Table(title="Private-use characters seen", title_justify="left")
    for col, justify in (
        ("code point", "left"),
        ("count", "right"),
        ("files", "right"),
        ("name", "left"),
        ("renders as", "left"),
        ("--pua-map gives", "left"),
        ("note", "left"),
    ):
        table.add_column(col, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for cp in sorted(seen, key=lambda c: (-seen[c], c)):
        info = pua_info(int(cp[2:], 16))
        kept = Text("kept", style="dim")
        table.add_row(
            cp,
            f"{seen[cp]:,}",
            f"{files[cp]:,}",
            info.name if info else Text("unknown", style="dim"),
            (info.renders_as or "") if info else "",
            (info.replacement or kept) if info else kept,
            Text(info.note or "", style="dim") if info else "",
        )
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


def file_table(
    results: Sequence[FileResult], *, title: str = "Files", root: str | None = None
) -> Table:
    """One row per file (paths shown relative to *root*); a broken file shows its reason."""
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("file", overflow="fold", max_width=60)
    table.add_column("date", no_wrap=True)
    table.add_column("format")
    table.add_column("status")
    for column in ("chars", "surr.", "pairs", "orphans"):
        table.add_column(column, justify="right")
    table.add_column("UTF-8")
    table.add_column("PUA", overflow="fold")
    for r in results:
        name = Text(short_path(r.path, root))
        if r.reason:  # why it could not be read, or the damage met while reading it
            name.append(f"\n{r.reason}", style="dim")
        b = r.body
        scanned = r.status.scanned
        table.add_row(
            name,
            r.date or "—",
            r.format.value,
            Text(r.status.value, style=STATUS_STYLE[r.status]),
            f"{b.chars:,}" if scanned else "",
            _num(b.surrogates, scanned),
            _num(b.pairs, scanned),
            _num(b.orphans, scanned),
            (Text("ok", style="green") if b.utf8_ok else Text("FAIL", style="bold red"))
            if scanned
            else Text(""),
            pua_summary(b.pua),
        )
    return table


def _num(n: int, scanned: bool) -> Text:
    if not scanned:
        return Text("")
    return Text(f"{n:,}", style="bold red" if n else "")


def pivot_table(
    results: Sequence[FileResult], *, title: str = "Contamination by date and format"
) -> Table:
    """The date x format table: which days carried contaminated attachments."""
    from hwpscan.report.pivot import EMPTY_CELL, contamination_pivot  # pandas, when needed

    frame = contamination_pivot(results)
    table = Table(title=title, title_justify="left")
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
            cells.append(Text(value, style=style))
        table.add_row(*cells)
    return table


def summary_line(results: Sequence[FileResult]) -> str:
    """``12 files: 5 contaminated, 6 clean, 1 unreadable``."""
    n = len(results)
    bad = sum(r.status is Status.CONTAMINATED for r in results)
    clean = sum(r.status is Status.CLEAN for r in results)
    unreadable = n - bad - clean
    return f"{n} files: {bad} contaminated, {clean} clean, {unreadable} unreadable"


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
            status += Text(f": {r.reason}", style="dim")
        table.add_row(
            short_path(r.path, root),
            status,
            f"{done.restored_pairs:,}" if done else "",
            f"{done.removed_orphans:,}" if done else "",
            f"{sum(done.pua_replaced.values()):,}" if done and pua_map else "",
            f"{sum(done.pua_kept.values()):,}" if done and pua_map else "",
        )
    return table
