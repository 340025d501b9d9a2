"""The example extractors do what ``verify --expect fixed`` is tried with: the broken one
prints a Hancom character as two lone surrogates, as the incident's parser did; the fixed
one prints the character, and keeps a document's own lone half. Both run as the
commands a pipeline would call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hwpscan.examples._hwp5 import units_to_text
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx

PUA = chr(0xF02B1)  # stored in PARA_TEXT as the pair DB80 DEB1


def _printed(name: str, path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", f"hwpscan.examples.{name}", str(path)],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def hwp5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("examples") / "release.hwp"
    path.write_bytes(build_hwp5([f"{PUA} 본문\t끝", "둘째 \udc00 줄"]))
    return path


def test_the_broken_extractor_splits_the_pair(hwp5: Path) -> None:
    assert _printed("broken_extractor", hwp5) == "\udb80\udeb1 본문\t끝\n둘째 \udc00 줄\n"


def test_the_fixed_extractor_gives_the_character_and_keeps_a_lone_half(hwp5: Path) -> None:
    assert _printed("fixed_extractor", hwp5) == f"{PUA} 본문\t끝\n둘째 \udc00 줄\n"


def test_both_read_hwpx_through_the_scanner_alike(tmp_path: Path) -> None:
    path = tmp_path / "release.hwpx"
    path.write_bytes(build_hwpx([f"{PUA} 본문"]))
    assert _printed("broken_extractor", path) == _printed("fixed_extractor", path) == f"{PUA} 본문"


def test_controls_are_taken_out_and_the_character_ones_kept() -> None:
    wide = "\x0b" + "x" * 7  # an 8-unit control: its parameters are not text
    tab = "\t" + "x" * 7  # 8 units too, and it stands for a tab
    assert units_to_text(f"a{wide}b{tab}c\rd\x18e") == "ab\tc\nd-e"


def test_without_a_file_it_says_how_to_call_it() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan.examples.fixed_extractor"], capture_output=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr == b"usage: python -m hwpscan.examples.NAME FILE\n"
