"""The parser matrix on real generated files, with extractors that fail the way real ones do.

Every extractor runs in a real subprocess. Expected counts are computed from the text
put into the generator, never typed in.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from hwpscan.errors import UsageError
from hwpscan.forensics.surrogates import PUA_RE
from hwpscan.matrix import (
    MatrixRow,
    jsonl_row_writer,
    matrix_exit_code,
    matrix_table,
    parse_parser_options,
    run_matrix,
    verdict,
)
from hwpscan.matrix.compare import align, compare, content, significant
from hwpscan.matrix.parsers import BUILTINS, decode_output, strict_text
from hwpscan.matrix.render import verdict_lines
from hwpscan.models import ExitCode
from hwpscan.rehearsal.synth.hwp5_writer import Footnote, HeaderFooter, Table, TextBox, build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf

TESTS = Path(__file__).parents[1]
EXTRACTORS = TESTS / "matrix_extractors"
FIXTURES = TESTS.parent / "fixtures"
BULLET, OPEN, CLOSE = chr(0xF02B1), chr(0xF0854), chr(0xF0855)

PARAGRAPHS = [
    BULLET + " 금융감독원 보도자료 " + OPEN + "불법사금융" + CLOSE + " 소비자경보",
    "담당\t부서: 민생침해대응총괄국",
]
BLOCKS = [
    *PARAGRAPHS,
    Table([["구분", "건수" + BULLET], ["합계", "1,234"]]),
    Footnote("출처: " + OPEN + "통계" + CLOSE, anchor="주석"),
    TextBox(BULLET + " 문의처"),
    HeaderFooter("머리말 " + BULLET),
]


def _texts(blocks: list[object]) -> str:
    out: list[str] = []
    for b in blocks:
        if isinstance(b, str):
            out.append(b)
        elif isinstance(b, Table):
            out.extend(cell for row in b.rows for cell in row)
        else:
            out.extend([getattr(b, "text", ""), getattr(b, "anchor", "")])
    return "".join(out)


#: PUA-A characters put into the document: each is one surrogate pair in HWP 5.
ASTRAL = sum(1 for c in _texts(BLOCKS) if ord(c) > 0xFFFF)
PUA = len(PUA_RE.findall(_texts(BLOCKS)))


def cmd(name: str, script: str, *extra: str) -> str:
    """A --parser-cmd value running one of our scripts with this interpreter."""
    parts = [sys.executable, str(EXTRACTORS / script), "{path}", *extra]
    return f"{name}=" + " ".join(shlex.quote(p) if p != "{path}" else p for p in parts)


def _line_of(code: str, script: str = "extractors.py") -> int:
    """The line number of *code* in one of our extractor modules (the traceback's frame)."""
    lines = (EXTRACTORS / script).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if code in line)


def brute_lcs(a: str, b: str) -> int:
    """The longest common subsequence's length, by the textbook table."""
    row = [0] * (len(b) + 1)
    for ca in a:
        diagonal = 0
        for j, cb in enumerate(b, 1):
            above = row[j]
            row[j] = diagonal + 1 if ca == cb else max(row[j], row[j - 1])
            diagonal = above
    return row[-1]


def by_parser(rows: list[MatrixRow], path: Path | None = None) -> dict[str, MatrixRow]:
    return {r.parser: r for r in rows if path is None or r.path == str(path)}


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One file of each kind: HWP 5 with PUA pairs (compressed and not), a clean HWP 5,
    HWPX and PDF with PUA characters."""
    tmp_path = tmp_path_factory.mktemp("docs")
    files = {
        "pua.hwp": build_hwp5(BLOCKS, compressed=True),
        "pua-plain.hwp": build_hwp5(BLOCKS, compressed=False),
        "clean.hwp": build_hwp5(["깨끗한 본문", Table([["가", "나"]])]),
        "pua.hwpx": build_hwpx(PARAGRAPHS),
        "pua.pdf": build_pdf([PARAGRAPHS]),
    }
    out = {}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        out[name] = tmp_path / name
    return out


@pytest.fixture(scope="module")
def extractor_path() -> Iterator[None]:
    """Make tests/matrix_extractors importable in the worker processes."""
    old = os.environ.get("PYTHONPATH")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(TESTS), old])))
        yield


# --- Built-ins on real files ----------------------------------------------------------


@pytest.mark.slow
def test_codeunit_contaminated_and_strict_clean_on_generated_files(docs: dict[str, Path]) -> None:
    specs = parse_parser_options("codeunit,strict", [])
    rows = list(run_matrix(list(docs.values()), specs, timeout=60, jobs=2))
    assert [(r.path, r.parser) for r in rows] == [
        (str(p), name) for p in docs.values() for name in ("codeunit", "strict")
    ]
    for name in ("pua.hwp", "pua-plain.hwp"):
        got = by_parser(rows, docs[name])
        assert got["codeunit"].surrogates == 2 * ASTRAL
        assert got["codeunit"].guilty and got["codeunit"].faults() == (f"{2 * ASTRAL} surrogates",)
        assert got["strict"].surrogates == 0 and not got["strict"].guilty
        assert got["codeunit"].dropped_chars == got["codeunit"].changed_chars == 0
        assert got["strict"].chars == got["codeunit"].chars - ASTRAL
    for name in ("clean.hwp", "pua.hwpx", "pua.pdf"):
        got = by_parser(rows, docs[name])
        assert all(r.status == "ok" and not r.guilty and r.chars > 0 for r in got.values()), got
    assert set(verdict(rows)) == {str(docs["pua.hwp"]), str(docs["pua-plain.hwp"])}
    assert all(names == ("codeunit",) for names in verdict(rows).values())


def _fixture_sample() -> list[dict[str, object]]:
    path = FIXTURES / "expected.jsonl"
    if not path.exists():
        return []
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    picked: list[dict[str, object]] = []
    for fmt in ("hwp5", "hwpx", "pdf"):
        for status in ("contaminated", "clean"):
            picked += [e for e in entries if e["format"] == fmt and e["status"] == status][:1]
    return picked


@pytest.mark.skipif(not _fixture_sample(), reason="fixtures/expected.jsonl not generated yet")
@pytest.mark.slow
def test_matrix_on_bundled_fixtures_matches_expected_counts() -> None:
    sample = _fixture_sample()
    paths = [FIXTURES / str(e["path"]) for e in sample]
    rows = list(run_matrix(paths, parse_parser_options(None, []), timeout=60, jobs=2))
    for entry, path in zip(sample, paths, strict=True):
        got = by_parser(rows, path)
        assert got["codeunit"].surrogates == entry["surrogates"], entry["path"]
        assert got["codeunit"].guilty == bool(entry["pairs"])  # orphans are the document's own
        assert got["strict"].surrogates == got["strict"].reference_surrogates == entry["orphans"]
        assert not got["strict"].guilty
    assert any(e["status"] == "contaminated" for e in sample)


# --- Misbehaving extractors -----------------------------------------------------------


@pytest.fixture(scope="module")
def misbehaving(
    docs: dict[str, Path], extractor_path: None, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, MatrixRow]:
    """Every kind of failure, run once (for all the tests below) on the compressed PUA file."""
    pidfile = tmp_path_factory.mktemp("pid") / "helper.pid"
    mod = "matrix_extractors.extractors"
    names = [
        "strict",
        f"{mod}:drop_pua",
        f"{mod}:question_marks",
        f"{mod}:high_half_only",
        f"{mod}:empty",
        f"{mod}:hang",
        f"{mod}:panic",
        f"{mod}:system_exit",
        f"{mod}:refuse",
        f"{mod}:returns_bytes",
        f"{mod}:hard_exit",
        f"{mod}:naive_para_text",
        "matrix_extractors.nosuch:extract",
        f"{mod}:no_such_function",
    ]
    commands = [
        cmd("lone", "cmd_lone.py"),
        cmd("invalid", "cmd_invalid.py"),
        cmd("fails", "cmd_fail.py"),
        cmd("hangs", "cmd_hang.py", str(pidfile)),
        cmd("segv", "cmd_segv.py"),
        "missing=/nonexistent/bin/extract-hwp {path}",
    ]
    specs = parse_parser_options(",".join(names), commands)
    rows = list(run_matrix([docs["pua.hwp"]], specs, timeout=4, jobs=2))
    assert [r.parser for r in rows] == [s.name for s in specs]
    got = {r.parser.rsplit(":", 1)[-1]: r for r in rows}
    got["_pidfile"] = pidfile  # type: ignore[assignment]
    return got


@pytest.mark.slow
def test_dropped_private_use_characters_are_counted(misbehaving: dict[str, MatrixRow]) -> None:
    row = misbehaving["drop_pua"]
    assert row.status == "ok" and row.guilty
    assert (row.dropped_chars, row.changed_chars, row.extra_chars, row.surrogates) == (PUA, 0, 0, 0)
    assert row.lost_pua == PUA and row.faults() == (f"{PUA} lost ({PUA} PUA)",)
    assert row.examples and row.examples[0].startswith("lost: ")
    assert "\\U000f02b1" in " ".join(row.examples)


def test_replaced_characters_are_counted_apart_from_lost(
    misbehaving: dict[str, MatrixRow],
) -> None:
    row = misbehaving["question_marks"]
    assert (row.changed_chars, row.replaced_pua, row.dropped_chars) == (PUA, PUA, 0)
    assert row.extra_chars == PUA  # the '?' themselves: text not in the document
    assert any(" -> ?]" in e and e.startswith("replaced: ") for e in row.examples)
    assert not row.guilty  # the text was replaced, not leaked or silently lost ...
    assert row.is_guilty(strict_markup=True)  # ... which --strict-markup counts too
    assert f"{PUA} replaced ({PUA} PUA)" in row.faults(strict_markup=True)[0]


def test_lone_surrogates_from_a_function_and_from_a_command(
    misbehaving: dict[str, MatrixRow],
) -> None:
    for name in ("high_half_only", "lone"):
        row = misbehaving[name]
        assert row.status == "ok", row
        assert row.surrogates == ASTRAL and row.reference_surrogates == 0
        assert row.dropped_chars == ASTRAL and row.changed_chars == 0  # a lone half is no character
        assert f"{ASTRAL} surrogates" in row.faults()[0]
        assert "\\U000f02b1" in " ".join(row.examples)


def test_empty_output_is_its_own_status(misbehaving: dict[str, MatrixRow]) -> None:
    row = misbehaving["empty"]
    assert row.status == "empty" and row.guilty and row.chars == 0
    assert "returned no text" in (row.reason or "")


def test_hangs_are_killed_after_the_timeout_with_their_children(
    misbehaving: dict[str, MatrixRow],
) -> None:
    for name in ("hang", "hangs"):
        row = misbehaving[name]
        assert row.status == "timeout" and row.guilty
        assert "within 4 s" in (row.reason or "")
    pid = int(Path(misbehaving["_pidfile"]).read_text())  # type: ignore[arg-type]
    assert not _running(pid), "the command's helper process outlived the timeout"


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_base_exceptions_and_hard_exits_are_crashes(misbehaving: dict[str, MatrixRow]) -> None:
    panic = misbehaving["panic"]
    assert panic.status == "crashed" and panic.guilty
    assert "PanicException" in (panic.reason or "") and "BaseException" in (panic.reason or "")
    assert "unwrap" in (panic.reason or "")
    assert misbehaving["system_exit"].status == "crashed"
    assert "SystemExit" in (misbehaving["system_exit"].reason or "")
    hard = misbehaving["hard_exit"]
    assert hard.status == "crashed" and "status 134" in (hard.reason or "")
    segv = misbehaving["segv"]
    assert segv.status == "crashed" and "SIGSEGV" in (segv.reason or "")


def test_ordinary_errors_and_bad_results(misbehaving: dict[str, MatrixRow]) -> None:
    refuse = misbehaving["refuse"]
    assert refuse.status == "error"
    assert (refuse.reason or "").startswith("ValueError: unsupported record in pua.hwp (at ")
    assert (refuse.reason or "").endswith(
        f"extractors.py:{_line_of('raise ValueError')} in refuse)"
    )
    assert misbehaving["returns_bytes"].status == "error"
    assert misbehaving["returns_bytes"].reason == "returned bytes, not str"
    fails = misbehaving["fails"]
    assert fails.status == "error"
    assert fails.reason == "command exited with status 2: RuntimeError: cannot parse section 0"
    assert misbehaving["no_such_function"].status == "error"
    assert "no_such_function" in (misbehaving["no_such_function"].reason or "")


def test_missing_extractors_are_not_installed_and_not_guilty(
    misbehaving: dict[str, MatrixRow],
) -> None:
    for name in ("extract", "missing"):
        row = misbehaving[name]
        assert row.status == "not-installed" and not row.guilty
    assert misbehaving["missing"].reason == "command not found: /nonexistent/bin/extract-hwp"
    assert "matrix_extractors.nosuch" in (misbehaving["extract"].reason or "")


def test_invalid_utf8_output_is_counted_not_fatal(misbehaving: dict[str, MatrixRow]) -> None:
    row = misbehaving["invalid"]
    assert row.status == "ok" and row.invalid_bytes == 3 and row.guilty
    assert (row.dropped_chars, row.changed_chars, row.extra_chars, row.surrogates) == (0, 0, 0, 0)
    assert "3 bytes of output were not UTF-8" in (row.reason or "")


def test_control_code_garbage_is_text_not_in_the_document(
    misbehaving: dict[str, MatrixRow],
) -> None:
    row = misbehaving["naive_para_text"]
    assert row.status == "ok" and row.guilty
    assert row.control_chars > 0 and row.dropped_chars == 0
    assert row.leaked >= row.control_chars + row.surrogates
    assert row.surrogates > 2 * ASTRAL  # parameter units in 0xD800-0xDFFF leak too
    assert row.examples[0].startswith("leaked: ") and "\\ud" in row.examples[0]  # surrogates first
    assert any(e.startswith("leaked: ") and "\\x0" in e for e in row.examples)


def test_the_verdict_names_every_guilty_extractor_and_not_the_reference(
    misbehaving: dict[str, MatrixRow],
) -> None:
    rows = [r for k, r in misbehaving.items() if not k.startswith("_")]
    guilty = set(next(iter(verdict(rows).values())))
    assert misbehaving["strict"].status == "ok" and not misbehaving["strict"].guilty
    expected = {r.parser for r in rows if r.status in {"empty", "timeout", "crashed", "error"}}
    expected |= {
        r.parser
        for r in rows
        if r.surrogates
        or r.replacement_chars
        or r.control_chars
        or r.invalid_bytes
        or r.dropped_chars
    }
    assert guilty == expected
    # strict, 2 not installed, and question_marks (replaced, not lost)
    assert "strict" not in guilty and len(guilty) == len(rows) - 4
    assert matrix_exit_code(rows, ["contaminated"]) is ExitCode.FINDINGS
    strict = set(next(iter(verdict(rows, strict_markup=True).values())))
    assert strict == guilty | {r.parser for r in rows if r.changed_chars}


@pytest.mark.slow
def test_a_failure_on_one_file_does_not_touch_the_next(
    docs: dict[str, Path], extractor_path: None
) -> None:
    paths = [docs["pua.pdf"], docs["clean.hwp"], docs["pua.hwpx"], docs["pua.hwp"]]
    specs = parse_parser_options("matrix_extractors.extractors:picky", [])
    rows = list(run_matrix(paths, specs, timeout=5))
    assert [r.status for r in rows] == ["timeout", "ok", "crashed", "ok"]
    assert [r.guilty for r in rows] == [True, False, True, False]


@pytest.mark.slow
def test_workers_are_reused_across_files_unless_isolated(
    docs: dict[str, Path], extractor_path: None
) -> None:
    paths = [docs["clean.hwp"], docs["pua.hwp"], docs["pua.hwpx"]]
    specs = parse_parser_options("matrix_extractors.extractors:stateful", [])
    shared = list(run_matrix(paths, specs, timeout=60))
    assert [r.extra_chars for r in shared] == [0, len("이전1"), len("이전2")]
    isolated = list(run_matrix(paths, specs, timeout=60, isolate=True))
    assert [r.guilty for r in isolated] == [False, False, False]


@pytest.mark.slow
def test_extractors_that_never_start_are_rows_too(
    docs: dict[str, Path], extractor_path: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hwpscan.matrix import runner

    monkeypatch.setenv("HWPSCAN_TEST_IMPORT_DIE", "1")
    die_spec = parse_parser_options("matrix_extractors.dies_on_import:extract", [])
    # the default grace: however loaded the machine, the process dies before it ends
    (die,) = run_matrix([docs["clean.hwp"]], die_spec, timeout=60)
    assert die.status == "crashed"
    assert "status 127" in (die.reason or "") and "libhwp.so" in (die.reason or "")
    # an import that never ends times out whatever the window: keep the window short
    monkeypatch.setattr(runner, "STARTUP_GRACE", 1.0)
    monkeypatch.setenv("HWPSCAN_TEST_IMPORT_HANG", "1")
    hang_spec = parse_parser_options("matrix_extractors.hangs_on_import:extract", [])
    (hang,) = run_matrix([docs["clean.hwp"]], hang_spec, timeout=1)
    assert hang.status == "timeout" and "did not start within 2 s (killed)" in (hang.reason or "")


@pytest.mark.slow
def test_the_documents_own_orphans_are_not_blamed_on_extractors(
    tmp_path: Path, extractor_path: None
) -> None:
    orphan = chr(0xDC07)  # a low half with no partner, stored in the file itself
    path = tmp_path / "orphan.hwp"
    path.write_bytes(build_hwp5(["앞" + orphan + "뒤 " + BULLET + "항목"]))
    specs = parse_parser_options("codeunit,strict,matrix_extractors.extractors:sanitized", [])
    got = {
        k.rsplit(":", 1)[-1]: r
        for k, r in by_parser(list(run_matrix([path], specs, timeout=60))).items()
    }
    assert got["codeunit"].surrogates == 3 and got["codeunit"].reference_surrogates == 1
    assert got["codeunit"].faults() == ("2 surrogates",)  # the pair it split, not the orphan
    assert got["strict"].surrogates == 1 and not got["strict"].guilty
    assert got["sanitized"].surrogates == 0 and not got["sanitized"].guilty
    assert got["sanitized"].dropped_chars == 0  # a lone half is no character to lose
    (own,) = [line for line in verdict_lines(list(got.values())) if "of its own" in line]
    assert own.startswith("1 file holds lone surrogates of its own") and own.endswith(str(path))


def test_run_extractor_alone_uses_a_fresh_worker(docs: dict[str, Path]) -> None:
    from hwpscan.matrix.runner import run_extractor

    got = run_extractor(BUILTINS["codeunit"], docs["pua.hwp"], timeout=60)
    assert got.status == "ok" and got.text is not None
    assert sum(1 for c in got.text if 0xD800 <= ord(c) <= 0xDFFF) == 2 * ASTRAL  # lossless


def test_python_extractors_get_no_secret_of_ours(
    docs: dict[str, Path], extractor_path: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hwpscan.matrix.runner import run_extractor

    monkeypatch.setenv("HWPSCAN_API_KEY", "not-for-extractors")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-extractors-either")
    (spec,) = parse_parser_options("matrix_extractors.extractors:environment", [])
    got = run_extractor(spec, docs["clean.hwp"], timeout=60)
    assert got.status == "ok" and got.text is not None
    names = got.text.split("\n")
    assert "PATH" in names and "PYTHONPATH" in names  # the extractor's own needs stay
    assert "HWPSCAN_API_KEY" not in names and "AWS_SECRET_ACCESS_KEY" not in names


# --- Files we cannot read ourselves ---------------------------------------------------


def test_unreadable_file_gives_rows_without_blame(tmp_path: Path) -> None:
    locked = tmp_path / "locked.hwp"
    locked.write_bytes(build_hwp5(["비밀"], password=True))
    rows = list(run_matrix([locked], parse_parser_options(None, []), timeout=60))
    assert [r.status for r in rows] == ["error", "error"]
    assert all(not r.compared and not r.guilty for r in rows)
    assert all("no reference text" in (r.reason or "") for r in rows)
    assert "encrypted" in (rows[0].reason or "")


@pytest.mark.slow
def test_pyhwp_row(docs: dict[str, Path]) -> None:
    (row,) = run_matrix([docs["clean.hwp"]], parse_parser_options("pyhwp", []), timeout=60)
    if BUILTINS["pyhwp"].missing() is not None:
        assert row.status == "not-installed" and not row.guilty
        assert "hwpscan[pyhwp]" in (row.reason or "")
    else:  # installed: it ran in a worker and was judged like any other extractor
        assert row.status in {"ok", "empty", "error", "crashed"} and row.compared
        assert row.seconds > 0


# --- Output ---------------------------------------------------------------------------


def test_jsonl_and_table_show_the_guilty(docs: dict[str, Path]) -> None:
    rows = list(
        run_matrix([docs["pua.hwp"]], parse_parser_options("codeunit,strict", []), timeout=60)
    )
    buf = io.StringIO()
    write = jsonl_row_writer(buf)
    for row in rows:
        write(row)
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    for key in (
        "path",
        "parser",
        "status",
        "surrogates",
        "replacement_chars",
        "dropped_chars",
        "extra_chars",
        "chars",
    ):
        assert all(key in r for r in records), key
    assert [(r["parser"], r["surrogates"], r["guilty"]) for r in records] == [
        ("codeunit", 2 * ASTRAL, True),
        ("strict", 0, False),
    ]
    console = Console(record=True, width=100)
    console.print(matrix_table(rows))
    shown = console.export_text()
    (codeunit,) = [line for line in shown.splitlines() if "codeunit" in line]
    cells = [c for c in codeunit.split() if c not in "│┃"]
    assert cells[:5] == [
        "codeunit",
        "1",
        "1",
        "0",
        str(2 * ASTRAL),
    ]  # files, guilty, failed, leaked
    lines = verdict_lines(rows)
    assert lines[0] == "codeunit: guilty on 1 of 1 readable files (leaked on 1)"
    assert lines[1].startswith(f"  {rows[0].path}: {2 * ASTRAL} surrogates — leaked: ")
    assert lines[2] == "strict: clean on all 1 readable files"


def test_scan_command_adds_matrix_rows_to_jsonl(docs: dict[str, Path]) -> None:
    from typer.testing import CliRunner

    from hwpscan.cli import app

    runner = CliRunner()
    args = [
        "scan",
        str(docs["pua.hwp"]),
        "--parser",
        "codeunit,strict",
        "--format",
        "jsonl",
        "--fail-on",
        "contaminated",
        "--no-progress",
    ]
    result = runner.invoke(app, args)
    records = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    matrix = [r for r in records if "parser" in r]
    assert [(r["parser"], r["surrogates"]) for r in matrix] == [
        ("codeunit", 2 * ASTRAL),
        ("strict", 0),
    ]
    assert len(records) == 3 and result.exit_code == 1
    bad = runner.invoke(app, ["scan", str(docs["pua.hwp"]), "--parser-cmd", "x=tool"])
    assert bad.exit_code == 2 and "must contain {path}" in bad.output


def scan_jsonl(path: Path, parsers: str) -> list[dict[str, object]]:
    from typer.testing import CliRunner

    from hwpscan.cli import app

    args = ["scan", str(path), "--parser", parsers, "--format", "jsonl", "--no-progress"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1), result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["pua.hwp", "2025-07-21/보도자료_불법사금융_소비자경보.hwp"])
def test_strict_row_counts_chars_as_the_scan_does(docs: dict[str, Path], name: str) -> None:
    path = docs.get(name) or TESTS.parent / "fixtures" / name
    records = scan_jsonl(path, "codeunit,strict")
    (scanned,) = [r for r in records if "parser" not in r]
    rows = {r["parser"]: r for r in records if "parser" in r}
    chars, pairs = scanned["chars"], scanned["pairs"]
    assert isinstance(chars, int) and isinstance(pairs, int) and chars > 0
    assert rows["strict"]["chars"] == chars
    # the codeunit view holds each astral character as two code points
    assert rows["codeunit"]["chars"] == chars + pairs


def test_empty_extractor_message_counts_the_reference_as_the_scan_does(
    docs: dict[str, Path], extractor_path: None
) -> None:
    path = docs["pua.hwp"]
    records = scan_jsonl(path, "matrix_extractors.extractors:empty")
    (scanned,) = [r for r in records if "parser" not in r]
    (row,) = [r for r in records if "parser" in r]
    assert row["status"] == "empty"
    assert f"the reference has {scanned['chars']:,} characters" in str(row["reason"])


# --- Option parsing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parser", "commands", "message"),
    [
        ("codeunit,bogus", [], "unknown parser 'bogus'"),
        ("codeunit,,strict", [], "empty name"),
        ("1bad.mod:func", [], "module:function"),
        ("mod:", [], "module:function"),
        ("strict,strict", [], "named twice"),
        (None, ["tool {path}"], "NAME='tool {path}'"),
        (None, ["x=tool"], "must contain {path}"),
        (None, ["x=tool '{path}"], "No closing quotation"),
        (None, ["strict=tool {path}"], "not a built-in's"),
        (None, ["a b=tool {path}"], "the name must be"),
        (None, ["x=a {path}", "x=b {path}"], "named twice"),
    ],
)
def test_bad_parser_options_are_usage_errors(
    parser: str | None, commands: list[str], message: str
) -> None:
    with pytest.raises(UsageError, match=_escape(message)):
        parse_parser_options(parser, commands)


def _escape(text: str) -> str:
    import re

    return re.escape(text)


def test_parser_options_defaults_and_command_templates() -> None:
    specs = parse_parser_options(None, ["t=tool --in={path} -q"])
    assert [s.name for s in specs] == ["codeunit", "strict", "t"]
    assert specs[2].command(Path("문서 1.hwp")) == ["tool", "--in=문서 1.hwp", "-q"]


# --- Pure helpers with known answers --------------------------------------------------


def test_compare_counts_on_small_texts() -> None:
    ref = "가" + BULLET + "나 다라마"
    assert compare(ref, ref).identical
    assert compare(ref, "가" + BULLET + "나\n다라\t마").identical  # layout is not content
    dropped = compare(ref, "가나 다라마")
    assert (dropped.lost, dropped.lost_pua, dropped.replaced, dropped.extra) == (1, 1, 0, 0)
    changed = compare(ref, "가\ufffd나 다라마")  # U+FFFD is counted on the raw text, by the row
    assert (changed.lost, changed.replaced, changed.replaced_pua, changed.extra) == (0, 1, 1, 0)
    leaked = compare(ref, "가" + BULLET + "나 다" + "\x0b\x00" + "라마")
    assert (leaked.lost, leaked.replaced, leaked.leaked, leaked.extra) == (0, 0, 2, 0)
    assert leaked.examples == ("leaked: 가\\U000f02b1나다[+\\x0b\\x00]라마",)
    assert compare(ref, "").lost == len(significant(ref))
    assert compare("", "abc").extra == 3
    table = compare("구분 건수 합계 1,234", "| 구분 | 건수 |\n|---|---|\n| 합계 | 1,234 |")
    assert (table.lost, table.replaced, table.extra, table.markup) == (0, 0, 0, 15)
    placeholder = compare("앞 표 안의 글 뒤", "앞 <표> 뒤")
    assert (placeholder.lost, placeholder.replaced, placeholder.markup) == (3, 1, 3)
    lost_beside_markup = compare("가 나 다", "| 가 | | 다 |")  # a cell lost, pipes around it
    assert (lost_beside_markup.lost, lost_beside_markup.replaced) == (1, 0)


def test_compare_finds_one_loss_in_a_long_text() -> None:
    words = [f"문단{i}에서{i % 7}번" for i in range(20_000)]
    words[12_345] = "항목" + BULLET + "표시"
    ref = " ".join(words)
    got = ref.replace(BULLET, "")
    diff = compare(ref, got)
    assert (diff.lost, diff.replaced, diff.extra, diff.exact) == (1, 0, 0, True)
    assert diff.examples[0].startswith("lost: ") and "항목[\\U000f02b1]표시" in diff.examples[0]


def test_decode_output_keeps_surrogates_and_counts_bad_bytes() -> None:
    lone = chr(0xDB80)
    data = ("앞" + lone + "뒤").encode("utf-8", "surrogatepass") + b"\xc0\xaf" + "끝".encode()
    text, invalid = decode_output(data)
    assert text == "앞" + lone + "뒤끝" and invalid == 2
    assert decode_output("정상".encode()) == ("정상", 0)


def test_compare_ignores_layout_and_counts_scattered_garbage() -> None:
    words = [f"낱말{i}" for i in range(3_000)]
    ref = " ".join(words)
    assert compare(ref, " ".join(ref.replace(" ", ""))).identical  # every char spaced out
    noisy = " ".join(w + ("\x0b\x00" if i % 100 == 0 else "") for i, w in enumerate(words))
    diff = compare(ref, noisy)
    assert (diff.lost, diff.replaced, diff.leaked, diff.extra) == (0, 0, 2 * 30, 0)
    half = len(words) // 2
    swapped = compare(ref, " ".join(words[half:] + words[:half]))
    moved = len(significant(" ".join(words[:half])))
    assert swapped.lost + swapped.replaced <= moved and swapped.exact
    assert swapped.matched + swapped.lost + swapped.replaced == len(content(ref))
    nothing_shared = compare("가" * 3_000, "나" * 2_000)  # one for one, the rest lost
    assert (nothing_shared.replaced, nothing_shared.lost, nothing_shared.extra) == (
        2_000,
        1_000,
        2_000,
    )


@given(
    st.text(alphabet=st.sampled_from("가나다 ab\n" + BULLET + chr(0xE000)), max_size=60),
    st.text(
        alphabet=st.sampled_from("가나다 ab\n?" + BULLET + chr(0xDB80) + chr(0xDEB1)), max_size=60
    ),
)
def test_compare_counts_balance(reference: str, text: str) -> None:
    diff = compare(reference, text)
    a, b = content(reference), content(text)
    # every character accounted for once, on each side (U+FFFD is the row's to count)
    assert diff.matched + diff.lost + diff.replaced == len(a)
    unclassified = len(b) - diff.matched - diff.leaked - diff.markup - diff.extra
    assert 0 <= unclassified <= b.count("\ufffd")
    assert diff.matched == brute_lcs(a, b)  # no markup tokens in these alphabets: exact
    assert diff.identical == (a == b)
    assert min(diff.lost, diff.replaced, diff.extra, diff.markup, diff.leaked) >= 0
    assert diff.lost_pua <= diff.lost and diff.replaced_pua <= diff.replaced
    assert len(diff.examples) <= 5 and all(isinstance(e, str) for e in diff.examples)
    assert all(e.encode("utf-8") for e in diff.examples)  # escaped: always encodable


# --- The alignment is exact -------------------------------------------------------------

_SMALL_ALPHABETS = ["ab", "abc", "가나다1.", "0123456789", "ab" + BULLET]


@given(
    st.sampled_from(_SMALL_ALPHABETS).flatmap(
        lambda al: st.tuples(
            st.text(alphabet=st.sampled_from(al), max_size=70),
            st.text(alphabet=st.sampled_from(al + "xz"), max_size=70),
        )
    )
)
def test_alignment_is_a_longest_common_subsequence(texts: tuple[str, str]) -> None:
    """Against the textbook LCS table: the matched runs are a common subsequence, in
    order, and none is longer; Myers and the bit-parallel cut both."""
    from hwpscan.matrix import compare as compare_module

    a, b = texts
    best = brute_lcs(a, b)
    for row_width in (compare_module._ROW_WIDTH, 10**9):  # 10**9: always cut (Hirschberg)
        saved = compare_module._ROW_WIDTH
        compare_module._ROW_WIDTH = row_width
        try:
            runs, exact = align(a, b)
        finally:
            compare_module._ROW_WIDTH = saved
        assert exact
        i = j = 0
        for x, y, n in runs:
            assert x >= i and y >= j and n > 0 and a[x : x + n] == b[y : y + n]
            i, j = x + n, y + n
        assert sum(n for _, _, n in runs) == best


@pytest.mark.parametrize("budget", [0, 50, 5_000])
def test_out_of_budget_never_counts_more_lost(budget: int) -> None:
    words = [f"{i}항목{i * 7 % 13}" for i in range(400)]
    ref = " ".join(words)
    got = " ".join(w for i, w in enumerate(words) if i % 9) + "".join(reversed(ref[:300]))
    exact = compare(ref, got)
    cut = compare(ref, got, budget=budget)
    assert exact.exact and not cut.exact and exact.lost > 0
    assert cut.lost <= exact.lost  # unaligned text is replaced, never lost
    assert cut.matched + cut.lost + cut.replaced == len(content(ref))


def test_one_character_against_a_long_text_is_aligned() -> None:
    """A region of one document character against more than a table's worth of text is
    aligned as a table row (cutting it in the middle would not make it smaller)."""
    diff = compare("ab", ("aab" * 400)[:1_030])  # once cut forever at the same place
    assert (diff.matched, diff.lost, diff.extra, diff.exact) == (2, 0, 1_028, True)


def test_a_long_numbered_list_loses_nothing(tmp_path: Path, extractor_path: None) -> None:
    """Digit-heavy text lined up exactly: extractors that kept everything lost nothing,
    whether they re-wrap it, dress it in Markdown or print the list's numbers. (On this
    list a chunked diff that cut the text at unique k-grams called 355 characters dropped
    and 1,688 changed for the ``pipes`` extractor.)"""
    import random

    rng = random.Random(0)
    items = [
        f"{rng.randint(1, 12)}.{rng.randint(1, 30)} {rng.randint(0, 999)}건 "
        f"{rng.choice('가나다')}{rng.randint(0, 99)}"
        for _ in range(400)
    ]
    path = tmp_path / "numbered.hwp"
    path.write_bytes(build_hwp5([*items, Table([["1", "2"], ["3", "4"]])]))
    mod = "matrix_extractors.extractors"
    names = ("reflow", "markdown", "numbered", "pipes")
    specs = parse_parser_options(",".join(["strict", *(f"{mod}:{n}" for n in names)]), [])
    got = {r.parser.rsplit(":", 1)[-1]: r for r in run_matrix([path], specs, timeout=60, jobs=2)}
    for name in ("strict", *names):
        row = got[name]
        assert (row.dropped_chars, row.changed_chars, row.leaked) == (0, 0, 0), (name, row)
        assert not row.guilty and row.exact
    assert got["markdown"].markup_chars > 400 * 4 and got["pipes"].markup_chars > 400 * 3
    assert got["markdown"].is_guilty(strict_markup=True)
    lines = strict_text(str(path)).split("\n")  # the items and the table's cells
    added = sum(len(f"{i}.") for i in range(1, len(lines) + 1))
    assert got["numbered"].extra_chars + got["numbered"].markup_chars == added


def test_markup_is_not_guilt_but_pua_loss_under_markup_is_shown(
    docs: dict[str, Path], extractor_path: None
) -> None:
    mod = "matrix_extractors.extractors"
    specs = parse_parser_options(f"{mod}:markdown,{mod}:markdown_drop_pua", [])
    rows = list(run_matrix([docs["pua.hwp"], docs["clean.hwp"]], specs, timeout=60))
    md, md_drop = (r for r in rows if r.path == str(docs["pua.hwp"]))
    assert md.markup_chars > 0 and not md.guilty and md.faults() == ()
    assert md.is_guilty(strict_markup=True) and "markup" in md.faults(strict_markup=True)[0]
    assert md_drop.guilty and md_drop.lost_pua == PUA and md_drop.dropped_chars == PUA
    assert md_drop.markup_chars == md.markup_chars
    # severity first: every example kept is a lost PUA character, none is markup
    assert len(md_drop.examples) == min(5, PUA)
    assert all(e.startswith("lost: ") and "\\U000f" in e for e in md_drop.examples)
    assert all("\\U000f" in e for e in md_drop.class_examples["lost"])
    assert md_drop.class_examples["markup"]  # markup still reported, apart
    assert matrix_exit_code([md], ["contaminated"]) is ExitCode.OK
    assert matrix_exit_code([md], ["contaminated"], strict_markup=True) is ExitCode.FINDINGS


# --- Same verdict whatever the route ----------------------------------------------------


@pytest.mark.slow
def test_a_command_and_a_module_failing_alike_get_the_same_status(
    docs: dict[str, Path], extractor_path: None
) -> None:
    mod = "matrix_extractors.extractors"
    script = EXTRACTORS / "cmd_raise.py"
    specs = parse_parser_options(
        f"{mod}:panic,{mod}:refuse,{mod}:lazy_missing",
        [
            f"c_panic={sys.executable} {script} panic {{path}}",
            f"c_refuse={sys.executable} {script} refuse {{path}}",
            f"c_nomodule={sys.executable} {script} nomodule {{path}}",
            f"c_rust={sys.executable} {script} rust {{path}}",
        ],
    )
    got = {r.parser.rsplit(":", 1)[-1]: r for r in run_matrix([docs["pua.hwp"]], specs, timeout=30)}
    for module_name, command_name, status in (
        ("panic", "c_panic", "crashed"),
        ("refuse", "c_refuse", "error"),
        ("lazy_missing", "c_nomodule", "not-installed"),
    ):
        assert got[module_name].status == got[command_name].status == status, (module_name, got)
    panic_words = "PanicException (a BaseException, not an Exception): called `Option::unwrap()`"
    assert panic_words in (got["panic"].reason or "") and panic_words in (
        got["c_panic"].reason or ""
    )
    raise_line = _line_of('raise PanicException("called', "cmd_raise.py")
    assert f"(at cmd_raise.py:{raise_line} in main)" in (got["c_panic"].reason or "")
    refusal = "ValueError: unsupported record in pua.hwp (at "
    assert refusal in (got["refuse"].reason or "") and refusal in (got["c_refuse"].reason or "")
    assert "hwp_magic_not_installed" in (got["c_nomodule"].reason or "")
    rust = got["c_rust"]
    assert rust.status == "crashed" and rust.guilty
    assert "panic: called `Option::unwrap()` on a `None` value (at src/reader.rs:42:9)" in (
        rust.reason or ""
    )


# --- Batch commands -----------------------------------------------------------------------


@pytest.mark.slow
def test_a_batch_command_gets_many_files_and_each_row_its_own_verdict(
    docs: dict[str, Path], tmp_path: Path
) -> None:
    hang = tmp_path / "hang-me.hwp"
    hang.write_bytes(docs["clean.hwp"].read_bytes())
    paths = [docs["clean.hwp"], docs["pua.hwp"], docs["pua.pdf"], docs["pua.hwpx"]]
    log = tmp_path / "calls.log"
    script = EXTRACTORS / "cmd_batch.py"
    batch = parse_parser_options("strict", [f"b={sys.executable} {script} --log {log} {{paths}}"])
    rows = by_parser_list(run_matrix(paths, batch, timeout=30, jobs=1))
    calls = [int(n) for n in log.read_text().split()]
    assert calls == [len(paths)]  # one process for all four files
    for path in paths:
        strict, got = rows[str(path)]
        if path.suffix == ".pdf":
            assert got.status == "error" and got.reason == "ValueError: no PDF support"
        else:
            assert got.status == "ok" and not got.guilty, got
            assert got.chars == strict.chars
    # a batch that hangs is run again file by file: the hang is that file's row alone
    log.unlink()
    rows = by_parser_list(
        run_matrix([docs["clean.hwp"], hang, docs["pua.hwp"]], batch, timeout=1.5)
    )
    assert [int(n) for n in log.read_text().split()] == [3, 1, 1, 1]
    assert rows[str(hang)][1].status == "timeout"
    assert rows[str(docs["clean.hwp"])][1].status == rows[str(docs["pua.hwp"])][1].status == "ok"


def by_parser_list(rows: Iterator[MatrixRow]) -> dict[str, list[MatrixRow]]:
    out: dict[str, list[MatrixRow]] = {}
    for row in rows:
        out.setdefault(row.path, []).append(row)
    return out


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("b=tool --in={paths}", "must be an argument of its own"),
        ("b=tool {paths} {path}", "without {path}"),
        ("b=tool {paths} {paths}", "once"),
    ],
)
def test_bad_batch_commands_are_usage_errors(value: str, message: str) -> None:
    with pytest.raises(UsageError, match=_escape(message)):
        parse_parser_options(None, [value])


# --- Reading it: table, stream, store, report -------------------------------------------


def test_the_table_fits_100_columns_with_names_whole(
    docs: dict[str, Path], extractor_path: None
) -> None:
    mod = "matrix_extractors.extractors"
    specs = parse_parser_options(
        f"codeunit,strict,{mod}:markdown_drop_pua,{mod}:question_marks", []
    )
    rows = list(run_matrix([docs["pua.hwp"], docs["clean.hwp"]], specs, timeout=60, jobs=2))
    console = Console(record=True, width=100)
    console.print(matrix_table(rows))
    shown = console.export_text()
    assert max(len(line) for line in shown.splitlines()) <= 100
    assert f"{mod}:markdown_drop_pua" in shown and f"{mod}:question_marks" in shown
    lines = verdict_lines(rows)
    head = [
        i for i, line in enumerate(lines) if line.startswith(f"{mod}:markdown_drop_pua: guilty")
    ]
    assert head and lines[head[0] + 1].startswith(
        f"  {docs['pua.hwp']}: "
    )  # files grouped under it
    assert sum(line.startswith(f"  {docs['pua.hwp']}") for line in lines) == 2  # codeunit, md_drop


def _scan(args: list[str]) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from hwpscan.cli import app

    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def test_markup_passes_fail_on_contaminated_unless_strict(
    docs: dict[str, Path], extractor_path: None
) -> None:
    base = ["scan", str(docs["clean.hwp"]), "--parser", "matrix_extractors.extractors:markdown"]
    base += ["--fail-on", "contaminated", "--no-progress", "--format", "jsonl"]
    code, out, _ = _scan(base)
    (row,) = [json.loads(line) for line in out.splitlines() if '"parser"' in line]
    assert code == 0 and row["markup"] > 0 and row["guilty"] is False
    code, out, _ = _scan([*base, "--strict-markup"])
    (row,) = [json.loads(line) for line in out.splitlines() if '"parser"' in line]
    assert code == 1 and row["guilty"] is True


def test_rows_reach_the_store_and_the_report(
    docs: dict[str, Path], extractor_path: None, tmp_path: Path
) -> None:
    from hwpscan.history import default_store

    mod = "matrix_extractors.extractors"
    parsers = f"strict,{mod}:markdown,{mod}:drop_pua"
    paths = [str(docs["pua.hwp"]), str(docs["clean.hwp"])]
    code, _, _ = _scan(["scan", *paths, "--parser", parsers, "--report", str(tmp_path / "r")])
    assert code == 0
    with default_store() as store:
        run = store.load_run("latest")
        stored = store.matrix_rows(run.id)
    assert [(r.path, r.parser.rsplit(":", 1)[-1]) for r in stored] == [
        (p, name) for p in paths for name in ("strict", "markdown", "drop_pua")
    ]
    drop = stored[2]
    assert drop.lost_pua == PUA and drop.guilty and drop.examples == drop.class_examples["lost"]
    for folder in (tmp_path / "r", tmp_path / "again"):
        if folder.name == "again":  # the report of a stored run has the matrix too
            code, _, _ = _scan(["report", "latest", "--out", str(folder)])
            assert code == 0
        page = (folder / "report.html").read_text(encoding="utf-8")
        assert 'id="matrix"' in page and 'class="drill-parser"' in page
        assert page.count('<details class="drill-parser"') == 3
        assert f'data-parser="{mod}:drop_pua"' in page and "\\U000f02b1" in page
        summary = (folder / "summary.md").read_text(encoding="utf-8")
        assert "## Which extractor should we use?" in summary
        ranking = [line for line in summary.splitlines() if line.startswith("| ") and mod in line]
        assert ranking[0].startswith(f"| 2 | {mod}:markdown |")  # 1 is strict, the reference
        assert ranking[1].startswith(f"| 3 | {mod}:drop_pua | 1 of 2 |")
        assert (
            f"**{mod}:markdown** leaked and lost nothing on any of its 2 readable files; it "
            in summary
        )


@pytest.mark.slow
def test_a_killed_matrix_run_keeps_every_row_written(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    from hwpscan.history import RunStore

    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(30):
        (folder / f"f{i:02d}.hwp").write_bytes(build_hwp5([f"본문 {i} " + BULLET]))
    out = tmp_path / "rows.jsonl"
    home = tmp_path / "home"
    env = {**os.environ, "HWPSCAN_HOME": str(home), "PYTHONPATH": str(TESTS)}
    argv = [sys.executable, "-m", "hwpscan", "scan", str(folder), "-j", "1", "--no-progress"]
    argv += ["--parser", "matrix_extractors.extractors:slow", "--format", "jsonl", "-o", str(out)]
    proc = subprocess.Popen(argv, env=env, start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            # -o is written to a temporary file beside it and renamed at the end: a
            # killed run leaves its rows in that file
            parts = list(tmp_path.glob(".hwpscan-tmp-*.part"))
            text = parts[0].read_text(encoding="utf-8") if parts else ""
            if text.count('"parser"') >= 5:
                break
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert not out.exists()  # never renamed into place: the run did not finish
    (part,) = tmp_path.glob(".hwpscan-tmp-*.part")
    lines = part.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # every line written is whole
    matrix = [r for r in records if "parser" in r]
    assert 5 <= len(matrix) < 30 and all(r["status"] == "ok" for r in matrix)
    with RunStore(home / "runs.sqlite") as store:
        (run,) = store.list_runs()
        stored = store.matrix_rows(run.id)
    assert run.finished is None  # interrupted
    assert 1 <= len(stored) <= len(matrix)
    assert [(r.path, r.parser) for r in stored] == [(r["path"], r["parser"]) for r in matrix][
        : len(stored)
    ]
