"""The guard's child: a crash is told as a crash, at once, whatever the task started."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from hwpscan.execution.guard_process import Guard
from hwpscan.execution.process_pool import Stopped

#: PIDS is replaced by the quoted path of the file the background process's pid goes to.
_TASK = """
import os

def task(item):
    if item == "spawn and die":
        os.system("sleep 30 & echo $! > " + PIDS)  # a process that outlives the child
        os._exit(5)
    return item.upper()
"""


def _gone(pid: int, within: float = 5.0) -> bool:
    """Whether process *pid* has ended (or is a zombie) within *within* seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("own_group", [True, False])
def test_a_child_that_dies_after_starting_a_process_is_died_not_timeout(
    tmp_path: Path, own_group: bool
) -> None:
    pids = tmp_path / "spawned.pid"
    task = _TASK.replace("PIDS", repr(str(pids)))
    (tmp_path / "spawning_task.py").write_text(task, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    guard = Guard("spawning_task:task", timeout=20.0, env=env, own_group=own_group)
    try:
        started = time.monotonic()
        before, lost, after = guard.run_many(["a", "spawn and die", "b"])
        took = time.monotonic() - started
    finally:
        guard.close()
    spawned = int(pids.read_text())
    try:
        assert (before, after) == ("A", "B")
        assert isinstance(lost, Stopped) and lost.why == "died" and lost.returncode == 5
        assert took < 15.0  # the answer socket closed with the child: no wait for the limit
        if own_group:  # what the child started went with its group
            assert _gone(spawned)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(spawned, signal.SIGKILL)
