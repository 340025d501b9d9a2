"""Use cases: what each command does, as library functions over frozen settings that run
one job end to end and return a result, telling the caller through callbacks (the CLI only
maps options and renders). Each name loads on first use.
"""

from hwpscan.lazy import lazy_names

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
