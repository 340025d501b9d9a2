"""Shared test fixtures: small real files made by our own generator."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# No Hypothesis example has a deadline: a loaded machine (two cores shared with other
# jobs) must not turn a slow example into a failure. Tests may still set their own.
settings.register_profile("hwpscan", deadline=None)
settings.load_profile("hwpscan")

# pytest-xdist workers get COLUMNS=80 in their environment, and hwpscan sizes piped
# tables by COLUMNS when it is set: the same test would then see 80-column tables under
# `pytest -n 4` and 160-column ones without it. Tests that need a width set their own.
os.environ.pop("COLUMNS", None)


@pytest.fixture(scope="session", autouse=True)
def _session_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A state folder for module- and session-scoped fixtures, which run before the next one."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HWPSCAN_HOME", str(tmp_path_factory.mktemp("session-home")))
        # no test reads the user's own option defaults (cli/config_file.py)
        mp.setenv("HWPSCAN_CONFIG", str(tmp_path_factory.mktemp("config") / "config.toml"))
        yield


@pytest.fixture(autouse=True)
def _private_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test gets its own state folder: no test writes to the user's data folder.

    A test that sets HWPSCAN_HOME itself overrides this (its setenv runs later).
    """
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def broken_dir(tmp_path: Path) -> Path:
    """A folder of inputs that are not readable documents, one per failure kind."""
    tmp_path = tmp_path / "in"
    day = tmp_path / "2025-07-21"
    day.mkdir(parents=True)
    (day / "empty.hwp").write_bytes(b"")
    (day / "error-page.hwp").write_bytes(
        "<!DOCTYPE html><html><body>요청하신 파일을 찾을 수 없습니다</body></html>".encode("cp949")
    )
    (tmp_path / "garbage.hwp").write_bytes(bytes((i * 131 + 7) % 256 for i in range(4096)))
    (tmp_path / "old.hwp").write_bytes(
        b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05" + b"\0" * 64
    )
    (tmp_path / "note.txt").write_text("보도자료 본문", encoding="utf-8")
    (tmp_path / "manifest.jsonl").write_text("", encoding="utf-8")  # a sidecar, not scanned
    return tmp_path
