"""A worker's memory budget: set from the scan's settings, or from HWPSCAN_MEMORY_MB."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

resource = pytest.importorskip("resource")

_PROBE = """
import resource
from hwpscan.execution import child_limits
child_limits.set_memory_budget(2048)
soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
print(soft == resource.RLIM_INFINITY, child_limits.memory_budget_reason())
"""

_OVER = "out of memory: over the {} MB per-file memory budget while reading this file"


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (None, "False " + _OVER.format("2,048")),
        ("0", "True None"),
        ("512", "False " + _OVER.format(512)),
    ],
)
def test_the_environment_sets_or_lifts_the_memory_budget(env: str | None, said: str) -> None:
    environ = {k: v for k, v in os.environ.items() if k != "HWPSCAN_MEMORY_MB"}
    if env is not None:
        environ["HWPSCAN_MEMORY_MB"] = env
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=environ, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == said.split()
