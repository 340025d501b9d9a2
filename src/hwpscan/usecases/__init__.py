"""Use cases: what each command does, as library functions over typed settings.

Each module here takes a frozen settings object, runs one job end to end (listing,
scanning, recording the run, deciding the exit code) and returns a result object. They
know nothing of the terminal: progress and warnings reach the caller through callbacks,
so the CLI (:mod:`hwpscan.cli`) only maps options to settings, calls, and renders.

- :mod:`hwpscan.usecases.run_scan`: :func:`~hwpscan.usecases.run_scan.scan` (``hwpscan scan``
  and ``hwpscan repair``), :class:`~hwpscan.usecases.run_scan.ScanSettings`.
- :mod:`hwpscan.usecases.scan_at_scale`: URL sources, the Dask executor and ``--resume``;
  what they are asked (:class:`~hwpscan.usecases.scale_settings.ScaleSettings`) is
  :mod:`hwpscan.usecases.scale_settings`, which a scan of local files loads alone.
"""

from hwpscan.lazy import lazy_names

#: The use cases' public names, each loaded on first use (a scan does not load the
#: fetcher, a fetch does not load the scanner's pool).
_LAZY = {
    "ScanSettings": "hwpscan.usecases.run_scan",
    "scan": "hwpscan.usecases.run_scan",
    "FetchReport": "hwpscan.usecases.run_fetch",
    "fetch_range": "hwpscan.usecases.run_fetch",
    "fetch_for_scan": "hwpscan.usecases.run_fetch",
    "VerifySettings": "hwpscan.usecases.run_verify",
    "VerifyOutcome": "hwpscan.usecases.run_verify",
    "verify_dates": "hwpscan.usecases.run_verify",
    "Extraction": "hwpscan.usecases.extract",
    "extract": "hwpscan.usecases.extract",
}
__getattr__ = lazy_names(__name__, _LAZY)
__all__ = [
    "Extraction",
    "FetchReport",
    "ScanSettings",
    "VerifyOutcome",
    "VerifySettings",
    "extract",
    "fetch_for_scan",
    "fetch_range",
    "scan",
    "verify_dates",
]
