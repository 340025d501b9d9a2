"""CPU per row of the row codec: a result's JSON line, and the row read back from it.

    python benchmarks/row_codec.py [FOLDER ...] [--files 1500]

Scans up to *--files* documents of the folders (default: ``fixtures``) once, then times
:func:`hwpscan.rowcodec.encode_row` and :func:`~hwpscan.rowcodec.decode_row` over their
rows, apart for rows with located defects (a contaminated file: twenty-odd locations
with their context) and rows without. Each figure is the best of nine passes of process
CPU time, so a loaded machine moves it less than wall time would.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from hwpscan.rowcodec import decode_row, encode_row
from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.one_file import scan_file

T = TypeVar("T")


def per_row(work: Callable[[T], object], items: Sequence[T], passes: int = 9) -> float:
    """Microseconds of CPU per item, the best of *passes*."""
    best = float("inf")
    for _ in range(passes):
        start = time.process_time()
        for item in items:
            work(item)
        best = min(best, (time.process_time() - start) / max(1, len(items)))
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[Path("fixtures")])
    parser.add_argument("--files", type=int, default=1500)
    args = parser.parse_args()
    files = collect_files(args.folders)[: args.files]
    rows = [replace(scan_file(p), index=i) for i, p in enumerate(files)]
    located = [r for r in rows if r.body.locations]
    plain = [r for r in rows if not r.body.locations]
    lines = [encode_row(r) for r in rows]
    mean = sum(len(r.body.locations) for r in located) / max(1, len(located))
    print(f"{len(rows)} rows, {len(located)} with locations (mean {mean:.1f})")
    print(f"encode, every row:       {per_row(encode_row, rows):6.2f} us/row")
    print(f"encode, with locations:  {per_row(encode_row, located):6.2f} us/row")
    print(f"encode, without:         {per_row(encode_row, plain):6.2f} us/row")
    print(f"decode, every row:       {per_row(decode_row, lines):6.2f} us/row")


if __name__ == "__main__":
    main()
