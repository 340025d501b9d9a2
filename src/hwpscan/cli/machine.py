"""``--format json`` for ``plan``, ``history`` and ``diff``: one JSON document each.

The keys are documented here and in docs/verify.md; they only ever grow.

- ``plan``: ``start``, ``end``, ``windows`` (``start``, ``end``, ``days``, ``cached``),
  ``calls_needed``, ``calls_cached``, ``quota`` (``day``, ``used``, ``limit``,
  ``remaining``, ``resets_at``; ``null`` without a key), ``fits_quota``, ``warnings``;
- ``history``: ``runs``, each ``id``, ``kind``, ``started``, ``finished``, ``args``,
  ``version``, ``counts`` (files per status), ``files``, ``contaminated``, ``clean``,
  ``unreadable``, ``summary`` (a verify run's verdicts per date are in it);
- ``diff``: ``a``, ``b``, ``files`` (``kind``, ``path``, ``date``, ``before``,
  ``after``, ``surrogates_before``, ``surrogates_after``), ``dates`` (``kind``,
  ``date``, ``before``, ``after``), ``unchanged``, ``counts`` (changes per kind),
  ``regressed`` (true when a file or date became contaminated).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from hwpscan.cli.app import console
from hwpscan.runs import CHANGE_KINDS, RunDiff, RunInfo

if TYPE_CHECKING:
    from hwpscan.fetch.plan import Plan

__all__ = ["MachineFormat", "diff_json", "history_json", "plan_json", "print_json"]


class MachineFormat(str, enum.Enum):
    table = "table"
    json = "json"


def print_json(doc: dict[str, Any]) -> None:
    """One JSON document on stdout (UTF-8, non-ASCII kept)."""
    console.out(json.dumps(doc, ensure_ascii=False, indent=2, default=str), highlight=False)


def plan_json(plan: Plan) -> dict[str, Any]:
    quota = plan.quota
    return {
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


def history_json(runs: Sequence[RunInfo]) -> dict[str, Any]:
    return {
        "runs": [
            {
                "id": r.id,
                "kind": r.kind,
                "started": r.started,
                "finished": r.finished,
                "args": r.args,
                "version": r.version,
                "counts": dict(r.counts),
                "files": r.files,
                "contaminated": r.contaminated,
                "clean": r.clean,
                "unreadable": r.unreadable,
                "summary": r.summary,
            }
            for r in runs
        ]
    }


def diff_json(d: RunDiff) -> dict[str, Any]:
    files = [asdict(c) for c in d.files]
    regressed = bool(d.of_kind("became_contaminated") or d.dates_of_kind("became_contaminated"))
    return {
        "a": d.a,
        "b": d.b,
        "files": files,
        "dates": [asdict(c) for c in d.dates],
        "unchanged": d.unchanged,
        "counts": {k: len(d.of_kind(k)) for k in CHANGE_KINDS},
        "regressed": regressed,
    }
