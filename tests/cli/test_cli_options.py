"""One meaning per option name in every command, and the old spellings still working.

``-o/--output`` is a file, ``--out`` a folder, ``--jobs`` worker processes and
``--downloads`` the download concurrency; list options take repeats and commas. The
old spellings still kept are hidden aliases that print a deprecation warning; ``-o``
for a folder is gone (see tests/cli/test_cli_results.py).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.manifest import MANIFEST_NAME
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx

runner = CliRunner()
DAY = ["--from", "2025-07-21", "--to", "2025-07-21"]


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread() as emu:
        yield emu


@pytest.fixture
def corpus(broken_dir: Path) -> Path:
    day = broken_dir / "2025-07-21"
    (day / "text.hwpx").write_bytes(build_hwpx(["금융감독원 보도자료 " + chr(0xF0854)]))
    return broken_dir


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", "TESTKEY" + secrets.token_hex(13)[:25])
    return tmp_path / "home"


def _options(command: str) -> dict[str, tuple[bool, str]]:
    """Every option spelling of a command: (hidden, help)."""
    import typer.main

    group = typer.main.get_command(app)
    cmd = group.commands[command]  # type: ignore[attr-defined]
    out: dict[str, tuple[bool, str]] = {}
    for param in cmd.params:
        if param.param_type_name == "option":
            for name in param.opts + param.secondary_opts:
                out[name] = (bool(param.hidden), param.help or "")
    return out


@pytest.mark.parametrize(
    "command", ["scan", "repair", "fetch", "demo", "verify", "report", "plan", "diff"]
)
def test_each_name_has_one_meaning_in_every_command(command: str) -> None:
    options = _options(command)
    visible = {name: text for name, (hidden, text) in options.items() if not hidden}
    if "--out" in visible:
        assert "-o" not in visible or "--output" in visible  # -o is never a folder
        assert "folder" in visible["--out"].lower() or "here" in visible["--out"].lower()
    if "--output" in visible:
        assert "folder" not in visible["--output"].lower()
    if "--jobs" in visible:
        assert "process" in visible["--jobs"].lower()
    if "--downloads" in visible:
        assert "download" in visible["--downloads"].lower()
    for name, text in visible.items():
        if "repeatable" in text:
            assert "comma" in text, (command, name)


def test_fetch_old_spellings_work_with_a_deprecation_warning(
    emulator: RunningEmulator, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "old"
    argv = ["fetch", *DAY, "--api-url", emulator.api_url, "--no-progress"]
    result = runner.invoke(app, [*argv, "--out", str(out), "-j", "2"])
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    assert "--jobs for downloads is deprecated: use --downloads" in text
    assert (out / MANIFEST_NAME).is_file()
    new = runner.invoke(app, [*argv, "--out", str(tmp_path / "new"), "--downloads", "2"])
    assert new.exit_code == 0, new.output
    assert "deprecated" not in new.output
    assert (tmp_path / "new" / MANIFEST_NAME).is_file()


def test_repair_takes_out_and_no_longer_output(tmp_path: Path, home: Path, corpus: Path) -> None:
    new = runner.invoke(app, ["repair", str(corpus), "--out", str(tmp_path / "a"), "-j", "1"])
    assert new.exit_code == 0, new.output
    assert "deprecated" not in new.output and list((tmp_path / "a").rglob("*.txt"))
    for old in ("-o", "--output"):  # the results file now: never a folder of texts
        gone = runner.invoke(app, ["repair", str(corpus), old, str(tmp_path / "b"), "-j", "1"])
        assert gone.exit_code == ExitCode.USAGE and "--output needs --format" in gone.output
        assert not (tmp_path / "b").exists()
    missing = runner.invoke(app, ["repair", str(corpus)])
    assert missing.exit_code == ExitCode.USAGE and "--out" in missing.output


@pytest.mark.slow
def test_list_options_take_repeats_and_commas(tmp_path: Path, home: Path, corpus: Path) -> None:
    base = ["scan", str(corpus), "-j", "1", "--no-progress"]
    commas = runner.invoke(app, [*base, "--fail-on", "contaminated,unreadable"])
    repeats = runner.invoke(app, [*base, "--fail-on", "contaminated", "--fail-on", "unreadable"])
    assert commas.exit_code == repeats.exit_code == ExitCode.FINDINGS
    bad = runner.invoke(app, [*base, "--fail-on", "contaminated,nonsense"])
    assert bad.exit_code == ExitCode.USAGE and "nonsense" in bad.output
    one = runner.invoke(app, [*base, "-f", "jsonl", "--parser", "strict,codeunit"])
    two = runner.invoke(app, [*base, "-f", "jsonl", "--parser", "strict", "--parser", "codeunit"])
    assert one.exit_code == two.exit_code
    rows_one = [json.loads(x) for x in one.stdout.splitlines() if x.startswith("{")]
    rows_two = [json.loads(x) for x in two.stdout.splitlines() if x.startswith("{")]
    assert rows_one and len(rows_one) == len(rows_two)
