"""``date_from_path`` (string steps, a cache per folder) equals the pathlib reading."""

from __future__ import annotations

import itertools
import re
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.scanning.inputs import date_from_path

_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def pathlib_date(path: str) -> str | None:
    """The reference: the file stem, then the folder components innermost first."""
    p = Path(path)
    for part in (p.stem, *reversed(p.parent.parts)):
        if _DATE_RE.fullmatch(part):
            try:
                date.fromisoformat(part)
            except ValueError:
                continue
            return part
    return None


PARTS = [
    "2025-07-21",
    "2025-13-40",
    "2024-02-29",
    "2025-02-29",
    "a",
    "",
    ".",
    "..",
    "x.hwp",
    "2025-08-01.hwp",
    "2025-08-01.",
    ".2025-08-01",
    "2025-08-01.tar.gz",
    "２０２５-０７-２１",
    "2025-07-21 ",
]


def test_every_short_combination() -> None:
    for k in range(1, 4):
        for combo in itertools.product(PARTS, repeat=k):
            for lead, tail in itertools.product(("", "/", "./"), ("", "/")):
                path = lead + "/".join(combo) + tail
                if path:
                    assert date_from_path(path) == pathlib_date(path), path


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PARTS) | st.text("0123456789-./a", max_size=12), max_size=6))
@pytest.mark.slow
def test_generated_paths(parts: list[str]) -> None:
    path = "/".join(parts)
    if path:
        assert date_from_path(path) == pathlib_date(path)
        assert date_from_path(Path(path)) == pathlib_date(path)
