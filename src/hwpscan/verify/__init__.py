"""Post-deploy verification of chosen dates: PASS, FAIL or INCONCLUSIVE per date.

A verification runs in the use case :mod:`hwpscan.usecases.run_verify`::

    from hwpscan.api.settings import FetchSettings
    from hwpscan.usecases import VerifySettings, verify_dates
    settings = VerifySettings("fixed", dates=(date(2025, 7, 21),),
                              parser_cmd=("fixed=python -m mypipeline.extract {path}",))
    outcome = verify_dates(settings, FetchSettings(), key=key)
    outcome.exit_code, [v.verdict for v in outcome.verdicts]

The verdict rules are :mod:`~hwpscan.verify.date_verdicts`; the deployed tool's run and
check, :mod:`~hwpscan.verify.tool`.
"""

from __future__ import annotations

from hwpscan.verify.checked_files import locate_in_output, scan_files, with_positions
from hwpscan.verify.date_verdicts import (
    EXPECTATIONS,
    FAIL,
    INCONCLUSIVE,
    PASS,
    DateVerdict,
    Listing,
    exit_code,
    judge,
)
from hwpscan.verify.evidence import Evidence
from hwpscan.verify.tool import (
    DATE_FIELD,
    ToolOutcome,
    parse_tool_cmd,
    run_tool,
    scrub_tool_text,
    tool_environment,
)

__all__ = [
    "DATE_FIELD",
    "EXPECTATIONS",
    "FAIL",
    "INCONCLUSIVE",
    "PASS",
    "DateVerdict",
    "Evidence",
    "Listing",
    "ToolOutcome",
    "exit_code",
    "judge",
    "locate_in_output",
    "parse_tool_cmd",
    "run_tool",
    "scan_files",
    "scrub_tool_text",
    "tool_environment",
    "with_positions",
]
