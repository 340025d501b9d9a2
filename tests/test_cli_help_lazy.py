"""Help without loading every command: the command table, lazy look-up, our help layout.

``hwpscan --help`` is made from :data:`hwpscan.cli.COMMAND_TABLE` with no command module
imported; ``hwpscan CMD ...`` imports CMD's module only. These tests hold the table to the
commands' own text, compare what the console script prints (real subprocesses, nothing
loaded up front) with the help of the application with every command loaded, and check
the layout at narrow and wide terminals, with and without colour.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import typer.main
from cli_imports import imported_modules
from typer.testing import CliRunner

from hwpscan.cli import COMMAND_MODULE, COMMAND_MODULES, COMMAND_TABLE, app, helpview
from hwpscan.cli.app import _summary

runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COMMAND_MODULE_NAMES = {f"hwpscan.cli.{m}" for m in COMMAND_MODULES}
HELP_RENDERER_WEIGHT = {"typer.rich_utils", "rich.markdown", "markdown_it", "pygments"}


def _run(*args: str, columns: int = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, "-m", "hwpscan", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_the_table_says_what_each_command_says_of_itself() -> None:
    group = typer.main.get_group(app)
    infos = {
        info.name or typer.main.get_command_name(info.callback.__name__): info
        for info in app.registered_commands
        if info.callback is not None
    }
    assert [name for name, *_ in COMMAND_TABLE] == list(COMMAND_MODULE)
    assert sorted(infos) == sorted(COMMAND_MODULE)
    for name, module, panel, summary in COMMAND_TABLE:
        callback = infos[name].callback
        assert callback is not None and callback.__module__ == f"hwpscan.cli.{module}", name
        command = group.commands[name]
        assert command.rich_help_panel == panel, name  # type: ignore[attr-defined]
        assert _summary(command) == summary, name


def test_top_level_help_loads_no_command_module_and_no_markdown() -> None:
    loaded = imported_modules("--help")
    assert loaded.isdisjoint(COMMAND_MODULE_NAMES | HELP_RENDERER_WEIGHT), sorted(
        loaded & (COMMAND_MODULE_NAMES | HELP_RENDERER_WEIGHT)
    )


@pytest.mark.parametrize(
    ("command", "module"), [("scan", "scan"), ("repair", "repair"), ("history", "report")]
)
def test_a_command_help_loads_its_module_only(command: str, module: str) -> None:
    loaded = imported_modules(command, "--help")
    assert f"hwpscan.cli.{module}" in loaded
    assert "hwpscan.cli.checkjson" not in loaded and "hwpscan.cli.emulator" not in loaded
    assert loaded.isdisjoint(HELP_RENDERER_WEIGHT)


@pytest.mark.parametrize("args", [["--help"], ["scan", "--help"], ["emulator", "--help"]])
@pytest.mark.slow
def test_console_script_help_is_the_loaded_apps_help(args: list[str]) -> None:
    lazy = _run(*args)
    assert lazy.returncode == 0, lazy.stderr
    loaded = runner.invoke(app, args, env={"COLUMNS": "120"}, prog_name="hwpscan")
    assert loaded.exit_code == 0
    assert lazy.stdout == loaded.output


def test_unknown_command_is_matched_against_every_command() -> None:
    result = _run("histroy")
    assert result.returncode == 2
    assert "No such command 'histroy'. Did you mean 'history'?" in result.stderr


def test_no_arguments_prints_the_help_and_exits_2() -> None:
    result = _run()
    assert result.returncode == 2
    assert "Usage: hwpscan [OPTIONS] COMMAND" in result.stdout and " Exit codes" in result.stdout


@pytest.mark.parametrize("columns", [40, 60, 80, 200])
def test_help_fits_the_terminal(columns: int) -> None:
    out = runner.invoke(app, ["scan", "--help"], env={"COLUMNS": str(columns)}).output
    too_wide = [line for line in out.splitlines() if len(line) > columns]
    assert too_wide == []
    options = out[out.index("─ Options ") :]
    format_line = next(line for line in options.splitlines() if " --format " in line)
    stacked = "table for people" not in format_line
    assert stacked == (columns <= 80), format_line  # the help moves under the names


def test_colour_on_a_terminal_keeps_the_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = runner.invoke(app, ["fetch", "--help"], env={"COLUMNS": "100"}).output
    monkeypatch.setattr(helpview, "_isatty", lambda stream: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = runner.invoke(app, ["fetch", "--help"], env={"COLUMNS": "100"}, color=True).output
    assert "\x1b[" in coloured
    strip = [line.rstrip() for line in ANSI.sub("", coloured).splitlines()]
    assert strip == [line.rstrip() for line in plain.splitlines()]


def test_a_bad_option_on_a_terminal_is_boxed(capsys: pytest.CaptureFixture[str]) -> None:
    group = typer.main.get_command(app)
    ctx = group.make_context("hwpscan", ["scan"])
    command = group.get_command(ctx, "scan")  # type: ignore[attr-defined]
    with pytest.raises(Exception) as caught:
        command.make_context("scan", ["--format", "xml"], parent=ctx)
    helpview.print_error(caught.value)
    err = capsys.readouterr().err
    assert "Usage: hwpscan scan [OPTIONS] [PATH]..." in err
    assert "Try 'hwpscan scan -h' for help." in err
    assert re.search(r"^╭─ Error ─+╮$", err, re.M) and "--format" in err


def test_completing_a_command_name_loads_no_command_module() -> None:
    env = {**os.environ, "_HWPSCAN_COMPLETE": "complete_bash", "COMP_CWORD": "1"}
    traced = [sys.executable, "-X", "importtime", "-m", "hwpscan"]
    done = subprocess.run(
        traced, env={**env, "COMP_WORDS": "hwpscan hi"}, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["history"]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert loaded.isdisjoint(COMMAND_MODULE_NAMES), sorted(loaded & COMMAND_MODULE_NAMES)
    every = subprocess.run(
        traced[:1] + traced[3:],
        env={**env, "COMP_WORDS": "hwpscan "},
        capture_output=True,
        text=True,
        check=True,
    )
    assert every.stdout.split() == list(COMMAND_MODULE)
