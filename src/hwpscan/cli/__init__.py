"""Command-line interface: a thin adapter over the library.

Each command module registers on :data:`hwpscan.cli.app.app`; importing them here
makes the commands exist.
"""

from __future__ import annotations

# Registration order is the order in --help, within each panel.
from hwpscan.cli import scan as _scan  # noqa: F401, I001  (scan, repair)
from hwpscan.cli import checkjson as _checkjson  # noqa: F401  (check-json)
from hwpscan.cli import fetch as _fetch  # noqa: F401  (plan, fetch, demo)
from hwpscan.cli import verify as _verify  # noqa: F401  (verify)
from hwpscan.cli import report as _report  # noqa: F401  (report, history, diff)
from hwpscan.cli import emulator as _emulator  # noqa: F401  (emulator)
from hwpscan.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    app()
