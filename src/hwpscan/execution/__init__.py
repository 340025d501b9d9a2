"""Where files are scanned: this machine's process pool (``local``,
:func:`hwpscan.scanning.many_files.scan_paths`) or a Dask cluster (``dask``,
:mod:`hwpscan.scanning.on_dask`, ``pip install 'hwpscan[dask]'``) whose workers run the
same per-file functions, so rows are the same field by field (timings aside).
"""

from __future__ import annotations

#: Files per Dask task: large enough that the scheduler's per-task cost stays under 5% of
#: the scanning (measured by benchmarks/scale_out.py: about 9 ms per task against about
#: 2 ms per file on a busy machine, so 128), small enough to spread a large folder.
DEFAULT_BATCH = 128
#: Seconds a Dask scan waits on a cluster that has no worker before it stops (see
#: :func:`~hwpscan.scanning.on_dask.scan_on_dask`): long enough for a worker to be
#: replaced or an adaptive cluster to grow, short enough that a cluster whose workers
#: are gone for good is named.
DEFAULT_WORKER_WAIT = 120.0

__all__ = ["DEFAULT_BATCH", "DEFAULT_WORKER_WAIT"]
