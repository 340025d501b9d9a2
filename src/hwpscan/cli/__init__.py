"""Command-line interface: a thin adapter over the library.

Each command module registers on :data:`hwpscan.cli.app.app`; importing them here
makes the commands exist.
"""

from __future__ import annotations

from hwpscan.cli import checkjson as _checkjson  # noqa: F401  (registers check-json)
from hwpscan.cli import fetch as _fetch  # noqa: F401  (registers plan, fetch, demo)
from hwpscan.cli import emulator as _emulator  # noqa: F401  (registers emulator)
from hwpscan.cli import report as _report  # noqa: F401  (registers report, history, diff)
from hwpscan.cli import scan as _scan  # noqa: F401  (registers scan, repair)
from hwpscan.cli import verify as _verify  # noqa: F401  (registers verify)
from hwpscan.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    app()
