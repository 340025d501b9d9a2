"""``hwpscan diff``: two recorded runs, before and after a change of the data."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from report_corpus import build_corpus, clean_hwp, contaminated_hwp, scan_folder
from typer.testing import CliRunner

import hwpscan.cli.report_command  # noqa: F401  (registers diff)
from hwpscan.api import FetchSettings
from hwpscan.cli import app
from hwpscan.cli.runs_view import record_and_report
from hwpscan.history import date_states, diff_runs
from hwpscan.history.records import RunArgs
from hwpscan.rehearsal.emulator.catalogue_loader import Attachment, Post, bundled_posts
from hwpscan.rehearsal.emulator.server import serve_in_thread
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.usecases.run_fetch import fetch_for_scan

KEY = "Df" + "7" * 30
DAYS = ("2025-07-21", "2025-07-24")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HWPSCAN_API_KEY", KEY)
    return tmp_path


def _changed_catalogue() -> tuple[Post, ...]:
    """The bundled catalogue after a fix and some churn:

    - 2025-07-21: every HWP attachment re-published clean;
    - 2025-07-22: all releases withdrawn;
    - 2025-07-23: one new release with a contaminated HWP.
    """
    out = []
    for post in bundled_posts():
        day = post.day.isoformat()
        if day == "2025-07-22":
            continue
        if day == "2025-07-21":
            post = replace(  # noqa: PLW2901 - the re-issued post replaces the bundled one
                post,
                attachments=tuple(
                    Attachment(a.name, clean_hwp(a.name)) if a.name.endswith(".hwp") else a
                    for a in post.attachments
                ),
            )
        out.append(post)
    out.append(
        Post(
            "999001",
            datetime(2025, 7, 23, 15, 0),
            "정정 보도자료",
            "<p>정정</p>",
            (Attachment("(정정) 보도자료.hwp", contaminated_hwp("new")),),
        )
    )
    return tuple(out)


def _scan_emulator(home: Path, catalogue, name: str) -> str:
    from hwpscan.usecases.run_scan import ScanSettings, scan

    with serve_in_thread(catalogue=catalogue) as emu:
        folder, report = fetch_for_scan(
            *DAYS, FetchSettings(api_url=emu.api_url, out_dir=home / name)
        )
    assert report.complete, report
    results = scan(ScanSettings((folder,), jobs=1, record=False)).results
    run_id = record_and_report(results, kind="scan", args=RunArgs(start=DAYS[0], end=DAYS[1]))
    assert run_id
    return run_id


@pytest.mark.slow
def test_diff_between_two_runs_over_the_emulator(home: Path) -> None:
    before = _scan_emulator(home, None, "before")
    after = _scan_emulator(home, _changed_catalogue(), "after")
    d = diff_runs(before, after)

    became_clean = d.of_kind("became_clean")
    assert became_clean and all(
        c.date == "2025-07-21" and c.path.endswith(".hwp") for c in became_clean
    )
    assert all(c.surrogates_before > 0 and c.surrogates_after == 0 for c in became_clean)
    vanished = d.of_kind("vanished")
    assert vanished and {c.date for c in vanished} == {"2025-07-22"}
    (appeared,) = d.of_kind("appeared")
    assert appeared.date == "2025-07-23" and appeared.after == "contaminated"
    assert appeared.path.endswith("(정정) 보도자료.hwp")
    assert not d.of_kind("became_contaminated")
    dates = {c.date: c.kind for c in d.dates}
    assert dates == {
        "2025-07-21": "became_clean",
        "2025-07-22": "vanished",
        "2025-07-23": "became_contaminated",
    }
    assert d.unchanged > 0  # 7/24 and the PDFs and HWPX of 7/21 are matched by name across folders

    shown = CliRunner().invoke(app, ["diff", before, after])
    assert shown.exit_code == 0, shown.output
    for text in ("became clean", "vanished", "appeared", "became contaminated", "2025-07-22"):
        assert text in shown.output
    assert KEY not in shown.output


def test_diff_between_two_scans_of_a_changing_folder(home: Path) -> None:
    root = build_corpus(home / "corpus")
    first = record_and_report(
        scan_folder(root), kind="scan", args=RunArgs(options={"paths": [str(root)]})
    )
    (root / "2025-07-21" / "a-press.hwp").write_bytes(clean_hwp("fixed"))  # contaminated -> clean
    (root / "2025-07-23" / "c.hwp").write_bytes(contaminated_hwp("broke"))  # clean -> contaminated
    (root / "2025-07-22" / "b.pdf").write_bytes(b"")  # clean -> unreadable
    (root / "2025-07-24" / "d.pdf").unlink()  # vanished
    (root / "2025-07-25").mkdir()
    (root / "2025-07-25" / "e.hwp").write_bytes(clean_hwp("new"))  # appeared
    second = record_and_report(
        scan_folder(root), kind="scan", args=RunArgs(options={"paths": [str(root)]})
    )
    assert first and second
    d = diff_runs(first, second)
    kinds = {Path(c.path).name: (c.kind, c.before, c.after) for c in d.files}
    assert kinds == {
        "a-press.hwp": ("became_clean", "contaminated", "clean"),
        "c.hwp": ("became_contaminated", "clean", "contaminated"),
        "b.pdf": ("status_changed", "clean", kinds["b.pdf"][2]),
        "d.pdf": ("vanished", "clean", None),
        "e.hwp": ("appeared", None, "clean"),
    }
    assert kinds["b.pdf"][2] not in ("clean", "contaminated")
    surrogates = {Path(c.path).name: (c.surrogates_before, c.surrogates_after) for c in d.files}
    assert surrogates["b.pdf"] == (0, None)  # an empty file's body is not read: no count
    assert surrogates["c.hwp"][0] == 0 and surrogates["c.hwp"][1] > 0
    dates = {c.date: (c.kind, c.before, c.after) for c in d.dates}
    assert dates["2025-07-23"] == ("became_contaminated", "clean", "contaminated")
    assert dates["2025-07-25"] == ("appeared", None, "clean")
    assert "2025-07-21" not in dates  # the other HWP of that day is still contaminated

    same = CliRunner().invoke(app, ["diff", second, second])
    assert same.exit_code == 0 and "no change" in same.output


def test_a_date_with_unread_files_is_never_clean(home: Path) -> None:
    corpus = date_states(scan_folder(build_corpus(home / "corpus")))
    assert corpus == {
        "2025-07-21": "contaminated",
        "2025-07-22": "contaminated",  # an unread file never hides a contaminated one
        "2025-07-23": "clean",
        "2025-07-24": "partial",  # a clean PDF and a truncated HWP: not proven clean
    }
    day = home / "day" / "2025-07-21"
    day.mkdir(parents=True)
    (day / "a.hwp").write_bytes(clean_hwp("a"))
    (day / "b.pdf").write_bytes(b"")  # unreadable: proves nothing either way
    partial = record_and_report(scan_folder(home / "day"), kind="scan", args=RunArgs())
    (day / "b.pdf").write_bytes(build_pdf([["본문"]]))
    clean = record_and_report(scan_folder(home / "day"), kind="scan", args=RunArgs())
    (day / "a.hwp").write_bytes(b"")
    (day / "b.pdf").write_bytes(b"")
    unreadable = record_and_report(scan_folder(home / "day"), kind="scan", args=RunArgs())
    assert partial and clean and unreadable
    dates = [(c.kind, c.before, c.after) for c in diff_runs(partial, clean).dates]
    assert dates == [("status_changed", "partial", "clean")]  # reading the rest proved it
    dates = [(c.kind, c.before, c.after) for c in diff_runs(clean, unreadable).dates]
    assert dates == [("status_changed", "clean", "unreadable")]


def test_diff_of_unknown_runs_is_a_usage_error(home: Path) -> None:
    result = CliRunner().invoke(app, ["diff", "2099", "latest"])
    assert result.exit_code == 2
