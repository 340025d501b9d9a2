"""A small dated corpus made by our generator, and its real scan results.

Shared by the store, report, diff and browser tests; the report and browser tests take
the module-scoped fixtures :func:`results` and :func:`bundle` by importing them. Dates and
formats are chosen so the pivot has contaminated, clean, mixed and unreadable cells, and one
file name
carries markup to prove every report escapes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hwpscan.models import FileResult
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.report.bundle import write_report
from hwpscan.scanning.inputs import collect_files, resolve_dates
from hwpscan.scanning.many_files import scan_paths

PAIR = chr(0xF02B1)  # stored as the pair DB80 DEB1
ORPHAN = chr(0xDC00)
HOSTILE_NAME = "<img src=x onerror=alert(1)>&보도.hwp"


def contaminated_hwp(tag: str = "") -> bytes:
    return build_hwp5(
        [f"{PAIR} 불법사금융 피해 예방 {tag}", "표 셀 <script>alert(1)</script> " + PAIR]
    )


def orphan_hwp() -> bytes:
    return build_hwp5(["고아 " + ORPHAN + " 끝", "『" + PAIR + "』"], compressed=False)


def clean_hwp(tag: str = "") -> bytes:
    return build_hwp5([f"□ 깨끗한 본문 {tag}", "「참고」 문의: 공보실"])


def build_corpus(root: Path) -> Path:
    """Write the corpus below *root* and return it.

    ======== =============================== ===========================
    date     hwp5                            others
    ======== =============================== ===========================
    07-21    2 contaminated (one hostile name) hwpx clean, pdf clean
    07-22    1 contaminated (orphan), 1 clean  pdf clean
    07-23    1 clean                           hwpx clean
    07-24    1 corrupt (truncated)             pdf clean
    ======== =============================== ===========================
    """
    files = {
        "2025-07-21/a-press.hwp": contaminated_hwp("a"),
        f"2025-07-21/{HOSTILE_NAME}": contaminated_hwp("b"),
        "2025-07-21/a-press.hwpx": build_hwpx(["□ 본문 " + PAIR]),
        "2025-07-21/a-press.pdf": build_pdf([["보도자료 본문"]]),
        "2025-07-22/b-orphan.hwp": orphan_hwp(),
        "2025-07-22/b-clean.hwp": clean_hwp("b"),
        "2025-07-22/b.pdf": build_pdf([["본문 둘"]]),
        "2025-07-23/c.hwp": clean_hwp("c"),
        "2025-07-23/c.hwpx": build_hwpx(["본문 셋"]),
        "2025-07-24/d-truncated.hwp": clean_hwp("d")[:1500],
        "2025-07-24/d.pdf": build_pdf([["본문 넷"]]),
    }
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def scan_folder(root: Path) -> list[FileResult]:
    """Real scan results for every file below *root* (one process)."""
    paths = collect_files([root])
    return list(scan_paths(paths, jobs=1, dates=resolve_dates(paths)))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[FileResult]:
    """The corpus's scan results, made once per test module."""
    return scan_folder(build_corpus(tmp_path_factory.mktemp("corpus")))


@pytest.fixture(scope="module")
def bundle(results: list[FileResult], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report bundle (``report.html`` and friends) written from :func:`results`."""
    out = tmp_path_factory.mktemp("report")
    write_report(results, out)
    return out
