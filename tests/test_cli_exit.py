"""The console script's quick exit (hwpscan.cli.run): the exit handlers still run, every
line written arrives, the status is main's, and a live thread is waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hwpscan.scanning.inputs import collect_files
from hwpscan.scanning.many_files import scan_paths

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _interpreter(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """This interpreter run with *args*, its state folder below *tmp*."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HWPSCAN_HOME": str(tmp / "home")},
        timeout=120,
        check=False,
    )


def _python(code: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _interpreter(tmp, "-c", textwrap.dedent(code), *args)


@pytest.mark.slow
def test_exit_handlers_run_and_every_row_arrives(tmp_path: Path) -> None:
    marker = tmp_path / "handler-ran"
    code = f"""
        import atexit, pathlib, sys
        atexit.register(lambda: pathlib.Path({str(marker)!r}).write_text("yes"))
        sys.argv = ["hwpscan", *sys.argv[1:]]
        from hwpscan.cli import run
        run()
        print("not reached")
    """
    done = _python(
        code, tmp_path, "scan", str(FIXTURES), "-f", "jsonl", "--fail-on", "contaminated"
    )
    assert done.returncode == 1, done.stderr  # findings: main's status
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 63 and "not reached" not in done.stdout
    here = {r.path: r.status.value for r in scan_paths(collect_files([FIXTURES]), jobs=1)}
    assert {r["path"]: r["status"] for r in rows} == here  # every row, whole
    assert marker.read_text() == "yes"
    runs = _interpreter(tmp_path, "-m", "hwpscan", "history", "--format", "json")
    assert runs.returncode == 0, runs.stderr
    assert '"files": 63' in runs.stdout  # the run store was written and closed whole


def test_the_status_is_mains_whatever_it_is(tmp_path: Path) -> None:
    for status, shown, expected in [(None, "", 0), (7, "", 7), ("no way", "no way", 1)]:
        code = f"""
            import hwpscan.cli as cli
            def main():
                raise SystemExit({status!r})
            cli.main = main
            cli.run()
        """
        done = _python(code, tmp_path)
        assert done.returncode == expected, (status, done.stderr)
        assert shown in done.stderr


def test_a_live_thread_is_waited_for(tmp_path: Path) -> None:
    """Another thread still running: the usual exit, which joins it before the end."""
    late = tmp_path / "late"
    code = f"""
        import pathlib, sys, threading, time
        def later():
            time.sleep(0.3)
            pathlib.Path({str(late)!r}).write_text("written")
        threading.Thread(target=later).start()
        sys.argv = ["hwpscan", "--version"]
        from hwpscan.cli import run
        run()
    """
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hwpscan ")
    assert late.read_text() == "written"


def test_a_profiler_still_gets_its_exit(tmp_path: Path) -> None:
    """Under cProfile (as under a tracer or coverage) the usual exit is kept, so the
    profile is written."""
    out = tmp_path / "scan.prof"
    done = _interpreter(tmp_path, "-m", "cProfile", "-o", str(out), "-m", "hwpscan", "--version")
    assert done.returncode == 0, done.stderr
    assert out.exists() and out.stat().st_size > 0


@pytest.mark.slow
def test_the_collector_is_off_while_modules_load_and_on_while_the_command_runs(
    tmp_path: Path,
) -> None:
    code = """
        import gc, sys
        import hwpscan.usecases.scan as usecase
        scan = usecase.scan
        def passes():
            return sum(g["collections"] for g in gc.get_stats())
        def watched(*args, **kwargs):  # what the scan command calls to do its work
            print("running:", gc.isenabled(), gc.get_freeze_count() > 10_000, file=sys.stderr)
            print("passes while loading:", passes() - before, file=sys.stderr)
            return scan(*args, **kwargs)
        usecase.scan = watched
        off = sys.argv[1] == "off"
        if off:
            gc.disable()
        sys.argv = ["hwpscan", *sys.argv[2:]]
        from hwpscan.cli import main
        before = passes()
        try:
            main()
        except SystemExit:
            pass
        print("after:", gc.isenabled(), file=sys.stderr)
    """
    done = _python(code, tmp_path, "on", "scan", str(FIXTURES), "-f", "jsonl")
    # no pass while loading (two dozen without the pause); on during the scan, the
    # objects made while loading frozen; on after it
    assert "passes while loading: 0" in done.stderr, done.stderr
    assert "running: True True" in done.stderr and "after: True" in done.stderr, done.stderr
    done = _python(code, tmp_path, "off", "scan", str(FIXTURES), "-f", "jsonl")
    # a caller that turned the collector off keeps it off
    assert "running: False" in done.stderr and "after: False" in done.stderr, done.stderr
