"""``HWPSCAN_PURE_PYTHON`` turns every native path off, and a scan says the same either way.

Each side runs in its own process, as the switch is read when the modules load. Skipped
where the package was installed without a compiler (then there is only one way).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hwpscan.native import PURE_PYTHON_ENV

pytest.importorskip("hwpscan.formats._records")
pytest.importorskip("hwpscan.formats._cfb")
pytest.importorskip("hwpscan.forensics._counting")
pytest.importorskip("hwpscan.formats._owpml")
pytest.importorskip("hwpscan.formats._zip")
pytest.importorskip("hwpscan.formats._hwp5plain")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
#: Every slot a reader consults for its native twin.
_SLOTS = """
import json
from hwpscan.formats import cfb_fast, hwp5, hwp5_text, native
from hwpscan.forensics import surrogates
slots = [getattr(hwp5_text, n) for n in
         ("_NATIVE_SCAN", "_NATIVE_PLAIN", "_NATIVE_RUNS", "_NATIVE_VIEW", "_NATIVE_JOIN")]
slots += [hwp5._NATIVE_SPANS, hwp5._NATIVE_PLAIN_NAMES, native.plain_hwp5,
          hwp5._NATIVE_DOCUMENT,
          cfb_fast._NATIVE_LAYOUT,
          surrogates._NATIVE_COUNTS, surrogates._NATIVE_LOCATE, surrogates._NATIVE_FIND,
          native.owpml_section, native.owpml_starts, native.zip_central, native.zip_inflate]
print(json.dumps({"active": native.ACTIVE, "set": [s is not None for s in slots]}))
"""


def _env(pure: bool, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON_ENV}
    env["HWPSCAN_HOME"] = str(home)
    if pure:
        env[PURE_PYTHON_ENV] = "1"
    return env


@pytest.mark.parametrize("pure", [False, True])
def test_the_switch_decides_every_native_slot(pure: bool, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SLOTS],
        env=_env(pure, tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["active"] is not pure
    assert got["set"] == [not pure] * 17


@pytest.mark.slow
def test_a_scan_writes_the_same_lines_with_and_without_the_native_code(tmp_path: Path) -> None:
    outputs = []
    for pure in (False, True):
        out = tmp_path / f"pure-{pure}.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES), "--format", "jsonl",
             "--output", str(out), "--jobs", "1", "--sort", "input", "--no-progress"],
            env=_env(pure, tmp_path / f"home-{pure}"), capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
        outputs.append(out.read_text(encoding="utf-8"))
    native, pure = outputs
    assert native.count("\n") > 50 and '"contaminated"' in native
    assert native == pure
