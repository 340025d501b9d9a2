"""How big the report of a large run is, and what writing it costs.

    python benchmarks/report_size.py [--files 19800] [--rows /work/baseline/corpus.jsonl]

Builds a run of ``--files`` results in a fresh ``HWPSCAN_HOME`` through the public
recording API (:class:`hwpscan.history.RunStore`): the rows of a JSON Lines scan
(``hwpscan scan DIR --format jsonl``, given with ``--rows``; else a scan of our generated
fixtures, made here), repeated under new
folders until the count is reached and recorded in a shuffled order, as a pool
completes them. Then runs ``hwpscan report latest`` in a child process and prints its
wall time, its peak resident memory, and the size in MB of every file it wrote.

Run it with each interpreter to compare (``/path/to/venv/bin/python
benchmarks/report_size.py``): it imports only what both old and new versions have.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGETS = {"report.html": 25.0, "peak": 400.0}


def _rows(source: Path | None, count: int) -> list[dict[str, Any]]:
    """*count* scan rows: the source's, cycled under new folders (``copy-N/``)."""
    if source is not None:
        lines = source.read_text(encoding="utf-8").splitlines()
        base = [json.loads(line) for line in lines if line.strip()]
    else:
        base = _synthetic_rows()
    out: list[dict[str, Any]] = []
    copy = 0
    while len(out) < count:
        for row in base:
            if len(out) == count:
                break
            path = Path(row["path"])
            out.append(dict(row, path=str(path.parent / f"copy-{copy}" / path.name)))
        copy += 1
    return out


def _synthetic_rows() -> list[dict[str, Any]]:
    """Rows of a small scan of our generator's documents (when no rows are given)."""
    from hwpscan.rehearsal.synth.corpus_items import write_corpus

    folder = Path(tempfile.mkdtemp(prefix="hwpscan-bench-corpus-"))
    write_corpus(folder)
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(folder), "--format", "jsonl"],
        capture_output=True,
        text=True,
        check=False,
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def _record(home: Path, rows: list[dict[str, Any]]) -> None:
    from hwpscan.history import RunStore
    from hwpscan.models import FileResult

    random.Random(7).shuffle(rows)  # completion order, not input order
    with RunStore(home / "runs.sqlite") as store:
        run = store.start_run("scan", {"paths": ["corpus"]})
        for start in range(0, len(rows), 1000):
            store.add_results(run, [FileResult.from_json(r) for r in rows[start : start + 1000]])
        store.finish_run(run)


def _report(home: Path, out: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB and exit code of ``hwpscan report latest``."""
    env = dict(os.environ, HWPSCAN_HOME=str(home))
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hwpscan", "report", "latest", "--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=19_800)
    parser.add_argument("--rows", type=Path, default=None, help="JSON Lines of a scan")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hwpscan-bench-report-"))
    home, out = work / "home", work / "report"
    home.mkdir()
    rows = _rows(args.rows, args.files)
    _record(home, rows)
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    print(f"run of {len(rows):,} files: " + ", ".join(f"{n:,} {s}" for s, n in statuses.items()))
    wall, peak, code = _report(home, out)
    print(f"hwpscan report: exit {code}, {wall:.1f} s, peak RSS {peak:,.0f} MB", end="")
    print(f" (target {TARGETS['peak']:.0f} MB)")
    for path in sorted(out.iterdir()):
        size = path.stat().st_size / 1_000_000
        target = TARGETS.get(path.name)
        print(f"  {path.name:<12} {size:8.1f} MB" + (f" (target {target:g} MB)" if target else ""))
    print(f"(run and report in {work})")


if __name__ == "__main__":
    main()
