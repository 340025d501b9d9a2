"""Shared test fixtures: small real files made by our own generator."""

from __future__ import annotations

from pathlib import Path

import pytest


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
    (tmp_path / "old.hwp").write_bytes(b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05" + b"\0" * 64)
    (tmp_path / "note.txt").write_text("보도자료 본문", encoding="utf-8")
    (tmp_path / "manifest.jsonl").write_text("", encoding="utf-8")  # a sidecar, not scanned
    return tmp_path
