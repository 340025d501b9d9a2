"""``python -m hwpscan``."""

from hwpscan.cli import run

if __name__ == "__main__":
    run()
