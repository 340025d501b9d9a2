"""Shared by the fetch tests that drive the emulator on 127.0.0.1: a fresh key, the
emulator in a thread, and a state folder and key set in the environment."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread

#: A child process that runs the CLI with the fetch commands registered.
CLI = "import hwpscan.cli.fetch_command; from hwpscan.cli.app import app; app()"


def new_key() -> str:
    """A distinctive 32-character key (the emulator checks the real keys' shape)."""
    return "TESTKEY" + secrets.token_hex(13)[:25]


@pytest.fixture
def emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread() as emu:
        yield emu


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    key = new_key()
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", key)
    return {"key": key, "home": str(tmp_path / "home"), "out": str(tmp_path / "out")}
