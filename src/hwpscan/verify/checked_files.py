"""The files a verify looks at: the chosen dates' attachments, scanned and run through
the deployed extractors; and, for a failure, where in the extractor's text it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from hwpscan.forensics.guard import check_utf8
from hwpscan.forensics.surrogates import escape_snippet
from hwpscan.matrix import ParserSpec
from hwpscan.matrix.runner import run_extractor
from hwpscan.models import FileResult
from hwpscan.scanning.inputs import resolve_dates
from hwpscan.scanning.many_files import scan_paths
from hwpscan.verify.date_verdicts import FAIL, DateVerdict
from hwpscan.verify.evidence import Evidence, fail_reason

_CONTEXT = 20


def scan_files(
    paths: Iterable[Path], days: Sequence[str], *, jobs: int | None = None
) -> tuple[list[FileResult], dict[str, Path]]:
    """Scan the files a fetch listed that are dated on one of *days* (as ``scan`` dates
    them); the results, and the file of each result's ``path``."""
    files = [p for p in dict.fromkeys(paths) if p.is_file()]
    dates = resolve_dates(files)
    wanted = set(days)
    chosen = [p for p in files if dates.get(p) in wanted]
    results = list(scan_paths(chosen, jobs=jobs, dates=dates))
    return results, {r.path: p for r, p in zip(results, chosen, strict=True)}


def locate_in_output(spec: ParserSpec, path: Path, *, timeout: float) -> tuple[int, str] | None:
    """Run one extractor on one file again and find its first lone surrogate: the
    character position and an escaped context. None when there is none (or it fails)."""
    got = run_extractor(spec, path, timeout=timeout)
    if got.status != "ok" or got.text is None:
        return None
    check = check_utf8(got.text)
    if check.ok or check.start is None:
        return None
    i = check.start
    return i, escape_snippet(got.text[max(0, i - _CONTEXT) : i + _CONTEXT])


def with_positions(
    verdict: DateVerdict,
    specs: Mapping[str, ParserSpec],
    files: Mapping[str, Path],
    *,
    timeout: float,
) -> DateVerdict:
    """Fill in the position and context of the first surrogate fault of each extractor."""
    done: set[str] = set()
    out: list[Evidence] = []
    for ev in verdict.evidence:
        spec = specs.get(ev.source)
        path = files.get(ev.file) if ev.file is not None else None
        found = None
        unplaced = ev.position is None and "surrogate" in ev.problem
        if spec is not None and path is not None and unplaced and ev.source not in done:
            done.add(ev.source)
            found = locate_in_output(spec, path, timeout=timeout)
        out.append(ev if found is None else replace(ev, position=found[0], context=found[1]))
    if out == list(verdict.evidence):  # nothing located: the verdict stands as it was
        return verdict
    reason = fail_reason(out) if verdict.verdict == FAIL else verdict.reason
    return replace(verdict, evidence=tuple(out), reason=reason)
