"""The run store (``state_dir()/runs.sqlite``): every scan, fetch and verify with its
per-file results. A run is opened (:meth:`RunStore.start_run`), its results added as they
arrive, each batch its own transaction, and stamped (:meth:`RunStore.finish_run`);
:func:`hwpscan.history.recording.recorded_run` does all three. Processes share the file
(WAL, bounded waits), threads a :class:`RunStore`; arguments are stored without secrets,
and only the newest :func:`keep_runs` runs are kept (:meth:`RunStore.prune`).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwpscan import __version__
from hwpscan.errors import RunNotFoundError, StoreBusyError, StoreError, UsageError
from hwpscan.history.diff import RunDiff, diff_results
from hwpscan.history.records import RUN_KINDS, Run, RunInfo, RunSummary, file_name, new_run_id
from hwpscan.home import state_dir
from hwpscan.models import FileResult
from hwpscan.redaction import clean_args
from hwpscan.rowcodec import decode_row
from hwpscan.scanning.row_handoff import Row
from hwpscan.shared_sqlite import (
    DEFAULT_TIMEOUT,
    begin_immediate,
    commit,
    connect,
    ensure_wal,
    error_kind,
    open_runs_note,
    retry_busy,
)

if TYPE_CHECKING:
    from hwpscan.matrix.matrix_rows import MatrixRow

__all__ = [
    "DB_NAME",
    "DEFAULT_KEEP_RUNS",
    "KEEP_RUNS_ENV",
    "RunRecorder",
    "RunStore",
    "default_store",
    "diff_runs",
    "keep_runs",
    "load_run",
]

DB_NAME = "runs.sqlite"

#: How many runs the history keeps, newest first, when nothing else is said.
DEFAULT_KEEP_RUNS = 50
#: The environment variable that sets it (0: keep every run).
KEEP_RUNS_ENV = "HWPSCAN_KEEP_RUNS"
#: An unfinished run younger than this may still be running elsewhere: pruning leaves it.
RUNNING_GRACE = timedelta(days=1)


def keep_runs(default: int = DEFAULT_KEEP_RUNS, environ: Mapping[str, str] | None = None) -> int:
    """How many runs to keep: ``HWPSCAN_KEEP_RUNS`` when set, else *default* (0: all).

    >>> keep_runs(environ={}), keep_runs(environ={"HWPSCAN_KEEP_RUNS": "7"})
    (50, 7)
    >>> keep_runs(environ={"HWPSCAN_KEEP_RUNS": "many"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    hwpscan.errors.UsageError: HWPSCAN_KEEP_RUNS='many': give a whole number of runs ...
    """
    raw = (os.environ if environ is None else environ).get(KEEP_RUNS_ENV, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise UsageError(f"{KEEP_RUNS_ENV}={raw!r}: give a whole number of runs to keep (0: all)")
    return value


#: ``latest``, or ``latest~N``: the run N before the latest (``latest~0`` is the latest).
_LATEST_RE = re.compile(r"latest(?:~(\d+))?")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id       TEXT PRIMARY KEY,
    kind     TEXT NOT NULL,
    started  TEXT NOT NULL,
    finished TEXT,
    args     TEXT NOT NULL,
    version  TEXT NOT NULL,
    summary  TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS results (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    path   TEXT NOT NULL,
    name   TEXT NOT NULL,
    date   TEXT,
    format TEXT NOT NULL,
    status TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS matrix_rows (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    path   TEXT NOT NULL,
    parser TEXT NOT NULL,
    status TEXT NOT NULL,
    guilty INTEGER NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started)
"""
_SCHEMA_NAMES = frozenset({"runs", "results", "matrix_rows", "runs_started"})
#: Indexes earlier versions made, that every row added was filed into and nothing reads
#: through (rows are read by the primary key): dropped at the next write.
_UNUSED_INDEXES = ("results_path", "results_run_date", "matrix_rows_parser")
_SCHEMA += "".join(f";DROP INDEX IF EXISTS {name}" for name in _UNUSED_INDEXES)
#: The page size of a new store: result rows (0.7 to 6 KB) overflow 4 KB pages; with 32 KB
#: a 5,000-file scan makes a seventh as many writes.
PAGE_SIZE = 32768
#: Bytes of write-ahead log after which a commit copies it into the store (SQLite's
#: default, 1,000 pages, is 32 MB of ours: a big scan left all of it for the close).
CHECKPOINT_BYTES = 2 * 2**20


@contextmanager
def _transaction(conn: sqlite3.Connection, timeout: float) -> Iterator[None]:
    """One write transaction: the write lock first (waited for), rolled back on error."""
    begin_immediate(conn, timeout=timeout)
    try:
        yield
        commit(conn, timeout=timeout)
    except BaseException:
        if conn.in_transaction:  # (SQLite may have rolled back already after an error)
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def _schema_missing(conn: sqlite3.Connection) -> bool:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    stale = not names.isdisjoint(_UNUSED_INDEXES)
    return not names >= _SCHEMA_NAMES or stale or "summary" not in columns


class RunStore:
    """A handle on one run database, shared by threads; waits *timeout* s for other processes."""

    def __init__(self, path: Path, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._private: str | None = None  # a temporary database's name (see temporary())
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._mine: set[str] = set()  # runs this handle started: never "the other run"

    @classmethod
    def temporary(cls, *, in_memory: bool = False) -> RunStore:
        """A store nobody else sees, for rows not recorded: a temporary database SQLite
        deletes at the close (*in_memory*: for when the disk refuses)."""
        store = cls(Path(":memory:" if in_memory else "(a temporary database)"))
        store._private = ":memory:" if in_memory else ""
        return store

    @property
    def in_memory(self) -> bool:
        """True for a temporary store held all in memory."""
        return self._private == ":memory:"

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        private = self._private
        try:
            if private is not None:  # not a file of the user's: nothing shared
                conn = sqlite3.connect(private, check_same_thread=False, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = connect(self.path, timeout=self.timeout)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            # a new, empty file only (an existing store keeps what it was made with):
            # large pages, and freed pages given back at each prune (see shrink())
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            if private is None:
                ensure_wal(conn, timeout=self.timeout)
            conn.execute("PRAGMA synchronous = NORMAL")  # WAL: durable across a crash
            # the log is copied into the store as a run goes, while its workers read
            # files, not all at the close while the user waits (the threshold is in
            # bytes: an older store may have smaller pages)
            (page_size,) = conn.execute("PRAGMA page_size").fetchone()
            conn.execute(f"PRAGMA wal_autocheckpoint = {max(1, CHECKPOINT_BYTES // page_size)}")
            conn.execute("PRAGMA foreign_keys = ON")
            # what is missing is created under the write lock; a read when all is there
            if retry_busy(lambda: _schema_missing(conn), timeout=self.timeout):
                with _transaction(conn, self.timeout):
                    for statement in _SCHEMA.split(";"):
                        conn.execute(statement)
                    if _schema_missing(conn):  # a database from before run summaries
                        conn.execute(
                            "ALTER TABLE runs ADD COLUMN summary TEXT NOT NULL DEFAULT '{}'"
                        )
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from exc
        self._conn = conn
        return conn

    def _error(self, exc: sqlite3.Error) -> StoreError:
        """The message for a failed open or write: busy, damaged, or another reason."""
        kind = error_kind(exc)
        if kind == "busy":
            return StoreBusyError(
                f"the run store {self.path} is busy: another hwpscan run held it for more "
                f"than {self.timeout:g} s{open_runs_note(self.path, exclude=self._mine)}; "
                "try again when that run has finished"
            )
        if kind == "corrupt":
            return StoreError(
                f"the run store {self.path} is not a usable SQLite database ({exc}); "
                "move it aside to start a new one"
            )
        return StoreError(f"the run store {self.path} cannot be used ({exc})")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; an error other than a duplicate key says why it failed."""
        with self._lock:
            conn = self._connect()
            try:
                with _transaction(conn, self.timeout):
                    yield conn
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    def _query(self, sql: str, *params: Any) -> list[Any]:
        """The rows of one read (repeated while another process holds the file)."""
        with self._lock:
            conn = self._connect()
            try:
                return retry_busy(
                    lambda: conn.execute(sql, params).fetchall(), timeout=self.timeout
                )
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    def close(self) -> None:
        """Close the connection (a later call opens it again)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def start_run(
        self, kind: str, args: Mapping[str, Any], *, started: datetime | None = None
    ) -> str:
        """Open a run and return its id; results follow with :meth:`add_results`."""
        if kind not in RUN_KINDS:
            raise ValueError(f"run kind must be one of {', '.join(RUN_KINDS)}, not {kind!r}")
        started = started or datetime.now(UTC)
        stamp = started.astimezone(UTC).isoformat(timespec="seconds")
        stored = json.dumps(clean_args(args), ensure_ascii=False, sort_keys=True)
        for _ in range(20):
            run_id = new_run_id(started)
            try:
                with self._tx() as conn:
                    conn.execute(
                        "INSERT INTO runs (id, kind, started, finished, args, version)"
                        " VALUES (?,?,?,?,?,?)",
                        (run_id, kind, stamp, None, stored, __version__),
                    )
                self._mine.add(run_id)
                return run_id
            except sqlite3.IntegrityError:
                continue
        raise RuntimeError("could not allocate a unique run id")  # pragma: no cover

    def _append(
        self,
        table: str,
        columns: str,
        values: str,
        run_id: str,
        rows: list[tuple[Any, ...]],
        first: int | None,
    ) -> None:
        """Add *rows* (*columns* after ``run_id, seq``) to a run's in *table*, numbered
        from *first* (None: on from the run's last). Numbered rows are added once: a
        write again of rows the table holds (one stopped after its commit) adds only
        those it lacks."""
        with self._tx() as conn:
            (seq,) = conn.execute(
                f"SELECT COALESCE(MAX(seq), -1) + 1 FROM {table} WHERE run_id = ?", (run_id,)
            ).fetchone()
            first = seq if first is None else first
            held = seq - first  # of these rows, already in the table
            if not 0 <= held <= len(rows):
                raise StoreError(
                    f"the run store {self.path} holds {seq} rows of run {run_id} in {table}, "
                    f"where rows from {first} on were to be added"
                )
            conn.executemany(
                f"INSERT INTO {table} (run_id, seq, {columns}) VALUES (?,?,{values})",
                [(run_id, first + i, *row) for i, row in enumerate(rows) if i >= held],
            )

    def add_results(
        self, run_id: str, results: Iterable[FileResult | Row], *, first: int | None = None
    ) -> int:
        """Persist results (one transaction) as the run's from number *first* on (None:
        after its last; see :meth:`_append`); returns how many were given."""
        rows = [r if isinstance(r, Row) else Row.of(r) for r in results]
        if not rows:
            return 0
        # data: the line's UTF-8 bytes, made once, stored as the text they are (a blob
        # cast to text is taken as text in the database's encoding, UTF-8, unchanged)
        self._append(
            "results",
            "path, name, date, format, status, data",
            "?,?,?,?,?,CAST(? AS TEXT)",
            run_id,
            [
                (r.path, file_name(r.path), r.date, r.format.value, r.status.value, r.data)
                for r in rows
            ],
            first,
        )
        return len(rows)

    def finish_run(
        self, run_id: str, *, finished: datetime | None = None, summary: RunSummary | None = None
    ) -> None:
        """Stamp the end of a run; *summary* (secrets scrubbed) says what it did."""
        stamp = (finished or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
        said = summary and json.dumps(
            clean_args(summary.to_json()), ensure_ascii=False, sort_keys=True
        )
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET finished = ?, summary = COALESCE(?, summary) WHERE id = ?",
                (stamp, said, run_id),
            )

    def prune(self, keep: int, *, shrink: bool = True) -> list[str]:
        """Delete every run but the newest *keep* (0: none) and return their ids, oldest
        first; an unfinished run this handle started or younger than :data:`RUNNING_GRACE`
        is left. *shrink*: give the space back (:meth:`shrink`)."""
        if keep <= 0:
            return []
        young = (datetime.now(UTC) - RUNNING_GRACE).isoformat(timespec="seconds")
        rows = self._query(
            "SELECT id, finished, started FROM runs ORDER BY started DESC, rowid DESC"
            " LIMIT -1 OFFSET ?",
            keep,
        )
        older = [
            run_id
            for run_id, finished, started in reversed(rows)
            if finished is not None or (run_id not in self._mine and started < young)
        ]
        return self.delete_runs(older, shrink=shrink)

    def delete_runs(self, run_ids: Iterable[str], *, shrink: bool = True) -> list[str]:
        """Delete these runs (full ids) with their rows in one transaction; returns the
        ids that were there. *shrink*: then give the space back (:meth:`shrink`)."""
        ids = list(dict.fromkeys(run_ids))
        if not ids:
            return []
        with self._tx() as conn:
            there = [
                i for i in ids if conn.execute("SELECT 1 FROM runs WHERE id = ?", (i,)).fetchone()
            ]
            for table, column in (("results", "run_id"), ("matrix_rows", "run_id"), ("runs", "id")):
                conn.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(i,) for i in there])
        if there and shrink:
            self.shrink()
        return there

    def shrink(self) -> bool:
        """Give freed pages and the write-ahead log back to the file system (a store made
        before pruning existed is rebuilt once); False when another process held it."""
        if self._private is not None:
            return True
        with self._lock:
            conn = self._connect()
            # a short wait: a store busy with another run is shrunk by a later prune
            conn.execute(f"PRAGMA busy_timeout = {int(min(self.timeout, 1.0) * 1000)}")
            try:
                if conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2:  # incremental
                    # a script runs the pragma to its end; execute() frees one page
                    conn.executescript("PRAGMA incremental_vacuum")
                else:  # a store made without incremental vacuum: rebuilt once with it
                    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
                    conn.execute("VACUUM")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error:
                return False
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        return True

    def _infos(self, where: str, *params: Any) -> list[RunInfo]:
        """The runs *where* chooses, with their per-status file counts."""
        runs = self._query(
            "SELECT id, kind, started, finished, args, version, summary FROM runs " + where, *params
        )
        count = "SELECT status, COUNT(*) FROM results WHERE run_id = ? GROUP BY status"
        return [
            RunInfo(i, k, s, f, json.loads(a), v, dict(self._query(count, i)), json.loads(m))
            for i, k, s, f, a, v, m in runs  # id, kind, started, finished, args, version, summary
        ]

    def list_runs(self, limit: int = 20) -> list[RunInfo]:
        """The newest runs first."""
        return self._infos("ORDER BY started DESC, rowid DESC LIMIT ?", limit)

    def resolve(self, ref: str) -> str:
        """The full id of ``latest``, ``latest~N`` (N runs before it), an exact id, a
        unique prefix, or a unique end of an id (its random part, as ``history`` shows)."""
        back = _LATEST_RE.fullmatch(ref.strip())
        if back:
            found = self._query(
                "SELECT id FROM runs ORDER BY started DESC, rowid DESC LIMIT 1 OFFSET ?",
                int(back.group(1) or 0),
            )
            if found:
                return str(found[0][0])
            [(count,)] = self._query("SELECT COUNT(*) FROM runs")
            if not count:
                raise RunNotFoundError("no runs recorded yet: run `hwpscan scan` first")
            raise RunNotFoundError(
                f"there is no {ref}: {count} run(s) recorded, so latest~{count - 1} is the oldest"
            )
        sql = (  # a prefix, or (four characters or more) the end after a "-"
            "SELECT id FROM runs WHERE substr(id, 1, length(?1)) = ?1 OR (length(?1) >= 4"
            " AND substr(id, -length(?1) - 1) = '-' || ?1) ORDER BY id LIMIT 6"
        )
        ids = [run_id for (run_id,) in self._query(sql, ref)]
        if ref in ids:
            return ref
        if not ids:
            raise RunNotFoundError(f"no run matches {ref!r} (see `hwpscan history`)")
        if len(ids) > 1:
            raise RunNotFoundError(f"{ref!r} matches several runs: {', '.join(ids[:5])}")
        return str(ids[0])

    def short_id(self, run_id: str) -> str:
        """The end of *run_id* (its random part) when that alone names it, else the id."""
        tail = run_id.rsplit("-", 1)[-1]
        try:
            return tail if self.resolve(tail) == run_id else run_id
        except RunNotFoundError:
            return run_id

    def run_info(self, ref: str = "latest") -> RunInfo:
        """A run's description and counts, without loading its results."""
        return self._infos("WHERE id = ?", self.resolve(ref))[0]

    def load_run(self, ref: str = "latest") -> Run:
        """A run and its results by id, unique prefix or ``latest``."""
        info = self.run_info(ref)
        return Run(info, tuple(map(decode_row, self.result_lines(info.id, 0, -1))))

    def add_matrix_rows(
        self, run_id: str, rows: Iterable[MatrixRow], *, first: int | None = None
    ) -> int:
        """Persist parser-matrix rows for *run_id* (one transaction) from number *first*
        on (None: after its last); returns how many were given."""
        batch = [
            (r.path, r.parser, r.status, int(r.guilty), json.dumps(r.to_json(), ensure_ascii=False))
            for r in rows
        ]
        if batch:
            columns = "path, parser, status, guilty, data"
            self._append("matrix_rows", columns, "?,?,?,?,?", run_id, batch, first)
        return len(batch)

    def matrix_rows(self, run_id: str) -> list[MatrixRow]:
        """The parser-matrix rows of a run, in the order they were recorded (none: ``[]``)."""
        data = self._query("SELECT data FROM matrix_rows WHERE run_id = ? ORDER BY seq", run_id)
        from hwpscan.matrix.matrix_rows import MatrixRow  # the matrix: only to read rows back

        return [MatrixRow.from_json(json.loads(d)) for (d,) in data]

    def result_lines(self, run_id: str, start: int, count: int) -> list[str]:
        """The stored lines of the results ``start`` to ``start + count`` of a run (by
        the order they were added; fewer at its end; *count* -1: all), as written."""
        sql = "SELECT data FROM results WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?"
        return [data for (data,) in self._query(sql, run_id, start, count)]


class RunRecorder:
    """Adds rows to one open run with *write* (default: :meth:`RunStore.add_results`;
    called as ``write(run_id, rows, first=n)``) in batches (every *batch* rows or
    *max_delay* seconds, and at :meth:`flush`); *first* is the number of rows the run
    holds already (none: one just started, as hwpscan's recorders are).

    Each row is written with its number in the run, so a write that a stop cut short
    after its commit is not stored twice when :meth:`flush` writes its rows again."""

    def __init__(
        self,
        store: RunStore,
        run_id: str,
        *,
        batch: int = 256,
        max_delay: float = 0.5,
        write: Callable[..., object] | None = None,
        first: int = 0,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self._write = write or store.add_results  # (run_id, rows, first=number of the first)
        self._batch = max(1, batch)
        self._max_delay = max_delay
        # the rows not written yet, and the number in the run of the first: one value,
        # replaced in one step once they are written
        self._queue: tuple[int, list[Any]] = (first, [])
        self._last = time.monotonic()

    @property
    def pending(self) -> list[Any]:
        """The rows added and not written yet."""
        return self._queue[1]

    def queue(self, *rows: Any) -> None:
        """Queue rows for the next write."""
        self._queue[1].extend(rows)

    @property
    def due(self) -> bool:
        """Whether the queue is a full batch, or has waited long enough."""
        waited = time.monotonic() - self._last
        return len(self._queue[1]) >= self._batch or waited >= self._max_delay

    def add(self, *rows: Any) -> None:
        """Queue rows; written when the batch is full or has waited long enough."""
        self.queue(*rows)
        if self.due:
            self.flush()

    __call__ = add

    def flush(self) -> None:
        """Write what is pending in one transaction (still pending if that fails)."""
        first, rows = self._queue
        if rows:
            self._write(self.run_id, rows, first=first)
            self._queue = (first + len(rows), [])
        self._last = time.monotonic()


def default_store() -> RunStore:
    """The store under :func:`hwpscan.home.state_dir`."""
    return RunStore(state_dir() / DB_NAME)


def _using(store: RunStore | None) -> AbstractContextManager[RunStore]:
    """*store* as given, or the default store opened for the call and closed after."""
    return nullcontext(store) if store is not None else default_store()


def load_run(ref: str = "latest", *, store: RunStore | None = None) -> Run:
    """A run and its results by id, unique id prefix or end, ``latest`` or ``latest~N``;
    :class:`RunNotFoundError` when nothing or several runs match."""
    with _using(store) as s:
        return s.load_run(ref)


def diff_runs(a: str, b: str, *, store: RunStore | None = None) -> RunDiff:
    """Compare two stored runs (ids, unique prefixes or ``latest``)."""
    with _using(store) as s:
        run_a, run_b = s.load_run(a), s.load_run(b)
    return diff_results(run_a.id, run_a.results, run_b.id, run_b.results)
