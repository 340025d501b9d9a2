"""The report bundle checked back against the results it came from."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from report_corpus import HOSTILE_NAME, bundle, results  # noqa: F401  (module fixtures)
from typer.testing import CliRunner

import hwpscan.cli.report_command  # noqa: F401  (registers report, history, diff, verify)
from hwpscan.cli import app
from hwpscan.cli.runs_view import record_and_report
from hwpscan.history import load_run
from hwpscan.history.records import RunArgs, RunSummary
from hwpscan.models import Defects, FileResult, Status
from hwpscan.report.bundle import REPORT_FILES, report_order, write_report
from hwpscan.report.cells import cell_text, contamination_cells, pivot_counts
from hwpscan.report.html_rows import common_root, summarised
from hwpscan.report.junit import junit_xml, write_junit, xml_safe
from hwpscan.report.summary import summary_markdown
from hwpscan.rowcodec import csv_fields, encode_row


def test_the_corpus_has_every_kind_of_row(results: list[FileResult]) -> None:
    statuses = {r.status for r in results}
    assert {Status.CLEAN, Status.CONTAMINATED} <= statuses
    assert any(not s.scanned for s in statuses)


def test_bundle_holds_the_five_files_and_no_partial_file(bundle: Path) -> None:
    assert sorted(p.name for p in bundle.iterdir()) == sorted(REPORT_FILES)


# -- junit.xml --------------------------------------------------------------------------


def test_junit_has_one_case_per_file_and_fails_the_bad_ones(
    bundle: Path, results: list[FileResult]
) -> None:
    root = ET.parse(bundle / "junit.xml").getroot()
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [r.path for r in results]
    bad = [r for r in results if r.status is Status.CONTAMINATED]
    unreadable = [r for r in results if not r.status.scanned]
    assert bad and unreadable
    assert root.get("tests") == str(len(results)) and root.get("failures") == str(len(bad))
    assert root.get("errors") == str(len(unreadable))  # no gate in a bundle: both count
    for case, r in zip(cases, results, strict=True):
        assert case.get("classname") == f"hwpscan.{r.date}"
        failure = case.find("failure" if r.contaminated else "error")
        if r.status is Status.CLEAN:
            assert case.find("failure") is None and case.find("error") is None
            continue
        assert failure is not None and failure.get("type") == r.status.value
        if r.status is Status.CONTAMINATED:
            assert f"{r.body.surrogates} surrogate code points" in failure.get("message", "")
            assert f"({r.body.pairs} pairs, {r.body.orphans} orphans)" in failure.get("message", "")
            assert r.body.locations[0].units in (failure.text or "")
        else:
            assert r.reason and r.reason in failure.get("message", "")


def test_junit_groups_by_date_and_survives_control_characters(results: list[FileResult]) -> None:
    odd = FileResult(
        "a\x01b" + chr(0xDC00) + ".hwp",
        "",
        0,
        results[0].format,
        Status.CORRUPT,
        reason="bad\x00byte",
    )
    root = ET.fromstring(junit_xml([*results, odd]))
    cases = root.findall("./testsuite/testcase")
    assert {c.get("classname") for c in cases} == {
        f"hwpscan.{r.date or 'unknown'}" for r in [*results, odd]
    }
    assert cases[-1].get("name") == "a\\x01b\\udc00.hwp"
    assert cases[-1].find("error").get("message") == "corrupt: bad\\x00byte"


def test_junit_follows_the_gate(results: list[FileResult]) -> None:
    """Only gated findings fail; unreadable files are errors when gated, else skipped."""
    bad = sum(r.contaminated for r in results)
    unreadable = sum(not r.status.scanned for r in results)
    for gate, failures, errors, skipped in (
        (["contaminated"], bad, 0, unreadable),
        (["unreadable"], 0, unreadable, 0),
        (["error"], 0, unreadable, 0),
        ([], 0, 0, unreadable),
    ):
        root = ET.fromstring(junit_xml(results, gate=gate))
        suite = root.find("testsuite")
        assert suite is not None
        got = (suite.get("failures"), suite.get("errors"), suite.get("skipped"))
        assert got == (str(failures), str(errors), str(skipped)), gate
        assert len(root.findall(".//failure")) == failures
        assert len(root.findall(".//skipped")) == skipped
        if not failures:  # an ungated contaminated file still shows its counts
            outs = [c.find("system-out") for c in root.iter("testcase")]
            assert sum(o is not None for o in outs) == bad


def test_junit_over_no_document_says_so() -> None:
    root = ET.fromstring(junit_xml([], gate=["contaminated"], empty_reason="no documents under x"))
    (error,) = root.findall(".//error")
    assert error.get("message") == "no documents under x" and root.get("errors") == "1"


def test_write_junit_for_scan_format_junit(
    tmp_path: Path, results: list[FileResult], capsys: pytest.CaptureFixture[str]
) -> None:
    out = write_junit(results, tmp_path / "ci" / "junit.xml")
    assert out is not None and ET.parse(out).getroot().get("tests") == str(len(results))
    assert write_junit(results) is None
    assert ET.fromstring(capsys.readouterr().out.encode()).get("tests") == str(len(results))
    text_only = io.StringIO()  # a stream without a byte buffer gets the decoded XML
    assert write_junit(results, stdout=text_only) is None
    assert ET.fromstring(text_only.getvalue().encode()).get("tests") == str(len(results))


# -- files.csv and pivot.csv -------------------------------------------------------------


def test_files_csv_matches_the_results(bundle: Path, results: list[FileResult]) -> None:
    with (bundle / "files.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows == [{k: str(v) for k, v in csv_fields(r).items()} for r in results]


def test_pivot_csv_matches_pivot_counts(bundle: Path, results: list[FileResult]) -> None:
    stored = pd.read_csv(bundle / "pivot.csv", dtype={"date": str})
    pd.testing.assert_frame_equal(stored, pivot_counts(results), check_dtype=False)
    assert stored["files"].sum() == len(results)


# -- summary.md ----------------------------------------------------------------------


def test_summary_has_figures_pivot_and_bad_files(bundle: Path, results: list[FileResult]) -> None:
    text = (bundle / "summary.md").read_text(encoding="utf-8")
    bad = [r for r in results if r.status is Status.CONTAMINATED]
    assert f"**{len(bad)} of {len(results)} files contaminated**" in text
    _, cells = contamination_cells(results)
    assert cells
    for day, row in cells:
        assert f"| {day} | " + " | ".join(row) + " |" in text
    for r in bad:
        assert r.path.replace("<", "&lt;").replace(">", "&gt;").replace("&", "&amp;")[:8] in text
    unreadable = [r for r in results if not r.status.scanned]
    assert all(r.reason[:30] in text for r in unreadable)
    assert "<img" not in text and "<script" not in text


def test_the_terminal_cells_are_the_pandas_pivot(results: list[FileResult]) -> None:
    """The table scan draws cells counted without pandas: the same as the long-form
    pivot's counts summed per column, for the report corpus (its statuses and formats),
    with undated and lossy rows, parts of it and none."""
    undated = [replace(r, date=None) for r in results[::2]]
    folded = Defects(folded_symbols=1)
    lossy = [replace(r, status=Status.CLEAN, defects=folded) for r in results[:3]]
    everything = [*results, *undated, *lossy]
    assert any(r.lossy for r in lossy) and len({r.format for r in everything}) > 3
    for rows in (everything, everything[::3], undated, lossy, []):
        long = pivot_counts(rows)
        docs = ("hwp5", "hwpx", "pdf")
        long["format"] = long["format"].where(long["format"].isin(docs), "other")
        sums = long.groupby(["date", "format"]).sum()
        columns = [c for c in (*docs, "other") if c in set(long["format"])]
        dates = sorted(set(long["date"]), key=lambda d: (d == "unknown", d))
        expected = (
            columns,
            [
                (
                    d,
                    [
                        cell_text(
                            *sums.loc[(d, c), ["files", "contaminated", "unreadable", "lossy"]]
                        )
                        if (d, c) in sums.index
                        else "—"
                        for c in columns
                    ],
                )
                for d in dates
            ],
        )
        assert contamination_cells(rows) == expected


def test_summary_of_nothing_says_so() -> None:
    assert "No contaminated file" in summary_markdown([])


# -- report.html (static checks; the browser test drives it) ---------------------------


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(path: Path) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Collect()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tags


def test_html_is_self_contained(bundle: Path) -> None:
    tags = _tags(bundle / "report.html")
    for tag, attrs in tags:
        for name in ("src", "href"):
            value = attrs.get(name)
            assert value is None or value.startswith(("data:", "#")), (tag, attrs)
    scripts = [a for t, a in tags if t == "script"]
    assert [a for a in scripts if a.get("type") != "application/json"] == [{}]  # one program
    assert [t for t, _ in tags].count("style") == 1


def test_html_escapes_names_and_snippets(bundle: Path) -> None:
    page = (bundle / "report.html").read_text(encoding="utf-8")
    assert HOSTILE_NAME not in page and "onerror=alert(1)>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;&amp;보도.hwp" in page
    # a context snippet, surrogates escaped, in the data a row's detail is drawn from
    assert "1)\\u003c/script> \\\\udb80\\\\udeb1" in page
    assert page.count("</script>") == len(
        [t for t, _ in _tags(bundle / "report.html") if t == "script"]
    )
    assert not [a for t, a in _tags(bundle / "report.html") if t == "img"]


def test_html_heatmap_attributes_match_the_pivot(bundle: Path, results: list[FileResult]) -> None:
    cells = {
        (a["data-date"], a["data-format"]): (
            int(a["data-files"]),
            int(a["data-contaminated"]),
            int(a["data-clean"]),
            int(a["data-unreadable"]),
        )
        for t, a in _tags(bundle / "report.html")
        if t == "td" and "cell" in (a.get("class") or "")
    }
    expected = {
        (r.date, r.format): (r.files, r.contaminated, r.clean, r.unreadable)
        for r in pivot_counts(results).itertuples()
    }
    assert {k: v for k, v in cells.items() if v[0]} == expected


def test_html_rows_carry_every_result(bundle: Path, results: list[FileResult]) -> None:
    """Files with findings are rows, clean ones the compact list; both by date, then path."""
    page = (bundle / "report.html").read_text(encoding="utf-8")
    bodies = [
        a for t, a in _tags(bundle / "report.html") if t == "tbody" and a.get("class") == "file"
    ]
    ordered = sorted(results, key=report_order)
    assert [(b["data-status"], b["data-k-path"]) for b in bodies] == [
        (r.status.value, r.path) for r in ordered if not summarised(r)
    ]
    start = page.index('<script type="application/json" id="clean-data">')
    data = page[page.index(">", start) + 1 : page.index("</script>", start)]
    root = common_root([r.path for r in results])
    assert [c[:3] for c in json.loads(data)] == [
        [r.path[len(root) :], r.date or "", r.format.value] for r in ordered if summarised(r)
    ]
    assert len(bodies) + len(json.loads(data)) == len(results)


def test_unread_bodies_show_blank_counts_not_zeros(bundle: Path, results: list[FileResult]) -> None:
    unread = [r for r in results if not r.body_read]
    assert unread  # the truncated HWP: its body was never read
    bodies = {
        a["data-k-path"]: a
        for t, a in _tags(bundle / "report.html")
        if t == "tbody" and a.get("class") == "file"
    }
    for r in results:
        if summarised(r):  # clean: in the compact list, counted
            continue
        counts = [bodies[r.path][f"data-k-{k}"] for k in ("chars", "surrogates", "orphans")]
        if r.body_read:
            assert counts == [str(r.body.chars), str(r.body.surrogates), str(r.body.orphans)]
        else:
            assert counts == ["", "", ""] and bodies[r.path]["data-k-utf8"] == ""
    with (bundle / "files.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = {row["path"]: row for row in csv.DictReader(handle)}
    for r in unread:
        assert rows[r.path]["chars"] == "" and rows[r.path]["utf8_ok"] == ""
    assert "not read: no counts" in (bundle / "report.html").read_text(encoding="utf-8")


def test_html_markers_in_names_are_not_expanded(tmp_path: Path, results: list[FileResult]) -> None:
    from dataclasses import replace

    odd = replace(results[0], path="@JS@ @ROWS@.hwp")
    write_report([odd], tmp_path)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.count("@JS@ @ROWS@.hwp") >= 1 and page.count("applyFilter") >= 1


# -- CLI: report, history, record_and_report -------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HWPSCAN_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_record_and_report_then_report_and_history(home: Path, results: list[FileResult]) -> None:
    run_id = record_and_report(
        results,
        kind="scan",
        args=RunArgs(options={"paths": ["corpus"]}),
        report_dir=home / "out" / "{run}",
    )
    assert run_id is not None
    assert sorted(p.name for p in (home / "out" / run_id).iterdir()) == sorted(REPORT_FILES)
    assert [encode_row(r) for r in load_run(run_id).results] == [encode_row(r) for r in results]
    page = (home / "out" / run_id / "report.html").read_text(encoding="utf-8")
    assert run_id in page

    runner = CliRunner()
    made = runner.invoke(app, ["report"])
    assert made.exit_code == 0, made.output
    pivot = pd.read_csv(home / "reports" / run_id / "pivot.csv", dtype={"date": str})
    pd.testing.assert_frame_equal(pivot, pivot_counts(results), check_dtype=False)

    listed = runner.invoke(app, ["history"])
    assert listed.exit_code == 0 and run_id in listed.output and "scan" in listed.output


def test_report_of_an_unknown_run_is_a_usage_error(home: Path) -> None:
    result = CliRunner().invoke(app, ["report", "nope", "--out", str(home / "x")])
    assert result.exit_code == 2
    assert "no run" in result.output
    assert not (home / "x").exists()


def test_history_when_empty(home: Path) -> None:
    result = CliRunner().invoke(app, ["history"])
    assert result.exit_code == 0 and "no runs recorded yet" in result.output


def test_a_broken_store_warns_and_still_writes_the_report(
    home: Path,
    results: list[FileResult],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocker = home / "blocked"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HWPSCAN_HOME", str(blocker / "home"))
    assert (
        record_and_report(results, kind="scan", args=RunArgs(), report_dir=home / "r" / "{run}")
        is None
    )
    assert "run not recorded" in capsys.readouterr().err
    assert (home / "r" / "unrecorded" / "junit.xml").exists()


def test_stored_args_in_report_are_secret_free(
    home: Path, results: list[FileResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "Z" * 32
    monkeypatch.setenv("HWPSCAN_API_KEY", key)
    run_id = record_and_report(
        results[:2],
        kind="fetch",
        args=RunArgs(api_url=f"http://h/?authKey={key}", options={"api_key": key}),
        report_dir=home / "r",
    )
    assert run_id
    for path in [*(home / "r").iterdir(), *(home / "home").iterdir()]:
        assert key.encode() not in path.read_bytes(), path
    assert json.dumps(load_run(run_id).info.args).find(key) == -1


def test_recorded_run_streams_results_and_writes_the_report(
    home: Path, results: list[FileResult]
) -> None:
    from hwpscan.cli.runs_view import reported_run

    seen: list[str] = []
    with reported_run(
        "scan",
        RunArgs(options={"paths": ["c"]}),
        report_dir=home / "r" / "{run}",
        also=lambda r: seen.append(r.path),
    ) as sink:
        for r in results:
            sink(r)
    assert seen == [r.path for r in results] and sink.run_id
    run = load_run(sink.run_id)
    assert run.info.finished is not None and len(run.results) == len(results)
    assert (home / "r" / sink.run_id / "report.html").exists()


def test_recorded_run_keeps_results_of_a_run_that_dies(
    home: Path, results: list[FileResult]
) -> None:
    from hwpscan.cli.runs_view import reported_run

    with (
        pytest.raises(RuntimeError),
        reported_run("scan", RunArgs(), report_dir=home / "never") as sink,
    ):
        for r in results[:5]:
            sink(r)
        raise RuntimeError("worker exploded")
    run = load_run("latest")
    assert run.info.finished is None and [r.path for r in run.results] == [
        r.path for r in results[:5]
    ]
    assert not (home / "never").exists()
    listed = CliRunner().invoke(app, ["history"])
    assert "interrupted" in listed.output


def test_fetch_summary_is_recorded_with_the_run(home: Path) -> None:
    from datetime import date

    from hwpscan.errors import QuotaExceededError
    from hwpscan.history.recording import fetch_summary, recorded_run
    from hwpscan.usecases.run_fetch import FetchReport

    fetched = FetchReport(
        start=date(2025, 7, 21),
        end=date(2025, 7, 22),
        windows=(),
        calls_made=1,
        calls_cached=0,
        releases=3,
        files_downloaded=5,
        files_skipped=0,
        files_failed=0,
        files_refused=0,
        warnings=(),
        out_dir=home,
        manifest_path=home / "m.jsonl",
        error=QuotaExceededError("daily limit reached"),
    )
    with recorded_run("fetch", RunArgs(start="2025-07-21")) as sink:
        sink.summary = RunSummary(fetch=fetch_summary(fetched))
    info = load_run("latest").info
    assert info.kind == "fetch" and info.summary["files_downloaded"] == 5
    assert info.summary["range"] == "2025-07-21..2025-07-22"
    assert info.summary["error"] == "daily limit reached"


def test_calendar_and_weekdays_say_it_in_korean_and_english(results: list[FileResult]) -> None:
    from hwpscan.report.html_charts import calendar, heatmap

    cal = calendar(results)
    heads = re.findall(r'<div class="wh">(.*?)</div>', cal)
    pairs = zip("월화수목금토일", WEEKS, strict=True)
    assert heads == [f'{ko} <span lang="en">{en}</span>' for ko, en in pairs]
    notes = re.findall(r'<div class="day has"[^>]*><b>[^<]*</b>([^<]*)</div>', cal)
    day_files = {d: [r for r in results if r.date == d] for d in {r.date for r in results}}
    assert len(notes) == len(day_files)
    for note in notes:
        assert re.fullmatch(r"\d+/\d+ 오염 contam\.|\d+ 정상 clean", note), note
    assert "2/4 오염 contam." in notes  # 07-21: two of its four files are contaminated
    rows = re.findall(r'<span class="wd[^"]*">([^<]*)</span>', heatmap(results))
    assert rows == ["월 Mon", "화 Tue", "수 Wed", "목 Thu"]


WEEKS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def test_every_report_file_lists_files_by_date_then_path(
    tmp_path: Path, results: list[FileResult]
) -> None:
    shuffled = list(reversed(results))  # completion order: anything but date, path
    write_report(shuffled, tmp_path)
    expected = [r.path for r in sorted(results, key=report_order)]
    dated = [r.date for r in sorted(results, key=report_order)]
    assert dated == sorted(dated, key=lambda d: (d is None, d or ""))
    with (tmp_path / "files.csv").open(encoding="utf-8-sig", newline="") as handle:
        assert [row["path"] for row in csv.DictReader(handle)] == expected
    cases = ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    assert [c.get("name") for c in cases] == [xml_safe(p) for p in expected]
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    listed = [
        a["data-k-path"]
        for t, a in _tags(tmp_path / "report.html")
        if t == "tbody" and a.get("class") == "file"
    ]
    assert listed == [r.path for r in sorted(results, key=report_order) if not summarised(r)]
    assert "clean-data" in page
