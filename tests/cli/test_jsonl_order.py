"""``scan --format jsonl/csv`` rows in input order, the same on every run, with a
bounded number held back (:mod:`hwpscan.cli.input_order`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.cli.input_order import InputOrder
from hwpscan.models import FileResult, Format, Status
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.rowcodec import encode_row
from hwpscan.scanning.row_handoff import Row

runner = CliRunner()


def _results(n: int) -> list[FileResult]:
    return [FileResult(f"{i:03}.pdf", "", i, Format.PDF, Status.CLEAN, index=i) for i in range(n)]


def test_rows_that_come_early_wait_for_the_earlier_ones() -> None:
    results = _results(6)
    got: list[bytes] = []
    order = InputOrder(lines=got.append)
    for batch in ([1, 2], [0], [5, 3], [4]):
        order.take([Row.of(results[i], i) for i in batch])
    lines = b"\n".join(got).decode().split("\n")
    assert lines == [encode_row(r) for r in results]
    order.finish(results)  # nothing left to write
    assert len(b"\n".join(got).split(b"\n")) == 6


def test_past_the_bound_the_rest_is_written_at_the_end_in_input_order() -> None:
    results = _results(50)
    got: list[bytes] = []
    order = InputOrder(lines=got.append, held_rows=3)
    order.take([Row.of(results[0], 0)])
    # file 1 is slow: the rows after it pile up past the bound
    order.take([Row.of(results[i], i) for i in range(2, 50)])
    assert order.deferred and order.written == 1
    order.take([Row.of(results[1], 1)])  # arrives late: nothing written while deferred
    order.finish(results)
    lines = b"\n".join(got).decode().split("\n")
    assert lines == [encode_row(r) for r in results]


def test_csv_results_in_input_order() -> None:
    results = _results(5)
    got: list[str] = []
    order = InputOrder(results=lambda r: got.append(r.path))
    order.take([Row.of(results[i], i) for i in (4, 2, 0, 1, 3)])
    assert got == [r.path for r in results]


@pytest.fixture
def many(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(30):  # sizes differ, so files complete out of order
        if i % 2:
            (folder / f"{i:02}.pdf").write_bytes(build_pdf([["본문 " * (1 + 40 * (i % 5))]]))
        else:
            (folder / f"{i:02}.hwpx").write_bytes(build_hwpx(["문단 " * (1 + 50 * (i % 7))]))
    return folder


def test_jsonl_is_the_same_on_every_run_and_in_input_order(many: Path) -> None:
    outputs = []
    for _ in range(3):
        done = runner.invoke(app, ["scan", str(many), "-f", "jsonl", "-j", "2", "--no-progress"])
        assert done.exit_code == 0, done.output
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    rows = [json.loads(line) for line in outputs[0].splitlines()]
    assert [r["index"] for r in rows] == list(range(30))


def test_completion_order_is_still_there_when_asked_for(many: Path) -> None:
    args = ["scan", str(many), "-f", "jsonl", "-j", "2", "--sort", "completion", "--no-progress"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(r["index"] for r in rows) == list(range(30))
