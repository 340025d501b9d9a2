"""Rows past the first ones go to a temporary file and come back exactly as they were."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hwpscan.models import FileResult
from hwpscan.report.export import jsonl_line
from hwpscan.runs import rows as rows_module
from hwpscan.runs.rows import ResultRows, row_lines
from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.one_file import scan_file
from hwpscan.scanning.row_handoff import Row
from hwpscan.usecases.scan import ScanSettings, scan

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(scope="module")
def fixture_rows() -> list[FileResult]:
    """Every fixture's row (every status, contaminated ones with locations), indexed
    backwards so the input order is not the order they were added in."""
    files = collect_files([FIXTURES])
    return [replace(scan_file(p), index=len(files) - i) for i, p in enumerate(files)]


def test_spilled_rows_are_the_rows(fixture_rows: list[FileResult]) -> None:
    rows = ResultRows(keep=5)
    for row in fixture_rows:
        rows.append(row)
    assert rows.spilled == len(fixture_rows) - 5
    assert list(rows) == fixture_rows  # every field, seconds included
    assert rows[-1] == fixture_rows[-1] and rows[7] == fixture_rows[7]
    assert rows[3:9] == fixture_rows[3:9] and rows[::7] == fixture_rows[::7]
    with pytest.raises(IndexError):
        rows[len(fixture_rows)]
    ordered = rows.in_input_order()
    assert list(ordered) == sorted(fixture_rows, key=lambda r: r.index or 0)
    assert ordered[0].index == 1 and ordered[-1] == fixture_rows[0]
    assert ordered[1:3] == list(ordered)[1:3]
    rows.close()
    with pytest.raises(ValueError, match="closed"):
        rows[6]
    assert rows[4] == fixture_rows[4]  # the rows kept in memory stay readable


def test_a_full_disk_keeps_the_rows_in_memory(
    fixture_rows: list[FileResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(**kwargs: Any) -> Any:  # every write to /dev/full fails with ENOSPC
        return open("/dev/full", "r+b", buffering=kwargs.get("buffering", -1))

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    monkeypatch.setattr(tempfile, "TemporaryFile", full)
    rows = ResultRows(keep=2)
    for row in fixture_rows:
        rows.append(row)
    assert rows.spilled == 0
    assert list(rows) == fixture_rows


def test_a_scan_past_the_memory_window_gives_the_same_outcome(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path))
    settings = ScanSettings(paths=(FIXTURES,), jobs=2, fail_on=("contaminated",))
    whole = scan(settings)
    monkeypatch.setattr(rows_module, "KEEP_IN_MEMORY", 4)
    spilled = scan(settings)
    assert spilled.results._rows.spilled == len(whole.results) - 4  # type: ignore[attr-defined]
    strip = [replace(r, seconds=0.0) for r in whole.results]
    assert [replace(r, seconds=0.0) for r in spilled.results] == strip
    assert [r.index for r in spilled.results] == list(range(len(strip)))
    assert spilled.exit_code == whole.exit_code


def test_a_disk_that_fills_up_midway_brings_the_spilled_rows_back(
    fixture_rows: list[FileResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file may grow to 24 KB (RLIMIT_FSIZE; the signal ignored, a write past it
    fails with EFBIG): blocks of 4 KB are written, then one fails part way, and every row
    (those in the file, those in the block that failed) is read back into memory."""
    resource = pytest.importorskip("resource")
    signal = pytest.importorskip("signal")
    monkeypatch.setattr(rows_module, "SPILL_BLOCK", 4096)  # well under the file's limit
    rows = ResultRows(keep=2)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (24 * 1024, hard))
    try:
        spilled, on_disk = [], []
        for row in fixture_rows:
            rows.append(row)
            spilled.append(rows.spilled)
            on_disk.append(rows._end - len(rows._block))  # bytes written to the file
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
    assert max(on_disk) > 0 and max(spilled) > 2  # some went to disk, more were waiting
    assert rows.spilled == 0  # then all came back
    assert list(rows) == fixture_rows
    assert list(rows.in_input_order()) == sorted(fixture_rows, key=lambda r: r.index or 0)
    assert list(row_lines(rows)) == [jsonl_line(r) for r in fixture_rows]


def test_the_lines_kept_with_spilled_rows_are_their_json_lines(
    fixture_rows: list[FileResult],
) -> None:
    """Rows of every kind, some made by a worker (with the line it made), some as
    results: the lines read back are the lines of the rows, in either order."""
    rows = ResultRows(keep=3)
    for n, result in enumerate(fixture_rows):
        made = Row.of(result)
        if n % 2:  # as the pool gives it: bytes and line, no result
            made = Row(made.index, made.path, made.date, made.format, made.status,
                       blob=made.blob, line=jsonl_line(result))  # fmt: skip
        rows.append(made)
    assert rows.spilled == len(fixture_rows) - 3
    assert list(row_lines(rows)) == [jsonl_line(r) for r in fixture_rows]
    ordered = sorted(fixture_rows, key=lambda r: r.index or 0)
    assert list(row_lines(rows.in_input_order())) == [jsonl_line(r) for r in ordered]
    assert list(rows.in_input_order()) == ordered
    assert list(row_lines(ordered)) == [jsonl_line(r) for r in ordered]  # a plain list too
    rows.close()


@pytest.mark.parametrize("block", [1, 6000, rows_module.SPILL_BLOCK])
def test_rows_read_while_others_are_spilled_come_back_whole(
    fixture_rows: list[FileResult], monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Rows are read back between appends: from the block not yet written, from the
    file, and across the block's writes (each write goes at the file's end, wherever a
    read left the file's position)."""
    monkeypatch.setattr(rows_module, "SPILL_BLOCK", block)
    rows = ResultRows(keep=2)
    for n, result in enumerate(fixture_rows):
        rows.append(result)
        assert rows[n] == result and rows._line(n) == jsonl_line(result)
        if n >= 3:  # an earlier one, likely already written
            assert rows[n // 2] == fixture_rows[n // 2]
    assert rows.spilled == len(fixture_rows) - 2
    assert list(rows) == fixture_rows
    assert list(row_lines(rows)) == [jsonl_line(r) for r in fixture_rows]
    rows.close()
    with pytest.raises(ValueError, match="closed"):
        rows[len(fixture_rows) - 1]
