"""Two scans of the same files give the same rows, byte for byte: no reason or warning
holds a memory address or anything else that changes from run to run.

The sample is hostile: PDFs whose references point at the wrong or missing objects
(pypdf then writes ``IndirectObject(n, g, <id of its reader>)`` into its messages), and
seeded byte mutants of all three formats. Each scan runs in its own process, so an
address would differ between them.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import PdfExtras, build_pdf

PDF_SEEDS = [
    build_pdf([["보도자료", "둘째 줄"], ["둘째 쪽"]]),
    build_pdf([["본문"]], extras=PdfExtras(annotations={0: ("메모",)}, fields=(("f", "값"),))),
]
OTHER_SEEDS = [build_hwp5(["보도자료", "끝"]), build_hwpx(["첫 문단", [["가", "나"]]])]
_REF = re.compile(rb"\d+ 0 R")
#: What a memory address looks like in a library's message.
ADDRESS = re.compile(r"IndirectObject\(\d+, \d+, \d+\)| at 0x[0-9a-fA-F]{6,}")


def _rewired(rng: random.Random) -> bytes:
    """A PDF seed with one to three references pointed at another object number."""
    data = bytearray(rng.choice(PDF_SEEDS))
    for _ in range(rng.randint(1, 3)):
        found = rng.choice(list(_REF.finditer(data)))
        new = b"%d 0 R" % rng.randint(1, 20)
        data[found.start() : found.end()] = new.ljust(found.end() - found.start())
    return bytes(data)


def _flipped(rng: random.Random) -> bytes:
    data = bytearray(rng.choice(PDF_SEEDS + OTHER_SEEDS))
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] ^= rng.randint(1, 255)
    return bytes(data)


def _scan(folder: Path, home: Path) -> list[str]:
    argv = [sys.executable, "-m", "hwpscan", "scan", str(folder), "-f", "jsonl", "--no-progress"]
    env = {**os.environ, "HWPSCAN_HOME": str(home)}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return sorted(line for line in done.stdout.splitlines() if line.startswith("{"))


def test_two_scans_of_hostile_mutants_give_the_same_rows(tmp_path: Path) -> None:
    rng = random.Random(39)
    folder = tmp_path / "mutants"
    folder.mkdir()
    for n in range(60):
        (folder / f"rewired-{n:02d}.pdf").write_bytes(_rewired(rng))
    for n in range(40):
        (folder / f"flipped-{n:02d}.bin").write_bytes(_flipped(rng))
    first = _scan(folder, tmp_path / "home-1")
    second = _scan(folder, tmp_path / "home-2")
    assert len(first) == 100
    assert first == second
    said = [
        text
        for line in first
        for row in [json.loads(line)]
        for text in [row["reason"] or "", *row["warnings"]]
    ]
    assert any("IndirectObject(" in text for text in said)  # the sample reaches the case
    assert not [text for text in said if ADDRESS.search(text)]
