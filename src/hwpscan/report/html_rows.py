"""The file lists of ``report.html``: files with something to say are rows of the file
table, each detail kept as data and drawn when its row is opened (a tenth of the size of
markup); clean files are one compact JSON array the page searches. So a report of tens
of thousands of files stays a few megabytes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from hwpscan.forensics.pua import pua_name
from hwpscan.forensics.surrogates import SURROGATE_RE
from hwpscan.models import FileResult, Status
from hwpscan.report.cells import UNKNOWN_DATE
from hwpscan.report.html_common import STATUS_KO, e

#: PUA code points named in a file's row; the detail lists them all.
PUA_SHOWN = 1


def _ranked(pua: dict[str, int]) -> list[tuple[str, int]]:
    """Private-use code points, most frequent first."""
    return sorted(pua.items(), key=lambda kv: (-kv[1], kv[0]))


def pua_label(cp: str) -> str:
    """The name of a ``U+XXXXX`` private-use code point, or ''."""
    try:
        return pua_name(int(cp.removeprefix("U+"), 16)) or ""
    except ValueError:
        return ""


def common_root(paths: Sequence[str]) -> str:
    """The folder all paths share (shown once in the header), or ''.

    >>> common_root(["/a/b/2025-07-21/x.hwp", "/a/b/2025-07-22/y.pdf"])
    '/a/b/'
    >>> common_root(["x.hwp"]), common_root([])
    ('', '')
    """
    if not paths:
        return ""
    # character-wise on purpose: the cut below falls back to the last separator
    prefix = os.path.commonprefix(list(paths))  # noqa: RUF071
    cut = max(prefix.rfind("/"), prefix.rfind("\\"))
    return prefix[: cut + 1] if cut >= 0 else ""


def badge(status: Status) -> str:
    cls = status.value if status in (Status.CLEAN, Status.CONTAMINATED) else "other"
    return (
        f'<span class="badge {cls}">{e(STATUS_KO[status])}<small>{e(status.value)}</small></span>'
    )


def summarised(r: FileResult) -> bool:
    """Whether a file goes to the compact list of clean files: clean, nothing lossy,
    no warning (anything else is a row of the file table, with its detail)."""
    return r.status is Status.CLEAN and not r.lossy and not r.warnings


def json_script(data: object) -> str:
    """*data* as a ``<script type="application/json">`` the page reads (:func:`json_text`).

    >>> print(json_script(["</script><b>", chr(0xD800)]))
    <script type="application/json">["\\u003c/script>\\u003cb>","\\ud800"]</script>
    """
    return f'<script type="application/json">{json_text(data)}</script>'


def json_text(data: object) -> str:
    """*data* as JSON for a script element: ``<`` escaped, so no text in it can end the
    element; lone surrogates escaped, so it stays UTF-8."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return SURROGATE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def file_body(index: int, r: FileResult, root: str = "") -> str:
    """A file's ``<tbody>``: the row (sort keys as data attributes), its detail row (drawn
    when opened) and the detail's data."""
    data = " ".join(f'data-k-{k}="{e(v)}"' for k, v in _sort_keys(r).items())
    return (
        f'<tbody class="file" data-status="{e(r.status.value)}" data-format="{e(r.format.value)}" '
        f'data-date="{e(r.date or UNKNOWN_DATE)}" data-search="{e(_search_text(r))}" {data}>\n'
        f"{_main_row(index, r, root)}\n"
        f'<tr class="detail" id="d{index}" hidden><td colspan="11"></td></tr>'
        f"{json_script(detail_data(r))}</tbody>"
    )


def clean_entry(r: FileResult, root: str = "") -> list[Any]:
    """A clean file in the compact list: ``[path under root, date, format, characters,
    "U+XXXXX×n ..." , PUA names]``."""
    ranked = _ranked(r.body.pua)
    pua = " ".join(f"{cp}×{n}" for cp, n in ranked)
    names = " ".join(filter(None, (pua_label(cp) for cp, _ in ranked)))
    return [r.path[len(root) :], r.date or "", r.format.value, r.body.chars, pua, names]


def _search_text(r: FileResult) -> str:
    """What the search box matches beside the path (``data-k-path``): date, format,
    status (both languages), PUA."""
    b = r.body
    return " ".join(
        [
            r.date or "",
            r.format.value,
            r.status.value,
            STATUS_KO[r.status],
            r.reason or "",
            *b.pua,
            *(pua_label(cp) for cp in b.pua),
            *(found.present() if (found := r.defect_counts()) else ()),
        ]
    ).lower()


def defects_line(r: FileResult) -> str:
    """``folded_symbols 2, unmapped_pua 1``: the defect classes the body holds, or ''.

    >>> from hwpscan.models import Defects, Format
    >>> defects_line(FileResult("a.hwp", "", 1, Format.HWP5, Status.CLEAN,
    ...                         defects=Defects(folded_symbols=2, unmapped_pua=1)))
    'folded_symbols 2, unmapped_pua 1'
    """
    found = r.defect_counts()
    if found is None:
        return ""
    return ", ".join(f"{k} {n:,}" for k, n in found.as_dict().items() if n)


def _sort_keys(r: FileResult) -> dict[str, object]:
    """The column sort keys; counts only for a body that was read ('' otherwise). Date,
    format and status sort by the row's own ``data-date`` and the like."""
    b, scanned = r.body, r.body_read
    return {
        "path": r.path,
        "chars": b.chars if scanned else "",
        "surrogates": b.surrogates if scanned else "",
        "pairs": b.pairs if scanned else "",
        "orphans": b.orphans if scanned else "",
        "utf8": ("ok" if b.utf8_ok else "fail") if scanned else "",
        "pua": sum(b.pua.values()),
    }


def _main_row(index: int, r: FileResult, root: str) -> str:
    """The visible row: toggle, path (with the reason a body was not read), date, counts."""
    b = r.body
    reason = (
        f'<span class="reason">{e(r.reason)}</span>' if r.reason and not r.status.scanned else ""
    )

    def num(n: int, col: str, *, alarm: bool = True) -> str:
        """A count cell; a defect count above zero is marked hot (its label, on a phone,
        comes from the style sheet, by column)."""
        hot = " hot" if r.body_read and n and alarm else ""
        return f'<td class="n{hot} {col}">{f"{n:,}" if r.body_read else ""}</td>'

    return (
        f'<tr class="main"><td class="c-tog"><button class="toggle" type="button" '
        f'aria-expanded="false" aria-controls="d{index}" title="상세 details">▶</button></td>'
        f'<td class="path c-path" title="{e(r.path)}">{e(r.path[len(root) :])}{reason}</td>'
        f'<td class="mono nw c-date">{date_button(r.date) if r.date else "—"}</td>'
        f'<td class="c-fmt">{e(r.format.value)}</td>'
        f'<td class="c-status">{badge(r.status)}{_lossy_mark(r)}</td>'
        f"{num(b.chars, 'c-chars', alarm=False)}{num(b.surrogates, 'c-surr')}"
        f"{num(b.pairs, 'c-pairs')}{num(b.orphans, 'c-orph')}"
        f'<td class="c-utf8">{_utf8_mark(r)}</td>'
        f'<td class="pua c-pua">{_pua_cell(b.pua)}</td></tr>'
    )


def _lossy_mark(r: FileResult) -> str:
    """A mark under a status whose text shows characters as others (folded symbols,
    PDF folds), with the classes in its title."""
    if not r.lossy:
        return ""
    return f' <small class="lossy" title="{e(defects_line(r))}">손실 lossy</small>'


def _utf8_mark(r: FileResult) -> str:
    if not r.body_read:
        return ""
    if r.body.utf8_ok:
        return '<span class="utf8-ok">ok</span>'
    return '<span class="utf8-fail">FAIL</span>'


def _pua_cell(pua: dict[str, int]) -> str:
    """The most frequent private-use code point(s), and how many more the detail lists."""
    ranked = _ranked(pua)
    cell = " ".join(
        f'<code title="{e(pua_label(cp))}">{e(cp)}×{n}</code>' for cp, n in ranked[:PUA_SHOWN]
    )
    if len(ranked) > PUA_SHOWN:
        cell += (
            f' <span class="more" title="상세 보기 see details">+{len(ranked) - PUA_SHOWN}</span>'
        )
    return cell


def date_button(day: str, title: str = "") -> str:
    """A date that filters the file list to itself when clicked."""
    tip = f' title="{e(title)}"' if title else ""
    return f'<button type="button" class="date-pick" data-date="{e(day)}"{tip}>{e(day)}</button>'


def _facts(r: FileResult) -> list[list[str]]:
    """The facts of a file's detail as ``[key, value]`` (report.js ``FACT_LABELS`` names
    the keys); the path is the row's own ``data-k-path``."""
    b = r.body
    facts = [["sha", r.sha256 or "—"], ["size", f"{r.bytes:,}"]]
    if r.reason:
        facts.append(["why", r.reason])
    if not r.body_read:
        facts.append(["body", "읽지 못함: 개수 없음 not read: no counts"])
    if b.utf8_error:
        facts.append(["utf8", b.utf8_error])
    if defects := defects_line(r):
        facts.append(["defects", defects])
    if b.replacement_chars:
        facts.append(["fffd", str(b.replacement_chars)])
    for name, s in (("prv", r.preview), ("docinfo", r.meta)):
        if s is not None:
            line = f"surrogates {s.surrogates} (pairs {s.pairs}, orphans {s.orphans}), "
            facts.append(
                [name, line + f"UTF-8 {'ok' if s.utf8_ok else 'FAIL'}, PUA {sum(s.pua.values())}"]
            )
    return facts + [["warn", w] for w in r.warnings]


def detail_data(r: FileResult) -> dict[str, Any]:
    """A file's detail as the page draws it (report.js ``drawDetail``): ``f`` facts
    (:func:`_facts`), ``p`` private-use characters ``[code point, count]``, ``l`` defect
    locations ``[stream number, paragraph, offset, kind, code point, units, context]``,
    ``s`` the streams they number, ``n`` the names of the code points."""
    b = r.body
    pua = _ranked(b.pua)
    streams = list(dict.fromkeys(loc.stream for loc in b.locations))
    at = {stream: n for n, stream in enumerate(streams)}
    locations = [
        [at[loc.stream], loc.paragraph, loc.offset, loc.kind, loc.codepoint, loc.units, loc.context]
        for loc in b.locations
    ]
    points = {cp for cp, _ in pua} | {loc.codepoint for loc in b.locations}
    names = {cp: name for cp in sorted(points) if (name := pua_label(cp))}
    return {"f": _facts(r), "p": pua, "l": locations, "s": streams, "n": names}
