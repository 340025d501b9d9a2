"""Hostile inputs, third round: no false clean, no endless loop, no leaked secret.

Each file or name is made here or by our own writers (``hwpscan.rehearsal.synth``);
every test fails on the code before its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.formats.pdf import read_pdf
from hwpscan.models import Status
from hwpscan.rehearsal.synth.pdf import PdfExtras, build_pdf
from hwpscan.scan import scan_bytes

runner = CliRunner()


# --- 1. a PDF pypdf can only read in part is never clean ------------------------------


@pytest.mark.parametrize("kind", ["array", "dict"])
def test_a_pdf_whose_resources_nest_100000_deep_is_not_clean(kind: str) -> None:
    data = build_pdf([["보도자료 본문"]], extras=PdfExtras(deep_resources=(kind, 100_000)))
    doc = read_pdf(data)
    assert doc.status is Status.CORRUPT
    assert doc.reason is not None and "could not parse part of an object" in doc.reason
    row = scan_bytes(data, path="deep.pdf")
    assert row.status is Status.CORRUPT, row


def test_a_deep_pdf_fails_the_unreadable_gate(tmp_path: Path) -> None:
    (tmp_path / "deep.pdf").write_bytes(
        build_pdf([["본문"]], extras=PdfExtras(deep_resources=("array", 100_000)))
    )
    result = runner.invoke(
        app, ["scan", str(tmp_path), "-j", "1", "--format", "jsonl", "--fail-on", "unreadable"]
    )
    assert result.exit_code == 1, result.output
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["status"] == "corrupt"


def test_a_shallow_nesting_is_read_and_clean() -> None:
    data = build_pdf([["본문"]], extras=PdfExtras(deep_resources=("dict", 20)))
    doc = read_pdf(data)
    assert doc.status is None and [s.text for s in doc.body] == ["본문"]
