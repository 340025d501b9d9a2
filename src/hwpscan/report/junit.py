"""JUnit XML for CI (GitLab, Jenkins, GitHub test reporters): one test case per file.

What the gate (``--fail-on``) includes fails: a contaminated file or one holding a gated
defect class (``folded_symbols``..., ``defects`` for any) is a ``<failure>``, an
unreadable one an ``<error>``; what it leaves out passes with a note in ``<system-out>``
(unreadable: ``<skipped>``). Without a gate (the report bundle) contaminated,
unreadable and the lossy classes are included. A case carries the reason, the counts
and the first three defect locations (report.html lists them all). A run over no
document at all is one ``<error>``: CI cannot pass on nothing.

>>> from hwpscan.models import FileResult, Format, Status
>>> xml = junit_xml([FileResult("a.hwp", "", 1, Format.HWP5, Status.CLEAN, date="2025-07-21")])
>>> b'tests="1" failures="0"' in xml
True
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import IO

from hwpscan.atomic import atomic_write
from hwpscan.models import LOSSY_CLASSES, FileResult, Status
from hwpscan.report.cells import UNKNOWN_DATE

#: The classes a contaminated file's message already counts (pairs and orphans).
SURROGATE_CLASSES = ("split_pairs", "lone_halves")
SUITE = "hwpscan"
#: Characters XML 1.0 cannot carry at all (C0 controls but tab/newline/return, FFFE/FFFF).
_XML_ILLEGAL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: str) -> str:
    """Text with characters XML cannot hold shown as escapes.

    >>> xml_safe("a\\x01b" + chr(0xDC00))
    'a\\\\x01b\\\\udc00'
    """
    return _XML_ILLEGAL_RE.sub(_escape_char, text)


def _escape_char(match: re.Match[str]) -> str:
    cp = ord(match.group())
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def failure_message(result: FileResult) -> str | None:
    """Why a file fails, in one line; None when it passes.

    >>> from hwpscan.models import Format, Status, TextStats
    >>> failure_message(FileResult("a", "", 1, Format.HWP5, Status.CONTAMINATED,
    ...     body=TextStats(surrogates=3, pairs=1, orphans=1, utf8_ok=False, pua={"U+F02B1": 1})))
    'contaminated: 3 surrogate code points (1 pairs, 1 orphans), not UTF-8 encodable; PUA U+F02B1×1'
    >>> failure_message(FileResult("a", "", 0, Format.EMPTY, Status.CORRUPT, reason="empty file"))
    'corrupt: empty file'
    """
    quiet = _quiet_defects(result)
    tail = f"; defects: {quiet}" if quiet else ""
    if result.status is Status.CLEAN:
        return f"defects: {quiet}" if quiet else None
    if result.status is Status.CONTAMINATED:
        b = result.body
        text = (
            f"contaminated: {b.surrogates} surrogate code points "
            f"({b.pairs} pairs, {b.orphans} orphans)"
        )
        text += ", not UTF-8 encodable" if not b.utf8_ok else ""
        if b.pua:
            text += "; PUA " + " ".join(f"{cp}×{n}" for cp, n in sorted(b.pua.items()))
        return text + tail
    return f"{result.status.value}: {result.reason or 'the body could not be read'}{tail}"


def _quiet_defects(result: FileResult) -> str:
    """The defect classes beyond the surrogate counts, ``folded_symbols 2, ...``, or ''."""
    found = result.defect_counts()
    if found is None:
        return ""
    return ", ".join(
        f"{k} {n}" for k, n in found.as_dict().items() if n and k not in SURROGATE_CLASSES
    )


def _gated(result: FileResult, gate: Collection[str]) -> bool:
    """Whether *result* holds a defect class the gate names (``defects``: any)."""
    found = result.defect_counts()
    if found is None:
        return False
    present = found.present()
    return bool(present) and ("defects" in gate or any(k in gate for k in present))


#: Defect locations a test case's body lists; report.html lists every one recorded.
LOCATIONS_SHOWN = 3


def _details(result: FileResult) -> str:
    lines = [f"path: {result.path}", f"format: {result.format.value}", f"sha256: {result.sha256}"]
    if result.body.utf8_error:
        lines.append(f"utf-8: {result.body.utf8_error}")
    locations = result.body.locations
    lines.extend(
        f"{loc.stream} paragraph {loc.paragraph} offset {loc.offset}: {loc.kind} "
        f"{loc.codepoint} [{loc.units}] {loc.context}"
        for loc in locations[:LOCATIONS_SHOWN]
    )
    if len(locations) > LOCATIONS_SHOWN:
        lines.append(f"... {len(locations) - LOCATIONS_SHOWN} more location(s) in report.html")
    return "\n".join(lines)


def _outcome(result: FileResult, gate: Collection[str]) -> str | None:
    """``failure``, ``error``, ``skipped``, ``note`` (an ungated finding) or None (clean)."""
    if result.status is Status.CLEAN:
        if _gated(result, gate):
            return "failure"
        return "note" if _quiet_defects(result) else None
    gated = _gated(result, gate)  # a body read in part may hold a gated class too
    if result.status is Status.CONTAMINATED or gated:
        return "failure" if "contaminated" in gate or gated else "note"
    return "error" if "unreadable" in gate or "error" in gate else "skipped"


def junit_xml(
    results: Sequence[FileResult],
    *,
    gate: Collection[str] | None = None,
    empty_reason: str | None = None,
    interrupted: str | None = None,
) -> bytes:
    """The JUnit document (UTF-8 bytes with an XML declaration).

    *gate* is what ``--fail-on`` includes (None: everything); *empty_reason* is said
    as an ``<error>`` when there are no results; *interrupted* (the run stopped before
    its end: the results are partial) is one more ``<error>`` case, so CI cannot pass
    on part of a run.

    >>> from hwpscan.models import Format
    >>> enc = FileResult("e.hwp", "", 1, Format.HWP5, Status.ENCRYPTED, reason="locked")
    >>> b"<skipped" in junit_xml([enc], gate=["contaminated"])
    True
    >>> b'errors="1"' in junit_xml([], empty_reason="no documents under x")
    True
    """
    gate = ("contaminated", "unreadable", *LOSSY_CLASSES) if gate is None else tuple(gate)
    outcomes = [_outcome(r, gate) for r in results]
    no_documents = not results and empty_reason is not None
    errors = [("documents", "no-documents", empty_reason or "")] if no_documents else []
    if interrupted is not None:
        errors.append(("run", "interrupted", interrupted))
    counts = {k: outcomes.count(k) for k in ("failure", "error", "skipped")}
    counts["error"] += len(errors)
    tests = len(results) + len(errors)
    seconds = sum(r.seconds for r in results)
    totals = {
        "tests": str(tests),
        "failures": str(counts["failure"]),
        "errors": str(counts["error"]),
    }
    took = f"{seconds:.3f}"
    root = ET.Element("testsuites", {"name": SUITE, **totals, "time": took})
    attrs = {"name": SUITE, **totals, "skipped": str(counts["skipped"]), "time": took}
    node = ET.SubElement(root, "testsuite", attrs)
    for name, kind, why in errors:
        case = ET.SubElement(node, "testcase", classname=SUITE, name=name, time="0.000")
        ET.SubElement(case, "error", type=kind, message=xml_safe(why))
    for r, outcome in zip(results, outcomes, strict=True):
        case = ET.SubElement(
            node,
            "testcase",
            classname=xml_safe(f"{SUITE}.{r.date or UNKNOWN_DATE}"),
            name=xml_safe(r.path),
            time=f"{r.seconds:.3f}",
        )
        message = failure_message(r)
        if message is None or outcome is None:
            continue
        if outcome == "note":  # a finding the gate does not include: shown, not failed
            ET.SubElement(case, "system-out").text = xml_safe(f"{message}\n{_details(r)}")
            continue
        kind = r.status.value if r.status is not Status.CLEAN else "defects"
        element = ET.SubElement(case, outcome, type=kind, message=xml_safe(message))
        element.text = xml_safe(_details(r))
    return xml_bytes(root)


def xml_bytes(root: ET.Element) -> bytes:
    """The document under *root*, indented, as UTF-8 with an XML declaration."""
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write_junit(
    results: Sequence[FileResult],
    out: Path | None = None,
    *,
    gate: Collection[str] | None = None,
    empty_reason: str | None = None,
    stdout: IO[str] | None = None,
) -> Path | None:
    """``scan --format junit``: the XML to the file *out* (returned), else to *stdout*
    (:func:`write_xml`). *gate* is the scan's ``--fail-on`` (None: everything not clean
    fails)."""
    return write_xml(junit_xml(results, gate=gate, empty_reason=empty_reason), out, stdout)


def write_xml(data: bytes, out: Path | None = None, stdout: IO[str] | None = None) -> Path | None:
    """JUnit XML *data* to the file *out* (returned), else to *stdout* (default
    ``sys.stdout``) as the UTF-8 it declares (a text-only stream gets text)."""
    if out is not None:
        atomic_write(out, data, shared=True)  # whole or not at all; mode as open() makes
        return out
    stream = stdout if stdout is not None else sys.stdout
    binary = getattr(stream, "buffer", None)
    if binary is None:
        stream.write(data.decode("utf-8"))
    else:
        stream.flush()
        binary.write(data)
        binary.flush()
    return None
