"""Progress as plain callbacks: the core reports, the CLI draws (rich) or ignores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """A tick for ``calls`` or ``downloads``: ``total`` adds to the expected count,
    ``advance`` counts items done, ``message`` names the last one."""

    kind: str
    total: int = 0
    advance: int = 0
    message: str = ""


Progress = Callable[[ProgressEvent], None]


def notify(progress: Progress | None, event: ProgressEvent) -> None:
    """Send ``event`` when someone listens."""
    if progress is not None:
        progress(event)
