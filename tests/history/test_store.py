"""The run store: round trips, incremental persistence, ids, secrets, concurrency."""

from __future__ import annotations

import pickle
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import platformdirs
import pytest
from report_corpus import results  # noqa: F401  (module fixture)
from stored_runs import stored_run

from hwpscan.errors import RunNotFoundError, StoreError
from hwpscan.history import DB_NAME, RunRecorder, RunStore, default_store, diff_runs, load_run
from hwpscan.history.recording import recorded_run
from hwpscan.history.records import FetchFigures, RunArgs, RunSummary
from hwpscan.home import state_dir
from hwpscan.models import FileResult, Format, Status
from hwpscan.redaction import clean_args
from hwpscan.rowcodec import encode_row
from hwpscan.scanning.row_handoff import Row
from hwpscan.whole_steps import hold_stop


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    with RunStore(tmp_path / DB_NAME) as s:
        yield s


def test_results_round_trip_exactly(store: RunStore, results: list[FileResult]) -> None:
    run_id = stored_run(store, "scan", {"paths": ["fixtures"]}, results)
    run = store.load_run(run_id)
    assert [encode_row(r) for r in run.results] == [encode_row(r) for r in results]
    assert run.info.kind == "scan" and run.info.finished is not None
    assert run.info.files == len(results)
    assert run.info.contaminated == sum(r.status is Status.CONTAMINATED for r in results)
    assert run.info.unreadable == sum(not r.status.scanned for r in results)
    from hwpscan import __version__

    assert run.info.version == __version__


def test_indexed_columns_match_the_results(store: RunStore, results: list[FileResult]) -> None:
    run_id = stored_run(store, "scan", {}, results)
    with sqlite3.connect(store.path) as conn:
        rows = conn.execute(
            "SELECT path, name, date, format, status FROM results WHERE run_id = ? ORDER BY seq",
            (run_id,),
        ).fetchall()
    assert rows == [
        (r.path, Path(r.path).name, r.date, r.format.value, r.status.value) for r in results
    ]


def test_a_store_from_before_loses_its_unused_indexes_and_keeps_its_runs(
    tmp_path: Path, results: list[FileResult]
) -> None:
    path = tmp_path / DB_NAME
    with RunStore(path) as first:
        old = stored_run(first, "scan", {}, results)
    with sqlite3.connect(path) as conn:  # the indexes earlier versions made on every row
        conn.execute("CREATE INDEX results_path ON results (path)")
        conn.execute("CREATE INDEX results_run_date ON results (run_id, date)")
    conn.close()

    def indexes() -> set[str]:
        with sqlite3.connect(path) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
            found = {name for (name,) in rows}
        conn.close()
        return found

    assert {"results_path", "results_run_date"} <= indexes()
    with RunStore(path) as store:
        assert [encode_row(r) for r in store.load_run(old).results] == [
            encode_row(r) for r in results
        ]
        new = stored_run(store, "scan", {}, results[:2])
        assert len(store.load_run(new).results) == 2
    assert indexes() == {
        "runs_started",
        "sqlite_autoindex_runs_1",
        "sqlite_autoindex_results_1",
        "sqlite_autoindex_matrix_rows_1",
    }


def page_size(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    return int(size)


def test_a_new_store_has_large_pages_and_an_old_one_keeps_its_own(
    tmp_path: Path, results: list[FileResult]
) -> None:
    new = tmp_path / "new" / DB_NAME
    with RunStore(new) as store:
        stored_run(store, "scan", {}, results)
    assert page_size(new) == 32768
    old = tmp_path / "old" / DB_NAME
    old.parent.mkdir()
    with sqlite3.connect(old) as conn:  # a store made before: SQLite's default pages
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    with RunStore(old) as store:
        run = stored_run(store, "scan", {}, results)
    with RunStore(old) as store:
        assert [encode_row(r) for r in store.load_run(run).results] == [
            encode_row(r) for r in results
        ]
    assert page_size(old) == 4096


def test_a_line_given_as_bytes_is_stored_as_its_text(
    store: RunStore, results: list[FileResult]
) -> None:
    rows = [Row.of(r, i) for i, r in enumerate(results)]
    sent = [pickle.loads(pickle.dumps(Row.sent(r.result, i))) for i, r in enumerate(rows)]
    run_id = store.start_run("scan", {})
    store.add_results(run_id, sent)  # as the pool's rows come: the worker's UTF-8 bytes
    with sqlite3.connect(store.path) as conn:
        stored = conn.execute(
            "SELECT typeof(data), data FROM results WHERE run_id = ? ORDER BY seq", (run_id,)
        ).fetchall()
    conn.close()
    assert stored == [("text", r.line) for r in rows]
    assert any(not r.line.isascii() for r in rows)  # Korean text: more bytes than characters


def test_results_persist_in_batches_as_they_come(
    store: RunStore, results: list[FileResult]
) -> None:
    rec = RunRecorder(store, store.start_run("scan", {"paths": ["x"]}), batch=2)
    for r in results[:3]:
        rec(r)  # a recorder is a sink
    # another connection already sees the first full batch
    with RunStore(store.path) as other:
        assert len(other.load_run(rec.run_id).results) == 2
    rec.flush()
    assert len(store.load_run(rec.run_id).results) == 3


def test_a_write_stopped_after_its_commit_is_not_stored_twice(
    store: RunStore, results: list[FileResult]
) -> None:
    stops = [True]

    def write(run_id: str, rows: list[FileResult], *, first: int) -> None:
        store.add_results(run_id, rows, first=first)
        if stops:  # a Ctrl-C lands once the rows are committed, before the queue is cleared
            stops.pop()
            raise KeyboardInterrupt

    rec = RunRecorder(store, store.start_run("scan", {}), batch=2, write=write)
    with pytest.raises(KeyboardInterrupt):
        rec.add(*results[:2])
    rec.add(results[2])  # a full batch again: the first two written again, and the third
    stored = store.load_run(rec.run_id).results
    assert [encode_row(r) for r in stored] == [encode_row(r) for r in results[:3]]


def test_rows_numbered_past_the_runs_end_are_refused(
    store: RunStore, results: list[FileResult]
) -> None:
    run_id = store.start_run("scan", {})
    store.add_results(run_id, results[:2], first=0)
    with pytest.raises(StoreError, match="holds 2 rows"):
        store.add_results(run_id, results[2:4], first=3)  # row 2 would be missing
    assert len(store.load_run(run_id).results) == 2


@pytest.mark.parametrize("stops", [1, 2], ids=["one stop", "a second stop"])
def test_a_stop_during_a_hand_over_comes_after_it(
    store: RunStore, results: list[FileResult], stops: int
) -> None:
    shown: list[Row] = []

    def show(rows: Sequence[Row]) -> None:
        if len(shown) == 4:  # Ctrl-C (pressed again: twice) while the results file is written
            for _ in range(stops):
                signal.raise_signal(signal.SIGINT)
        shown.extend(rows)

    def on_signal(signum: int, frame: object) -> None:
        if not hold_stop():
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, on_signal)
    try:
        with (
            pytest.raises(KeyboardInterrupt),
            recorded_run("scan", RunArgs(), store=store, also_rows=show) as rec,
        ):
            for i in range(0, len(results), 2):
                rec.take([Row.of(r) for r in results[i : i + 2]])
    finally:
        signal.signal(signal.SIGINT, old)
    stored = store.load_run("latest").results
    # the batch stopped is kept whole; a second stop leaves only the results file short
    assert len(rec.results) == len(stored) == 6
    assert len(shown) == (6 if stops == 1 else 4)
    assert [encode_row(r) for r in rec.results] == [encode_row(r) for r in stored]
    assert [encode_row(r.result) for r in shown] == [encode_row(r) for r in stored[: len(shown)]]


def test_a_recorder_adds_after_the_rows_a_run_holds(
    store: RunStore, results: list[FileResult]
) -> None:
    run_id = store.start_run("scan", {})
    store.add_results(run_id, results[:2])
    rec = RunRecorder(store, run_id, first=2)
    rec.add(*results[2:5])
    rec.flush()
    stored = store.load_run(run_id).results
    assert [encode_row(r) for r in stored] == [encode_row(r) for r in results[:5]]


def test_an_interrupted_run_keeps_its_results_and_stays_unfinished(
    store: RunStore, results: list[FileResult]
) -> None:
    with (
        pytest.raises(KeyboardInterrupt),
        recorded_run("scan", RunArgs(options={"paths": ["x"]}), store=store) as rec,
    ):
        for r in results[:3]:
            rec(r)
        raise KeyboardInterrupt
    assert rec.interrupted and rec.info is None
    run = store.load_run("latest")
    assert len(run.results) == 3 and run.info.finished is None  # the rest flushed on the way out
    assert [encode_row(r) for r in run.results] == [encode_row(r) for r in results[:3]]


def test_a_finished_recording_has_its_summary(store: RunStore, results: list[FileResult]) -> None:
    with recorded_run("fetch", RunArgs(), store=store) as rec:
        for r in results:
            rec(r)
        rec.summary = RunSummary(fetch=FetchFigures(calls_made=1))
    assert rec.run_id is not None and rec.info is not None and not rec.interrupted
    info = store.load_run(rec.run_id).info
    assert info.finished is not None and info.summary["calls_made"] == 1
    assert info.files == len(results) == rec.info.files
    assert store.list_runs(1)[0].id == rec.run_id


def test_a_run_goes_on_when_the_history_cannot_be_written(
    tmp_path: Path, results: list[FileResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "blocked"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HWPSCAN_HOME", str(blocker / "home"))
    told: list[str] = []
    seen: list[str] = []
    with recorded_run(
        "scan", RunArgs(), also=lambda r: seen.append(r.path), on_warning=told.append
    ) as rec:
        for r in results[:4]:
            rec(r)
    assert rec.run_id is None and rec.info is None and not rec.interrupted
    assert [r.path for r in rec.results] == seen == [r.path for r in results[:4]]
    assert len(told) == 1 and told[0].startswith("run not recorded in the history: ")
    assert rec.warnings == told


def test_run_ids_are_sortable_and_resolved_by_prefix_and_latest(store: RunStore) -> None:
    one = stored_run(store, "scan", {}, [], started=datetime(2025, 11, 30, 3, 15, tzinfo=UTC))
    two = stored_run(store, "fetch", {}, [], started=datetime(2025, 12, 1, 4, 0, tzinfo=UTC))
    assert one.startswith("20251130-031500-") and two.startswith("20251201-040000-")
    assert store.resolve("latest") == two
    assert store.resolve(one[:12]) == one
    assert [r.id for r in store.list_runs(10)] == [two, one]
    assert [r.id for r in store.list_runs(1)] == [two]


def test_unknown_and_ambiguous_references_are_usage_errors(store: RunStore) -> None:
    with pytest.raises(RunNotFoundError, match="no runs recorded"):
        store.load_run("latest")
    stamp = datetime(2025, 11, 30, 3, 15, tzinfo=UTC)
    stored_run(store, "scan", {}, [], started=stamp)
    stored_run(store, "scan", {}, [], started=stamp)
    with pytest.raises(RunNotFoundError, match="several runs"):
        store.resolve("20251130")
    with pytest.raises(RunNotFoundError, match="no run matches"):
        store.resolve("1999")
    with pytest.raises(ValueError, match="run kind"):
        store.start_run("delete", {})


def test_no_secret_is_ever_stored(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "k" * 16 + "SECRET" + "9" * 10
    monkeypatch.setenv("HWPSCAN_API_KEY", key)
    args = {
        "api_key": key,
        "authKey": key,
        "token": key,
        "serviceKey": key,
        "password": key,
        "api_url": f"http://user:{key}@127.0.0.1:8/list?authKey={key}&pageNo=1",
        "note": f"called with {key}",
        "nested": {"apiKey": key, "ok": [f"x{key}"]},
        "from": "2025-07-21",
    }
    run_id = stored_run(store, "fetch", args, [])
    stored = store.load_run(run_id).info.args
    assert stored["from"] == "2025-07-21"
    assert stored["api_url"] == "http://127.0.0.1:8/list?pageNo=1"
    assert set(stored) == {"api_url", "note", "nested", "from"}
    store.close()
    for path in store.path.parent.iterdir():
        assert key.encode() not in path.read_bytes(), path


def test_clean_args_keeps_paths_enums_and_numbers() -> None:
    assert clean_args({"paths": [Path("a/b")], "format": Format.PDF, "jobs": 0, "x": None}) == {
        "paths": ["a/b"],
        "format": "pdf",
        "jobs": 0,
        "x": None,
    }


def test_default_store_lives_under_hwpscan_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, results: list[FileResult]
) -> None:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    with recorded_run("scan", RunArgs(options={"paths": ["f"]})) as rec:
        for r in results[:2]:
            rec(r)
    run_id = rec.run_id
    assert run_id is not None
    assert (tmp_path / "home" / DB_NAME).exists()
    assert load_run(run_id[:10]).id == run_id
    with default_store() as s:
        assert s.path == tmp_path / "home" / DB_NAME
    assert diff_runs(run_id, "latest").empty


def test_without_hwpscan_home_the_state_folder_is_the_platforms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HWPSCAN_HOME", raising=False)
    asked: list[tuple[str, object]] = []

    def user_data_dir(name: str, author: object) -> str:
        asked.append((name, author))
        return str(tmp_path / "data" / name)

    monkeypatch.setattr(platformdirs, "user_data_dir", user_data_dir)
    assert state_dir() == tmp_path / "data" / "hwpscan"
    assert (tmp_path / "data" / "hwpscan").is_dir() and asked == [("hwpscan", False)]


_WRITER = """
import sys
from hwpscan.models import FileResult, Format, Status
from hwpscan.history import RunStore
store = RunStore(sys.argv[1])
rid = store.start_run("scan", {"writer": sys.argv[2]})
for i in range(40):
    store.add_results(rid, [FileResult(f"{sys.argv[2]}/{i}.hwp", "", i, Format.HWP5, Status.CLEAN)])
store.finish_run(rid)
print(rid)
"""


def test_two_processes_write_the_same_database(tmp_path: Path) -> None:
    db = tmp_path / DB_NAME
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(db), name], stdout=subprocess.PIPE, text=True
        )
        for name in ("p1", "p2")
    ]
    ids = []
    for p in procs:
        out, _ = p.communicate(timeout=120)
        assert p.returncode == 0
        ids.append(out.strip())
    with RunStore(db) as s:
        for rid, name in zip(ids, ("p1", "p2"), strict=True):
            run = s.load_run(rid)
            assert [r.path for r in run.results] == [f"{name}/{i}.hwp" for i in range(40)]
            assert run.info.args == {"writer": name}
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_stored_json_is_the_jsonl_contract(store: RunStore, results: list[FileResult]) -> None:
    run_id = stored_run(store, "scan", {}, results[:1])
    with sqlite3.connect(store.path) as conn:
        (data,) = conn.execute("SELECT data FROM results WHERE run_id = ?", (run_id,)).fetchone()
    assert data == encode_row(results[0])


def test_latest_is_the_last_recorded_even_within_one_second(store: RunStore) -> None:
    stamp = datetime(2025, 11, 30, 3, 15, tzinfo=UTC)
    ids = [stored_run(store, "scan", {"n": n}, [], started=stamp) for n in range(12)]
    assert store.resolve("latest") == ids[-1]
    assert [r.id for r in store.list_runs(12)] == ids[::-1]
