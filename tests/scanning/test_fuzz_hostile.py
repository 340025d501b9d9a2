"""Fuzzing the readers with mutated files from our own writers: rows never raise, and
every budget holds.

The budget is small and fixed in CI (``derandomize``: the same examples each run); set
``HWPSCAN_FUZZ_EXAMPLES`` (e.g. 5000) for a deeper, randomised campaign.
"""

from __future__ import annotations

import codecs
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.forensics.checkjson import check_json_bytes, decode_utf8
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5_text import Budget, section_segments
from hwpscan.models import FileResult, Status
from hwpscan.rehearsal.synth.hwp5_records import record
from hwpscan.rehearsal.synth.hwp5_writer import Table, build_hwp5
from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
from hwpscan.rehearsal.synth.pdf_writer import build_pdf
from hwpscan.rowcodec import encode_row
from hwpscan.scanning.one_file import MAX_REASON_CHARS, MAX_WARNINGS, scan_bytes

DEEP = "HWPSCAN_FUZZ_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("HWPSCAN_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not DEEP,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

BULLET = chr(0xF02B1)
SEEDS = {
    "hwp5": build_hwp5(["보도자료 " + BULLET, "둘째\t문단", "끝"]),
    "hwp5-raw": build_hwp5(["압축 없음"], compressed=False, sections=2),
    "hwp5-table": build_hwp5([Table([["가", "나"], ["다", BULLET]])]),
    "hwpx": build_hwpx(["첫 문단", "둘째 문단", [["가", "나"]]]),
    "pdf": build_pdf([["보도자료", "둘째 줄"], ["둘째 쪽"]]),
}


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A seed file with a few bytes overwritten, a slice cut out or repeated, or cut short."""
    data = bytearray(SEEDS[draw(st.sampled_from(sorted(SEEDS)))])
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "cut", "repeat", "truncate", "zero"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        width = draw(st.integers(1, 64))
        if kind == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "cut":
            del data[at : at + width]
        elif kind == "repeat":
            data[at:at] = data[at : at + width] * draw(st.integers(2, 50))
        elif kind == "truncate":
            del data[at:]
        else:
            data[at : at + width] = bytes(len(data[at : at + width]))
        if not data:
            break
    return bytes(data)


def assert_row(row: FileResult) -> None:
    assert isinstance(row, FileResult) and isinstance(row.status, Status)
    assert len(row.reason or "") <= MAX_REASON_CHARS + 40
    assert len(row.warnings) <= MAX_WARNINGS + 1
    encode_row(row)  # always serialisable
    if row.status is Status.CLEAN:
        assert row.body.surrogates == 0 and row.body_read


@FUZZ
@given(mutated())
def test_a_mutated_file_is_always_one_row_within_its_budgets(data: bytes) -> None:
    assert_row(scan_bytes(data, path="fuzz"))


TAGS = [spec.PARA_HEADER, spec.PARA_TEXT, spec.PARA_CHAR_SHAPE, spec.CTRL_HEADER, 0, 0x3FF]


@st.composite
def records(draw: st.DrawFn) -> bytes:
    """A section stream of random records (some with bad sizes), or raw bytes."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=512))
    out = bytearray()
    for _ in range(draw(st.integers(0, 80))):
        tag = draw(st.sampled_from(TAGS))
        payload = draw(st.binary(max_size=40))
        if tag == spec.PARA_TEXT and draw(st.booleans()):
            payload = draw(st.text(max_size=20)).encode("utf-16-le", "surrogatepass")
        out += record(tag, draw(st.integers(0, 3)), payload)
        if draw(st.integers(0, 30)) == 0:
            out += draw(st.binary(min_size=1, max_size=8))  # damage between records
    return bytes(out)


@FUZZ
@given(records(), st.integers(1, 30), st.integers(1, 30), st.integers(1, 200))
def test_the_record_walk_never_raises_and_never_passes_its_budget(
    data: bytes, paragraphs: int, segments: int, units: int
) -> None:
    out: list = []  # type: ignore[type-arg]
    warnings: list[str] = []
    budget = Budget(records=1000, paragraphs=paragraphs, segments=segments, units=units)
    count = section_segments(data, "BodyText/Section0", out, warnings, budget)
    assert count <= paragraphs and len(out) <= segments
    assert sum(len(s.text) for s in out) <= units
    assert budget.exceeded is None or budget.exceeded.startswith("BodyText/Section0: more than")


JSON_PIECES = [b"{", b"}", b"[", b"]", b'"', b":", b",", b"\\u", b"d800", b"dc00", b"\n", b"\r"]
JSON_PIECES += [b"data: ", b"[DONE]", b"\xed\xa0\x80", b"\xff", b"\xc3", b"\xea\xb0\x80", b"1"]


@FUZZ
@given(st.lists(st.sampled_from(JSON_PIECES) | st.binary(max_size=6), max_size=120))
def test_check_json_never_raises_and_its_snippets_are_short(pieces: list[bytes]) -> None:
    report = check_json_bytes(b"".join(pieces))
    for bad in report.bad:
        assert len(bad.snippet) < 400 and len(bad.path) <= 501
    assert report.documents >= 0


def _reference_lenient(exc: UnicodeError) -> tuple[str, int]:
    """The per-byte handler check-json once used: the reference for its fast decoder."""
    assert isinstance(exc, UnicodeDecodeError)
    try:
        return codecs.lookup_error("surrogatepass")(exc)  # type: ignore[return-value]
    except UnicodeDecodeError:
        bad = exc.object[exc.start : exc.end]
        return "".join(chr(0xDC00 + b) for b in bad), exc.end


codecs.register_error("hwpscan-test.reference", _reference_lenient)


@FUZZ
@given(st.lists(st.sampled_from(JSON_PIECES) | st.binary(max_size=8), max_size=60))
def test_the_fast_decoder_matches_the_per_byte_reference(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    expected = data.decode("utf-8", "hwpscan-test.reference")
    assert decode_utf8(data)[0] == expected
