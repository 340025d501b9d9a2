"""Scale-out: files/s on the local executor vs a Dask LocalCluster, and the scheduler's cost.

    pip install -e '.[dask]'
    python benchmarks/scale_out.py [--files 2000] [--dir benchmarks/out/corpus]

Uses the press-release-like HWP 5 corpus of ``benchmarks/scan_throughput.py`` (built once,
reused). Measures, on the same files:

- ``local -jN``: :func:`hwpscan.scanning.many_files.scan_paths` across N processes (the
  local executor);
- ``dask W worker(s)``: :func:`hwpscan.scanning.on_dask.scan_on_dask` on a
  LocalCluster of W single-threaded worker processes on 127.0.0.1, at the default batch
  size (cluster start-up timed apart: a long audit pays it once);
- ``batch size``: the 2-worker cluster at several batch sizes;
- the scheduler's overhead per task: empty batches through the same path, so the cost
  of one task (submit, schedule, run, result back) with no file in it.

From the per-file cost on one worker (c) and the per-task overhead (t) it prints the
smallest batch size B with t / (B * c) under 5%, and the wall time and machine cost of
10 million files on N workers. Figures depend on the machine: the reference loop from
``scan_throughput.py`` is printed so runs on different machines can be compared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scan_throughput import build_corpus, reference_loop_ms  # noqa: E402

#: Assumed price of one worker (one vCPU and ~2 GB) for an hour, in US dollars: about what
#: the major clouds charge on demand for a general-purpose vCPU in 2025. Pass --price.
DEFAULT_PRICE = 0.05
TARGET_FILES = 10_000_000


#: Each figure is the best of this many passes: on a shared machine the best is the
#: one least disturbed by other work.
REPEAT = 3


def local_rate(files: list[Path], jobs: int) -> float:
    from hwpscan.scanning.many_files import scan_paths

    best = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        n = sum(1 for _ in scan_paths(files, jobs=jobs))
        best = min(best, time.perf_counter() - start)
    return n / best


def dask_rates(items: list[object], workers: int, batches: list[int]) -> dict[int, float]:
    """files/s per batch size on a fresh LocalCluster of *workers* processes."""
    from hwpscan.scanning.on_dask import dask_client, scan_on_dask

    out: dict[int, float] = {}
    start = time.perf_counter()
    with dask_client(workers=workers) as client:
        client.wait_for_workers(workers)
        print(f"  LocalCluster with {workers} worker(s) up in {time.perf_counter() - start:.1f} s")
        warm = items[: 4 * workers]  # each worker starts its guard process once
        for _ in scan_on_dask(warm, client, batch_size=1):  # type: ignore[arg-type]
            pass
        for batch in batches:
            best = float("inf")
            for _ in range(REPEAT):
                start = time.perf_counter()
                n = sum(1 for _ in scan_on_dask(items, client, batch_size=batch))  # type: ignore[arg-type]
                best = min(best, time.perf_counter() - start)
            out[batch] = n / best
    return out


def task_overhead(tasks: int = 600, in_flight: int = 4) -> float:
    """Seconds per task with no file in it: empty batches on 1 worker, as many in flight as
    the executor keeps for one worker thread, results gathered as the executor does."""
    from hwpscan.scanning.on_dask import dask_client
    from hwpscan.scanning.work_items import scan_batch

    with dask_client(workers=1) as client:
        client.wait_for_workers(1)
        from distributed import as_completed

        for f in [client.submit(scan_batch, [], pure=False) for _ in range(20)]:
            f.result()
        best = float("inf")
        for _ in range(REPEAT):
            start = time.perf_counter()
            queue = as_completed(loop=client.loop, with_results=True)
            for _ in range(in_flight):
                queue.add(client.submit(scan_batch, [], pure=False))
            submitted, done = in_flight, 0
            for _ in queue:
                done += 1
                if submitted < tasks:
                    queue.add(client.submit(scan_batch, [], pure=False))
                    submitted += 1
            best = min(best, (time.perf_counter() - start) / done)
        return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=HERE / "out" / "corpus-scale")
    parser.add_argument("--price", type=float, default=DEFAULT_PRICE, help="$ per worker-hour")
    args = parser.parse_args()
    build_corpus(args.dir, args.files)

    from hwpscan.scanning.on_dask import DEFAULT_BATCH
    from hwpscan.scanning.sources import iter_items

    files = sorted(args.dir.rglob("*.hwp"))
    items = list(iter_items([args.dir]))
    mb = sum(p.stat().st_size for p in files) / 2**20
    cores = os.cpu_count() or 1
    print(f"corpus: {len(files):,} HWP 5 files, {mb:.1f} MB; {cores} cores")
    print(f"machine reference: a 1M-iteration Python loop takes {reference_loop_ms():.0f} ms")

    rates: dict[str, float] = {}
    for jobs in sorted({1, cores}):
        rates[f"local -j{jobs}"] = local_rate(files, jobs)
    one = dask_rates(items, 1, [DEFAULT_BATCH])
    rates[f"dask 1 worker, batch {DEFAULT_BATCH}"] = one[DEFAULT_BATCH]
    sweep = [1, 8, DEFAULT_BATCH, 128]
    two = dask_rates(items, 2, sweep)
    for batch in sweep:
        rates[f"dask 2 workers, batch {batch}"] = two[batch]
    print(f"{'run':30} {'files/s':>9}")
    for name, rate in rates.items():
        print(f"{name:30} {rate:9,.0f}")

    overhead = task_overhead()
    per_file = 1 / one[DEFAULT_BATCH]  # one worker's seconds per file, overhead included
    scan_cost = max(per_file - overhead / DEFAULT_BATCH, 1e-9)
    batch = 1
    while overhead / (batch * scan_cost) >= 0.05:
        batch *= 2
    print(f"scheduler overhead: {overhead * 1000:.2f} ms per task")
    print(f"per-file cost on one worker: {scan_cost * 1000:.2f} ms (overhead taken out)")
    for b in (1, 8, DEFAULT_BATCH, 128):
        share = overhead / (b * scan_cost + overhead)
        print(f"  batch {b:4}: scheduler overhead {share:6.1%} of a task, "
              f"{overhead / b * 1e6:7.0f} us per file")  # fmt: skip
    print(f"smallest power-of-two batch with overhead under 5%: {batch}")
    print(f"10 million files (per-file cost {scan_cost * 1000:.2f} ms, ${args.price}/worker-hour):")
    for workers in (8, 32, 128, 512):
        seconds = TARGET_FILES * (scan_cost + overhead / max(batch, DEFAULT_BATCH)) / workers
        tasks_per_s = workers / (max(batch, DEFAULT_BATCH) * scan_cost)
        cost = workers * seconds / 3600 * args.price
        print(f"  {workers:4} workers: {seconds / 3600:6.2f} h wall, ${cost:7.2f}, "
              f"{tasks_per_s:6.0f} tasks/s at the scheduler")  # fmt: skip


if __name__ == "__main__":
    main()
