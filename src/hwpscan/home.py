"""Where hwpscan keeps its state: ledger, response cache, run store.

``HWPSCAN_HOME`` wins when set; otherwise the platform's user data folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from hwpscan.errors import StateDirError


def state_dir() -> Path:
    """The state folder, created on first use.

    Raises :class:`~hwpscan.errors.StateDirError` naming the folder (and HWPSCAN_HOME when
    it came from there) when it cannot be created.
    """
    env = os.environ.get("HWPSCAN_HOME")
    if env:
        path = Path(env).expanduser()
    else:
        import platformdirs  # only where HWPSCAN_HOME does not say: a few ms at every start

        path = Path(platformdirs.user_data_dir("hwpscan", False))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = f"HWPSCAN_HOME={env}" if env else str(path)
        raise StateDirError(
            f"the state folder ({where}) cannot be used: {exc.strerror or exc}"
        ) from exc
    return path
