"""What the tests of the native HWP 5 reader share: the switch that sends a document
through the Python reader alone, the read both ways are compared on, and the builders of
hand-made compound files (records, sections, headers, streams replaced). Its mutants
are :func:`mutants.hwp5_mutant`."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hwpscan.formats import hwp5
from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import Document
from hwpscan.rehearsal.synth.cfb import write_cfb

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
CAPS = (hwp5.MAX_STREAM_BYTES, hwp5.MAX_DOCUMENT_BYTES, hwp5.MAX_DOCINFO_NAMES)
PAIR = chr(0xDB80) + chr(0xDEB1)  # U+F02B1 as its two halves


@contextmanager
def python_only() -> Iterator[None]:
    """Within: the native readers are off, every document goes through the Python reader."""
    saved = hwp5._NATIVE_DOCUMENT
    hwp5._NATIVE_DOCUMENT = None
    try:
        yield
    finally:
        hwp5._NATIVE_DOCUMENT = saved


def read(data: bytes, caps: tuple[int, int, int], *, body_only: bool = False) -> Document:
    """The scan's read of *data* (counts where plain) under *caps*; with *body_only*,
    extract's (the body alone, segmented)."""
    stream, document, names = caps
    return hwp5.read_ole(
        data,
        count_plain_body=not body_only,
        body_only=body_only,
        max_stream_bytes=stream,
        max_document_bytes=document,
        max_docinfo_names=names,
    )


def header(version: int = 0x05010001, flags: int = spec.FLAG_COMPRESSED, size: int = 256) -> bytes:
    """A FileHeader stream of *size* bytes."""
    return (spec.SIGNATURE + struct.pack("<II", version, flags)).ljust(256, b"\0")[:size]


def deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    return comp.compress(data) + comp.flush()


def inflate(data: bytes) -> bytes:
    return zlib.decompressobj(-15).decompress(data)


def with_streams(streams: dict[str, bytes], **changes: bytes | None) -> bytes:
    """*streams* with some replaced or (None) removed, keyed by a name with ``__`` for
    ``/``, written as a compound file."""
    out = dict(streams)
    for key, value in changes.items():
        path = key.replace("__", "/")
        if value is None:
            out.pop(path, None)
        else:
            out[path] = value
    return write_cfb(out)


def record(tag: int, payload: bytes) -> bytes:
    if len(payload) >= 0xFFF:
        return struct.pack("<II", tag | 0xFFF << 20, len(payload)) + payload
    return struct.pack("<I", tag | len(payload) << 20) + payload


def section(*payloads: bytes, header: bool = True) -> bytes:
    """A BodyText section of one paragraph per payload (its PARA_HEADER unless not)."""
    out = b""
    for payload in payloads:
        out += (record(spec.PARA_HEADER, b"") if header else b"") + record(spec.PARA_TEXT, payload)
    return out
