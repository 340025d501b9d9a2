"""The fixture generator: deterministic, matching what is committed, and its oracle sound."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import olefile
import pytest

from hwpscan.models import Format, Status
from hwpscan.rehearsal.synth.corpus import (
    EXPECTED_NAME,
    Counts,
    expected_record,
    str_counts,
    utf16_counts,
)
from hwpscan.rehearsal.synth.corpus_items import build_corpus, write_corpus

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
HAND_WRITTEN = {"README.md"}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in HAND_WRITTEN
    }


def test_generating_twice_gives_byte_identical_trees(tmp_path: Path) -> None:
    write_corpus(tmp_path / "a")
    write_corpus(tmp_path / "b")
    first, second = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert first == second
    assert len(first) == len(build_corpus()) + 1  # + expected.jsonl


def test_committed_fixtures_match_a_fresh_generation(tmp_path: Path) -> None:
    write_corpus(tmp_path)
    fresh, committed = _tree(tmp_path), _tree(FIXTURES)
    stale = sorted(set(committed) - set(fresh))
    missing = sorted(set(fresh) - set(committed))
    changed = sorted(k for k in set(fresh) & set(committed) if fresh[k] != committed[k])
    assert (stale, missing, changed) == ([], [], []), (
        "run: python -m hwpscan.rehearsal.synth fixtures"
    )


def test_module_entry_point_writes_the_corpus_in_a_subprocess(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan.rehearsal.synth", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {len(build_corpus())} fixtures" in done.stdout
    assert _tree(out) == _tree(FIXTURES)


def test_module_entry_point_without_a_folder_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hwpscan.rehearsal.synth"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "usage" in done.stderr


def test_corpus_is_small_and_covers_dates_and_broken_inputs() -> None:
    fixtures = build_corpus()
    assert 30 <= len(fixtures) <= 70
    assert sum(len(f.data) for f in fixtures) < 2 * 2**20
    folders = {f.path.split("/")[0] for f in fixtures}
    assert "broken" in folders
    assert len(folders - {"broken"}) >= 6
    assert {f.format for f in fixtures} == {f.value for f in Format}  # every format has one
    # every status but an internal error
    assert {f.status for f in fixtures} == {s.value for s in Status} - {"error"}


def test_expected_jsonl_lines_are_the_fixtures_records() -> None:
    lines = (FIXTURES / EXPECTED_NAME).read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert records == [expected_record(f) for f in build_corpus()]
    assert all(r["note"] for r in records)


def test_every_hwp5_fixture_opens_with_olefile_and_names_its_streams() -> None:
    for fixture in build_corpus():
        if fixture.format != "hwp5" or fixture.status == "corrupt":
            continue
        with olefile.OleFileIO(fixture.data) as ole:
            streams = {"/".join(s) for s in ole.listdir()}
        assert "FileHeader" in streams and "DocInfo" in streams, fixture.path
        body = {s for s in streams if s.startswith(("BodyText/", "ViewText/"))}
        assert body, fixture.path


def test_contaminated_fixtures_and_only_those_declare_surrogates() -> None:
    for f in build_corpus():
        if f.body is None:
            continue
        assert (f.status == "contaminated") == (f.body.surrogates > 0), f.path
        assert f.body.surrogates == 2 * f.body.pairs + f.body.orphans


def test_utf16_counts_sees_pairs_only_inside_one_paragraph() -> None:
    high, low = chr(0xDB80), chr(0xDEB1)
    split = utf16_counts(["a" + high, low + "b"])  # halves in two paragraphs never pair
    assert (split.pairs, split.orphans) == (0, 2)
    joined = utf16_counts(["a" + high + low])  # two lone halves written next to each other
    assert (joined.pairs, joined.orphans, joined.pua) == (1, 0, {"U+F02B1": 1})


def test_str_counts_keeps_astral_characters_whole() -> None:
    counts = str_counts([chr(0xF02B1) * 3, chr(0xE000)])
    assert counts == Counts(0, 0, 0, {"U+E000": 1, "U+F02B1": 3})
    assert counts.utf8_ok


@pytest.mark.parametrize("ch", [chr(0xF8FF), chr(0xFFFFD), chr(0x10FFFD)])
def test_counts_know_all_three_private_use_areas(ch: str) -> None:
    assert sum(str_counts([ch]).pua.values()) == 1


def _independent_hwp5_text(data: bytes) -> str:
    """Text of an HWP 5 file as python-hwpx's own HWP 5 reader sees it (converted to HWPX)."""
    import io
    import zipfile

    from hwpx.hwp5.package import convert, to_hwpx_bytes
    from hwpx.tools.text_extractor import TextExtractor

    package = to_hwpx_bytes(convert(data).files)
    return TextExtractor(zipfile.ZipFile(io.BytesIO(package))).extract_text()


def test_an_independent_hwp5_reader_finds_the_declared_pua_characters() -> None:
    checked = 0
    for f in build_corpus():
        if f.format != "hwp5" or f.status not in {"clean", "contaminated"} or f.warnings:
            continue
        if f.body is None or f.body.orphans:  # python-hwpx cannot convert lone halves
            continue
        text = _independent_hwp5_text(f.data)
        assert str_counts([text]) == Counts(pua=f.body.pua), f.path
        checked += 1
    assert checked >= 15
