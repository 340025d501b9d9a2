"""``history`` at 80 columns, ``latest~N`` and run-id ends, and the demo's recorded run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from report_corpus import results  # noqa: F401  (module fixture)
from rich.cells import cell_len
from stored_runs import stored_run
from typer.testing import CliRunner

from hwpscan.cli import app
from hwpscan.errors import RunNotFoundError
from hwpscan.history import FetchFigures, RunStore, RunSummary, default_store
from hwpscan.models import FileResult, Status
from hwpscan.report.tables import korea_time

runner = CliRunner()


@pytest.fixture
def runs(results: list[FileResult]) -> dict[str, str]:
    """Four runs in the test's own store: scan, fetch, verify, and an interrupted scan."""
    with default_store() as store:
        scan = stored_run(
            store,
            "scan",
            {"paths": ["/data/press-releases/2025-07"]},
            results,
            started=datetime(2025, 7, 21, 15, 30, tzinfo=UTC),
        )
        fetch = stored_run(
            store,
            "fetch",
            {"start": "2025-07-21", "end": "2025-07-25"},
            [],
            started=datetime(2025, 7, 22, 1, 0, tzinfo=UTC),
            summary=RunSummary(
                fetch=FetchFigures(files_downloaded=12, files_skipped=54, files_failed=1)
            ),
        )
        verify = stored_run(
            store,
            "verify",
            {"dates": ["2025-07-21", "2025-07-22"], "expect": "clean"},
            [r for r in results if r.date in ("2025-07-21", "2025-07-22")],
            started=datetime(2025, 7, 23, 2, 0, tzinfo=UTC),
            summary=RunSummary(
                verify={  # as verify stores them: an object per date
                    "verdicts": {
                        "2025-07-21": {"date": "2025-07-21", "verdict": "FAIL", "reason": "x"},
                        "2025-07-22": {"date": "2025-07-22", "verdict": "PASS", "reason": "y"},
                    }
                }
            ),
        )
        broken = store.start_run(
            "scan", {"paths": ["x"]}, started=datetime(2025, 7, 24, tzinfo=UTC)
        )
    return {"scan": scan, "fetch": fetch, "verify": verify, "broken": broken}


@pytest.fixture
def _80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    from hwpscan.cli.app import console

    monkeypatch.setattr(console, "width", 80)


@pytest.mark.usefixtures("_80_columns")
def test_history_fits_80_columns_with_short_ids_and_korea_time(
    runs: dict[str, str], results: list[FileResult]
) -> None:
    out = runner.invoke(app, ["history"]).stdout
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    assert "started (KST)" in out and "UTC" not in out
    with default_store() as store:
        for run_id in runs.values():
            short = store.short_id(run_id)
            assert len(short) < len(run_id) and store.resolve(short) == run_id
            assert short in out and run_id not in out
    assert korea_time("2025-07-21T15:30:00+00:00") == "2025-07-22 00:30"
    assert "2025-07-22 00:30" in out  # the scan, started 15:30 UTC
    lines = out.splitlines()
    fetch_line = next(line for line in lines if " fetch " in line)
    assert "67" in fetch_line and "12 downloaded" in fetch_line  # 12 + 54 + 1 files, not 0
    verify_line = next(line for line in lines if " verify " in line)
    assert "1/2 dates PASS, 1 FAIL" in verify_line
    assert "interrupted" in out
    bad = sum(r.status is Status.CONTAMINATED for r in results)
    assert f"{bad} contaminated" in out


def test_latest_tilde_n_names_earlier_runs(runs: dict[str, str], tmp_path: Path) -> None:
    with default_store() as store:
        assert store.resolve("latest") == store.resolve("latest~0") == runs["broken"]
        assert store.resolve("latest~1") == runs["verify"]
        assert store.resolve("latest~3") == runs["scan"]
        with pytest.raises(RunNotFoundError, match="latest~3 is the oldest"):
            store.resolve("latest~4")
    made = runner.invoke(app, ["report", "latest~3", "--out", str(tmp_path / "r")])
    assert made.exit_code == 0, made.output
    assert runs["scan"] in made.stdout
    refused = runner.invoke(app, ["report", "latest~2"])  # the fetch: no scan results
    assert refused.exit_code == 2 and "is a fetch" in refused.output
    diffed = runner.invoke(app, ["diff", "latest~3", "latest~1"])
    assert diffed.exit_code == 0, diffed.output
    assert f"diff {runs['scan']} → {runs['verify']}" in diffed.stdout


def test_the_end_of_an_id_names_a_run_unless_it_is_ambiguous(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    stamp = datetime(2025, 11, 30, 3, 15, tzinfo=UTC)
    ids = [stored_run(store, "scan", {}, [], started=stamp) for _ in range(3)]
    for run_id in ids:
        tail = run_id.rsplit("-", 1)[1]
        if sum(i.endswith("-" + tail) for i in ids) == 1 and not tail.startswith("2025"):
            assert store.resolve(tail) == run_id == store.resolve(run_id)
    with pytest.raises(RunNotFoundError):
        store.resolve("-")
    store.close()


@pytest.mark.slow
def test_demo_is_recorded_so_history_and_report_work_after_it(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--jobs", "1", "--downloads", "2"])
    assert result.exit_code == 0, result.output
    assert "run recorded: " in result.output
    with default_store() as store:
        info = store.run_info("latest")
    assert info.kind == "scan" and info.args["demo"] is True and info.files > 0
    listed = runner.invoke(app, ["history"])
    assert " demo " in listed.stdout
    made = runner.invoke(app, ["report", "--out", str(tmp_path / "r")])
    assert made.exit_code == 0, made.output
    assert (tmp_path / "r" / "report.html").is_file()
