"""Fetches that share one output folder share its work: started at one instant (a
multiprocessing barrier), round after round, against the emulator on 127.0.0.1, no
attachment is downloaded twice and the manifest stays one valid line per fact."""

from __future__ import annotations

import json
import multiprocessing
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from hwpscan.manifest import MANIFEST_NAME
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread

KEY = "TESTKEY" + "5" * 25
START, END = date(2025, 7, 21), date(2025, 8, 1)


@pytest.fixture(scope="module")
def emulator() -> Iterator[RunningEmulator]:
    with serve_in_thread() as emu:
        yield emu


def _fetch_at_barrier(barrier: Any, api_url: str, out: str, home: str) -> str | None:
    """In a pool worker: wait for all, then fetch into the shared *out* folder."""
    from hwpscan.api import FetchSettings
    from hwpscan.api.settings import FetchHooks
    from hwpscan.usecases.run_fetch import fetch_range

    settings = FetchSettings(api_url=api_url, out_dir=Path(out), state=Path(home), downloads=4)
    barrier.wait(timeout=60)
    try:
        report = fetch_range(START, END, settings, key=KEY, hooks=FetchHooks(resolver=None))
    except Exception as exc:  # reported to the test, which names it
        return f"{type(exc).__name__}: {exc}"
    if not report.complete:
        return f"incomplete: {report.error} {report.warnings}"
    return None


def _check_manifest(out: Path) -> list[dict[str, Any]]:
    """Every line valid JSON, and no fact written twice."""
    lines = (out / MANIFEST_NAME).read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]  # raises on a torn or mixed line
    keys = Counter((e["path"], e["url"], e["status"], e["sha256"]) for e in entries)
    assert [k for k, n in keys.items() if n > 1] == []
    return entries


@pytest.mark.slow
@pytest.mark.parametrize("homes", ["one home each", "one shared home"])
def test_two_fetches_at_one_instant_download_each_file_once(
    emulator: RunningEmulator, tmp_path: Path, homes: str
) -> None:
    ctx = multiprocessing.get_context("forkserver")
    processes, rounds = 2, 8
    with ctx.Manager() as manager, ctx.Pool(processes) as pool:
        barrier = manager.Barrier(processes)
        for n in range(rounds):
            emulator.reset()
            root = tmp_path / f"round-{n}"
            out = root / "out"
            work = [
                (barrier, emulator.api_url, str(out), str(root / f"home-{i}"))
                for i in range(processes)
            ]
            if homes == "one shared home":
                work = [(b, u, o, str(root / "home")) for b, u, o, _ in work]
            errors = [e for e in pool.starmap(_fetch_at_barrier, work, chunksize=1) if e]
            assert errors == [], f"round {n}: {errors}"
            stats = emulator.stats()
            twice = {url: count for url, count in stats.downloads.items() if count > 1}
            assert twice == {}, f"round {n}: downloaded more than once: {twice}"
            entries = _check_manifest(out)
            downloaded = [e for e in entries if e["status"] == "downloaded"]
            assert len(downloaded) == stats.downloads_total, f"round {n}"
            assert len({e["path"] for e in downloaded}) == len(downloaded)
