"""The history stays bounded: runs pruned after each recorded run, the file shrinks,
``history prune`` and ``history delete``, ``--no-record``, and scans of no document
not kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.history import store
from hwpscan.history.recording import recorded_run
from hwpscan.history.records import RunArgs
from hwpscan.history.store import DB_NAME, DEFAULT_KEEP_RUNS, RunStore, keep_runs
from hwpscan.models import FileResult, Format, Status
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.shared_sqlite import connect

runner = CliRunner()


def _row(n: int, size: int = 2000) -> FileResult:
    return FileResult(
        f"press/2025-07-21/f{n:05}.hwp", "", size, Format.HWP5, Status.CLEAN, date="2025-07-21"
    )


def _record(db: RunStore, rows: int, *, keep: int) -> str:
    with recorded_run("scan", RunArgs(options={"paths": ["press"]}), store=db, keep=keep) as rec:
        for n in range(rows):
            rec(_row(n))
    assert rec.info is not None
    return rec.info.id


def _ids(db: RunStore) -> list[str]:
    return [info.id for info in db.list_runs(1000)]


def _size(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def test_the_default_is_fifty_runs_and_the_environment_changes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert DEFAULT_KEEP_RUNS == 50 and keep_runs(environ={}) == 50
    monkeypatch.setenv("HWPSCAN_KEEP_RUNS", "3")
    assert keep_runs() == 3
    monkeypatch.setenv("HWPSCAN_KEEP_RUNS", "-1")
    with pytest.raises(Exception, match="whole number"):
        keep_runs()


def test_each_recorded_run_prunes_to_the_newest_runs_and_the_file_shrinks(
    tmp_path: Path,
) -> None:
    path = tmp_path / DB_NAME
    with RunStore(path) as db:
        first = [_record(db, 400, keep=0) for _ in range(6)]  # 0: keep all
        assert _ids(db) == first[::-1]
        db.close()
        full = _size(path)
        newest = _record(db, 1, keep=2)
        assert _ids(db) == [newest, first[-1]]
        count = sqlite3.connect(path).execute("SELECT COUNT(*) FROM results").fetchone()[0]
        assert count == 401  # the pruned runs' rows went with them
    assert _size(path) < full / 2


def test_a_store_made_before_pruning_is_rebuilt_once_and_shrinks(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    with RunStore(path) as db:
        ids = [_record(db, 400, keep=0) for _ in range(4)]
    conn = sqlite3.connect(path)  # as an older version made it: no incremental vacuum
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA auto_vacuum = NONE")
    conn.execute("VACUUM")
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    conn.close()
    before = _size(path)
    with RunStore(path) as db:
        assert db.prune(1) == ids[:3]
    assert _size(path) < before / 2
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental from now on
    conn.close()


def test_a_prune_gives_every_page_back_without_rebuilding_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / DB_NAME
    with RunStore(path) as db:
        ids = [_record(db, 400, keep=0) for _ in range(4)]
    said: list[str] = []

    def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(said.append)
        return conn

    monkeypatch.setattr(store, "connect", traced)
    with RunStore(path) as db:
        assert db.prune(1) == ids[:3]
    assert "VACUUM" not in said  # a rebuild costs a second per 100 MB of history, each run
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    conn.close()


def test_a_run_still_going_is_never_pruned(tmp_path: Path) -> None:
    with RunStore(tmp_path / DB_NAME) as db, RunStore(tmp_path / DB_NAME) as other:
        open_run = other.start_run("scan", {})  # another process's run, not finished
        done = [_record(db, 1, keep=0) for _ in range(3)]
        assert db.prune(1) == done[:2]
        assert set(_ids(db)) == {open_run, done[-1]}


def test_a_forgotten_run_is_not_kept(tmp_path: Path) -> None:
    with RunStore(tmp_path / DB_NAME) as db:
        with recorded_run("scan", RunArgs(), store=db, keep=0) as rec:
            rec(_row(0))
            rec.forget()
        assert rec.info is None and _ids(db) == []


def _cli(*args: str) -> tuple[int, str]:
    done = runner.invoke(app, list(args))
    return done.exit_code, done.output


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HWPSCAN_HOME", str(home))
    return home


@pytest.fixture
def press(tmp_path: Path) -> Path:
    folder = tmp_path / "press" / "2025-07-21"
    folder.mkdir(parents=True)
    (folder / "a.hwp").write_bytes(build_hwp5(["보도자료 본문"]))
    return folder.parent


def _recorded(home: Path) -> list[str]:
    with RunStore(home / DB_NAME) as db:
        return _ids(db)


def test_history_prune_and_delete_take_run_references(home: Path, press: Path) -> None:
    for _ in range(5):
        assert _cli("scan", str(press))[0] == 0
    runs = _recorded(home)
    code, out = _cli("history", "delete", "latest~1", runs[3][-4:])
    assert code == 0 and "2 runs deleted, 3 kept" in " ".join(out.split()), out
    assert _recorded(home) == [runs[0], runs[2], runs[4]]
    code, out = _cli("history", "prune", "--keep", "1")
    assert code == 0 and "2 runs deleted, 1 kept" in " ".join(out.split()), out
    assert _recorded(home) == [runs[0]]
    code, out = _cli("history", "delete", "latest~5")
    assert code == 2 and "there is no latest~5" in out
    code, out = _cli("history", "squash")
    assert code == 2 and "prune or delete" in out
    assert _cli("history", "-n", "1")[0] == 0  # the listing is unchanged


def test_the_environment_bounds_what_each_scan_keeps(
    home: Path, press: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HWPSCAN_KEEP_RUNS", "2")
    for _ in range(4):
        assert _cli("scan", str(press))[0] == 0
    assert len(_recorded(home)) == 2


def test_no_record_keeps_the_history_as_it_was(home: Path, press: Path, tmp_path: Path) -> None:
    assert _cli("scan", str(press))[0] == 0
    before = _recorded(home)
    out = tmp_path / "rows.jsonl"
    code, text = _cli("scan", str(press), "--no-record", "-f", "jsonl", "-o", str(out))
    assert code == 0 and "run recorded" not in text and out.read_text(encoding="utf-8")
    code, text = _cli("scan", str(press), "--no-record", "--report", str(tmp_path / "rep"))
    assert code == 0 and (tmp_path / "rep" / "report.html").is_file()  # a report still
    assert _recorded(home) == before


def test_a_scan_of_no_document_is_not_recorded(home: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    note = tmp_path / "README.md"
    note.write_text("# notes\n", encoding="utf-8")
    assert _cli("scan", str(empty))[0] == 0
    assert _cli("scan", str(note))[0] == 0
    assert not (home / DB_NAME).exists() or _recorded(home) == []


@pytest.mark.parametrize("command", ["fetch", "verify", "demo"])
def test_every_recording_command_takes_no_record(command: str) -> None:
    code, out = _cli(command, "--help")
    assert code == 0 and "--no-record" in out


@pytest.mark.parametrize("page_size", [None, 4096])
def test_a_big_runs_log_is_copied_into_the_store_as_it_goes(
    tmp_path: Path, page_size: int | None
) -> None:
    """A run's rows pass through the write-ahead log, which is copied into the store
    every 2 MB (in a new store and in an older one with small pages): it never holds a
    whole big scan for the close to copy while the user waits."""
    path = tmp_path / DB_NAME
    if page_size is not None:  # a store made before the large pages
        with sqlite3.connect(path) as old:
            old.execute(f"PRAGMA page_size = {page_size}")
            old.execute("CREATE TABLE made_before (x)")
        old.close()
    row = FileResult("press/a.hwp", "", 1, Format.HWP5, Status.CORRUPT, reason="x" * 4000)
    with RunStore(path) as db:
        run_id = db.start_run("scan", {})
        for _ in range(60):  # 6 MB of rows, a batch at a time
            db.add_results(run_id, [row] * 25)
        wal = path.with_name(path.name + "-wal")
        assert wal.stat().st_size < 3 * 2**20  # the most it held: 2 MB and a batch
    with RunStore(path) as db:  # and every row is there, copied or still in the log
        assert len(db.load_run(run_id).results) == 1500
