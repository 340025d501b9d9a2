"""What a scan at scale is asked for (:class:`ScaleSettings`) and whether it needs the
scaled path, apart from :mod:`hwpscan.usecases.scan_at_scale`, which a local scan never loads.

>>> from pathlib import Path
>>> ScaleSettings().needed([Path("fixtures")]), ScaleSettings(resume="latest").needed([])
(False, True)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hwpscan.execution import DEFAULT_BATCH, DEFAULT_WORKER_WAIT
from hwpscan.locations import url_from_argument

__all__ = ["DEFAULT_BATCH", "DEFAULT_WORKER_WAIT", "Executor", "ScaleSettings", "url_from_argument"]


class Executor(str, enum.Enum):
    local = "local"
    dask = "dask"


@dataclass(frozen=True, slots=True)
class ScaleSettings:
    """Where the files are scanned: this machine or a Dask cluster (``scheduler``
    ``tcp://HOST:8786``; None: a local one). ``resume`` names a run whose rows are carried
    over for files of the same size; a Dask scan stops after ``worker_wait`` seconds
    without a worker (None or 0: never)."""

    executor: Executor = Executor.local
    scheduler: str | None = None
    batch_size: int = DEFAULT_BATCH
    resume: str | None = None
    worker_wait: float | None = DEFAULT_WORKER_WAIT

    def needed(self, paths: Sequence[Path]) -> bool:
        """True when the plain local scan cannot do what was asked of *paths*."""
        return (
            self.executor is Executor.dask
            or self.resume is not None
            or any(url_from_argument(p) is not None for p in paths)
        )
