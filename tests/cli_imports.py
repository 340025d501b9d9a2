"""What a real ``python -m hwpscan ...`` process imports (``-X importtime``), for the
start-up tests."""

from __future__ import annotations

import os
import subprocess
import sys


def imported_modules(*args: str) -> set[str]:
    """The modules ``hwpscan *args`` imported, by name."""
    env = {**os.environ, "COLUMNS": "100"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hwpscan", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
