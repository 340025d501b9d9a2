"""Post-deploy verification of chosen dates: PASS, FAIL or INCONCLUSIVE per date, by the
rules of :mod:`~hwpscan.verify.date_verdicts`. It runs in the use case
:func:`hwpscan.usecases.verify_dates`; the deployed tool is :mod:`~hwpscan.verify.tool`.
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
