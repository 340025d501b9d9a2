"""Run every extractor on every file, each in a subprocess with a timeout.

Hangs, crashes and panics (a PyO3 panic is a ``BaseException``) become rows with their
reason, worded as :mod:`~hwpscan.matrix.failures` does; none ends the run. A Python
extractor runs in a :class:`~hwpscan.execution.guard_process.Guard` child
(:mod:`hwpscan.matrix.worker`) that serves file after file and is replaced after a
timeout or a crash (``isolate=True``: a fresh one per file). Commands run without a
shell, once per file (``{path}``) or per batch (``{paths}``, framed as
:func:`~hwpscan.matrix.parsers.split_batch_output` reads). Every subprocess gets its own
process group (a timeout kills what it started too) and a scrubbed environment. The
reference text of each file is our ``strict`` view, obtained the same way.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import Any

from hwpscan.execution import process_groups
from hwpscan.execution.guard_process import STARTUP_GRACE as GUARD_STARTUP_GRACE
from hwpscan.execution.guard_process import Guard
from hwpscan.execution.process_groups import Finished, run_captured
from hwpscan.execution.process_pool import Stopped
from hwpscan.matrix import worker as worker_protocol
from hwpscan.matrix.failures import describe_exception, explain_exit, explain_message
from hwpscan.matrix.matrix_rows import Extraction, MatrixRow, RowStatus, build_row
from hwpscan.matrix.parsers import REFERENCE, ParserSpec, decode_output, split_batch_output
from hwpscan.redaction import scrubbed_environment
from hwpscan.scanning.inputs import display_path

DEFAULT_TIMEOUT = 30.0
#: Most files handed to one batch command (``{paths}``), and most bytes of paths.
BATCH_FILES = 64
BATCH_ARG_BYTES = 100_000
#: Seconds an extractor process may take to start and import its extractor, on top of
#: the timeout.
STARTUP_GRACE = GUARD_STARTUP_GRACE
#: The task of an extractor's process (set up with the extractor's ``module:function``).
EXTRACTOR_TASK = "hwpscan.matrix.worker:extractor"


def run_extractor(
    spec: ParserSpec,
    path: Path,
    *,
    timeout: float,
    pool: WorkerPool | None = None,
) -> Extraction:
    """Run one extractor on one file, a Python one in a worker from *pool* (else a fresh
    one); never raises for what the extractor does."""
    missing = spec.missing()
    if missing is not None:
        return Extraction("not-installed", reason=missing)
    if spec.kind == "command":
        return _run_command(spec, path, timeout)
    if pool is None:
        with closing(WorkerPool(max_files=1)) as one:
            return one.extract(spec, path, timeout)
    return pool.extract(spec, path, timeout)


def _run_command(spec: ParserSpec, path: Path, timeout: float) -> Extraction:
    if spec.batch:
        return run_batch(spec, [path], timeout=timeout)[0]
    done = _start(spec.command(path), timeout)
    if isinstance(done, Extraction):
        return done
    if done.returncode == 0:
        return _decoded(done.stdout, done.seconds)
    return _failed(done, timeout)


def _start(argv: Sequence[str], timeout: float) -> Finished | Extraction:
    """Run *argv* in a new process group (killed whole on timeout or our Ctrl-C) with a
    scrubbed environment, capturing its output; or the extraction of a failed start."""
    try:
        return run_captured(argv, timeout=timeout, env=scrubbed_environment())
    except FileNotFoundError:
        return Extraction("not-installed", reason=f"command not found: {argv[0]}")
    except OSError as exc:
        return Extraction("error", reason=f"cannot start {argv[0]}: {exc.strerror or exc}")


def _failed(done: Finished, limit: float) -> Extraction:
    """A command that timed out (after *limit* seconds) or exited non-zero."""
    if done.returncode is None:
        why = f"no answer within {limit:g} s (killed)"
        return Extraction("timeout", reason=why, seconds=done.seconds)
    status, reason = explain_exit(done.returncode, done.stderr)
    return Extraction(status, reason=reason, seconds=done.seconds)


def _decoded(data: bytes, seconds: float) -> Extraction:
    text, invalid = decode_output(data)
    note = f"{invalid:,} bytes of output were not UTF-8" if invalid else None
    return Extraction("ok", text=text, reason=note, invalid_bytes=invalid, seconds=seconds)


def run_batch(spec: ParserSpec, paths: Sequence[Path], *, timeout: float) -> list[Extraction]:
    """Run a ``{paths}`` command on many files at once (*timeout* seconds per file); one
    extraction per path. A batch that times out, dies, or exits non-zero without a
    section for every file is run again file by file, so a failure lands on its file
    (a non-zero exit after a section per file is taken at its word)."""
    missing = spec.missing()
    if missing is not None:
        return [Extraction("not-installed", reason=missing) for _ in paths]
    limit = timeout * len(paths)
    done = _start(spec.batch_command(paths), limit)
    if isinstance(done, Extraction):  # it did not start
        return [done for _ in paths]
    code = done.returncode
    parts = split_batch_output(done.stdout, paths) if code is not None else []
    if code == 0 or (code is not None and code > 0 and None not in parts):
        share = done.seconds / max(1, len(paths))
        return [_batch_section(part, share) for part in parts]
    if len(paths) > 1:  # find the file that caused it
        return [got for path in paths for got in run_batch(spec, [path], timeout=timeout)]
    return [_failed(done, limit)]


def _batch_section(part: bytes | str | None, seconds: float) -> Extraction:
    """One file's section of a batch's output: text, the tool's error message, or none."""
    if part is None:
        why = "the batch command wrote no section for this file (a header: RS, path, LF)"
        return Extraction("error", reason=why, seconds=seconds)
    if isinstance(part, str):
        status, reason = explain_message(part)
        return Extraction(status, reason=reason, seconds=seconds)
    return _decoded(part, seconds)


class WorkerPool:
    """Long-lived extractor processes, one per extractor and thread, replaced after a
    timeout or a crash (``max_files=1``: a fresh one per file)."""

    def __init__(self, *, max_files: int = 0) -> None:
        self.max_files = max_files
        self._local = threading.local()
        self._all: list[Guard] = []
        self._lock = threading.Lock()
        self._load_failures: dict[str, Extraction] = {}

    def _guard(self, spec: ParserSpec) -> Guard:
        """This thread's guard for *spec*."""
        mine: dict[str, Guard] = self._local.__dict__.setdefault("guards", {})
        guard = mine.get(spec.name)
        if guard is None:
            guard = mine[spec.name] = Guard(
                EXTRACTOR_TASK,
                None,  # each file's limit is set as it is asked for
                setup=spec.target,
                env=scrubbed_environment(),  # third-party code: no secret of ours
                own_group=True,  # a timeout kills what it started too
                keep_stderr=True,  # a crash's reason is in it
            )
            with self._lock:
                self._all.append(guard)
        return guard

    def extract(self, spec: ParserSpec, path: Path, timeout: float) -> Extraction:
        """Run *spec* on *path* in an extractor process; never raises for the extractor."""
        if spec.name in self._load_failures:  # cannot import: no need to try every file
            return self._load_failures[spec.name]
        guard = self._guard(spec)
        guard.timeout = timeout
        guard.startup = startup = timeout + STARTUP_GRACE
        started = time.perf_counter()
        try:
            answer = guard.run(os.fspath(path))
        except OSError as exc:
            return Extraction("error", reason=f"cannot start the worker process: {exc}")
        seconds = time.perf_counter() - started
        if isinstance(answer, Stopped):
            return _stopped(answer, timeout, startup, seconds)
        code, info, text = answer
        got = _outcome(code, info, text, seconds)
        if code == worker_protocol.BASE_RAISED or (
            self.max_files and guard.served >= self.max_files
        ):
            guard.close()  # its state may be poisoned, or each file gets a fresh process
        if info.get("phase") == "load":
            self._load_failures[spec.name] = got
        return got

    def close(self) -> None:
        with self._lock:
            guards, self._all = self._all, []
        for guard in guards:
            guard.close()


def _stopped(stopped: Stopped, timeout: float, startup: float, seconds: float) -> Extraction:
    """The extraction of a file whose extractor process overran, or died."""
    if stopped.why == "timeout":
        if stopped.starting:
            why = f"extractor process did not start within {startup:g} s (killed)"
            return Extraction("timeout", reason=why)
        return Extraction(
            "timeout", reason=f"no answer within {timeout:g} s (killed)", seconds=seconds
        )
    reason = explain_exit(stopped.returncode or 0, stopped.stderr, "extractor process")[1]
    if stopped.starting:
        return Extraction("crashed", reason=f"extractor process did not start: {reason}")
    return Extraction("crashed", reason=reason, seconds=seconds)


def _outcome(code: int, info: dict[str, Any], text: str | None, seconds: float) -> Extraction:
    """Turn the extractor's answer into an extraction (the words a command's would get)."""
    if code == worker_protocol.OK:
        return Extraction("ok", text=text, seconds=seconds)
    kind = str(info.get("type") or "")
    message = str(info.get("message") or "")
    if code == worker_protocol.NOT_INSTALLED:
        return Extraction("not-installed", reason=message, seconds=seconds)
    status: RowStatus = "crashed" if code == worker_protocol.BASE_RAISED else "error"
    if code == worker_protocol.BAD_RESULT or not kind or message.startswith("cannot load"):
        return Extraction(status, reason=message, seconds=seconds)
    reason = describe_exception(kind, message, info.get("where"))
    return Extraction(status, reason=reason, seconds=seconds)


#: What a file's extraction will be, once it is in.
_Pending = Callable[[], Extraction]


class _Batcher:
    """Cuts the file list into batches for one ``{paths}`` command and submits each
    batch when its first file is asked for."""

    def __init__(
        self,
        paths: Sequence[Path],
        size: int,
        submit: Callable[[list[Path]], Future[list[Extraction]]],
    ) -> None:
        self.submit = submit
        self.batches: list[list[Path]] = []
        self.where: list[tuple[int, int]] = []  # file index -> (batch, position)
        current: list[Path] = []
        room = BATCH_ARG_BYTES
        for path in paths:
            cost = len(os.fsencode(path)) + 1
            if current and (len(current) >= size or cost > room):
                self.batches.append(current)
                current, room = [], BATCH_ARG_BYTES
            self.where.append((len(self.batches), len(current)))
            current.append(path)
            room -= cost
        if current:
            self.batches.append(current)
        self.futures: dict[int, Future[list[Extraction]]] = {}

    def part(self, index: int) -> _Pending:
        batch, position = self.where[index]
        if batch not in self.futures:
            self.futures[batch] = self.submit(self.batches[batch])
        future = self.futures[batch]
        if position == len(self.batches[batch]) - 1:  # the last file: forget the batch
            del self.futures[batch]
        return lambda: future.result()[position]


def batch_size(files: int, jobs: int) -> int:
    """Files per batch: all jobs busy, at most :data:`BATCH_FILES`.

    >>> batch_size(1000, 2), batch_size(10, 4), batch_size(0, 4)
    (64, 3, 1)
    """
    return max(1, min(BATCH_FILES, math.ceil(files / max(1, jobs))))


def run_matrix(
    paths: Sequence[Path],
    parsers: Sequence[ParserSpec],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 1,
    on_row: Callable[[MatrixRow], None] | None = None,
    isolate: bool = False,
) -> Iterator[MatrixRow]:
    """Rows for every file (in order) and every extractor (in the order given), each
    yielded (and passed to *on_row*) as soon as that file's extractions are all in;
    *jobs* extractions run at once; *isolate*: a fresh worker process per file."""
    jobs = max(1, jobs)
    paths = list(paths)
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="matrix")
    workers = WorkerPool(max_files=1 if isolate else 0)
    size = batch_size(len(paths), jobs)

    def submit_batch(spec: ParserSpec, chunk: list[Path]) -> Future[list[Extraction]]:
        return pool.submit(run_batch, spec, chunk, timeout=timeout)

    batchers = {
        spec.name: _Batcher(paths, size, partial(submit_batch, spec))
        for spec in parsers
        if spec.kind == "command" and spec.batch
    }
    ahead = jobs + 1 + (size * jobs if batchers else 0)

    def run(spec: ParserSpec, index: int) -> _Pending:
        if spec.name in batchers:
            return batchers[spec.name].part(index)
        return pool.submit(run_extractor, spec, paths[index], timeout=timeout, pool=workers).result

    def submit(index: int) -> tuple[Path, _Pending, dict[str, _Pending]]:
        futures = {spec.name: run(spec, index) for spec in parsers}
        pairs = zip(parsers, futures.values(), strict=True)
        shared = next((f for s, f in pairs if s == REFERENCE), None)
        return paths[index], shared or run(REFERENCE, index), futures

    try:
        window = deque(submit(i) for i in range(min(ahead, len(paths))))
        following = len(window)
        while window:
            path, pending_ref, futures = window.popleft()
            if following < len(paths):
                window.append(submit(following))
                following += 1
            ref = pending_ref()
            reference = ref.text if ref.status == "ok" else None
            shown = display_path(path)
            for spec in parsers:
                got = futures[spec.name]()
                row = build_row(shown, spec.name, got, reference, ref_reason=ref.reason)
                if on_row is not None:
                    on_row(row)
                yield row
    except BaseException:  # Ctrl-C or SIGTERM: the threads' commands never see it
        process_groups.kill_running()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        workers.close()
