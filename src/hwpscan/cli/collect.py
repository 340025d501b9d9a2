"""The cycle collector held off while the command line loads.

Starting a command imports some 300 modules, and the objects they make (classes,
functions, compiled patterns: about 45,000) set off the cycle collector every 700
allocations, each pass walking the young ones again; on this project's 2-core machine
that was a seventh of the import time (164 against 190 ms, median of eight). So
:func:`hwpscan.cli.main` pauses the collector before it imports anything, and it is
resumed as soon as the command's module is loaded (:meth:`HwpscanGroup.resolve_command`)
or, at the latest, when main ends. Resuming first moves every object that exists then
into the permanent generation (:func:`gc.freeze`): they live as long as the process,
so later passes, and the scan's worker processes forked after it, never walk them.

Only a pause this module made is resumed: a program that calls ``main`` with the
collector off keeps it off.
"""

from __future__ import annotations

import gc

__all__ = ["pause_collector", "resume_collector"]

#: Whether the collector is off because :func:`pause_collector` turned it off.
_PAUSED: list[bool] = []


def pause_collector() -> None:
    """Turn the collector off, if it is on (remembering that it was turned off here)."""
    if gc.isenabled():
        gc.disable()
        _PAUSED.append(True)


def resume_collector() -> None:
    """After :func:`pause_collector`: freeze what exists and turn the collector back on.

    >>> pause_collector(); gc.isenabled()
    False
    >>> resume_collector(); resume_collector(); gc.isenabled()
    True
    >>> gc.unfreeze()  # (a doctest runs inside a test session: its heap is not frozen)
    """
    if _PAUSED:
        _PAUSED.clear()
        gc.freeze()
        gc.enable()
