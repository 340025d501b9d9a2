"""DocInfo font and style names: the header-only walk against a plain reference reading,
and the cap on the number of names."""

from __future__ import annotations

import os
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.hwp5 import MAX_DOCINFO_NAMES, read_ole
from hwpscan.formats.hwp5_text import codeunit_view
from hwpscan.models import Segment, Status
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_records import record
from hwpscan.rehearsal.synth.hwp5_writer import hwp5_streams

EXAMPLES = int(os.environ.get("HWPSCAN_FUZZ_EXAMPLES", "200"))


def reference_names(data: bytes) -> tuple[list[Segment], list[str]]:
    """The names read the plain way: each record's payload sliced out, each name
    decoded on its own (the reading the fast walk must reproduce exactly)."""
    out: list[Segment] = []
    warnings: list[str] = []
    pos = index = 0
    while pos + 4 <= len(data):
        (head,) = struct.unpack_from("<I", data, pos)
        pos += 4
        size = head >> 20
        if size == 0xFFF and pos + 4 <= len(data):
            (size,) = struct.unpack_from("<I", data, pos)
            pos += 4
        if pos + size > len(data):
            warnings.append(f"DocInfo: record {index} runs past the end of the stream")
            break
        payload, tag = data[pos : pos + size], head & 0x3FF
        if tag == spec.STYLE:
            skips = [0, 0]
        elif tag == spec.FACE_NAME and payload:
            prop = payload[0]
            skips = (
                [1]
                + ([1] if prop & 0x80 else [])
                + ([10 if prop & 0x40 else 0] if prop & 0x20 else [])
            )
        else:
            skips = []
        at = units = 0
        for n, skip in enumerate(skips):
            at += skip
            if at + 2 > len(payload):
                warnings.append(f"DocInfo: record {index} (tag {tag}) ends before name {n}")
                break
            (length,) = struct.unpack_from("<H", payload, at)
            at += 2
            if at + 2 * length > len(payload):
                warnings.append(
                    f"DocInfo: record {index} (tag {tag}) name {n} runs past the record"
                )
                break
            if length:
                text = codeunit_view(payload[at : at + 2 * length])
                out.append(Segment("DocInfo", index, units, text))
            at += 2 * length
            units += length
        pos += size
        index += 1
    return out, warnings


def _document(docinfo: bytes) -> bytes:
    streams = hwp5_streams(["본문"], compressed=False)
    streams["DocInfo"] = docinfo
    return write_cfb(streams)


_UNITS = st.lists(
    st.one_of(
        st.integers(0x20, 0xD7FF),
        st.integers(0xD800, 0xDFFF),  # lone or paired halves
        st.integers(0xE000, 0xFFFF),
        st.sampled_from([0x0A, 0x0D, 0xAC00, 0xF02B]),
    ),
    max_size=12,
)


def _wchars(units: list[int]) -> bytes:
    return struct.pack(f"<H{len(units)}H", len(units), *units)


@st.composite
def _records(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["face", "style", "other", "junk"]))
    if kind == "face":
        prop = draw(st.integers(0, 255))
        payload = bytes([prop]) + _wchars(draw(_UNITS))
        if prop & 0x80:
            payload += b"\x01" + _wchars(draw(_UNITS))
        if prop & 0x20:
            payload += bytes(10 if prop & 0x40 else 0) + _wchars(draw(_UNITS))
        payload += draw(st.binary(max_size=12))
        tag = spec.FACE_NAME
    elif kind == "style":
        payload = _wchars(draw(_UNITS)) + _wchars(draw(_UNITS)) + draw(st.binary(max_size=10))
        tag = spec.STYLE
    else:
        payload = draw(st.binary(max_size=40))
        tag = draw(st.sampled_from([spec.FACE_NAME, spec.STYLE, 16, 20, 21, 25]))
    cut = draw(st.one_of(st.none(), st.integers(0, len(payload))))
    return record(tag, 1, payload[:cut] if kind == "junk" and cut is not None else payload)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.lists(_records(), max_size=12), tail=st.binary(max_size=7))
@pytest.mark.slow
def test_names_match_the_plain_reading(records: list[bytes], tail: bytes) -> None:
    docinfo = b"".join(records) + tail
    doc = read_ole(_document(docinfo))
    names, warnings = reference_names(docinfo)
    assert list(doc.meta) == names
    assert [w for w in doc.warnings if w.startswith("DocInfo")] == warnings


def test_a_long_face_name_in_an_extended_record_is_read() -> None:
    name = "가" + chr(0xDB80) + chr(0xDEB1) + "나" * 3000
    raw = name.encode("utf-16-le", "surrogatepass")
    face = bytes([0]) + struct.pack("<H", len(raw) // 2) + raw
    docinfo = record(spec.FACE_NAME, 1, face) + record(spec.STYLE, 1, _wchars([0xAC00]) * 2)
    doc = read_ole(_document(docinfo))
    assert [s.text for s in doc.meta] == [name, "가", "가"]
    assert list(doc.meta) == reference_names(docinfo)[0]


def _many_faces(count: int) -> bytes:
    face = record(spec.FACE_NAME, 1, bytes([0]) + _wchars([0xBC14, 0xD0D5]))
    return face * count


def test_the_names_cap_makes_the_file_corrupt_keeps_the_body_and_the_first_names() -> None:
    doc = read_ole(_document(_many_faces(25)), max_docinfo_names=10)
    assert doc.status is Status.CORRUPT
    assert doc.reason is not None and "more than 10 font and style names" in doc.reason
    assert "(body read)" in doc.reason and "record 10" in doc.reason
    assert len(doc.meta) == 10 and [s.text for s in doc.body] == ["본문"]
    under = read_ole(_document(_many_faces(10)), max_docinfo_names=10)
    assert under.status is None and len(under.meta) == 10


def test_the_default_cap_stops_a_names_bomb_and_spares_a_large_real_document() -> None:
    """Millions of tiny FACE_NAME records deflate to a few KB; the walk stops at the cap."""
    bomb = _many_faces(MAX_DOCINFO_NAMES + 1)
    streams = hwp5_streams(["본문"], compressed=True)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    streams["DocInfo"] = c.compress(bomb) + c.flush()
    assert len(streams["DocInfo"]) < len(bomb) // 100
    doc = read_ole(write_cfb(streams))
    assert doc.status is Status.CORRUPT and len(doc.meta) == MAX_DOCINFO_NAMES
    # Seven language lists of 300 fonts with alternative names and 400 styles with
    # English names: far more than any real document, still well under the cap.
    face = bytes([0x80]) + _wchars([0xBC14, 0xD0D5]) + b"\x01" + _wchars([0x41, 0x42])
    big = record(spec.FACE_NAME, 1, face) * (7 * 300)
    big += record(spec.STYLE, 1, _wchars([0xBCF8]) + _wchars([0x42])) * 400
    real = read_ole(_document(big))
    assert real.status is None and len(real.meta) == 2 * 7 * 300 + 2 * 400
