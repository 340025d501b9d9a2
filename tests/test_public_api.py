"""The scanning entry points are exported from the package, and loaded only when used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import hwpscan
from hwpscan.models import FileResult, Format, Status
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5


def test_importing_the_package_does_not_load_the_scanner() -> None:
    code = (
        "import sys, hwpscan; "
        "print('hwpscan.scanning.one_file' in sys.modules, 'hwpscan.formats' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_the_entry_points_are_in_all_and_scan_real_bytes(tmp_path: Path) -> None:
    for name in ("scan_file", "scan_bytes", "scan_paths", "read_document"):
        assert name in hwpscan.__all__
    data = build_hwp5(["보도자료 \ud83d 끝"])
    doc = hwpscan.read_document(data)
    assert doc.format is Format.HWP5
    row = hwpscan.scan_bytes(data, path="a.hwp")
    assert isinstance(row, FileResult) and row.status is Status.CONTAMINATED
    (tmp_path / "a.hwp").write_bytes(data)
    (tmp_path / "b.hwp").write_bytes(build_hwp5(["깨끗한 문서"]))
    assert hwpscan.scan_file(tmp_path / "a.hwp").status is Status.CONTAMINATED
    rows = {
        Path(r.path).name: r.status for r in hwpscan.scan_paths(sorted(tmp_path.iterdir()), jobs=1)
    }
    assert rows == {"a.hwp": Status.CONTAMINATED, "b.hwp": Status.CLEAN}
