"""Throughput of the HWP 5 reader alone (``read_ole`` on bytes in memory), one core.

    python benchmarks/hwp5_read.py [--files 100] [--rounds 7]

Two corpora, built in memory with our writer:

- ``release``: press-release-like files of 20-50 KB (text, a table, a footnote, PUA
  bullets in one file in three, and a 12-36 KB incompressible image stream), as
  ``benchmarks/scan_throughput.py`` builds them;
- ``text-heavy``: 20-50 KB of compressed text only (hundreds of paragraphs per file),
  the worst case per kilobyte.

For each: files/s for ``read_ole``, the floor of olefile opening the file and reading
its four streams, and a 1M-iteration Python loop as a reference for the machine's
speed (CPU time, best of the rounds; compare figures across machines through it).
"""

from __future__ import annotations

import argparse
import io
import random
import time
from collections.abc import Callable

import olefile

from hwpscan.formats.hwp5 import read_ole
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import Block, Footnote, Table, build_hwp5, hwp5_streams
from hwpscan.rehearsal.synth.press import STORIES, render


def release_corpus(count: int) -> list[bytes]:
    rng = random.Random(5000)
    files = []
    for i in range(count):
        story = STORIES[i % len(STORIES)]
        pua = i % 3 == 0
        paras = [render(p, pua=pua) for p in (*story.lead, *story.body)]
        body: list[Block] = []
        for _ in range(rng.randint(4, 9)):
            body.extend(paras)
        body.append(Table([[render(c, pua=pua) for c in row] for row in story.table]))
        body.append(Footnote(render(story.note, pua=pua), anchor="주"))
        streams = hwp5_streams(body)
        streams["BinData/BIN0001.png"] = rng.randbytes(rng.randint(12_000, 36_000))
        files.append(write_cfb(streams))
    return files


def text_heavy_corpus(count: int) -> list[bytes]:
    rng = random.Random(1)
    syllables = [chr(c) for c in range(0xAC00, 0xD7A4, 7)]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(400)]
    files = []
    for _ in range(count):
        target = rng.randint(20_000, 50_000)
        blocks: list[Block] = []
        data = b""
        while len(data) < target:
            for _ in range(40):
                para = " ".join(rng.choice(words) for _ in range(rng.randint(5, 30)))
                blocks.append(chr(0xF02B1) + " " + para if rng.random() < 0.1 else para)
            blocks.append(Table([[rng.choice(words) for _ in range(4)] for _ in range(5)]))
            data = build_hwp5(blocks)
        files.append(data)
    return files


def olefile_floor(data: bytes) -> None:
    ole = olefile.OleFileIO(io.BytesIO(data))
    for path in ("FileHeader", "PrvText", "DocInfo", "BodyText/Section0"):
        ole.openstream(path).read()
    ole.close()


def files_per_second(files: list[bytes], fn: Callable[[bytes], object], rounds: int) -> float:
    best = 0.0
    for _ in range(rounds):
        start = time.process_time()
        for data in files:
            fn(data)
        best = max(best, len(files) / (time.process_time() - start))
    return best


def reference_loop_ms() -> float:
    start = time.process_time()
    total = 0
    for i in range(1_000_000):
        total += i
    return (time.process_time() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for name, build in (("release", release_corpus), ("text-heavy", text_heavy_corpus)):
        files = build(args.files)
        size = sum(map(len, files)) / len(files)
        paragraphs = sum((read_ole(f).info.paragraphs or 0) for f in files) / len(files)
        ref = reference_loop_ms()
        rate = files_per_second(files, read_ole, args.rounds)
        floor = files_per_second(files, olefile_floor, args.rounds)
        print(
            f"{name:>10}: {len(files)} files, {size / 1024:.1f} KB, {paragraphs:.0f} paragraphs"
            f" each | read_ole {rate:,.0f} files/s ({rate * size / 2**20:.1f} MB/s)"
            f" | olefile open + 4 reads {floor:,.0f} files/s | 1M-loop {ref:.0f} ms"
        )


if __name__ == "__main__":
    main()
