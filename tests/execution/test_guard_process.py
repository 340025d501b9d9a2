"""The guard's child: a crash is told as a crash, at once, whatever the task started."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hwpscan.execution.guard_process import Guard
from hwpscan.execution.process_pool import Stopped

_TASK = """
import os

def task(item):
    if item == "spawn and die":
        os.system("sleep 30 &")  # a background process that outlives the child
        os._exit(5)
    return item.upper()
"""


def test_a_child_that_dies_after_starting_a_process_is_died_not_timeout(tmp_path: Path) -> None:
    (tmp_path / "spawning_task.py").write_text(_TASK, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    guard = Guard("spawning_task:task", timeout=20.0, env=env)
    try:
        started = time.monotonic()
        before, lost, after = guard.run_many(["a", "spawn and die", "b"])
        took = time.monotonic() - started
    finally:
        guard.close()
    assert (before, after) == ("A", "B")
    assert isinstance(lost, Stopped) and lost.why == "died" and lost.returncode == 5
    assert took < 15.0  # the answer socket closed with the child: no wait for the limit
