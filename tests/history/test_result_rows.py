"""A run's rows are read back from the run store (or a temporary database) exactly as
they were, wherever the store they went to failed."""

from __future__ import annotations

import pickle
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from hwpscan.history.recording import Recording, recorded_run
from hwpscan.history.records import RunArgs
from hwpscan.history.store import RunStore
from hwpscan.history.stored_rows import StoredRows, row_lines
from hwpscan.models import FileResult
from hwpscan.rowcodec import encode_row
from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.one_file import scan_file
from hwpscan.scanning.row_handoff import Row
from hwpscan.usecases.run_scan import ScanSettings, scan

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture(scope="module")
def fixture_rows() -> list[FileResult]:
    """Every fixture's row (every status, contaminated ones with locations), indexed
    backwards so the input order is not the order they were added in."""
    files = collect_files([FIXTURES])
    return [replace(scan_file(p), index=len(files) - i) for i, p in enumerate(files)]


def _check(rows: StoredRows, fixture_rows: list[FileResult]) -> None:
    assert len(rows) == len(fixture_rows)
    assert list(rows) == fixture_rows  # every field, seconds included
    assert rows[-1] == fixture_rows[-1] and rows[7] == fixture_rows[7]
    assert rows[3:9] == fixture_rows[3:9] and rows[::7] == fixture_rows[::7]
    with pytest.raises(IndexError):
        rows[len(fixture_rows)]
    ordered = sorted(fixture_rows, key=lambda r: r.index or 0)
    assert list(rows.in_input_order()) == ordered
    assert list(row_lines(rows)) == [encode_row(r) for r in fixture_rows]
    assert list(row_lines(rows.in_input_order())) == [encode_row(r) for r in ordered]
    assert list(row_lines(ordered)) == [encode_row(r) for r in ordered]  # a plain list too


def test_rows_not_recorded_come_back_from_a_temporary_database(
    fixture_rows: list[FileResult],
) -> None:
    record = Recording(None)
    for n, result in enumerate(fixture_rows):
        made = Row.of(result)
        if n % 2:  # as the pool gives it: the result and the line's bytes
            made = pickle.loads(pickle.dumps(Row.sent(result)))
            assert made.has_line
        record(made)
        assert record.results[n] == result  # readable at once: what is pending is written
    record.flush()
    _check(record.results, fixture_rows)
    assert record.run_id is None and record.warnings == []


def test_recorded_rows_come_back_from_the_run_store(
    tmp_path: Path, fixture_rows: list[FileResult]
) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        with recorded_run("scan", RunArgs(options={"paths": ["x"]}), store=store) as record:
            record.take([Row.of(r) for r in fixture_rows])
        assert record.results.run_ids == [record.run_id]  # no other store was needed
        stored = store.load_run(record.run_id or "")
        _check(record.results, fixture_rows)
    assert [encode_row(r) for r in stored.results] == [encode_row(r) for r in fixture_rows]


def test_rows_go_to_a_temporary_database_when_the_history_fails_midway(
    tmp_path: Path, fixture_rows: list[FileResult]
) -> None:
    """Another process holds the store's write lock after the first rows were written:
    the rows that follow (and the batch that could not be written) go to a temporary
    database, and every row reads back in its place."""
    path = tmp_path / "runs.sqlite"
    warned: list[str] = []
    with RunStore(path, timeout=0.2) as store:
        with recorded_run("scan", RunArgs(), store=store, on_warning=warned.append) as record:
            record.take([Row.of(r) for r in fixture_rows[:10]])
            record.flush()  # these reach the history
            holder = sqlite3.connect(path, isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")  # and now nothing more does
            try:
                for result in fixture_rows[10:]:
                    record(result)
                record.flush()
            finally:
                holder.execute("ROLLBACK")
                holder.close()
        assert len(record.results.run_ids) == 2 and warned and "busy" in warned[0]
        assert len(store.load_run(record.results.run_ids[0]).results) == 10
        _check(record.results, fixture_rows)


def test_a_temporary_database_in_memory_holds_rows_too(fixture_rows: list[FileResult]) -> None:
    store = RunStore.temporary(in_memory=True)
    rows = StoredRows()
    rows.stored_in(store, store.start_run("scan", {}))
    rows.extend(fixture_rows)
    store.add_results(rows.run_ids[0], fixture_rows)
    _check(rows, fixture_rows)
    store.close()


def test_a_scan_recorded_or_not_gives_the_same_rows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path))
    settings = ScanSettings(paths=(FIXTURES,), jobs=2, fail_on=("contaminated",))
    recorded = scan(settings)
    unrecorded = scan(replace(settings, record=False))
    assert recorded.run_id is not None and unrecorded.run_id is None
    strip = [replace(r, seconds=0.0) for r in recorded.results]
    assert [replace(r, seconds=0.0) for r in unrecorded.results] == strip
    assert [r.index for r in unrecorded.results] == list(range(len(strip)))
    assert all(r.seconds > 0 for r in unrecorded.results)  # the one field a line lacks
    assert unrecorded.exit_code == recorded.exit_code
