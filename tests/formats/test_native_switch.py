"""``HWPSCAN_PURE_PYTHON`` turns the native readers off, a package built without a
compiler reads the same, and a scan says the same either way.

Each side runs in its own process, as the switch is read when the modules load. The
switch test is skipped where the package was installed without a compiler (then there is
only one way).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hwpscan.formats.fast_readers import PURE_PYTHON_ENV

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
#: Every slot a reader consults for its native reader.
_SLOTS = """
import json
from hwpscan.formats import fast_readers, hwp5
slots = [hwp5._NATIVE_DOCUMENT, fast_readers.read_hwp5, fast_readers.hwpx_package]
print(json.dumps({"active": fast_readers.ACTIVE, "set": [s is not None for s in slots]}))
"""


def _env(pure: bool, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON_ENV}
    env["HWPSCAN_HOME"] = str(home)
    if pure:
        env[PURE_PYTHON_ENV] = "1"
    return env


@pytest.mark.parametrize("pure", [False, True])
def test_the_switch_decides_every_native_slot(pure: bool, tmp_path: Path) -> None:
    pytest.importorskip("hwpscan.formats._readers")
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
    assert got["set"] == [not pure] * 3


def _scan(env: dict[str, str], out: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", str(FIXTURES), "--format", "jsonl",
         "--output", str(out), "--jobs", "1", "--sort", "input", "--no-progress"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_scan_writes_the_same_lines_with_and_without_the_native_code(tmp_path: Path) -> None:
    native, pure = (
        _scan(_env(pure, tmp_path / f"home-{pure}"), tmp_path / f"pure-{pure}.jsonl")
        for pure in (False, True)
    )
    assert native.count("\n") > 50 and '"contaminated"' in native
    assert native == pure


@pytest.mark.slow
def test_a_package_built_without_a_compiler_reads_the_same(tmp_path: Path) -> None:
    """The wheel built where the compiler fails (``CC=false``) holds no extension
    module, and a scan from it (the dependencies from this environment) writes the very
    lines a scan with the native readers writes."""
    tree = tmp_path / "tree"  # a clean copy: no build/ folder or built module to reuse
    skip = shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
    shutil.copytree(ROOT / "src", tree / "src", ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    env = {**os.environ, "CC": "false", "LDSHARED": "false"}
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path / "wheel"), str(tree)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "wheel").glob("hwpscan-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert not [n for n in archive.namelist() if n.endswith((".so", ".pyd"))]
        archive.extractall(tmp_path / "pure")
    pure_env = _env(False, tmp_path / "home-pure")
    pure_env["PYTHONPATH"] = str(tmp_path / "pure")
    probe = "import hwpscan, hwpscan.formats.fast_readers as f; print(hwpscan.__file__, f.ACTIVE)"
    where = subprocess.run(
        [sys.executable, "-c", probe], env=pure_env, capture_output=True, text=True, check=True
    ).stdout
    assert where.startswith(str(tmp_path / "pure")) and where.split()[-1] == "False"
    pure = _scan(pure_env, tmp_path / "pure.jsonl")
    native = _scan(_env(False, tmp_path / "home-native"), tmp_path / "native.jsonl")
    assert native.count("\n") > 50 and native == pure
