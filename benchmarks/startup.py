"""Start-up time of the CLI: what every tab completion and ``--help`` pays.

    python benchmarks/startup.py [--runs 11] [--commands scan,fetch]

Runs ``hwpscan --version``, ``hwpscan --help`` and ``hwpscan CMD --help`` for every command
(or those named) in fresh interpreters (``python -m hwpscan``, what the console script
runs), and prints for each the median wall time and the median CPU time (user + system)
of the runs, against the 0.3 s target, with ``ok`` or ``SLOW`` judged on the median wall
time. The bare interpreter is the floor. Last, which heavy packages (httpx, pandas, the
emulator, pydantic...) and which help-renderer packages (Markdown, Pygments) ``--help``
and ``scan --help`` load.

Bytecode as an installed package has it: the runs share a fresh ``PYTHONPYCACHEPREFIX``
(filled by one warm-up run per command) even where ``PYTHONDONTWRITEBYTECODE`` is set,
as it is in some development shells, which would otherwise make every run compile
hwpscan's sources again (about twice the time). On a machine shared with other work the
CPU column moves less than the wall column; compare runs on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = (
    "scan",
    "fetch",
    "check-json",
    "repair",
    "emulator",
    "plan",
    "demo",
    "verify",
    "manifest",
    "report",
    "history",
    "diff",
)
HEAVY = (
    "httpx",
    "pandas",
    "numpy",
    "hwpscan.rehearsal.emulator.server",
    "pydantic",
    "olefile",
    "pypdf",
    "typer.rich_utils",
    "markdown_it",
    "pygments",
)
TARGET = 0.3


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run."""
    cpu, start = _child_cpu(), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start, _child_cpu() - cpu


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy packages a command imports (from ``-X importtime``)."""
    traced = [argv[0], "-X", "importtime", *argv[1:]]
    proc = subprocess.run(traced, check=True, capture_output=True, text=True, env=env)
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    return sorted(h for h in HEAVY if h in names)


def rows(commands: list[str]) -> dict[str, list[str]]:
    python = [sys.executable]
    hwpscan = [sys.executable, "-m", "hwpscan"]
    table = {
        "python -c pass (floor)": [*python, "-c", "pass"],
        "hwpscan --version": [*hwpscan, "--version"],
        "hwpscan --help": [*hwpscan, "--help"],
    }
    table |= {f"hwpscan {name} --help": [*hwpscan, name, "--help"] for name in commands}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument(
        "--commands", default=",".join(COMMANDS), help="comma-separated (default: all)"
    )
    args = parser.parse_args()
    table = rows([c for c in args.commands.split(",") if c])
    with tempfile.TemporaryDirectory(prefix="hwpscan-bench-") as home:
        env = {**os.environ, "HWPSCAN_HOME": home, "COLUMNS": "100"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(home, "pycache")
        print(f"median of {args.runs} runs; target {TARGET:.1f} s (judged on the wall median)")
        print(f"{'command':<28} {'wall':>7} {'cpu':>7}  verdict")
        slow = 0
        for name, argv in table.items():
            time_once(argv, env)  # warm the file cache and write the bytecode
            runs = [time_once(argv, env) for _ in range(args.runs)]
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            floor = name.startswith("python")
            verdict = "" if floor else ("ok" if wall < TARGET else "SLOW")
            slow += verdict == "SLOW"
            print(f"{name:<28} {wall:>6.3f}s {cpu:>6.3f}s  {verdict}")
        print(f"{len(table) - 1 - slow} of {len(table) - 1} under {TARGET:.1f} s")
        for name in ("hwpscan --help", "hwpscan scan --help"):
            if name in table:
                loaded = heavy_imports(table[name], env)
                print(f"heavy imports of {name}: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
