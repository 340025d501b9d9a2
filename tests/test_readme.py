"""The README's code is run, not just read: its pipeline examples and its test command."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 3)
    return README[start : end if end != -1 else None]


def test_pipeline_examples_run_and_print_what_the_readme_says() -> None:
    section = _section("Using hwpscan inside a pipeline")
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "README.md", "exec"), namespace)
    printed = out.getvalue().splitlines()
    promised = [
        line[2:] for block in blocks for line in block.splitlines() if line.startswith("# ")
    ]
    assert printed == promised
    tool = namespace["press_release_tool"]
    result = tool("2025-08-05")  # type: ignore[operator]
    body = result["items"][0]["body"]  # type: ignore[index]
    assert body == chr(0xF02B1) + " 불법 대부 광고 주의"
    chunk = namespace["sse_chunk"]("tool_result", {"t": chr(0xDC00)})  # type: ignore[operator]
    assert chunk.decode("utf-8").endswith('\ufffd"}\n\n')


def test_the_use_case_example_runs_and_prints_what_the_readme_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)  # the example scans the bundled fixtures/
    (block,) = re.findall(r"```python\n(.*?)```", _section("Layout"), re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    promised = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert out.getvalue().splitlines() == promised == ["1 17"]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", _section("Two commands"))
    assert len(commands) == 2, commands
    install_and_demo, install_and_test = commands
    assert "hwpscan demo" in install_and_demo
    assert install_and_test in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_post_deploy_example_runs_against_the_emulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ``hwpscan verify`` of the example (but the one calling a service) exits as its
    comment says, and the re-issue step turns the last one into a PASS."""
    import shlex
    import sys

    from typer.testing import CliRunner

    import hwpscan.cli.verify  # noqa: F401  (registers verify)
    from hwpscan.cli import app
    from hwpscan.rehearsal.emulator.server import serve_in_thread

    section = _section("Reports, history and verification")
    block = next(b for b in re.findall(r"```sh\n(.*?)```", section, re.S) if "emulator" in b)
    lines = block.replace("\\\n", " ").splitlines()
    key = next(w for w in lines[1].split() if w.startswith("HWPSCAN_API_KEY=")).split("=", 1)[1]
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", key)
    monkeypatch.chdir(tmp_path)  # --report 'reports/{run}' writes here
    checked = 0
    with serve_in_thread() as emu:
        expected: int | None = None
        for line in lines[2:]:
            if line.startswith("#"):
                found = re.search(r"exit (\d)", line)
                expected = int(found.group(1)) if found else None
                continue
            if line.startswith("curl") and "reissue" in line:
                day = None if "date=" not in line else _day(line)
                emu.app.reissue(day, new_urls="new_urls=1" in line)
                expected = 0
                continue
            argv = shlex.split(line.replace('"$API"', emu.api_url))
            if "--tool-cmd" in argv:  # calls the deployed service: not part of this test
                continue
            argv = [a.replace("python -m", f"{sys.executable} -m") for a in argv]
            result = CliRunner().invoke(app, [*argv[1:], "--no-progress", "-j", "1"])
            assert result.exit_code == expected, (line, result.output)
            checked += 1
    assert checked == 5


def _day(line: str):
    from datetime import date

    return date.fromisoformat(re.search(r"date=(\d{4}-\d\d-\d\d)", line).group(1))  # type: ignore[union-attr]
