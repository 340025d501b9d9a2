"""Every command's --help: readable placeholders, unwrapped prose, the three end sections.

Also the things people meet before any command runs: ``-V``, option errors without the
validation library's phrasing, and which modules --version and --help load (the
start-up figures themselves are in ``benchmarks/startup.py``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from cli_imports import imported_modules
from typer.testing import CliRunner

from hwpscan import __version__
from hwpscan.cli import COMMAND_MODULE, app
from hwpscan.cli.helptext import COMMANDS, SECTIONS

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
PYTHON_TYPES = re.compile(r"<(bool|str|int|float|path|list\[|int range|float range)")


def _commands() -> list[str]:
    return list(typer.main.get_group(app).commands)


def test_every_command_is_known_to_the_help_and_the_loader() -> None:
    assert sorted(_commands()) == sorted(COMMAND_MODULE) == sorted(set(COMMANDS) - {"hwpscan"})


@pytest.mark.parametrize("name", [*sorted(COMMAND_MODULE), None])
def test_help_has_examples_environment_and_exit_codes(name: str | None) -> None:
    args = [name, "--help"] if name else ["--help"]
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.output
    found = [re.search(rf"^ {title} *$", out, re.M) for title in SECTIONS]
    assert all(found), (name, found)
    positions = [m.start() for m in found if m]
    assert positions == sorted(positions), (name, positions)
    examples = out[positions[0] : positions[1]]
    assert len(re.findall(r"^\s+(?:\S+=\S+ )?hwpscan ", examples, re.M)) >= 1
    assert len(COMMANDS[name or "hwpscan"][0]) == 2
    for example, _ in COMMANDS[name or "hwpscan"][0]:
        assert example in out
    assert "HWPSCAN_HOME" in out or "COLUMNS" in out
    codes = out[positions[2] :]
    assert re.search(r"^\s+0  ", codes, re.M) and re.search(r"^\s+2  ", codes, re.M)


@pytest.mark.parametrize("name", [*sorted(COMMAND_MODULE), None])
def test_no_python_types_in_help(name: str | None) -> None:
    args = [name, "--help"] if name else ["--help"]
    out = runner.invoke(app, args, env=WIDE).output
    assert PYTHON_TYPES.findall(out) == [], name


def test_commands_that_call_the_api_name_its_key() -> None:
    for name in ("fetch", "plan", "verify", "scan"):
        assert "HWPSCAN_API_KEY" in runner.invoke(app, [name, "--help"], env=WIDE).output


def test_placeholders_say_what_to_type() -> None:
    out = runner.invoke(app, ["scan", "--help"], env=WIDE).output
    for option, placeholder in (
        ("--from", "YYYY-MM-DD"),
        ("--jobs", "N"),
        ("--output", "PATH"),
        ("--format", "table|json|jsonl|csv|junit"),
        ("--show", "all|problems|none"),
    ):
        line = next(line for line in out.splitlines() if f" {option} " in line)
        assert placeholder in line, line


def test_prose_is_not_hard_wrapped() -> None:
    out = runner.invoke(app, ["scan", "--help"], env=WIDE).output
    # two source lines of the docstring, one line on a wide terminal
    assert "date range first (cache first, within the API's daily quota)." in out
    out = runner.invoke(app, ["verify", "--help"], env=WIDE).output
    assert "3 when the API or its quota stopped (or answered a weekday with nothing)" in out


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flags(flag: str) -> None:
    result = runner.invoke(app, [flag])
    assert result.exit_code == 0 and result.output.strip() == f"hwpscan {__version__}"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["scan", "--format", "xml", "x"], "'xml' is not one of"),
        (["history", "-n", "0"], "must be at least 1"),
        (["scan", "--jobs", "many", "x"], "not a whole number"),
    ],
)
def test_option_errors_lose_the_framework_phrasing(args: list[str], expected: str) -> None:
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 2
    assert expected in result.output
    assert "Value error" not in result.output and "Input should be" not in result.output


def test_version_loads_no_framework_and_help_no_heavy_module() -> None:
    assert imported_modules("--version").isdisjoint({"typer", "rich", "hwpscan.models"})
    heavy = {"httpx", "pandas", "pydantic", "hwpscan.rehearsal.emulator.server", "olefile", "pypdf"}
    assert imported_modules("--help").isdisjoint(heavy)
    assert imported_modules("scan", "--help").isdisjoint(heavy)


def test_a_machine_format_scan_loads_no_fallback_table_or_diff_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Start-up is paid on every run: a scan of a well-formed HWP 5 file to JSON Lines
    needs neither olefile (the fallback for a container our reader declines), nor
    rich's tables (nothing is drawn), nor the comparison of runs (nothing is compared)."""
    from hwpscan.rehearsal.synth.hwp5 import build_hwp5

    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    doc = tmp_path / "a.hwp"
    doc.write_bytes(build_hwp5([WITH_PUA]))
    out = tmp_path / "rows.jsonl"
    loaded = imported_modules(
        "scan", str(doc), "--format", "jsonl", "-o", str(out), "--no-progress"
    )
    assert "hwpscan.formats.hwp5" in loaded and out.read_text(encoding="utf-8").count("\n") == 1
    assert loaded.isdisjoint({"olefile", "rich.table", "hwpscan.runs.diff"})
    assert loaded.isdisjoint(NOT_FOR_A_LOCAL_SCAN), loaded & NOT_FOR_A_LOCAL_SCAN
    assert loaded.isdisjoint(NOT_FOR_ANY_RUN), loaded & NOT_FOR_ANY_RUN


#: A paragraph with a Hancom private-use character (a surrogate pair in the file), so
#: the scan looks its name up in the PUA table.
WITH_PUA = "문단 " + chr(0xF02B1) + " 끝"

#: What no run needs here, whatever its command: a run id's four random digits come
#: from ``os.urandom`` (not ``secrets``, which loads ``hmac``), the state folder is
#: HWPSCAN_HOME's when it is set (``platformdirs`` only without it), and the PUA table
#: is read by the package's loader (not ``importlib.resources``, whose readers load
#: ``zipfile``).
NOT_FOR_ANY_RUN = frozenset(
    {"secrets", "hmac", "platformdirs", "importlib.resources", "importlib.readers", "zipfile"}
)


#: What a scan of files on disk never uses, whatever it prints: the fetcher behind
#: ``scan --from/--to`` (its option defaults are :mod:`hwpscan.fetch.defaults`), the
#: scaled path behind URLs, ``--executor dask`` and ``--resume`` (its settings are
#: :mod:`hwpscan.usecases.scale_settings`), pandas, which only the report bundle's
#: pivots need (the terminal's cells are :mod:`hwpscan.report.cells`), and the ``repair``
#: command's module.
NOT_FOR_A_LOCAL_SCAN = frozenset(
    {
        "hwpscan.cli.repair",
        "hwpscan.fetch.dates",
        "hwpscan.fetch.keys",
        "hwpscan.fetch.limits",
        "hwpscan.fetch.progress",
        "hwpscan.fetch.settings",
        "hwpscan.fetch.urls",
        "zoneinfo",
        "hwpscan.usecases.scaled",
        "hwpscan.sources",
        "hwpscan.scanning.work_items",
        "hwpscan.scanning.on_dask",
        "hwpscan.report.pivot",
        "hwpscan.forensics.twins",
        "pandas",
        "numpy",
    }
)


def test_a_table_scan_loads_no_fetcher_scaled_path_or_pandas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table a plain scan draws needs rich's tables, and none of what a local scan
    never uses (:data:`NOT_FOR_A_LOCAL_SCAN`)."""
    from hwpscan.rehearsal.synth.hwp5 import build_hwp5

    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    doc = tmp_path / "a.hwp"
    doc.write_bytes(build_hwp5([WITH_PUA]))
    loaded = imported_modules("scan", str(doc), "--no-progress")
    assert {"hwpscan.formats.hwp5", "rich.table", "hwpscan.report.cells"} <= loaded
    assert loaded.isdisjoint(NOT_FOR_A_LOCAL_SCAN), loaded & NOT_FOR_A_LOCAL_SCAN
    assert loaded.isdisjoint(NOT_FOR_ANY_RUN), loaded & NOT_FOR_ANY_RUN


#: A scan run in-process (``main``, the console script's work), then the regexes of rare
#: paths that were compiled: :func:`hwpscan.lazy.lazy_pattern` compiles each on first use.
_RARE_PATTERNS_COMPILED = """
import sys
from hwpscan import redaction
from hwpscan.cli import main
from hwpscan.forensics import surrogates

sys.argv = ["hwpscan", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
rare = {
    "surrogates._escape_re": surrogates._escape_re,
    "surrogates._not_pua_re": surrogates._not_pua_re,
    "surrogates._half_re": surrogates._half_re,
    "redaction._secret_env_name_re": redaction._secret_env_name_re,
    "redaction._userinfo_re": redaction._userinfo_re,
    "redaction._userinfo_in_text_re": redaction._userinfo_in_text_re,
    **{f"redaction._AUTH_RES[{i}]": p for i, p in enumerate(redaction._AUTH_RES)},
}
print(sorted(name for name, compiled in rare.items() if compiled.cache_info().currsize))
"""


def test_a_scan_compiles_no_regex_of_a_rare_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pure-Python counting and locating (the C module's work where it is built),
    the escape of characters above the BMP, credential rules and environment scrubbing
    have regexes whose large classes take milliseconds to compile: a scan of files on
    disk compiles none of them."""
    from hwpscan.rehearsal.synth.hwp5 import build_hwp5

    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    doc = tmp_path / "a.hwp"
    doc.write_bytes(build_hwp5([WITH_PUA]))
    for args in (["--format", "jsonl", "-o", str(tmp_path / "rows.jsonl")], []):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _RARE_PATTERNS_COMPILED,
                "scan",
                str(doc),
                "--no-progress",
                *args,
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "100"},
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == "[]", (args, done.stdout)
