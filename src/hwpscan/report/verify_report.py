"""A verify run's verdicts in its report: the per-date table and evidence, and JUnit.

A ``verify`` run stores one verdict object per date in its summary (``verdicts``: date
-> that date's ``--format json`` object; older runs stored ``ok`` or the state found).
``summary.md`` and ``report.html`` open with the verdict table and each date's evidence;
``junit.xml`` has one case per date (FAIL a ``<failure>``, INCONCLUSIVE an ``<error>``:
a date that proved nothing must not show green in CI). A report of an interrupted run
says it is partial, in each of the three files.

>>> rows = date_verdicts({"2025-07-21": {"verdict": "PASS", "reason": "ok"}, "2025-07-22": "ok"})
>>> [(v.date, v.verdict) for v in rows]
[('2025-07-21', 'PASS'), ('2025-07-22', 'PASS')]
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hwpscan.report.cells import md_cell
from hwpscan.report.html_common import e
from hwpscan.report.junit import xml_bytes, xml_safe

if TYPE_CHECKING:
    from hwpscan.history.records import RunInfo

SUITE = "hwpscan.verify"
#: Evidence lines shown per date (the rest are counted; ``--format json`` has them all).
SHOWN_EVIDENCE = 20
PARTIAL_NOTE = (
    "Partial: the run was interrupted before it finished, so this report holds only what "
    "was recorded until then"
)


@dataclass(frozen=True, slots=True)
class DateVerdictRow:
    """One date's verdict as stored: what the report shows of it."""

    date: str
    verdict: str
    reason: str
    expected: str = ""
    files: int = 0
    raw: str = ""
    evidence: tuple[Mapping[str, Any], ...] = ()


def stored_verdict(day: str, value: object) -> DateVerdictRow:
    """One date's verdict as a verify run stored it: an object (``verdict`` PASS, FAIL or
    INCONCLUSIVE), or in runs of older versions a word (``ok`` or the state found)."""
    if not isinstance(value, Mapping):  # an older run: a word per date
        word = "PASS" if value == "ok" else "FAIL"
        return DateVerdictRow(day, word, str(value))
    evidence = value.get("evidence")
    return DateVerdictRow(
        str(value.get("date") or day),
        str(value.get("verdict") or "INCONCLUSIVE"),
        str(value.get("reason") or ""),
        str(value.get("expected") or ""),
        int(value.get("files") or 0),
        str(value.get("raw") or ""),
        tuple(ev for ev in evidence if isinstance(ev, Mapping))
        if isinstance(evidence, list)
        else (),
    )


def date_verdicts(verdicts: Mapping[str, object]) -> list[DateVerdictRow]:
    """The stored verdicts (date -> object), in date order."""
    return [stored_verdict(day, verdicts[day]) for day in sorted(verdicts)]


def evidence_line(ev: Mapping[str, Any]) -> str:
    """One piece of evidence in one line: file or JSON path, source, position, problem.

    >>> evidence_line({"file": "d/a.hwp", "source": "x", "problem": "2 surrogates",
    ...                "position": 4, "context": "ab"})
    'd/a.hwp [x] at 4: 2 surrogates: ab'
    """
    where = " ".join(str(ev[k]) for k in ("file", "json_path") if ev.get(k))
    head = f"{where} [{ev.get('source') or '?'}]" if where else f"[{ev.get('source') or '?'}]"
    if ev.get("position") is not None:
        head += f" at {ev['position']}"
    bits = [head, str(ev.get("problem") or "")]
    if ev.get("context"):
        bits.append(str(ev["context"]))
    return ": ".join(bits)


def tally(words: Sequence[str], of: str = " of ") -> str:
    """``2 of 3 dates PASS, 1 FAIL`` for the verdict words given."""
    out = f"{words.count('PASS')}{of}{len(words)} dates PASS"
    return out + "".join(f", {n} {w}" for w in ("FAIL", "INCONCLUSIVE") if (n := words.count(w)))


def partial_note(run: RunInfo | None) -> str | None:
    """The partial-report note for an interrupted run (no end recorded), else None."""
    return PARTIAL_NOTE if run is not None and run.finished is None else None


# -- summary.md ---------------------------------------------------------------------------


def verdicts_markdown(rows: Sequence[DateVerdictRow], *, stopped: str | None = None) -> list[str]:
    """The lines that open a verify run's ``summary.md``: the tally, the table, evidence."""
    expect = next((v.expected for v in rows if v.expected), "")
    lines = [f"## Verification{f' (--expect {md_cell(expect)})' if expect else ''}", ""]
    lines += [f"**{tally([v.verdict for v in rows])}**", ""]
    if stopped:
        lines += [f"The API or its quota stopped: {md_cell(stopped)}", ""]
    lines += ["| date | verdict | files | raw | reason |", "|---|---|---|---|---|"]
    lines += [
        f"| {v.date} | **{v.verdict}** | {v.files} | {md_cell(v.raw)} | {md_cell(v.reason)} |"
        for v in rows
    ]
    lines.append("")
    for v in rows:
        if not v.evidence:
            continue
        lines += [f"### Evidence for {v.date} ({v.verdict})", ""]
        lines += [f"- {md_cell(evidence_line(ev))}" for ev in v.evidence[:SHOWN_EVIDENCE]]
        if len(v.evidence) > SHOWN_EVIDENCE:
            lines.append(f"- … and {len(v.evidence) - SHOWN_EVIDENCE} more (see --format json)")
        lines.append("")
    return lines


# -- report.html --------------------------------------------------------------------------

_CLASS = {"PASS": "ok", "FAIL": "bad"}


def verdicts_html(rows: Sequence[DateVerdictRow]) -> str:
    """The section that opens a verify run's ``report.html`` (every string escaped)."""
    verdicts = {v.verdict for v in rows}
    worst = "bad" if "FAIL" in verdicts else "ok" if verdicts <= {"PASS"} else "warn"
    body = "".join(
        f'<tr class="v-{_CLASS.get(v.verdict, "warn")}"><td>{e(v.date)}</td>'
        f"<td><strong>{e(v.verdict)}</strong></td><td>{v.files}</td><td>{e(v.raw)}</td>"
        f"<td>{e(v.reason)}</td></tr>"
        for v in rows
    )
    evidence = "".join(
        f"<h3>{e(v.date)} · {e(v.verdict)}</h3><ul>"
        + "".join(f"<li><code>{e(evidence_line(ev))}</code></li>" for ev in v.evidence)
        + "</ul>"
        for v in rows
        if v.evidence
    )
    return (
        '<section id="verdicts" aria-label="검증 결과 verification">'
        f'<h2>검증 결과 <small>verification</small></h2><p class="verdict {worst}">'
        f"{e(tally([v.verdict for v in rows]))}</p>"
        '<table class="verdicts"><thead><tr><th>날짜 date</th><th>판정 verdict</th>'
        "<th>파일 files</th><th>원본 raw</th><th>이유 reason</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
        + (f'<div class="evidence">{evidence}</div>' if evidence else "")
        + "</section>"
    )


def partial_html(note: str) -> str:
    """The banner of a partial report."""
    return f'<section id="partial"><p class="verdict warn">{e(note)}</p></section>'


# -- junit.xml ----------------------------------------------------------------------------


def verdicts_junit(
    rows: Sequence[DateVerdictRow], *, partial: str | None = None, stopped: str | None = None
) -> bytes:
    """JUnit with one test case per date: PASS passes, FAIL is a ``<failure>`` with the
    evidence, INCONCLUSIVE an ``<error>`` with its reason; *partial* (the run was
    interrupted) and *stopped* (the API stopped) add an ``<error>`` case each.

    >>> xml = verdicts_junit(date_verdicts({"2025-07-21": {"verdict": "PASS"},
    ...                                      "2025-07-22": {"verdict": "INCONCLUSIVE"}}))
    >>> b'tests="2" failures="0" errors="1"' in xml
    True
    """
    cases: list[tuple[str, str | None, str, str, str]] = []  # name, outcome, type, message, body
    for v in rows:
        outcome = None if v.verdict == "PASS" else "failure" if v.verdict == "FAIL" else "error"
        kind = "FAIL" if outcome == "failure" else "inconclusive"
        text = "\n".join(evidence_line(ev) for ev in v.evidence)
        cases.append((v.date, outcome, kind, f"{v.verdict}: {v.reason}", text))
    for name, why in (("api", stopped), ("run", partial)):
        if why:
            cases.append((name, "error", name, why, ""))
    outcomes = [c[1] for c in cases]
    counts = {"tests": str(len(cases))}
    counts |= {f"{k}s": str(outcomes.count(k)) for k in ("failure", "error")}
    root = ET.Element("testsuites", {"name": SUITE, **counts})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, "skipped": "0", **counts})
    for name, outcome, kind, message, text in cases:
        case = ET.SubElement(suite, "testcase", classname=SUITE, name=xml_safe(name))
        if outcome is None:
            ET.SubElement(case, "system-out").text = xml_safe(message)
            continue
        element = ET.SubElement(case, outcome, type=kind, message=xml_safe(message))
        element.text = xml_safe(text) if text else None
    return xml_bytes(root)
