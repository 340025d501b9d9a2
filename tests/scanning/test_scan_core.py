"""The scanning core: statuses for bad input, dates, sidecars, exit codes, isolation."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hwpscan.history.stored_rows import rows_exit_code
from hwpscan.models import ExitCode, FileResult, Format, Status
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.rowcodec import encode_row
from hwpscan.scanning import many_files as scan_mod
from hwpscan.scanning.inputs import collect_files, date_from_path, resolve_dates
from hwpscan.scanning.many_files import scan_paths
from hwpscan.scanning.one_file import scan_bytes, scan_file


def test_bad_inputs_each_get_a_status_and_reason(broken_dir: Path) -> None:
    files = collect_files([broken_dir])
    results = {Path(r.path).name: r for r in scan_paths(files, jobs=1)}
    assert "manifest.jsonl" not in results
    expected = {
        "empty.hwp": (Format.EMPTY, Status.CORRUPT, "empty"),
        "error-page.hwp": (Format.HTML, Status.UNSUPPORTED, "HTML"),
        "garbage.hwp": (Format.UNKNOWN, Status.UNSUPPORTED, "unrecognised"),
        "old.hwp": (Format.HWP3, Status.UNSUPPORTED, "HWP 3"),
        "note.txt": (Format.UNKNOWN, Status.UNSUPPORTED, "plain text"),
    }
    for name, (fmt, status, reason) in expected.items():
        r = results[name]
        assert (r.format, r.status) == (fmt, status), name
        assert r.reason and reason in r.reason, (name, r.reason)


def test_missing_file_is_an_error_row_not_an_exception(tmp_path: Path) -> None:
    r = scan_file(tmp_path / "gone.hwp")
    assert r.status is Status.ERROR
    assert "cannot read file" in (r.reason or "")


def test_hwpx_with_pua_is_clean_but_counts_pua() -> None:
    data = build_hwpx(["보도자료 " + chr(0xF02B1) + " 항목", "둘째 문단"])
    r = scan_bytes(data, path="a.hwpx")
    assert (r.format, r.status) == (Format.HWPX, Status.CLEAN)
    assert r.body.pua == {"U+F02B1": 1}
    assert r.body.surrogates == 0 and r.body.utf8_ok


def test_pdf_text_is_counted() -> None:
    r = scan_bytes(build_pdf([["금융감독원 보도자료", "둘째 줄"]]), path="a.pdf")
    assert (r.format, r.status) == (Format.PDF, Status.CLEAN)
    assert r.body.chars == len("금융감독원 보도자료") + len("둘째 줄")  # lines, not newlines


def test_pdf_cut_before_its_page_content_is_corrupt() -> None:
    data = build_pdf([["본문"]])
    r = scan_bytes(data[: len(data) // 3], path="t.pdf")
    assert (r.format, r.status) == (Format.PDF, Status.CORRUPT)
    assert r.reason and r.reason.startswith("PDF is damaged")
    assert json.loads(encode_row(r))["chars"] is None


def test_zip_that_is_not_hwpx(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "a.hwpx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("hello.txt", "x")
    r = scan_file(path)
    assert (r.format, r.status) == (Format.ZIP, Status.UNSUPPORTED)


def test_hwpx_zip_bomb_declaration_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from hwpscan.formats import hwpx

    monkeypatch.setattr(hwpx, "MAX_UNCOMPRESSED", 1000)
    doc = hwpx.read_zip(build_hwpx(["가" * 2000]))
    assert doc.status is Status.CORRUPT and "over the cap of 1,000" in (doc.reason or "")


def test_dates_come_from_the_path_when_no_manifest(tmp_path: Path) -> None:
    f = tmp_path / "2025-07-30" / "a.pdf"
    f.parent.mkdir()
    f.write_bytes(b"")
    assert resolve_dates([f]) == {f: "2025-07-30"}
    assert date_from_path("2025-02-30/x.hwp") is None


def test_results_keep_input_order_in_parallel(tmp_path: Path) -> None:
    files = []
    for i in range(12):
        p = tmp_path / f"{i:02d}.hwpx"
        p.write_bytes(build_hwpx([f"문단 {i}"]))
        files.append(p)
    results = list(scan_paths(files, jobs=2))
    assert [Path(r.path).name for r in results] == [p.name for p in files]
    assert all(r.status is Status.CLEAN for r in results)


@pytest.mark.skipif(os.name != "posix", reason="relies on fork copying the patched module")
def test_a_worker_that_dies_costs_one_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = []
    for i in range(8):
        p = tmp_path / f"{i}.hwpx"
        p.write_bytes(build_hwpx([f"문단 {i}"]))
        files.append(p)
    real = scan_mod.scan_file

    def dying(path: str | Path, date: str | None = None, repair: object = None) -> FileResult:
        if os.path.basename(path) == "3.hwpx":  # a worker is given the path as text
            os._exit(9)  # what a segfault in native code looks like to the pool
        return real(path, date, repair)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_mod, "scan_file", dying)
    import multiprocessing

    if multiprocessing.get_start_method(allow_none=True) not in (None, "fork"):
        pytest.skip("needs the fork start method")
    results = list(scan_paths(files, jobs=2))
    assert len(results) == 8
    by_name = {Path(r.path).name: r for r in results}
    assert by_name["3.hwpx"].status is Status.ERROR
    assert "worker process died" in (by_name["3.hwpx"].reason or "")
    assert sum(r.status is Status.CLEAN for r in results) == 7


def _result(status: Status) -> FileResult:
    return FileResult("x", "", 0, Format.HWP5, status)


@pytest.mark.parametrize(
    ("statuses", "fail_on", "code"),
    [
        ([Status.CLEAN], ["contaminated"], ExitCode.OK),
        ([Status.CLEAN, Status.CONTAMINATED], ["contaminated"], ExitCode.FINDINGS),
        ([Status.CONTAMINATED], [], ExitCode.OK),
        ([Status.CORRUPT], ["contaminated"], ExitCode.OK),
        ([Status.CORRUPT], ["error"], ExitCode.FINDINGS),
        ([Status.ENCRYPTED], ["error"], ExitCode.FINDINGS),
        ([Status.CONTAMINATED], ["error"], ExitCode.OK),
    ],
)
def test_exit_code(statuses: list[Status], fail_on: list[str], code: ExitCode) -> None:
    assert rows_exit_code([_result(s) for s in statuses], fail_on) is code


def test_many_sections_cannot_inflate_past_the_document_cap() -> None:
    """Each section under the per-stream cap, together over the document's: corrupt."""
    from hwpscan.formats.hwp5 import read_ole
    from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

    data = build_hwp5(["가" * 3000] * 8, sections=8)  # 8 sections of ~6 KB of text each
    whole = read_ole(data, max_stream_bytes=10_000, max_document_bytes=10**9)
    assert whole.status is None and len(whole.body) >= 8
    capped = read_ole(data, max_stream_bytes=10_000, max_document_bytes=30_000)
    assert capped.status is Status.CORRUPT
    assert capped.reason and "total cap" in capped.reason
    assert 0 < len(capped.body) < len(whole.body)  # the text before the cap is kept


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_read_that_comes_in_pieces_is_read_to_the_end(tmp_path: Path) -> None:
    """A descriptor may give fewer bytes than asked before its end (a pipe does, a file
    on some file systems may): the reader reads on until it has them all or the end."""
    import threading

    from hwpscan.scanning.one_file import _read_at_most

    fifo = tmp_path / "pieces"
    os.mkfifo(fifo)
    pieces = [b"HWP ", b"Document", b" File", b"!" * 5000]

    def write() -> None:
        with open(fifo, "wb", buffering=0) as out:
            for piece in pieces:
                out.write(piece)
                time.sleep(0.02)  # each piece reaches the reader on its own

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert _read_at_most(fifo, 100) == b"".join(pieces)[:100]
    finally:
        writer.join(5)
    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert _read_at_most(fifo, 10**6) == b"".join(pieces)  # the end comes first
    finally:
        writer.join(5)
