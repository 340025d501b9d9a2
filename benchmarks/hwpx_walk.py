"""HWPX text: hwpscan's streaming walk against python-hwpx's extractor, by paragraphs.

python-hwpx lists every paragraph's siblings to describe its path, so its time grows
with the square of a section's paragraphs; the walk is one pass over the XML.

    python benchmarks/hwpx_walk.py                 # walk up to 200,000; python-hwpx to 4,000
    python benchmarks/hwpx_walk.py --reference-max 16000
"""

from __future__ import annotations

import argparse
import time

from hwpscan.formats.hwpx import python_hwpx_text, read_zip, walk_text
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx


def _timed(fn: object, data: bytes) -> float:
    start = time.perf_counter()
    fn(data)  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,4000,16000,200000")
    parser.add_argument("--reference-max", type=int, default=4000)
    args = parser.parse_args()
    print(f"{'paragraphs':>10} {'zip KB':>8} {'walk s':>8} {'python-hwpx s':>14} same")
    for n in (int(x) for x in args.sizes.split(",")):
        data = build_hwpx([f"문단 {i}" for i in range(n)])
        walk = _timed(read_zip, data)
        if n <= args.reference_max:
            ref = _timed(python_hwpx_text, data)
            same = str(walk_text(data) == python_hwpx_text(data))
            shown = f"{ref:14.3f}"
        else:
            shown, same = f"{'(skipped)':>14}", "-"
        print(f"{n:>10,} {len(data) / 1024:8.1f} {walk:8.3f} {shown} {same}")


if __name__ == "__main__":
    main()
