"""Fetching press releases and their attachments within the API's limits. A fetch, asked
for by :class:`FetchSettings`, runs in :mod:`hwpscan.usecases.run_fetch`; :func:`plan_range`
plans one. No module here imports httpx until a fetch runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names

if TYPE_CHECKING:
    from hwpscan.api.defaults import DEFAULT_API_URL
    from hwpscan.api.limits import FetchLimits
    from hwpscan.api.plan import Plan, plan_range
    from hwpscan.api.progress import ProgressEvent
    from hwpscan.api.settings import FetchHooks, FetchSettings, RetryPolicy, default_out_dir
    from hwpscan.manifest import dates_for, load_manifest

#: Every name loads on first use: importing :mod:`~hwpscan.api.defaults` loads nothing else.
_LAZY = {
    "DEFAULT_API_URL": "hwpscan.api.defaults",
    "FetchHooks": "hwpscan.api.settings",
    "FetchLimits": "hwpscan.api.limits",
    "FetchSettings": "hwpscan.api.settings",
    "RetryPolicy": "hwpscan.api.settings",
    "default_out_dir": "hwpscan.api.settings",
    "ProgressEvent": "hwpscan.api.progress",
    "dates_for": "hwpscan.manifest",
    "load_manifest": "hwpscan.manifest",
    "Plan": "hwpscan.api.plan",
    "plan_range": "hwpscan.api.plan",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "DEFAULT_API_URL",
    "FetchHooks",
    "FetchLimits",
    "FetchSettings",
    "Plan",
    "ProgressEvent",
    "RetryPolicy",
    "dates_for",
    "default_out_dir",
    "load_manifest",
    "plan_range",
]
