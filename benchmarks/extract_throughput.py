"""extract() beside unhwp on the same files, and what the stream guard costs per chunk.

    python benchmarks/extract_throughput.py [--files 500] [--repeat 3] [--chunks 200000]
        [--corpus benchmarks/out/corpus] [--side benchmarks/out/side]

Uses (or generates once) the corpus of benchmarks/scan_throughput.py: press-release-like
HWP 5 files with Hancom private use in one in three, and HWPX and PDF files of the same
stories. On a sample of ``--files`` files per format it times, in one process and
interleaved (so a shared machine's drift hits both alike), best of ``--repeat``:

- ``hwpscan.extract``: a file's repaired text and its receipt (defects counted);
- ``unhwp.extract_text`` (Rust; ``pip install hwpscan[bench]``), which reads no PDF.

Figures are files per CPU second of the process. Target: extract at least 1.0x unhwp on
HWP 5 and on HWPX.

Then the guard: ``--chunks`` clean Korean deltas (about 20 characters each, as an LLM
streams them) and as many SSE-style dict events, consumed through a bare generator and
through :func:`hwpscan.guard_stream` (sync and async); the difference per chunk is the
guard's cost, in nanoseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scan_throughput import build_corpus, build_side_corpus  # noqa: E402

import hwpscan  # noqa: E402


def _sample(folder: Path, pattern: str, n: int) -> list[Path]:
    files = sorted(folder.rglob(pattern))
    random.Random(37).shuffle(files)
    return files[:n]


def _cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def _with_hwpscan(files: list[Path]) -> Callable[[], object]:
    def run() -> None:
        for path in files:
            hwpscan.extract(path)

    return run


def _with_unhwp(files: list[Path]) -> Callable[[], object] | None:
    try:
        import unhwp
    except ImportError:
        return None

    def run() -> None:
        for path in files:
            unhwp.extract_text(str(path))

    return run


def files_per_second(files: list[Path], repeat: int) -> tuple[float, float | None]:
    ours, theirs = _with_hwpscan(files), _with_unhwp(files)
    ours()  # warm: imports, caches, the page cache
    if theirs is not None:
        theirs()
    best_ours = best_theirs = float("inf")
    for _ in range(repeat):
        best_ours = min(best_ours, _cpu(ours))
        if theirs is not None:
            best_theirs = min(best_theirs, _cpu(theirs))
    rate = len(files) / best_ours
    return rate, (len(files) / best_theirs if theirs is not None else None)


def _deltas(n: int) -> list[str]:
    words = [
        "금융감독원은",
        "오늘",
        "불법사금융",
        "소비자경보를",
        "발령하고",
        "피해",
        "예방",
        "요령을",
        "안내했다",
    ]
    rng = random.Random(1)
    return [" ".join(rng.choices(words, k=3)) + " " for _ in range(n)]


def _bare(items: list[Any]) -> Iterator[Any]:
    yield from items


async def _abare(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def _consume(stream: Iterator[Any]) -> None:
    for _ in stream:
        pass


async def _aconsume(stream: AsyncIterator[Any]) -> None:
    async for _ in stream:
        pass


def guard_cost(items: list[Any], repeat: int) -> tuple[float, float, float, float]:
    """ns per item: bare sync, guarded sync, bare async, guarded async (best of repeat)."""
    n = len(items)
    best = [float("inf")] * 4
    for _ in range(repeat):
        runs = (
            lambda: _consume(_bare(items)),
            lambda: _consume(hwpscan.guard_stream(_bare(items))),
            lambda: asyncio.run(_aconsume(_abare(items))),
            lambda: asyncio.run(_aconsume(hwpscan.guard_stream(_abare(items)))),
        )
        for i, run in enumerate(runs):
            best[i] = min(best[i], _cpu(run))
    a, b, c, d = (t / n * 1e9 for t in best)
    return a, b, c, d


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--corpus", type=Path, default=HERE / "out" / "corpus")
    parser.add_argument("--side", type=Path, default=HERE / "out" / "side")
    args = parser.parse_args(argv)
    build_corpus(args.corpus, max(args.files, 1000))
    build_side_corpus(args.side, max(args.files, 200))
    print(f"{'format':8s}{'files':>7s}{'extract/s':>12s}{'unhwp/s':>12s}{'ratio':>8s}")
    for name, folder, pattern in (
        ("hwp5", args.corpus, "*.hwp"),
        ("hwpx", args.side / "hwpx", "*.hwpx"),
        ("pdf", args.side / "pdf", "*.pdf"),
    ):
        files = _sample(folder, pattern, args.files)
        if name == "pdf":  # unhwp reads no PDF: extract alone
            rate = len(files) / min(_cpu(_with_hwpscan(files)) for _ in range(args.repeat))
            print(f"{name:8s}{len(files):7d}{rate:12,.0f}{'n/a':>12s}{'':>8s}")
            continue
        ours, theirs = files_per_second(files, args.repeat)
        shown = f"{theirs:12,.0f}{ours / theirs:7.2f}x" if theirs else f"{'n/a':>12s}"
        print(f"{name:8s}{len(files):7d}{ours:12,.0f}{shown}")
    deltas = _deltas(args.chunks)
    events = [{"event": "delta", "data": d} for d in deltas]
    print(f"\nguard cost per clean item, ns (best of {args.repeat}, {args.chunks:,} items)")
    print(
        f"{'items':16s}{'bare':>8s}{'guarded':>9s}{'cost':>8s}{'bare/a':>9s}{'guard/a':>9s}{'cost/a':>8s}"
    )
    for label, items in (("str deltas", deltas), ("dict events", events)):
        a, b, c, d = guard_cost(items, args.repeat)  # type: ignore[arg-type]
        print(f"{label:16s}{a:8.0f}{b:9.0f}{b - a:8.0f}{c:9.0f}{d:9.0f}{d - c:8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
