"""The scan's exit code: which rows a ``--fail-on`` condition matches.

>>> statuses_exit_code([], fail_on={"contaminated"})
<ExitCode.OK: 0>
"""

from __future__ import annotations

from collections.abc import Iterable

from hwpscan.models import DEFECT_CLASSES, ExitCode, Status

#: ``--fail-on``: the two verdicts, each defect class, and ``defects`` for any class.
FAIL_ON_CHOICES = ("contaminated", "unreadable", "error", *DEFECT_CLASSES, "defects")
#: ``--fail-on error`` is the older name of ``--fail-on unreadable``.
FAIL_ON_ALIASES = {"error": "unreadable"}


def statuses_exit_code(
    statuses: Iterable[Status], fail_on: Iterable[str] = (), masks: Iterable[int] = ()
) -> ExitCode:
    """The scan's exit code from its rows' statuses and defect masks (each one present
    once is enough: a tally's keys): FINDINGS when a ``--fail-on`` condition matched.

    ``contaminated`` matches contaminated files; ``unreadable`` (or ``error``) files that
    could not be judged (encrypted, distribution, unsupported, corrupt, error); a defect
    class (``folded_symbols``...) a file whose body holds that class, and ``defects`` a
    file with any.

    >>> from hwpscan.models import Defects
    >>> statuses_exit_code([Status.CLEAN, Status.ENCRYPTED], ["unreadable"])
    <ExitCode.FINDINGS: 1>
    >>> statuses_exit_code([Status.CLEAN], ["folded_symbols"], [Defects(folded_symbols=2).mask])
    <ExitCode.FINDINGS: 1>
    >>> statuses_exit_code([Status.CLEAN], ["pdf_folded"], [Defects(folded_symbols=2).mask])
    <ExitCode.OK: 0>
    """
    wanted = {FAIL_ON_ALIASES.get(v, v) for v in fail_on}
    if not wanted:  # no gate: nothing to read
        return ExitCode.OK
    for status in statuses:
        if "contaminated" in wanted and status is Status.CONTAMINATED:
            return ExitCode.FINDINGS
        if "unreadable" in wanted and not status.scanned:
            return ExitCode.FINDINGS
    gated = sum(1 << i for i, name in enumerate(DEFECT_CLASSES) if {name, "defects"} & wanted)
    if gated and any(mask & gated for mask in masks):
        return ExitCode.FINDINGS
    return ExitCode.OK
