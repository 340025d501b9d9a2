"""The compound file writer: read back by olefile and by python-hwpx's own CFB reader."""

from __future__ import annotations

import io
import struct

import olefile
import pytest
from hwpx.hwp5.cfb import CompoundFile

from hwpscan.rehearsal.synth.cfb import MINI_CUTOFF, NOSTREAM, SECTOR, cfb_order, write_cfb

SIZES = [0, 1, 63, 64, 65, 511, 512, 4095, MINI_CUTOFF, 5000, 70_000]


def _streams() -> dict[str, bytes]:
    streams = {
        f"S{n}/data{size}": bytes((i * 7 + n) % 251 for i in range(size))
        for n, size in enumerate(SIZES)
    }
    streams["FileHeader"] = b"HWP Document File".ljust(256, b"\0")
    streams["\x05HwpSummaryInformation"] = b"\xfe\xff" + bytes(100)
    streams["A/B/C/deep"] = b"nested" * 700
    return streams


def test_every_stream_reads_back_with_olefile() -> None:
    streams = _streams()
    ole = olefile.OleFileIO(io.BytesIO(write_cfb(streams)))
    assert sorted("/".join(p) for p in ole.listdir()) == sorted(streams)
    for path, data in streams.items():
        assert ole.get_size(path) == len(data)
        assert ole.openstream(path).read() == data, path


def test_every_stream_reads_back_with_an_independent_reader() -> None:
    streams = _streams()
    compound = CompoundFile(write_cfb(streams))
    assert sorted(compound.stream_paths()) == sorted(streams)
    for path, data in streams.items():
        assert compound.read(path) == data, path


def test_output_is_deterministic_and_independent_of_insertion_order() -> None:
    streams = _streams()
    reordered = dict(reversed(list(streams.items())))
    assert write_cfb(streams) == write_cfb(reordered)
    assert write_cfb({"a": b"1"}) != write_cfb({"a": b"2"})


def test_file_is_whole_sectors_with_a_version_3_header() -> None:
    data = write_cfb({"x": b"abc"})
    assert len(data) % SECTOR == 0
    _minor, major, bom, shift, mini_shift = struct.unpack_from("<HHHHH", data, 24)
    assert (major, bom, shift, mini_shift) == (3, 0xFFFE, 9, 6)
    assert struct.unpack_from("<I", data, 56)[0] == MINI_CUTOFF


def _directory(data: bytes) -> list[tuple[str, int, int, int, int, int]]:
    """(name, type, color, left, right, child) of every directory entry, via olefile's
    header parsing of where the directory starts (one chain)."""
    ole = olefile.OleFileIO(io.BytesIO(data))
    out = []
    for entry in ole.direntries:
        if entry is None:
            continue
        out.append(
            (
                entry.name,
                entry.entry_type,
                entry.color,
                entry.sid_left,
                entry.sid_right,
                entry.sid_child,
            )
        )
    return out


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 7, 8, 12, 20])
def test_sibling_trees_are_ordered_red_black_trees(count: int) -> None:
    """Each storage's children form a BST in CFB order, with equal black height on every
    path and no red node under a red node ([MS-CFB] 2.6.4)."""
    names = [f"Section{n}" for n in range(count)]
    data = write_cfb({f"BodyText/{name}": b"x" for name in names})
    ole = olefile.OleFileIO(io.BytesIO(data))
    entries = ole.direntries
    storage = next(e for e in entries if e is not None and e.name == "BodyText")

    def walk(sid: int, parent_red: bool) -> tuple[list[str], int]:
        if sid == NOSTREAM:
            return [], 1
        e = entries[sid]
        red = e.color == 0
        assert not (red and parent_red), "red node under a red node"
        left, lh = walk(e.sid_left, red)
        right, rh = walk(e.sid_right, red)
        assert lh == rh, "unequal black height"
        return [*left, e.name, *right], lh + (0 if red else 1)

    order, _ = walk(storage.sid_child, False)
    assert order == sorted(names, key=cfb_order)
    assert entries[storage.sid_child].color == 1  # the root of a red-black tree is black


def test_unused_directory_slots_are_empty_entries() -> None:
    data = write_cfb({"a": b"1"})  # root + one stream: two of four slots used
    ole = olefile.OleFileIO(io.BytesIO(data))
    start = struct.unpack_from("<I", data, 48)[0]
    sector = data[SECTOR * (start + 1) : SECTOR * (start + 2)]
    assert len(ole.listdir()) == 1
    for slot in (2, 3):
        raw = sector[slot * 128 : (slot + 1) * 128]
        assert raw[66] == 0 and struct.unpack_from("<III", raw, 68) == (NOSTREAM,) * 3
        assert raw[:66] == bytes(66) and raw[80:] == bytes(48)


@pytest.mark.parametrize(
    ("streams", "message"),
    [
        ({"a//b": b""}, "empty part"),
        ({"x" * 32: b""}, "over 31"),
        ({"a": b"1", "a/b": b"2"}, "runs through the stream"),
        ({"a": b"1", "A": b"2"}, "duplicate"),
    ],
)
def test_bad_paths_are_refused(streams: dict[str, bytes], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        write_cfb(streams)
