"""The README's code is run, not just read: its tour, its pipeline examples and its test
command. The front page is short and its tour runs top to bottom; the rest lives in docs/,
whose code is run here too, wherever a section now lives."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_FRONT_PAGE_LINES = 200


def _section_in(title: str) -> tuple[str, str]:
    """The ``## title`` section (up to the next ``## ``) and the file it is in, looked for
    in README.md and every docs/*.md; a title must be in exactly one of them."""
    found = []
    for path in [ROOT / "README.md", *DOCS]:
        text = path.read_text(encoding="utf-8")
        match = re.search(rf"^## {re.escape(title)}$", text, re.M)
        if match:
            end = text.find("\n## ", match.end())
            found.append((text[match.start() : end if end != -1 else None], path.name))
    assert len(found) == 1, (title, [name for _, name in found])
    return found[0]


def _section(title: str) -> str:
    return _section_in(title)[0]


def test_pipeline_examples_run_and_print_what_the_readme_says() -> None:
    section, source = _section_in("Using hwpscan inside a pipeline")
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, source, "exec"), namespace)
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
    section, source = _section_in("Layout")
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, source, "exec"), {})
    promised = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert out.getvalue().splitlines() == promised == ["1 17"]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    section, source = _section_in("Two commands")
    assert source == "README.md"  # the front page's first commands, as CI runs them
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", section)
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
    from typer.testing import CliRunner

    import hwpscan.cli.verify_command  # noqa: F401  (registers verify)
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


# -- the front page: short, its docs map complete, its tour runnable ------------------------

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_front_page_is_short_and_maps_every_doc() -> None:
    assert README.count("\n") < MAX_FRONT_PAGE_LINES
    linked = {link for link in _LINK.findall(README) if not link.startswith(("http:", "https:"))}
    for link in linked:
        assert (ROOT / link.split("#")[0]).exists(), link
    docs_linked = {link for link in linked if link.startswith("docs/")}
    assert docs_linked == {f"docs/{path.name}" for path in DOCS}, docs_linked
    assert len(DOCS) >= 5  # the rest of the manual really is there


def test_every_relative_link_in_the_docs_resolves() -> None:
    checked = 0
    for path in DOCS:
        for link in _LINK.findall(path.read_text(encoding="utf-8")):
            if link.startswith(("http:", "https:", "#")):
                continue
            assert (path.parent / link.split("#")[0]).exists(), (path.name, link)
            checked += 1
    assert checked >= len(DOCS)  # each links back to the front page at least


def _tour() -> list[str]:
    """The tour's lines, continuations joined, in order."""
    section = _section("A short tour")
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def test_every_command_and_option_the_tour_uses_exists() -> None:
    import typer.main
    from typer.testing import CliRunner

    from hwpscan.cli import app

    commands_by_name = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    commands = [shlex.split(line) for line in _tour() if line.startswith("hwpscan ")]
    assert len(commands) >= 8
    for argv in commands:
        name = argv[1]
        command = commands_by_name.get(name)
        assert command is not None, name
        known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        for word in argv[2:]:
            if word.startswith("-") and word != "-":
                assert word.split("=", 1)[0] in known, (name, word)
        result = CliRunner().invoke(app, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)


@pytest.mark.slow
def test_the_tour_runs_top_to_bottom_and_prints_what_it_says(tmp_path: Path) -> None:
    """Each line of the tour, in order, in a folder holding a copy of the clone's fixtures/,
    with this interpreter's scripts first on the PATH (as `. .venv/bin/activate` puts them):
    every command exits as its comment says (0 unless it names an exit code) and prints
    every backticked text of the comment. The emulator the tour starts in the background
    asks for port 8765; here it gets a free one and the tour's URLs are pointed at it.
    Not marked slow: the whole tour takes about 10 s of one core, so the quick run keeps
    the front page honest."""
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HWPSCAN_")}
    env |= {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "HWPSCAN_HOME": str(tmp_path / "home"),
        "COLUMNS": "200",
        "NO_COLOR": "1",
        "PYTHONUNBUFFERED": "1",
    }
    background: list[subprocess.Popen[str]] = []
    emulator_url = "http://127.0.0.1:8765"
    expected_exit, promised = 0, []
    ran = 0
    try:
        for line in _tour():
            if line.startswith("#"):
                found = re.search(r"exit (\d+)", line)
                expected_exit = int(found.group(1)) if found else expected_exit
                promised += re.findall(r"`([^`]+)`", line)
                continue
            command = line.replace("http://127.0.0.1:8765", emulator_url)
            if command.startswith("export "):
                env |= dict(word.split("=", 1) for word in shlex.split(command)[1:])
            elif command == "kill %1":
                stopped = background.pop(0)
                stopped.terminate()
                stopped.wait(timeout=60)
            elif command.endswith("&"):
                command = command[:-1].replace("--port 8765", "--port 0")
                emulator_url = _start_in_background(command, tmp_path, env, background)
            else:
                done = subprocess.run(
                    ["bash", "-c", command],
                    cwd=tmp_path,
                    env=env,
                    text=True,
                    capture_output=True,
                    timeout=600,
                    check=False,
                )
                output = done.stdout + done.stderr
                assert done.returncode == expected_exit, (command, output[-3000:])
                for text in promised:
                    assert text in output, (command, text, output[-3000:])
                ran += 1
            expected_exit, promised = 0, []
    finally:
        for process in background:
            process.terminate()
            process.wait(timeout=60)
    assert ran >= 8
    assert not background  # the tour stops what it started


def _start_in_background(
    command: str, cwd: Path, env: dict[str, str], background: list[subprocess.Popen[str]]
) -> str:
    """Start ``command`` and wait (by its own output, not by time) for the base URL it
    says it serves."""
    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    background.append(process)
    assert process.stdout is not None
    for out_line in process.stdout:
        found = re.search(r"at (http://127\.0\.0\.1:\d+)", out_line)
        if found:
            return found.group(1)
    raise AssertionError(f"{command} ended without saying where it listens")
