"""Where files are scanned: this machine's process pool, or a Dask cluster.

``local`` is :func:`hwpscan.scan.scan_paths`. ``dask``
(:mod:`hwpscan.executors.dask_cluster`, an optional extra: ``pip install 'hwpscan[dask]'``)
sends :class:`~hwpscan.sources.WorkItem` batches to a ``dask.distributed`` cluster whose
workers run :func:`hwpscan.executors.worker.scan_batch`, the same per-file functions the
local executor runs, so rows are the same field by field (timings aside).
"""

from __future__ import annotations

EXECUTORS = ("local", "dask")

__all__ = ["EXECUTORS"]
