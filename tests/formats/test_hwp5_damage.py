"""Protected, foreign and damaged compound files: a status and a reason, never a crash."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.forensics.surrogates import analyze
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5 import read_ole
from hwpscan.models import Format, Status
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import (
    Table,
    bad_deflate,
    build_hwp5,
    foreign_ole,
    hwp5_streams,
    office_encrypted,
    record_overrun,
    truncate,
)

BULLET = chr(0xF02B1)
BLOCKS = ["첫 문단 " + BULLET, Table([["셀 " + BULLET, "둘"]]), "끝"]


def noisy(n: int, length: int = 300) -> str:
    """Hangul that compresses poorly, so streams span many sectors."""
    return "".join(chr(0xAC00 + (n * 7919 + i * 104729) % 11172) for i in range(length))


def test_password_document_is_encrypted_and_keeps_its_preview() -> None:
    doc = read_ole(build_hwp5(BLOCKS, password=True))
    assert (doc.format, doc.status) == (Format.HWP5, Status.ENCRYPTED)
    assert "password" in (doc.reason or "")
    assert doc.body == () and doc.meta == ()  # ciphertext is never decoded as text
    assert next(s.text for s in doc.preview).startswith("첫 문단")
    assert analyze(doc.preview).pairs == 1


def test_distribution_document_reports_viewtext_and_keeps_preview_and_meta() -> None:
    doc = read_ole(build_hwp5(BLOCKS, distribution=True, sections=2))
    assert (doc.format, doc.status) == (Format.HWP5, Status.DISTRIBUTION)
    assert "ViewText" in (doc.reason or "") and "2" in (doc.reason or "")
    assert doc.body == () and doc.preview and doc.meta
    assert doc.info.flags == ("compressed", "distribution")


def _with_flags(streams: dict[str, bytes], bits: int) -> dict[str, bytes]:
    header = bytearray(streams["FileHeader"])
    flags = struct.unpack_from("<I", header, spec.PROPERTIES_OFFSET)[0] | bits
    struct.pack_into("<I", header, spec.PROPERTIES_OFFSET, flags)
    return {**streams, "FileHeader": bytes(header)}


def test_distribution_flag_without_viewtext_says_so_instead_of_zero_sections() -> None:
    streams = _with_flags(hwp5_streams(BLOCKS, sections=2), spec.FLAG_DISTRIBUTION)
    doc = read_ole(write_cfb(streams))
    assert doc.status is Status.DISTRIBUTION and doc.body == ()
    assert "without ViewText" in (doc.reason or "") and "2 BodyText" in (doc.reason or "")
    assert "0 ViewText" not in (doc.reason or "")
    bare = {k: v for k, v in streams.items() if not k.startswith("BodyText/")}
    doc = read_ole(write_cfb(bare))
    assert doc.status is Status.DISTRIBUTION
    assert "no ViewText or BodyText section" in (doc.reason or "")
    assert "0 ViewText" not in (doc.reason or "")


@pytest.mark.parametrize(
    ("bit", "name"), [(spec.FLAG_DRM, "drm"), (spec.FLAG_CERT_ENCRYPTION, "cert_encryption")]
)
def test_drm_and_certificate_bits_mean_encrypted(bit: int, name: str) -> None:
    streams = hwp5_streams(BLOCKS)
    header = bytearray(streams["FileHeader"])
    flags = struct.unpack_from("<I", header, spec.PROPERTIES_OFFSET)[0] | bit
    struct.pack_into("<I", header, spec.PROPERTIES_OFFSET, flags)
    streams["FileHeader"] = bytes(header)
    doc = read_ole(write_cfb(streams))
    assert doc.status is Status.ENCRYPTED and name in (doc.reason or "") and doc.body == ()


def test_encrypted_office_container_is_named() -> None:
    doc = read_ole(office_encrypted())
    assert (doc.format, doc.status) == (Format.OLE, Status.ENCRYPTED)
    assert "EncryptedPackage" in (doc.reason or "") and "EncryptionInfo" in (doc.reason or "")


def test_foreign_compound_file_lists_its_streams() -> None:
    doc = read_ole(foreign_ole())
    assert (doc.format, doc.status) == (Format.OLE, Status.UNSUPPORTED)
    assert (doc.reason or "").startswith("OLE compound file without an HWP FileHeader: streams ")
    assert "WordDocument" in (doc.reason or "") and "1Table" in (doc.reason or "")


def test_fileheader_without_signature_is_not_hwp() -> None:
    streams = hwp5_streams(BLOCKS)
    streams["FileHeader"] = b"Something Else".ljust(256, b"\0")
    doc = read_ole(write_cfb(streams))
    assert (doc.format, doc.status) == (Format.OLE, Status.UNSUPPORTED)
    assert "signature" in (doc.reason or "")


def test_record_running_past_the_end_keeps_the_text_before_it() -> None:
    for compressed in (True, False):
        doc = read_ole(record_overrun(["앞 문단 " + BULLET, "둘째"], compressed=compressed))
        assert doc.status is Status.CORRUPT  # read in part: the scan decides from the counts
        assert "claims 1000 bytes" in (doc.reason or "")
        assert [s.text for s in doc.body][-1] == "둘째"
        assert analyze(doc.body).pairs == 1
        (warning,) = doc.warnings
        assert (
            warning.startswith("BodyText/Section0: record at byte ")
            and "claims 1000 bytes" in warning
        )


def test_bad_deflate_is_corruption_of_the_only_section() -> None:
    doc = read_ole(bad_deflate(BLOCKS))
    assert (doc.format, doc.status) == (Format.HWP5, Status.CORRUPT)
    assert "BodyText/Section0: not valid deflate data" in (doc.reason or "")
    assert doc.preview and doc.meta  # the other streams are still read


def test_deflate_cut_short_reads_what_was_there() -> None:
    long_blocks = [f"문단 {n} " + BULLET + noisy(n, 100) for n in range(60)]
    full = read_ole(build_hwp5(long_blocks))
    doc = read_ole(bad_deflate(long_blocks, cut=3000))
    assert any("deflate data ends early" in w for w in doc.warnings)
    assert any("claims" in w or "cut short" in w for w in doc.warnings)  # the last record is cut
    n = len(doc.body)
    assert 0 < n < len(full.body) and doc.body[: n - 1] == full.body[: n - 1]
    assert full.body[n - 1].text.startswith(doc.body[-1].text)


def test_output_cap_stops_a_stream_that_inflates_too_far() -> None:
    data = build_hwp5(["가" * 3000])
    doc = read_ole(data, max_stream_bytes=4096)
    assert doc.status is Status.CORRUPT and "cap" in (doc.reason or "")
    assert read_ole(data).status is None


def test_truncated_eight_unit_control_at_record_end_is_a_warning() -> None:
    text = "가나".encode("utf-16-le") + struct.pack(
        "<4H", spec.TAB, 0, 0, 0
    )  # TAB cut after 4 units
    section = (
        struct.pack("<I", spec.PARA_HEADER | 24 << 20)
        + bytes(24)
        + struct.pack("<I", spec.PARA_TEXT | 1 << 10 | len(text) << 20)
        + text
    )
    streams = hwp5_streams(["x"], compressed=False)
    streams["BodyText/Section0"] = section
    doc = read_ole(write_cfb(streams))
    assert [s.text for s in doc.body] == ["가나"]
    assert doc.warnings == (
        "BodyText/Section0: paragraph 0 ends inside an 8-unit control at unit 2",
    )


def test_odd_byte_counts_are_warnings() -> None:
    streams = hwp5_streams(["본문"], compressed=False)
    streams["PrvText"] = "미리".encode("utf-16-le") + b"\x41"
    doc = read_ole(write_cfb(streams))
    assert [s.text for s in doc.preview] == ["미리"]
    assert "PrvText: odd byte count; last byte ignored" in doc.warnings


def test_no_body_sections_is_corrupt() -> None:
    streams = hwp5_streams(["본문"])
    del streams["BodyText/Section0"]
    doc = read_ole(write_cfb(streams))
    assert (doc.format, doc.status) == (Format.HWP5, Status.CORRUPT)
    assert "BodyText" in (doc.reason or "")


def test_garbage_after_the_magic_is_corrupt() -> None:
    data = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes((i * 37) % 256 for i in range(3000))
    doc = read_ole(data)
    assert (doc.format, doc.status) == (Format.OLE, Status.CORRUPT)
    assert doc.reason and doc.reason.startswith("compound file unreadable")


@pytest.mark.parametrize("compressed", [True, False])
def test_every_truncation_gives_a_result_and_never_loses_text_silently(compressed: bool) -> None:
    data = build_hwp5([f"문단 {n} " + BULLET + noisy(n) for n in range(12)], compressed=compressed)
    full = read_ole(data)
    assert full.status is None and len(data) > 8192
    for size in [*list(range(0, len(data), 509)), len(data) - 1]:
        doc = read_ole(truncate(data, size))
        assert doc.format in (Format.HWP5, Format.OLE)
        lost = doc.body != full.body
        assert not lost or doc.status is Status.CORRUPT or doc.warnings, size
        if doc.status is Status.CORRUPT:
            assert doc.reason, size
        if 0 < len(doc.body) < len(full.body):  # partly read: named corrupt, text kept
            assert doc.status is Status.CORRUPT and "cut short" in (doc.reason or ""), size
            assert doc.body == full.body[: len(doc.body) - 1] + doc.body[-1:], size
        if size > len(data) // 2:  # the directory (naming FileHeader) is in the first half
            assert doc.format is Format.HWP5, size


_FUZZ_BASES = [build_hwp5(BLOCKS, compressed=c, sections=s) for c in (True, False) for s in (1, 3)]


@settings(max_examples=150, deadline=None)
@given(
    base=st.sampled_from(range(len(_FUZZ_BASES))),
    edits=st.lists(
        st.tuples(st.integers(0, 2**20), st.sampled_from([0, 1, 2, 0xFD, 0xFE, 0xFF, 0x80])),
        min_size=1,
        max_size=8,
    ),
    structural=st.booleans(),
)
@pytest.mark.slow
def test_damaged_bytes_never_raise(
    base: int, edits: list[tuple[int, int]], structural: bool
) -> None:
    """Bytes overwritten in the header, FAT and directory (or anywhere): always a result."""
    data = bytearray(_FUZZ_BASES[base])
    for where, value in edits:
        data[where % (2048 if structural else len(data))] = value
    doc = read_ole(bytes(data))
    assert doc.format in (Format.HWP5, Format.OLE)
    assert doc.status is None or doc.reason


def test_an_error_that_is_not_olefiles_is_not_taken_for_a_damaged_file() -> None:
    """A caller's (or our own) mistake is a bug to see, not a 'corrupt' verdict."""
    with pytest.raises(TypeError):
        read_ole("text, not bytes")  # type: ignore[arg-type]
