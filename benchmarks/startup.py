"""Start-up time of the CLI against stock Typer of the same shape, measured in one run.

    python benchmarks/startup.py [--runs 11] [--commands scan,fetch]

Runs ``hwpscan --version``, ``hwpscan --help``, ``hwpscan CMD --help`` for every command
(or those named) and a one-file ``hwpscan scan`` in fresh interpreters (``python -m
hwpscan``, what the console script runs). Each is paired with the same command line given
to a stock Typer app generated here (``python -m stock_app``, bytecode cached alike) with
the same commands, parameters, option names, flags, hidden options, help texts and
epilogs, which imports nothing else: option values are plain strings, flags are flags.
That is what Typer itself costs for a command line this size. For each it prints the
median wall and CPU (user + system) time of both, and hwpscan's own part, the difference
of the wall medians: its imports, its registration and, for the scan, the work. The two
commands of a row run in turn, one after the other, so a machine whose speed moves
affects both alike. The bare interpreter is the floor. Last, which heavy packages
(httpx, pandas, the emulator, pydantic...) and which help-renderer packages (Markdown,
Pygments) ``--help`` and ``scan --help`` load.

Bytecode as an installed package has it: the runs share a fresh ``PYTHONPYCACHEPREFIX``
(filled by one warm-up run per command) even where ``PYTHONDONTWRITEBYTECODE`` is set,
as it is in some development shells, which would otherwise make every run compile
hwpscan's sources again (about twice the time). On a machine shared with other work the
CPU column moves less than the wall column; compare runs on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "2025-07-21"

# Each command's parameters as the command line parses them (Typer's public
# get_command gives the Click command).
_SHAPE = r"""
import json, typer.main, hwpscan.cli
group = typer.main.get_command(hwpscan.cli.app)
def param(p):
    return {"name": p.name, "opts": p.opts, "off": getattr(p, "secondary_opts", []),
            "flag": bool(getattr(p, "is_flag", False)), "many": p.multiple or p.nargs == -1,
            "argument": p.param_type_name == "argument", "help": getattr(p, "help", "") or "",
            "hidden": bool(getattr(p, "hidden", False))}
print(json.dumps({name: {"help": c.help or "", "epilog": c.epilog or "",
                         "params": [param(p) for p in c.params]}
                  for name, c in group.commands.items()}))
"""


def stock_app(shape: dict[str, dict]) -> str:
    """The source of a stock Typer app with the commands and parameters of *shape*."""
    lines = [
        "from typing import Annotated, Optional",
        "import typer",
        "app = typer.Typer(name='stock', rich_markup_mode='rich',",
        "                  context_settings={'help_option_names': ['-h', '--help']})",
        "def _version(value: bool) -> None:",
        "    if value:",
        "        typer.echo('stock 0')",
        "        raise typer.Exit()",
        "@app.callback()",
        "def main(version: Annotated[bool, typer.Option('--version', '-V', callback=_version,",
        "                                              is_eager=True)] = False) -> None:",
        "    'A stock Typer app of the same shape.'",
    ]
    for number, (name, command) in enumerate(shape.items()):
        params = []
        for p in command["params"]:
            kind = "Optional[list[str]]" if p["many"] else "Optional[str]"
            opts = p["opts"]
            if p["flag"]:
                kind = "bool"
                if p["off"]:  # --x/--no-x
                    opts = [f"{opts[0]}/{p['off'][0]}", *opts[1:]]
            if p["argument"]:
                declared = f"typer.Argument(help={p['help']!r})"
            else:
                declared = f"typer.Option(*{opts!r}, help={p['help']!r}, hidden={p['hidden']})"
            default = "False" if kind == "bool" else "None"
            params.append(f"    {p['name']}: Annotated[{kind}, {declared}] = {default},")
        lines += [
            f"@app.command({name!r}, help={command['help']!r}, epilog={command['epilog']!r})",
            f"def command_{number}(",
            *params,
            ") -> None:",
            "    pass",
        ]
    return "\n".join([*lines, "app()", ""])


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run."""
    cpu, start = _child_cpu(), time.perf_counter()
    done = subprocess.run(
        argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    seconds = time.perf_counter() - start, _child_cpu() - cpu
    if done.returncode:
        said = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise SystemExit(f"{' '.join(argv[1:])}: exit {done.returncode}: {' '.join(said)}")
    return seconds


def heavy_imports(argv: list[str], env: dict[str, str]) -> list[str]:
    """The heavy packages a command imports (from ``-X importtime``)."""
    traced = [argv[0], "-X", "importtime", *argv[1:]]
    proc = subprocess.run(traced, check=True, capture_output=True, text=True, env=env)
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    return sorted(h for h in HEAVY if h in names)


def rows(commands: list[str]) -> dict[str, list[str]]:
    """Each row's arguments (after the program)."""
    fixture = str(next(FIXTURE.glob("*.hwp")))
    table = {"--version": ["--version"], "--help": ["--help"]}
    table |= {f"{name} --help": [name, "--help"] for name in commands}
    scan = ["scan", fixture, "--format", "jsonl", "--output", os.devnull, "--no-progress"]
    return table | {"scan FILE --format jsonl": scan}


def medians(
    commands: list[tuple[list[str], dict[str, str]]], runs: int
) -> list[tuple[float, float]]:
    """Median (wall, cpu) seconds of each command, their runs taken in turn, after one
    run each that warms the file cache and writes the bytecode."""
    for argv, env in commands:
        time_once(argv, env)
    timed = [[time_once(argv, env) for argv, env in commands] for _ in range(runs)]
    return [
        (statistics.median(t[i][0] for t in timed), statistics.median(t[i][1] for t in timed))
        for i in range(len(commands))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--commands", default="", help="comma-separated (default: all)")
    args = parser.parse_args()
    hwpscan = [sys.executable, "-m", "hwpscan"]
    with tempfile.TemporaryDirectory(prefix="hwpscan-bench-") as home:
        env = {**os.environ, "HWPSCAN_HOME": home, "COLUMNS": "100"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(home, "pycache")
        shape = json.loads(subprocess.check_output([sys.executable, "-c", _SHAPE], env=env))
        (Path(home) / "stock_app.py").write_text(stock_app(shape), encoding="utf-8")
        stock_env = {**env, "PYTHONPATH": home}
        table = rows([c for c in args.commands.split(",") if c] or list(shape))
        [(floor, _)] = medians([([sys.executable, "-c", "pass"], env)], args.runs)
        print(f"median of {args.runs} runs; python -c pass (the floor): {floor:.3f}s")
        print(f"{'hwpscan ...':<28} {'wall':>7} {'cpu':>7}  {'stock Typer':>11} {'cpu':>7}  own")
        for name, argv in table.items():
            stock = [sys.executable, "-m", "stock_app", *argv]
            ours, typer_only = medians([([*hwpscan, *argv], env), (stock, stock_env)], args.runs)
            print(
                f"{name:<28} {ours[0]:>6.3f}s {ours[1]:>6.3f}s  {typer_only[0]:>10.3f}s "
                f"{typer_only[1]:>6.3f}s  {ours[0] - typer_only[0]:+.3f}s"
            )
        for name in ("--help", "scan --help"):
            if name in table:
                loaded = heavy_imports([*hwpscan, *table[name]], env)
                print(f"heavy imports of hwpscan {name}: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main()
