"""Start-up time of the CLI: what every tab completion and ``--help`` pays.

    python benchmarks/startup.py [--runs 15]

Runs ``hwpscan --version``, ``hwpscan -V``, ``hwpscan --help`` and ``hwpscan scan --help``
in fresh interpreters (the console script's own ``python -m hwpscan``), and prints the
fastest and the median wall time of each, the bare interpreter for reference, and which
heavy packages (httpx, pandas, the emulator, pydantic) were imported by ``--help``.

Target: under 0.3 s for ``--help`` and ``--version`` on an idle machine. The fastest run
is the figure to compare (the median shows how loaded the machine was).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "hwpscan --version": [sys.executable, "-m", "hwpscan", "--version"],
    "hwpscan -V": [sys.executable, "-m", "hwpscan", "-V"],
    "hwpscan --help": [sys.executable, "-m", "hwpscan", "--help"],
    "hwpscan scan --help": [sys.executable, "-m", "hwpscan", "scan", "--help"],
}
HEAVY = (
    "httpx",
    "pandas",
    "numpy",
    "hwpscan.rehearsal.emulator.server",
    "pydantic",
    "olefile",
    "pypdf",
)
TARGET = 0.3


def time_once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy packages a command imports (from ``-X importtime``)."""
    traced = [argv[0], "-X", "importtime", *argv[1:]]
    proc = subprocess.run(traced, check=True, capture_output=True, text=True, env=env)
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    return sorted(h for h in HEAVY if h in names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hwpscan-bench-") as home:
        env = {**os.environ, "HWPSCAN_HOME": home, "COLUMNS": "100"}
        print(f"{'command':<26} {'fastest':>8} {'median':>8}  target")
        for name, argv in COMMANDS.items():
            time_once(argv, env)  # warm the file cache
            times = [time_once(argv, env) for _ in range(args.runs)]
            best, median = min(times), statistics.median(times)
            verdict = "" if name.startswith("python") else ("ok" if best < TARGET else "SLOW")
            print(f"{name:<26} {best:>7.3f}s {median:>7.3f}s  {verdict}")
        for name in ("hwpscan --help", "hwpscan scan --help"):
            loaded = heavy_imports(COMMANDS[name], env)
            print(f"heavy imports of {name}: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
