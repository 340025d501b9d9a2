"""The isolation engine's pool against pebble's ProcessPool, on the same files.

    python benchmarks/engine_pool.py FOLDER [--jobs 2] [--rounds 3]

Both give every file a worker process with a time limit and replace a worker that dies
or overruns. Rows:

- ``engine``: :func:`hwpscan.scanning.many_files.scan_rows` (chunks handed ahead,
  a progress word per worker, rows sent in batches with their JSON line made in the
  worker);
- ``pebble``: ``pebble.ProcessPool.schedule(scan_file, timeout=...)``, one future per
  file (pebble's per-task timeout needs one task per file), the FileResult pickled
  back and its JSON line made by the supervisor, as a run store and an output would.

Prints files/s for each, best of ``--rounds``, from a warm page cache. pebble is not a
dependency of hwpscan, only of the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def _engine(files: list[Path], jobs: int) -> int:
    from hwpscan.scanning.many_files import PoolSettings, scan_rows

    settings = PoolSettings(jobs=jobs, ordered=False)
    return sum(len(row.data) > 0 for row in scan_rows(files, settings))


def _pebble(files: list[Path], jobs: int) -> int:
    from pebble import ProcessPool

    from hwpscan.execution.child_limits import set_memory_budget
    from hwpscan.rowcodec import encode_row
    from hwpscan.scanning.one_file import scan_file

    done = 0
    with ProcessPool(max_workers=jobs, initializer=set_memory_budget, initargs=(2048,)) as pool:
        futures = [pool.schedule(scan_file, args=(os.fspath(p),), timeout=120) for p in files]
        for future in futures:
            done += len(encode_row(future.result()).encode("utf-8")) > 0
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from hwpscan.scanning.inputs import collect_files

    files = collect_files([args.folder])
    print(f"{len(files):,} files, {args.jobs} workers, best of {args.rounds}")
    for name, run in (("engine", _engine), ("pebble", _pebble)):
        best = float("inf")
        for _ in range(args.rounds):
            started = time.perf_counter()
            assert run(files, args.jobs) == len(files)
            best = min(best, time.perf_counter() - started)
        print(f"{name:8} {len(files) / best:8,.0f} files/s  ({best:.2f} s)")


if __name__ == "__main__":
    main()
