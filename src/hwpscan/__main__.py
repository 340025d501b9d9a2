"""``python -m hwpscan``."""

from hwpscan.cli import main

main()
