"""What a scan at scale is asked for, and whether a scan needs the scaled path at all.

:class:`ScaleSettings` (``scan --executor/--scheduler/--batch-size/--resume/
--worker-wait``) and the cheap checks of the arguments, apart from the running side
(:mod:`hwpscan.usecases.scan_at_scale`), which a scan of local files never loads.

>>> from pathlib import Path
>>> ScaleSettings().needed([Path("fixtures")]), ScaleSettings(resume="latest").needed([])
(False, True)
>>> local_paths([Path("fixtures"), Path("s3:/bucket/x")]), display_root([Path("s3:/b/k/")])
([PosixPath('fixtures')], 's3://b/k')
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hwpscan.execution import DEFAULT_BATCH, DEFAULT_WORKER_WAIT
from hwpscan.locations import shown_url, url_from_argument

__all__ = [
    "DEFAULT_BATCH",
    "DEFAULT_WORKER_WAIT",
    "Executor",
    "ScaleSettings",
    "display_root",
    "local_paths",
    "url_from_argument",
]


class Executor(str, enum.Enum):
    local = "local"
    dask = "dask"


@dataclass(frozen=True, slots=True)
class ScaleSettings:
    """Where the files are scanned: this machine's processes or a Dask cluster.

    ``scheduler`` is a Dask scheduler address (``tcp://HOST:8786``; None: a local
    cluster on 127.0.0.1); ``batch_size`` files go in one Dask task; ``resume`` names a
    run whose rows are carried over for files of the same size; a Dask scan stops
    when its cluster has had no worker for ``worker_wait`` seconds (None or 0: never).
    """

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


def local_paths(paths: Sequence[Path]) -> list[Path]:
    """The arguments that are local paths (URLs are checked when listed)."""
    return [p for p in paths if url_from_argument(p) is None]


def display_root(paths: Sequence[Path]) -> str | None:
    """The one URL scanned, to show keys relative to it (None: not a single URL)."""
    if len(paths) == 1 and (url := url_from_argument(paths[0])) is not None:
        return shown_url(url).rstrip("/")
    return None
