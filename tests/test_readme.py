"""The README's code is run, not just read: its pipeline examples and its test command."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

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


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", _section("Two commands"))
    assert len(commands) == 2, commands
    install_and_demo, install_and_test = commands
    assert "hwpscan demo" in install_and_demo
    assert install_and_test in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
