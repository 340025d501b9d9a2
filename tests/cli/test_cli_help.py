"""What a person reads before any command runs: every command's --help (its panels, its
placeholders, its Examples / Environment / Exit codes), -V, and the one-line errors a
bad option or command gets."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import typer.main
from rich.cells import cell_len
from typer.testing import CliRunner

from hwpscan import __version__
from hwpscan.cli import app

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
SECTIONS = ("Examples", "Environment", "Exit codes")
#: What Typer shows for an option's value when nothing better is given.
PYTHON_TYPES = re.compile(r"<(bool|str|int|float|path|int range|float range|list\[str\])>")
COMMANDS = [
    "check-json",
    "scan",
    "repair",
    "text",
    "emulator",
    "plan",
    "fetch",
    "demo",
    "verify",
    "manifest",
    "report",
    "history",
    "diff",
]


def _help(name: str | None, columns: int = 200) -> str:
    args = [name, "--help"] if name else ["--help"]
    result = runner.invoke(app, args, env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


def _sections(out: str) -> list[str]:
    """The Examples, Environment and Exit codes sections, in that order."""
    found = [re.search(rf"^ {title} *$", out, re.M) for title in SECTIONS]
    assert all(found), found
    starts = [m.start() for m in found if m]
    assert starts == sorted(starts), starts
    return [out[a:b] for a, b in zip(starts, [*starts[1:], len(out)], strict=True)]


def test_every_command_is_listed_in_its_panel() -> None:
    assert list(typer.main.get_group(app).commands) == COMMANDS
    out = _help(None)
    for panel in ("Scan files", "Fetch from the API", "Runs and reports", "Testing"):
        assert f"─ {panel} ─" in out
    for name in COMMANDS:
        assert re.search(rf"│ {re.escape(name)} ", out), name


@pytest.mark.parametrize("name", [*COMMANDS, None])
def test_help_has_two_examples_the_environment_and_the_exit_codes(name: str | None) -> None:
    examples, environment, codes = _sections(_help(name))
    comments = re.findall(r"^ +# \S", examples, re.M)
    commands = [line for line in re.findall(r"^ +[^#\s].*", examples, re.M) if "hwpscan " in line]
    assert len(comments) == 2 and len(commands) == 2, examples
    assert "HWPSCAN_HOME" in environment or "COLUMNS" in environment
    assert re.search(r"^\s+0  ", codes, re.M) and re.search(r"^\s+2  ", codes, re.M)


@pytest.mark.parametrize("name", [*COMMANDS, None])
@pytest.mark.parametrize("columns", [80, 100])
def test_help_fits_the_terminal_and_nothing_is_cut(name: str | None, columns: int) -> None:
    out = _help(name, columns)
    assert max(cell_len(line) for line in out.splitlines()) <= columns
    assert "…" not in out, name


@pytest.mark.parametrize("name", [*COMMANDS, None])
def test_examples_stay_whole_at_80_columns(name: str | None) -> None:
    """Each example's lines appear as they are written: none wraps back to the margin, none
    is broken in the middle (a long command continues with a backslash)."""
    wide = [line.rstrip() for line in _sections(_help(name))[0].splitlines()]
    narrow = [line.rstrip() for line in _sections(_help(name, 80))[0].splitlines()]
    assert narrow == wide
    lines = [line.strip() for line in narrow[1:] if line.strip()]
    for i, line in enumerate(lines):
        assert not line.endswith("\\\\"), line  # one backslash, as a shell wants it
        if line.endswith("\\"):
            assert lines[i + 1].startswith("--"), line  # the command goes on, options first


@pytest.mark.parametrize("name", [*COMMANDS, None])
def test_options_show_placeholders_not_python_types(name: str | None) -> None:
    options = [line for line in _help(name).splitlines() if re.match(r"│ +-", line)]
    assert options and PYTHON_TYPES.findall("\n".join(options)) == [], name


def test_the_repair_example_spells_pua_as_the_readme_does() -> None:
    examples = _sections(_help("repair"))[0]
    assert "--pua map" in examples and "--pua-map" not in examples


def test_extras_are_shown_whole() -> None:
    assert "pip install 'hwpscan[dask]'" in _help("scan").replace("\n", " ")


def test_scan_options_are_grouped_into_panels() -> None:
    out = _help("scan")
    panels = re.findall(r"^╭─ (.+?) ─", out, re.M)
    assert panels[:2] == ["Arguments", "Options"]
    for panel in ("Output", "Scanning", "Dask cluster", "Fetch a date range first", "API"):
        assert panel in panels
    assert "Fetch budgets" in panels
    for block in re.split(r"^╭─ ", out, flags=re.M)[1:]:  # no panel is a wall of options
        assert len(re.findall(r"^│ +--", block, re.M)) <= 10, block.splitlines()[0]
    budgets = out.split("╭─ Fetch budgets")[1].split("╰")[0]
    assert "--max-files" in budgets and "--executor" not in budgets


def test_placeholders_say_what_to_type() -> None:
    out = _help("scan")
    for option, placeholder in (
        ("--jobs", "N"),
        ("--output", "PATH"),
        ("--format", "FORMAT"),
        ("--show", "all|problems|none"),
        ("--file-timeout", "SECONDS"),
    ):
        line = next(line for line in out.splitlines() if f" {option} " in line)
        assert f" {placeholder} " in line, line


def test_prose_is_not_hard_wrapped() -> None:
    # two source lines of the docstring, one line on a wide terminal
    assert "date range first (cache first, within the API's daily quota)." in _help("scan")
    verify = _help("verify")
    assert "3 when the API or its quota stopped (or answered a weekday with nothing)" in verify


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_flags(flag: str) -> None:
    result = runner.invoke(app, [flag])
    assert result.exit_code == 0 and result.output.strip() == f"hwpscan {__version__}"


def test_no_command_shows_the_help_and_exits_2() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 2 and "Usage: hwpscan" in result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["scan", "--format", "xml", "x"], "error: Invalid value for '--format' / '-f': 'xml'"),
        (["history", "-n", "0"], "error: Invalid value for '--limit' / '-n': must be at least 1"),
        (["scan", "--jobs", "many", "x"], "'--jobs' / '-j': not a whole number"),
        (["scan", "--bogus"], "error: No such option: --bogus"),
        (["scna"], "error: No such command 'scna'. Did you mean 'scan'?"),
        (
            ["plan", "--from", "2025-07-01", "--to", "2025-09-01", "--window-days", "42"],
            "error: Invalid value for '--window-days': 42 is more than the API's 21 days",
        ),
        (["diff"], "error: Missing argument"),
    ],
)
def test_usage_errors_are_one_line_naming_the_subject(args: list[str], expected: str) -> None:
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("error: "), result.output
    assert expected in result.output
    assert "Usage:" not in result.output and "Try '" not in result.output
    assert "Value error" not in result.output and "Input should be" not in result.output


def test_the_console_script_prints_the_same_one_line_error(tmp_path: object) -> None:
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path), "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "scan", "--jobs", "-1", "x"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: Invalid value for '--jobs'"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
