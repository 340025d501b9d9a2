"""Run every extractor on every file, each in its own subprocess with a timeout.

Real extractors hang, return an empty string for every file, or die with exceptions
that are not ``Exception`` subclasses (a Rust panic surfaced through PyO3 is a
``BaseException``). Each of those becomes a row with its reason; none ends the run.

Python extractors run in ``python -m hwpscan.matrix.worker``, which hands the text
back through a temporary file as UTF-8 with ``surrogatepass`` (lossless, lone
surrogates included). Commands run directly, without a shell; their stdout is decoded
the same way, undecodable bytes counted. Each subprocess gets its own process group, so
a timeout kills whatever it started too.

The reference text of each file is our ``strict`` view, obtained the same way (and
shared with the ``strict`` row when that extractor is asked for).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hwpscan.matrix import worker
from hwpscan.matrix.parsers import REFERENCE, ParserSpec, decode_output
from hwpscan.matrix.rows import Extraction, MatrixRow, build_row
from hwpscan.scan import display_path

__all__ = ["run_matrix", "run_extractor"]

DEFAULT_TIMEOUT = 30.0
_STDERR_TAIL = 300
_KILL_GRACE = 5.0


@dataclass(frozen=True, slots=True)
class _Finished:
    returncode: int | None  # None: timed out and killed
    stdout: bytes
    stderr: bytes
    seconds: float


def _run(argv: Sequence[str], *, timeout: float, capture_stdout: bool) -> _Finished:
    """Run *argv* in a new process group; on timeout kill the whole group."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=os.name == "posix",
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _kill(proc)
        try:
            out, err = proc.communicate(timeout=_KILL_GRACE)
        except subprocess.TimeoutExpired:  # a grandchild left its own group, holding a pipe
            out, err = b"", b""
        code = None
    return _Finished(code, out or b"", err or b"", time.perf_counter() - started)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            pass
    proc.kill()


def _tail(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "backslashreplace").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return last if len(last) <= _STDERR_TAIL else "..." + last[-_STDERR_TAIL:]


def _died(code: int, stderr: bytes, who: str) -> str:
    if code < 0:
        try:
            what = f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            what = f"killed by signal {-code}"
    else:
        what = f"{who} exited with status {code}"
    tail = _tail(stderr)
    return f"{what}: {tail}" if tail else what


def run_extractor(spec: ParserSpec, path: Path, *, timeout: float, workdir: Path) -> Extraction:
    """Run one extractor on one file; never raises for what the extractor does."""
    missing = spec.missing()
    if missing is not None:
        return Extraction("not-installed", reason=missing)
    if spec.kind == "command":
        return _run_command(spec, path, timeout)
    return _run_callable(spec, path, timeout, workdir)


def _run_command(spec: ParserSpec, path: Path, timeout: float) -> Extraction:
    argv = spec.command(path)
    try:
        done = _run(argv, timeout=timeout, capture_stdout=True)
    except FileNotFoundError:
        return Extraction("not-installed", reason=f"command not found: {argv[0]}")
    except OSError as exc:
        return Extraction("error", reason=f"cannot start {argv[0]}: {exc.strerror or exc}")
    if done.returncode is None:
        return Extraction("timeout", reason=f"no answer within {timeout:g} s (killed)", seconds=done.seconds)
    if done.returncode != 0:
        status = "crashed" if done.returncode < 0 else "error"
        return Extraction(status, reason=_died(done.returncode, done.stderr, "command"), seconds=done.seconds)
    text, invalid = decode_output(done.stdout)
    note = f"{invalid:,} bytes of output were not UTF-8" if invalid else None
    return Extraction("ok", text=text, reason=note, invalid_bytes=invalid, seconds=done.seconds)


def _run_callable(spec: ParserSpec, path: Path, timeout: float, workdir: Path) -> Extraction:
    fd, out_name = tempfile.mkstemp(prefix="extract-", suffix=".out", dir=workdir)
    os.close(fd)
    out = Path(out_name)
    argv = [sys.executable, "-m", "hwpscan.matrix.worker", spec.target, os.fspath(path), out_name]
    try:
        done = _run(argv, timeout=timeout, capture_stdout=False)
        if done.returncode is None:
            return Extraction("timeout", reason=f"no answer within {timeout:g} s (killed)", seconds=done.seconds)
        if done.returncode == worker.OK:
            text, invalid = decode_output(out.read_bytes())  # invalid stays 0: we wrote it
            return Extraction("ok", text=text, invalid_bytes=invalid, seconds=done.seconds)
        if done.returncode in worker.OUTCOMES:
            return _outcome(done, out)
        return Extraction("crashed", reason=_died(done.returncode, done.stderr, "extractor process"), seconds=done.seconds)
    finally:
        out.unlink(missing_ok=True)


def _outcome(done: _Finished, out: Path) -> Extraction:
    """Turn the worker's report of a raised exception into an extraction."""
    try:
        info = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = {"type": None, "message": _tail(done.stderr)}
    kind = info.get("type")
    message = str(info.get("message") or "")
    if done.returncode == worker.NOT_INSTALLED:
        return Extraction("not-installed", reason=message, seconds=done.seconds)
    if done.returncode == worker.BAD_RESULT:
        return Extraction("error", reason=message, seconds=done.seconds)
    if done.returncode == worker.BASE_RAISED:
        reason = f"{kind} (a BaseException, not an Exception): {message}".rstrip(": ")
        return Extraction("crashed", reason=reason, seconds=done.seconds)
    reason = f"{kind}: {message}" if kind else message
    return Extraction("error", reason=reason, seconds=done.seconds)


_Task = tuple[Path, "Future[Extraction]", dict[str, "Future[Extraction]"]]


def run_matrix(
    paths: Sequence[Path],
    parsers: Sequence[ParserSpec],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int = 1,
    on_row: Callable[[MatrixRow], None] | None = None,
) -> Iterator[MatrixRow]:
    """Rows for every file (in order) and every extractor (in the order given).

    *jobs* subprocesses run at once. *paths* are files (use
    :func:`hwpscan.scan.collect_files` to expand folders).
    """
    jobs = max(1, jobs)
    with tempfile.TemporaryDirectory(prefix="hwpscan-matrix-") as tmp:
        workdir = Path(tmp)
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="matrix")

        def submit(path: Path) -> _Task:
            futures = {
                spec.name: pool.submit(run_extractor, spec, path, timeout=timeout, workdir=workdir)
                for spec in parsers
            }
            shared = next((f for s, f in zip(parsers, futures.values()) if s == REFERENCE), None)
            ref = shared or pool.submit(run_extractor, REFERENCE, path, timeout=timeout, workdir=workdir)
            return path, ref, futures

        try:
            todo = iter(paths)
            window: deque[_Task] = deque()
            for path in todo:
                window.append(submit(path))
                if len(window) >= jobs + 1:
                    break
            while window:
                path, ref_future, futures = window.popleft()
                nxt = next(todo, None)
                if nxt is not None:
                    window.append(submit(nxt))
                ref = ref_future.result()
                reference = ref.text if ref.status == "ok" else None
                shown = display_path(path)
                for spec in parsers:
                    row = build_row(shown, spec.name, futures[spec.name].result(), reference,
                                    ref_reason=ref.reason)
                    if on_row is not None:
                        on_row(row)
                    yield row
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
