"""Small things a user met: a scan of no document says so, repaired text ends with a
newline, --yes is hidden and says it does nothing, verify's fetch totals once."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator.server import RunningEmulator
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from tests.emulator_env import emulator, env  # noqa: F401  (fixtures)

runner = CliRunner()


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


def test_an_empty_folder_warns_and_exits_0(tmp_path: Path) -> None:
    done = runner.invoke(app, ["scan", str(tmp_path), "--no-progress", "-f", "jsonl"])
    assert done.exit_code == ExitCode.OK, done.output
    assert _warnings(done.stderr) == [f"warning: no documents found in {tmp_path}"]
    assert done.stdout == ""


def test_a_non_document_warns_and_the_gate_decides(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# hello\n", encoding="utf-8")
    done = runner.invoke(app, ["scan", str(readme), "--no-progress"])
    assert done.exit_code == ExitCode.OK, done.output
    assert _warnings(done.stderr) == [f"warning: no documents found in {readme}"]
    gated = runner.invoke(app, ["scan", str(readme), "--no-progress", "--fail-on", "unreadable"])
    assert gated.exit_code == ExitCode.FINDINGS
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = runner.invoke(app, ["scan", str(empty), "--fail-on", "contaminated"])
    assert nothing.exit_code == ExitCode.USAGE  # a gate over no file at all passes nothing


def test_a_folder_with_a_document_does_not_warn(tmp_path: Path) -> None:
    (tmp_path / "a.hwpx").write_bytes(build_hwpx(["본문"]))
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    done = runner.invoke(app, ["scan", str(tmp_path), "--no-progress"])
    assert done.exit_code == 0 and _warnings(done.stderr) == []


def test_repaired_text_ends_with_one_newline(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.hwpx").write_bytes(build_hwpx(["첫째", "둘째"]))
    (src / "b.hwpx").write_bytes(build_hwpx(["끝에 줄바꿈\n"]))
    out = tmp_path / "out"
    done = runner.invoke(app, ["repair", str(src), "--out", str(out), "-j", "1"])
    assert done.exit_code == 0, done.output
    assert (out / "a.hwpx.txt").read_text(encoding="utf-8") == "첫째\n둘째\n"
    assert (out / "b.hwpx.txt").read_text(encoding="utf-8").endswith("\n")
    assert not (out / "b.hwpx.txt").read_text(encoding="utf-8").endswith("\n\n")


def test_yes_is_hidden_and_warns_that_it_does_nothing(
    emulator: RunningEmulator,
    env: dict[str, str],
) -> None:
    shown = runner.invoke(app, ["fetch", "--help"], env={"COLUMNS": "120"}).stdout
    assert "--yes" not in shown
    args = ["fetch", "--from", "2025-07-21", "--to", "2025-07-21", "--api-url", emulator.api_url]
    done = runner.invoke(app, [*args, "--out", env["out"], "--no-progress", "--yes"])
    assert done.exit_code == 0, done.output
    assert any("--yes does nothing" in w for w in _warnings(done.stderr))


def test_verify_prints_its_fetch_totals_once(
    emulator: RunningEmulator,
    env: dict[str, str],
) -> None:
    args = ["verify", "-d", "2025-07-21", "--expect", "clean", "--api-url", emulator.api_url]
    done = runner.invoke(app, [*args, "--no-progress", "-j", "1", "--out", env["out"]])
    assert "Traceback" not in done.output
    summaries = [line for line in done.stderr.splitlines() if line.startswith("calls:")]
    totals = [line for line in done.stderr.splitlines() if "API call(s) made" in line]
    assert len(summaries) == 1 and totals == [], done.stderr
