"""What the deployed tool may see and what a stop leaves behind, and a partly read date.

Real subprocesses throughout: small scripts stand for the deployed tool (and its
children), a real signal timer stands for Ctrl-C, our generator makes the files.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from report_corpus import build_corpus, scan_folder

from hwpscan.matrix import parse_parser_options
from hwpscan.matrix.runner import run_matrix
from hwpscan.redaction import REDACTED
from hwpscan.verify import (
    INCONCLUSIVE,
    judge,
    run_tool,
    scrub_tool_text,
    tool_environment,
)

PY = sys.executable


def _script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!{PY}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _alive(pid: int) -> bool:
    """Whether *pid* still runs (a zombie waiting for its reaper does not count)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] not in ("Z", "X")


def _wait_dead(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _wait_file(path: Path, seconds: float = 20.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


@pytest.fixture
def ctrl_c_after() -> Iterator[object]:
    """``ctrl_c_after(seconds)``: a KeyboardInterrupt in the main thread, as Ctrl-C gives."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)

    def arm(seconds: float) -> None:
        signal.setitimer(signal.ITIMER_REAL, seconds)

    yield arm
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


#: A tool that starts a child (which writes its pid) and waits for it.
SPAWNER = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', "
    "'import os, sys, time; open(sys.argv[1], \"w\").write(str(os.getpid())); time.sleep(60)', "
    "sys.argv[1]])\n"
    "child.wait()\n"
)


# -- the tool's environment ------------------------------------------------------------


def test_the_tool_runs_without_the_key_or_secret_looking_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "HWPSCAN_API_KEY": "Vf" + "3" * 30,
        "AWS_SECRET_ACCESS_KEY": "aws-secret-1",
        "AWS_REGION": "ap-northeast-2",
        "MY_SERVICE_TOKEN": "tok-1",
        "DB_PASSWORD": "pw-1",
        "OPENAI_API_KEY": "sk-1",
        "DATABASE_URL": "postgres://app:pw-2@db/x",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    tool = _script(
        tmp_path,
        "env.py",
        "import json, os, sys\n"
        "day, absent, present = sys.argv[1], sys.argv[2].split(','), sys.argv[3].split(',')\n"
        "leaked = [n for n in absent if n in os.environ]\n"
        "lost = [n for n in present if n not in os.environ]\n"
        "if leaked or lost:\n"
        "    sys.exit(f'leaked {leaked} lost {lost}')\n"
        "print(json.dumps({'date': day}))\n",
    )

    def check(absent: set[str], present: set[str], env: dict[str, str] | None) -> str | None:
        argv = [str(tool), "{date}", ",".join(sorted(absent)), ",".join(sorted(present))]
        return run_tool(argv, "2025-07-21", timeout=30, env=env).failure

    kept = {"PATH", "HOME", "LANG"}
    assert check(set(secrets), kept, None) is None  # the default: scrubbed
    passed = {"MY_SERVICE_TOKEN", "AWS_REGION"}
    assert check(set(secrets) - passed, kept | passed, tool_environment(passed)) is None
    # the check can fail: the caller's full environment holds them all
    failure = check(set(secrets), kept, dict(os.environ))
    assert failure is not None and "HWPSCAN_API_KEY" in failure


# -- secrets on the tool's command line --------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "secret"),
    [
        (["-H", "Authorization: Bearer eyJhbGciOi.sekrit", "{date}"], "eyJhbGciOi.sekrit"),
        (["-H", "Authorization: sekrit-basic", "{date}"], "sekrit-basic"),
        (["--url", "http://h/tool?token=sekrit-q&d={date}"], "sekrit-q"),
        (["--token", "sekrit-flag", "{date}"], "sekrit-flag"),
        (["GITHUB_TOKEN=sekrit-env", "{date}"], "sekrit-env"),
        (["-H", "X-Api-Key: sekrit-header", "{date}"], "sekrit-header"),
    ],
)
def test_credentials_on_the_tool_command_line_are_not_shown(
    tmp_path: Path, argv: list[str], secret: str
) -> None:
    tool = _script(tmp_path, "t.py", "import sys\nsys.exit(3)\n")
    got = run_tool([str(tool), *argv], "2025-07-21", timeout=30)
    assert got.failure is not None and "exited with status 3" in got.failure
    assert secret not in got.command and REDACTED in got.command
    assert "2025-07-21" in got.command  # the rest of the line is still there
    assert secret not in scrub_tool_text(" ".join(argv))


# -- stopping the tool -------------------------------------------------------------------


@pytest.mark.slow
def test_a_timed_out_tool_whose_grandchild_holds_the_pipe_does_not_hang(tmp_path: Path) -> None:
    """After the kill, the output is awaited a few seconds only: a grandchild that left
    the process group (its own session) keeps the pipe open for a minute."""
    pid_file = tmp_path / "grandchild.pid"
    tool = _script(
        tmp_path,
        "escape.py",
        "import os, subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', "
        "'import os, sys, time; open(sys.argv[1], \"w\").write(str(os.getpid())); time.sleep(60)',"
        f" {str(pid_file)!r}], start_new_session=True)\n"
        "time.sleep(60)\n",
    )
    started = time.monotonic()
    try:
        got = run_tool([str(tool), "{date}"], "2025-07-21", timeout=1)
        took = time.monotonic() - started
    finally:
        escaped = int(_wait_file(pid_file))
        os.kill(escaped, signal.SIGKILL)
    assert got.failure == "the tool command did not finish within 1 s"
    assert took < 15, took  # the timeout, then at most the grace to collect the output


@pytest.mark.slow
def test_ctrl_c_while_the_tool_runs_kills_its_whole_group(
    tmp_path: Path, ctrl_c_after: object
) -> None:
    pid_file = tmp_path / "child.pid"
    tool = _script(tmp_path, "spawn.py", SPAWNER)
    ctrl_c_after(1.5)  # type: ignore[operator]
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_tool([str(tool), str(pid_file), "{date}"], "2025-07-21", timeout=60)
    assert time.monotonic() - started < 15
    child = int(_wait_file(pid_file, 1))
    assert _wait_dead(child), "the tool's child outlived the Ctrl-C"


@pytest.mark.slow
def test_ctrl_c_while_the_matrix_runs_a_command_kills_it(
    tmp_path: Path, ctrl_c_after: object
) -> None:
    """The matrix runs commands from worker threads, which never see the interrupt."""
    pid_file = tmp_path / "child.pid"
    tool = _script(tmp_path, "spawn.py", SPAWNER)
    doc = tmp_path / "a.hwp"
    doc.write_bytes(b"not really a document")
    specs = parse_parser_options("strict", [f"slow={tool} {pid_file} {{path}}"])
    started = time.monotonic()
    ctrl_c_after(3.0)  # type: ignore[operator]
    with pytest.raises(KeyboardInterrupt):
        list(run_matrix([doc], specs, timeout=60, jobs=2))
    assert time.monotonic() - started < 20  # not the 60 s timeout
    child = int(_wait_file(pid_file, 1))
    assert _wait_dead(child), "the extractor's child outlived the Ctrl-C"


# -- a date read only in part ------------------------------------------------------------


def test_a_date_with_an_unreadable_file_is_never_clean(tmp_path: Path) -> None:
    results = scan_folder(build_corpus(tmp_path))
    day = "2025-07-24"  # one truncated HWP, one clean PDF, nothing contaminated
    mine = [r for r in results if r.date == day]
    assert {r.status.scanned for r in mine} == {True, False}
    clean = judge(day, "clean", results)
    assert clean.verdict == INCONCLUSIVE and clean.raw == "partial"
    assert "d-truncated.hwp" in clean.reason and "1 of 2" in clean.reason
    assert [Path(e.file or "").name for e in clean.evidence] == ["d-truncated.hwp"]
    assert judge(day, "contaminated", results).verdict == INCONCLUSIVE
    assert judge(day, "fixed", results).raw == "partial"
    # a date read in full keeps its state
    assert judge("2025-07-23", "clean", results).raw == "clean"
