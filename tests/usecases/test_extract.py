"""hwpscan.extract on every fixture and on generated files, every policy: its text is
what ``hwpscan repair`` writes, it encodes, and its receipt counts what a scan counts.
``hwpscan text`` prints the same text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hwpscan
from hwpscan.cli import app
from hwpscan.errors import CorruptFileError, EncryptedFileError, FormatError
from hwpscan.models import ExitCode, Status
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.scanning.one_file import scan_file
from hwpscan.scanning.repaired_text import Repair

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(
    p
    for p in (ROOT / "fixtures").rglob("*")
    if p.is_file() and p.suffix in (".hwp", ".hwpx", ".pdf", ".doc")
)
HIGH, LOW = chr(0xDB80), chr(0xDEB1)  # U+F02B1, a Hancom bullet, as two halves
FOLDED = chr(0xA2B1)  # the same bullet folded into one BMP unit (HWP 5)
OLD_HANGUL = chr(0xE0BC)  # Hanyang private use: old Hangul with standard jamo


def _generated(folder: Path) -> list[Path]:
    files = {
        "split-fold-lone.hwp": build_hwp5(
            [
                f"과제 {HIGH}{LOW} 점검",
                f"접힌 {FOLDED} 기호",
                f"외톨이 {chr(0xDC00)} 끝",
                OLD_HANGUL,
            ],
            sections=2,
        ),
        "clean.hwp": build_hwp5(["깨끗한 문서", "둘째 문단"], compressed=False),
        "pua.hwpx": build_hwpx([f"글머리 {chr(0xF02B1)} 항목", "표 다음"], sections=2),
        "broken-cmap.pdf": build_pdf([[f"쪽 {chr(0xF02B1)} 하나"], ["둘째 쪽"]], broken_cmap=True),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return [folder / name for name in files]


@pytest.fixture(scope="module")
def every_file(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return FIXTURES + _generated(tmp_path_factory.mktemp("generated"))


POLICIES = [
    (pua, orphans)
    for pua in ("keep", "map", "placeholder", "drop")
    for orphans in ("box", "replace", "drop", "escape")
]


@pytest.mark.parametrize(("pua", "orphans"), POLICIES)
def test_extract_text_is_what_repair_writes(
    every_file: list[Path], tmp_path: Path, pua: str, orphans: str
) -> None:
    checked = 0
    for path in every_file:
        target = tmp_path / (path.name + ".txt")
        row = scan_file(path, repair=Repair(target, orphans, pua))  # type: ignore[arg-type]
        try:
            done = hwpscan.extract(path, pua=pua, orphans=orphans)  # type: ignore[arg-type]
        except FormatError:
            assert row.repair is None, path  # repair wrote nothing either
            assert not row.status.scanned or row.status is Status.CORRUPT
            continue
        if row.repair is None:  # repair writes no text read in part that has no surrogate
            assert done.receipt.partial and row.status is Status.CORRUPT, path
            continue
        # the file is the text ending with one newline, as a text file does
        written = target.read_text(encoding="utf-8")
        assert written == (done.text if done.text.endswith("\n") else done.text + "\n"), path
        done.text.encode("utf-8")
        assert done.receipt.defects == row.defect_counts(), path
        assert done.receipt.pairs_joined == row.repair.restored_pairs
        assert done.receipt.halves_handled == row.repair.removed_orphans
        assert done.receipt.folds_undone == row.repair.folded_restored
        assert done.receipt.partial == (
            row.status is Status.CORRUPT or "read in part" in (row.reason or "")
        )
        assert "\n".join(p.text for p in done.sections()) == done.text
        checked += 1
    assert checked >= 40


def test_the_default_is_lossless_and_boxes_true_lone_halves(tmp_path: Path) -> None:
    path = _generated(tmp_path)[0]
    done = hwpscan.extract(path)
    assert chr(0xF02B1) in done.text  # the pair joined and the fold undone, both lossless
    assert FOLDED not in done.text and OLD_HANGUL in done.text  # private use kept
    assert "외톨이 \u25a1 끝" in done.text  # a true lone half becomes Hancom's white square
    r = done.receipt
    assert (r.pairs_joined, r.folds_undone, r.halves_handled) == (1, 1, 1)
    assert r.defects.split_pairs == 1 and r.defects.lone_halves == 1
    assert r.defects.folded_symbols == 1 and r.defects.old_hangul_pua == 1
    assert r.pua_kept == {"U+E0BC": 1, "U+F02B1": 2}
    assert r.status is Status.CONTAMINATED and not r.partial
    assert [p.stream for p in done.sections()] == ["BodyText/Section0", "BodyText/Section1"]
    mapped = hwpscan.extract(path.read_bytes(), pua="map")  # bytes in, display equivalents
    assert "①" in mapped.text and mapped.receipt.old_hangul_mapped == 1
    assert json.loads(json.dumps(mapped.receipt.as_dict()))["done"]["pua_mapped"]["U+F02B1"] == 2


def test_orphans_raise_names_the_lone_half(tmp_path: Path) -> None:
    path = _generated(tmp_path)[0]
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        hwpscan.extract(path, orphans="raise")
    clean = tmp_path / "clean.hwp"
    assert hwpscan.extract(clean, orphans="raise").text == "깨끗한 문서\n둘째 문단"


def test_protected_and_foreign_files_raise_typed_errors() -> None:
    broken = ROOT / "fixtures" / "broken"
    for name in ("password.hwp", "distribution.hwp", "drm-markany.hwp", "hwpx-encrypted.hwpx"):
        with pytest.raises(EncryptedFileError):
            hwpscan.extract(broken / name)
    with pytest.raises(CorruptFileError):
        hwpscan.extract(broken / "empty.hwp")
    with pytest.raises(FormatError, match="HWP 3"):
        hwpscan.extract(broken / "hwp3.hwp")
    with pytest.raises(ValueError, match="orphans must be"):
        hwpscan.extract(b"", orphans="keep")  # type: ignore[arg-type]


def test_a_distribution_placeholder_is_never_the_body() -> None:
    placeholder = (
        "이 문서는 상위 버전의 배포용 문서입니다. 문서를 읽으려면 최신 버전의 한글을 사용하십시오."
    )
    protected = build_hwp5(["비밀 본문"], distribution=True, preview=placeholder)
    with pytest.raises(EncryptedFileError, match="distribution"):
        hwpscan.extract(protected)
    only_placeholder = build_hwp5([placeholder])  # a body that is only the placeholder
    with pytest.raises(EncryptedFileError, match="placeholder"):
        hwpscan.extract(only_placeholder)


def test_a_file_read_in_part_says_so() -> None:
    done = hwpscan.extract(ROOT / "fixtures" / "broken" / "deflate-cut.hwp")
    assert done.receipt.partial and done.receipt.reason
    assert done.receipt.status is Status.CONTAMINATED  # never clean
    clean_part = hwpscan.extract(ROOT / "fixtures" / "broken" / "deflate-cut-clean.hwp")
    assert clean_part.receipt.status is Status.CORRUPT


def test_text_command_prints_utf8_and_the_receipt(tmp_path: Path) -> None:
    hwp, clean = _generated(tmp_path)[:2]
    password = ROOT / "fixtures" / "broken" / "password.hwp"
    receipts = tmp_path / "receipts.jsonl"
    runner = CliRunner()
    args = ["text", str(hwp), str(password), str(clean), "--receipt", str(receipts)]
    done = runner.invoke(app, args)
    assert done.exit_code == ExitCode.OK, done.output
    expected = hwpscan.extract(hwp).text + "\n" + hwpscan.extract(clean).text + "\n"
    assert done.stdout_bytes == expected.encode("utf-8")
    assert "password.hwp" in done.stderr and "protected" in done.stderr
    rows = [json.loads(line) for line in receipts.read_text(encoding="utf-8").splitlines()]
    assert [r["status"] for r in rows] == ["contaminated", "encrypted", "clean"]
    assert rows[0]["done"]["pairs_joined"] == 1 and rows[0]["defects"]["lone_halves"] == 1
    gated = runner.invoke(app, ["text", str(clean), str(password), "--fail-on", "unreadable"])
    assert gated.exit_code == ExitCode.FINDINGS
    mapped = runner.invoke(app, ["text", str(hwp), "--pua", "map", "--receipt", "-"])
    assert mapped.exit_code == ExitCode.OK and "①".encode() in mapped.stdout_bytes
    assert json.loads(mapped.stderr)["policy"] == {"pua": "map", "orphans": "box"}
    bad = runner.invoke(app, ["text", str(clean), "--fail-on", "sometimes"])
    assert bad.exit_code == ExitCode.USAGE
    odd = runner.invoke(app, ["text", str(tmp_path), str(clean)])
    assert odd.exit_code == ExitCode.OK and "not a regular file" in odd.stderr
    assert odd.stdout_bytes == (hwpscan.extract(clean).text + "\n").encode("utf-8")
    missing = runner.invoke(app, ["text", str(clean), str(tmp_path / "none.hwp")])
    assert missing.exit_code == ExitCode.USAGE and "none.hwp" in missing.stderr
    assert missing.stdout_bytes == b""  # checked before any text is printed
