"""Every defect class on files our generator writes: counted, located, gated, shown,
and repaired as ``repair --pua`` says.

Characters are built with ``chr()``: literal surrogates and private use in a source
file break tools.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from hwpscan.forensics.guard import repair_text
from hwpscan.forensics.twins import pdf_losses
from hwpscan.formats import read_document
from hwpscan.history.stored_rows import rows_exit_code
from hwpscan.models import DEFECT_CLASSES, Defects, ExitCode, Format, Status
from hwpscan.rehearsal.synth.hwp5_writer import Table, build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.report.export import write_csv
from hwpscan.report.junit import junit_xml
from hwpscan.rowcodec import CSV_COLUMNS, encode_row
from hwpscan.scanning.one_file import scan_bytes, scan_file

FOLDED_ONE = chr(0xA2B1)  # U+F02B1 (squared digit one) as Hancom folds it in HWP 5
FOLDED_RULE = chr(0xA832)  # U+F0832 (double horizontal rule)
NOT_FOLDED = chr(0xA813)  # outside the measured set: Hancom leaves it as it is
SQUARED_ONE = chr(0xF02B1)
UNMAPPED = chr(0xF0FFF)  # plane-15 private use no table knows
OLD_HANGUL = chr(0xE0BC)  # Hanyang private use: KS X 1026-1 jamo U+115F U+1161 U+11AE
LONE_HIGH = chr(0xDB80)


def _hwp5(tmp_path: Path, name: str, blocks: list[object]) -> Path:
    path = tmp_path / name
    path.write_bytes(build_hwp5(blocks))  # type: ignore[arg-type]
    return path


def test_folded_symbols_are_counted_located_and_leave_the_status_clean(tmp_path: Path) -> None:
    path = _hwp5(
        tmp_path, "folded.hwp", [f"과제 {FOLDED_ONE} 점검", f"선{FOLDED_RULE}{NOT_FOLDED}"]
    )
    row = scan_file(path)
    assert row.status is Status.CLEAN  # it encodes: the UTF-8 verdict is unchanged
    assert row.defects == Defects(folded_symbols=2)
    folded = [loc for loc in row.body.locations if loc.kind == "folded"]
    # the stored offsets: the first paragraph's text follows the section's controls
    first = read_document(path.read_bytes()).body[0]
    assert first.text.startswith("과제")
    assert [(loc.codepoint, loc.units, loc.paragraph, loc.offset) for loc in folded] == [
        ("U+F02B1", "A2B1", 0, first.offset + 3),
        ("U+F0832", "A832", 1, 1),
    ]
    record = json.loads(encode_row(row))
    assert record["defects"] == {**dict.fromkeys(DEFECT_CLASSES, 0), "folded_symbols": 2}


def test_a_folded_symbol_in_a_table_cell_is_counted_too(tmp_path: Path) -> None:
    path = _hwp5(tmp_path, "cell.hwp", ["표", Table([["항목", f"{FOLDED_ONE} 완료"]])])
    assert scan_file(path).defects == Defects(folded_symbols=1)


def test_lone_halves_split_pairs_old_hangul_and_unmapped_are_told_apart(tmp_path: Path) -> None:
    text = f"a{SQUARED_ONE}b{LONE_HIGH}c{OLD_HANGUL}d{UNMAPPED}"
    row = scan_file(_hwp5(tmp_path, "mixed.hwp", [text]))
    assert row.status is Status.CONTAMINATED
    # the unknown plane-15 symbol is stored as a pair too: split and unmapped at once
    assert row.defects == Defects(split_pairs=2, lone_halves=1, old_hangul_pua=1, unmapped_pua=1)


def test_every_row_of_a_readable_file_carries_all_classes_and_unread_ones_null(
    tmp_path: Path,
) -> None:
    hwpx = tmp_path / "a.hwpx"
    hwpx.write_bytes(build_hwpx(["본문 " + SQUARED_ONE]))
    clean = json.loads(encode_row(scan_file(hwpx)))
    assert list(clean["defects"]) == list(DEFECT_CLASSES)
    assert set(clean["defects"].values()) == {0}
    broken = json.loads(encode_row(scan_bytes(b"\xd0\xcf\x11\xe0junk", path="x.hwp")))
    assert broken["status"] != "clean" and broken["defects"] is None


def test_hancom_pdf_folds_are_counted_and_the_twin_says_what_the_pdf_lost(
    tmp_path: Path,
) -> None:
    (tmp_path / "보도.pdf").write_bytes(
        build_pdf([[f"{chr(0xF000)} 추진 과제", f"표 {chr(0xFFFF)}"]])
    )
    (tmp_path / "보도.hwp").write_bytes(
        build_hwp5([f"{SQUARED_ONE} 추진 과제", f"표 {FOLDED_ONE}"])
    )
    pdf = scan_file(tmp_path / "보도.pdf")
    hwp = scan_file(tmp_path / "보도.hwp")
    assert pdf.format is Format.PDF and pdf.defects is not None
    assert pdf.defects.pdf_folded == 2 and pdf.defects.unmapped_pua == 0
    assert hwp.defects == Defects(split_pairs=1, folded_symbols=1)
    (loss,) = pdf_losses([hwp, pdf])
    assert (loss.lost, loss.folded, loss.pdf_folded, loss.total) == ({"U+F02B1": 1}, 1, 2, 2)
    # a PDF of the same name in another folder is no twin
    assert pdf_losses([hwp, replace(pdf, path=str(tmp_path / "other" / "보도.pdf"))]) == []


def test_fail_on_takes_each_class_and_defects_for_any(tmp_path: Path) -> None:
    rows = [scan_file(_hwp5(tmp_path, "f.hwp", [f"x{FOLDED_ONE}"]))]
    assert rows_exit_code(rows, ["folded_symbols"]) is ExitCode.FINDINGS
    assert rows_exit_code(rows, ["defects"]) is ExitCode.FINDINGS
    assert rows_exit_code(rows, ["pdf_folded", "contaminated", "unreadable"]) is ExitCode.OK


@pytest.mark.slow
def test_the_cli_gate_verdict_and_csv_name_the_classes(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    _hwp5(tmp_path / "in", "2025-07-21.hwp", [f"과제 {FOLDED_ONE}"])
    base = [sys.executable, "-m", "hwpscan", "scan", str(tmp_path / "in"), "--no-progress"]
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "120"}

    def run(*more: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*base, *more], capture_output=True, env=env, check=False)

    gated = run("--fail-on", "folded_symbols")
    assert gated.returncode == ExitCode.FINDINGS, gated.stderr
    shown = gated.stdout.decode()
    assert "LOSSY" in shown and "CLEAN:" not in shown
    assert "files with folded symbols: 1" in shown and "1 folded" in shown
    other = run("--fail-on", "pdf_folded")
    assert other.returncode == ExitCode.OK, other.stderr
    bad = run("--fail-on", "folded")
    assert bad.returncode == ExitCode.USAGE and b"folded_symbols" in bad.stderr
    out = io.StringIO()
    write_csv([scan_file(tmp_path / "in" / "2025-07-21.hwp")], out, bom=False)
    (row,) = csv.DictReader(io.StringIO(out.getvalue()))
    assert set(DEFECT_CLASSES) <= set(CSV_COLUMNS)
    assert row["folded_symbols"] == "1" and row["pdf_folded"] == "0"


def test_junit_fails_a_clean_file_only_for_a_gated_class(tmp_path: Path) -> None:
    rows = [scan_file(_hwp5(tmp_path, "f.hwp", [f"x{FOLDED_ONE}"]))]
    gated = junit_xml(rows, gate=["folded_symbols"]).decode()
    assert 'failures="1"' in gated and 'type="defects"' in gated
    assert "folded_symbols 1" in gated
    ungated = junit_xml(rows, gate=["contaminated"]).decode()
    assert 'failures="0"' in ungated and "<system-out>defects: folded_symbols 1" in ungated


@pytest.mark.parametrize(
    ("mode", "expected", "field", "counts"),
    [
        ("keep", f"a{SQUARED_ONE}b{OLD_HANGUL}{UNMAPPED}", "pua_kept", 3),
        ("map", "a①b\u115f\u1161\u11ae" + UNMAPPED, "pua_kept", 1),
        ("placeholder", "a\u25a1b\u25a1\u25a1", "pua_placeheld", 3),
        ("drop", "ab", "pua_dropped", 3),
    ],
)
def test_repair_modes(mode: str, expected: str, field: str, counts: int) -> None:
    done = repair_text(
        f"a{FOLDED_ONE}b{OLD_HANGUL}{UNMAPPED}",
        pua=mode,  # type: ignore[arg-type]
        unfold=True,
    )
    assert done.text == expected
    assert done.folded_restored == 1
    assert sum(getattr(done, field).values()) == counts
    assert UNMAPPED not in done.text or mode in ("keep", "map")  # never dropped silently


def test_pdf_folds_become_the_square_under_map() -> None:
    done = repair_text(f"x{chr(0xF000)}y{chr(0xFFFF)}", pua="map", pdf_folds=True)
    assert done.text == "x\u25a1y\u25a1" and done.pua_placeheld == {"U+F000": 1, "U+FFFF": 1}


@pytest.mark.slow
def test_repair_cli_writes_each_mode_and_says_what_it_did(tmp_path: Path) -> None:
    src = _hwp5(tmp_path, "in.hwp", [f"가{FOLDED_ONE}{SQUARED_ONE}{LONE_HIGH}{UNMAPPED}"])
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    wrote = {}
    for mode in ("keep", "map", "placeholder", "drop"):
        out = tmp_path / mode
        done = subprocess.run(
            [sys.executable, "-m", "hwpscan", "repair", str(src), "--out", str(out),
             "--pua", mode, "--no-progress"],
            capture_output=True, env=env, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"--pua {mode}" in done.stdout.decode()
        wrote[mode] = (out / "in.hwp.txt").read_text(encoding="utf-8")
    assert wrote["keep"] == f"가{SQUARED_ONE}{SQUARED_ONE}{UNMAPPED}\n"  # the lone half dropped
    assert wrote["map"] == f"가①①\u25a1{UNMAPPED}\n"  # the lone half boxed, as Hancom's HWPX
    assert wrote["placeholder"] == "가\u25a1\u25a1\u25a1\u25a1\n"
    assert wrote["drop"] == "가\n"


def test_summary_md_and_html_report_name_the_classes_and_what_the_pdf_lost(
    tmp_path: Path,
) -> None:
    from hwpscan.report.html import html_chunks
    from hwpscan.report.summary import summary_markdown

    (tmp_path / "a.pdf").write_bytes(build_pdf([[f"{chr(0xF000)} 과제"]]))
    (tmp_path / "a.hwp").write_bytes(build_hwp5([f"{FOLDED_ONE} 과제"]))
    rows = [scan_file(tmp_path / "a.hwp"), scan_file(tmp_path / "a.pdf")]
    md = summary_markdown(rows)
    assert "Files by defect class (2 of them clean as UTF-8 but lossy)" in md
    assert "`folded_symbols` 1, `pdf_folded` 1" in md
    assert "## What the PDFs lost" in md and "lost 1 symbols of" in md
    page = "".join(html_chunks(rows))
    assert "2 lossy: symbols shown as other characters" in page
    assert "what the PDFs lost against their HWP twins" in page and "lost 1 symbols of" in page
    assert "folded_symbols 1" in page  # the file's detail and its mark's title


def test_a_twin_line_shows_control_characters_in_names_as_escapes(tmp_path: Path) -> None:
    from hwpscan.report.tables import pdf_loss_lines

    name = "\x1b]0;OWNED\x07\x1b[2Jtwin"
    (tmp_path / f"{name}.hwp").write_bytes(build_hwp5([f"{SQUARED_ONE} 과제"]))
    (tmp_path / f"{name}.pdf").write_bytes(build_pdf([["과제"]]))
    rows = [scan_file(tmp_path / f"{name}.hwp"), scan_file(tmp_path / f"{name}.pdf")]
    shown = pdf_loss_lines(rows, root=str(tmp_path))
    assert shown is not None and "lost 1 symbols" in shown.plain
    assert "\x1b" not in shown.plain and "\x07" not in shown.plain
    assert "\\x1b]0;OWNED" in shown.plain


def test_junit_fails_a_file_read_in_part_for_a_gated_class_as_the_exit_code_does() -> None:
    row = replace(
        scan_bytes(build_pdf([[f"{chr(0xF000)} 과제"]]), path="p.pdf"),
        status=Status.CORRUPT,
        reason="read in part (3 characters, 0 surrogates read): page 2: unreadable",
    )
    assert row.body_read and row.defects == Defects(pdf_folded=1)
    assert rows_exit_code([row], ["pdf_folded"]) is ExitCode.FINDINGS
    xml = junit_xml([row], gate=["pdf_folded"]).decode()
    assert 'failures="1"' in xml and "defects: pdf_folded 1" in xml
    assert 'failures="0"' in junit_xml([row], gate=["folded_symbols"]).decode()


def test_repair_takes_any_folder_name_and_says_which_texts_it_could_not_write(
    tmp_path: Path,
) -> None:
    src = tmp_path / "in"
    src.mkdir()
    _hwp5(src, "a.hwp", [f"가{SQUARED_ONE}"])
    _hwp5(src, "b.hwp", ["나"])
    out = tmp_path / "o[/]x"  # rich markup in a folder name is a name
    (out / "b.hwp.txt").mkdir(parents=True)  # b's text cannot be written there
    env = {**os.environ, "HWPSCAN_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan", "repair", str(src), "--out", str(out), "--no-progress"],
        capture_output=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join((done.stdout + done.stderr).decode().split())
    assert f"1 file repaired, written below {out} (1 not: 1 not written)" in said
    assert "warning: repaired text not written to" in said and "b.hwp.txt" in said
    assert (out / "a.hwp.txt").read_text(encoding="utf-8") == f"가{SQUARED_ONE}\n"
