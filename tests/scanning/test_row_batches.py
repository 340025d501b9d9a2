"""Rows taken a batch at a time (a worker's message) end where rows taken one by one do.

The pool hands the run record and the output each worker's message whole, so their
per-row steps run once per batch; every test here takes the same rows both ways and
requires the same rows kept, stored, written and counted.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from hwpscan.cli.scan_view import TerminalObserver
from hwpscan.history.recording import Recording, recorded_run
from hwpscan.history.records import RunArgs
from hwpscan.history.store import RunStore
from hwpscan.history.stored_rows import row_lines
from hwpscan.models import FileResult
from hwpscan.report.export import jsonl_bytes_sink
from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.many_files import PoolSettings, scan_row_batches, scan_rows
from hwpscan.scanning.one_file import scan_file
from hwpscan.scanning.row_handoff import Row

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(scope="module")
def fixture_rows() -> list[FileResult]:
    """Every fixture's row, indexed backwards (input order is not the order added)."""
    files = collect_files([FIXTURES])
    return [replace(scan_file(p), index=len(files) - i) for i, p in enumerate(files)]


def _batches(rows: list[FileResult], size: int) -> list[list[Row]]:
    made = [Row.of(r) for r in rows]
    return [made[i : i + size] for i in range(0, len(made), size)]


@pytest.mark.parametrize("size", [1, 3, 32])
def test_extend_keeps_what_append_keeps(fixture_rows: list[FileResult], size: int) -> None:
    one, many = Recording(None), Recording(None)
    for row in fixture_rows:
        one(row)
    for batch in _batches(fixture_rows, size):
        many.take(batch)
    assert list(many.results) == list(one.results) == fixture_rows  # every field, seconds too
    assert list(many.results.in_input_order()) == list(one.results.in_input_order())
    lines = list(row_lines(many.results.in_input_order()))
    assert lines == list(row_lines(one.results.in_input_order()))
    assert many.results.statuses == one.results.statuses
    assert many.results.masks == one.results.masks


def test_take_records_what_calls_record(tmp_path: Path, fixture_rows: list[FileResult]) -> None:
    seen_one: list[str] = []
    seen_batches: list[int] = []
    seen_many: list[str] = []
    with RunStore(tmp_path / "runs.sqlite") as store:
        with recorded_run(
            "scan",
            RunArgs(options={"paths": ["x"]}),
            store=store,
            also_row=lambda r: seen_one.append(r.path),
        ) as one:
            for row in fixture_rows:
                one(row)

        def batch(rows: list[Row]) -> None:
            seen_batches.append(len(rows))
            seen_many.extend(r.path for r in rows)

        with recorded_run(
            "scan", RunArgs(options={"paths": ["x"]}), store=store, also_rows=batch
        ) as many:
            for rows in _batches(fixture_rows, 5):
                many.take(rows)
        assert one.run_id and many.run_id
        stored_one, stored_many = store.load_run(one.run_id), store.load_run(many.run_id)
    assert stored_many.results == stored_one.results
    assert [r.path for r in stored_many.results] == [r.path for r in fixture_rows]
    assert list(many.results) == list(one.results) == fixture_rows
    assert seen_many == seen_one == [r.path for r in fixture_rows]
    assert seen_batches == [len(b) for b in _batches(fixture_rows, 5)]


def test_take_without_a_batch_observer_shows_each_row(fixture_rows: list[FileResult]) -> None:
    shown: list[FileResult] = []
    record = Recording(None, also=shown.append)
    for rows in _batches(fixture_rows, 4):
        record.take(rows)
    assert shown == fixture_rows and list(record.results) == fixture_rows


def test_a_batch_is_written_as_its_rows_are(fixture_rows: list[FileResult]) -> None:
    def written(by_batch: bool) -> bytes:
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
        observer = TerminalObserver(progress=False, lines=jsonl_bytes_sink(out))
        for rows in _batches(fixture_rows, 6):
            if by_batch:
                observer.rows(rows)
            else:
                for row in rows:
                    observer.row(row)
        return out.buffer.getvalue()  # type: ignore[attr-defined,no-any-return]

    assert written(True) == written(False)
    assert written(True).count(b"\n") == len(fixture_rows)


@pytest.mark.parametrize("ordered", [True, False])
def test_batches_are_the_rows_of_the_pool(ordered: bool) -> None:
    files = [str(p) for p in collect_files([FIXTURES])]
    settings = PoolSettings(jobs=2, ordered=ordered)
    batches = list(scan_row_batches(files, settings))
    assert all(batches)  # never an empty batch
    flat = [row for batch in batches for row in batch]
    assert sorted(r.index for r in flat if r.index is not None) == list(range(len(files)))
    by_index = {r.index: r.line for r in scan_rows(files, settings)}
    assert {r.index: r.line for r in flat} == by_index
    if ordered:
        assert [r.index for r in flat] == list(range(len(files)))
