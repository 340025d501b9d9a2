"""The quota ledger (also shared by concurrent processes) and the manifest reader."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from hwpscan.api.dates import KST
from hwpscan.api.quota import QuotaLedger
from hwpscan.errors import QuotaExceededError
from hwpscan.manifest import (
    MANIFEST_NAME,
    ManifestEntry,
    ManifestWriter,
    dates_for,
    load_manifest,
)
from hwpscan.redaction import key_hash

KEY = "TESTKEY" + "5e" * 12


class Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def test_limit_is_never_passed_and_the_message_says_when_it_resets(tmp_path: Path) -> None:
    clock = Clock(datetime(2025, 7, 21, 23, 0, tzinfo=KST))
    ledger = QuotaLedger(tmp_path / "q.sqlite", limit=3, clock=clock)
    assert [ledger.reserve(KEY) for _ in range(3)] == [1, 2, 3]
    with pytest.raises(
        QuotaExceededError,
        match=r"0 of 3 calls left for 2025-07-21 \(resets 2025-07-22 00:00 KST\)",
    ):
        ledger.reserve(KEY)
    assert ledger.status(KEY).used == 3  # the refused reservation counted nothing
    clock.moment += timedelta(hours=1, minutes=1)  # 00:01 in Seoul: a new quota day
    assert ledger.status(KEY).remaining == 3


def test_keys_are_counted_apart_and_only_their_hash_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "q.sqlite"
    ledger = QuotaLedger(path, limit=30)
    ledger.reserve(KEY)
    ledger.reserve("OTHERKEY")
    assert ledger.status(KEY).used == 1
    rows = sqlite3.connect(path).execute("SELECT key_hash FROM calls").fetchall()
    assert sorted(r[0] for r in rows) == sorted([key_hash(KEY), key_hash("OTHERKEY")])
    assert KEY.encode() not in path.read_bytes()


def test_refund_and_mark_exhausted(tmp_path: Path) -> None:
    ledger = QuotaLedger(tmp_path / "q.sqlite", limit=5)
    ledger.reserve(KEY)
    ledger.refund(KEY)
    assert ledger.status(KEY).used == 0
    ledger.mark_exhausted(KEY)
    assert ledger.status(KEY).remaining == 0


@pytest.mark.slow
def test_two_processes_sharing_the_ledger_never_pass_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "q.sqlite"
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from hwpscan.errors import QuotaExceededError
        from hwpscan.api.quota import QuotaLedger
        ledger = QuotaLedger(Path({str(path)!r}), limit=25)
        got = 0
        for _ in range(40):
            try:
                ledger.reserve({KEY!r})
                got += 1
            except QuotaExceededError:
                pass
        print(got)
    """)
    procs = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    granted = [int(p.communicate(timeout=120)[0]) for p in procs]
    assert sum(granted) == 25
    assert QuotaLedger(path, limit=25).status(KEY).used == 25


def _entry(path: str | None, date: str = "2025-07-21", status: str = "downloaded") -> ManifestEntry:
    return ManifestEntry(
        date,
        "41851",
        "제목",
        "보도.hwp",
        "https://h/f?fileSn=1",
        path,
        "ab",
        3,
        "application/octet-stream",
        status,
    )


def test_manifest_round_trip_latest_line_wins_and_torn_lines_are_skipped(tmp_path: Path) -> None:
    with ManifestWriter(tmp_path) as writer:
        writer.write(_entry("2025-07-21/a.hwp", "2025-07-20"))
        writer.write(_entry("2025-07-21/a.hwp"))
    with (tmp_path / MANIFEST_NAME).open("a", encoding="utf-8") as handle:
        handle.write('{"date": "2025-07-22", "content_id": "tor')  # a killed writer
    with ManifestWriter(tmp_path) as writer:  # the next run starts on a fresh line
        writer.write(_entry("2025-07-22/b.hwp", "2025-07-22"))
    loaded = load_manifest(tmp_path)
    assert {p.name: e.date for p, e in loaded.items()} == {
        "a.hwp": "2025-07-21",
        "b.hwp": "2025-07-22",
    }
    lines = (tmp_path / MANIFEST_NAME).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["path"] == "2025-07-22/b.hwp"


def test_dates_for_finds_manifests_in_ancestors_and_keys_by_given_path(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "2025-07-21").mkdir(parents=True)
    with ManifestWriter(out) as writer:
        writer.write(_entry("2025-07-21/a.hwp", "2025-07-23"))
    inside = out / "2025-07-21" / "a.hwp"
    stranger = out / "2025-07-21" / "b.hwp"
    elsewhere = tmp_path / "c.hwp"
    for p in (inside, stranger, elsewhere):
        p.write_bytes(b"x")
    relative = Path(inside.relative_to(Path.cwd())) if inside.is_relative_to(Path.cwd()) else inside
    dates = dates_for([relative, stranger, elsewhere])
    assert dates == {relative: "2025-07-23"}
