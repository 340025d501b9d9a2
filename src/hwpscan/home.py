"""Where hwpscan keeps its state: ledger, response cache, run store.

``HWPSCAN_HOME`` wins when set; otherwise the platform's user data folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def state_dir() -> Path:
    """The state folder, created on first use."""
    env = os.environ.get("HWPSCAN_HOME")
    path = Path(env).expanduser() if env else Path(platformdirs.user_data_dir("hwpscan", False))
    path.mkdir(parents=True, exist_ok=True)
    return path
