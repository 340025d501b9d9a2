"""Our sector-chain reads give exactly what olefile's own openstream gives."""

from __future__ import annotations

import io

import olefile
import pytest

from hwpscan.formats.ole_streams import OleStreams, has_internals
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import (
    Table,
    build_hwp5,
    foreign_ole,
    office_encrypted,
    truncate,
)


def _noisy(n: int, size: int) -> bytes:
    return bytes((i * 131 + n * 17 + (i >> 7)) % 256 for i in range(size))


FILES = {
    "hwp5": build_hwp5(["본문 " + chr(0xF02B1), Table([["셀"]])], sections=3),
    "hwp5-raw": build_hwp5(["가" * 3000], compressed=False),
    "office": office_encrypted(),
    "word": foreign_ole(),
    "sizes": write_cfb({f"s/{n}": _noisy(n, n) for n in (0, 1, 64, 4095, 4096, 4097, 20_000)}),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_stream_matches_olefile(name: str) -> None:
    data = FILES[name]
    ole = olefile.OleFileIO(io.BytesIO(data))
    streams = OleStreams(ole, data)
    assert streams.paths == sorted(("/".join(p) for p in ole.listdir()), key=str.lower)
    for path in streams.paths:
        assert streams.size(path) == ole.get_size(path)
        assert streams.read(path) == ole.openstream(path).read(), path
        assert streams.read(path.upper()) == streams.read(path)  # names are case-blind


@pytest.mark.parametrize("name", ["hwp5-raw", "sizes"])
def test_truncated_files_read_short_like_olefile(name: str) -> None:
    data = FILES[name]
    for cut in range(2048, len(data), 1500):
        part = truncate(data, cut)
        try:
            ole = olefile.OleFileIO(io.BytesIO(part))
        except OSError:
            continue
        streams = OleStreams(ole, part)
        for path in streams.paths:
            try:
                theirs = ole.openstream(path).read()
            except OSError:  # olefile gives up; ours must at least come up short
                assert len(streams.read(path)) < streams.size(path)
                continue
            assert streams.read(path) == theirs, (cut, path)


def test_unknown_stream_is_a_key_error() -> None:
    data = FILES["word"]
    streams = OleStreams(olefile.OleFileIO(io.BytesIO(data)), data)
    with pytest.raises(KeyError):
        streams.read("FileHeader")


def test_a_looping_chain_with_a_huge_declared_size_stays_bounded() -> None:
    """A stream whose FAT chain points at itself and whose size claims 1 GB."""
    data = bytearray(write_cfb({"big": _noisy(1, 8192)}))
    ole = olefile.OleFileIO(io.BytesIO(bytes(data)))
    entry = next(e for e in ole.direntries if e is not None and e.name == "big")
    fat_at = 512 * (1 + 0) + 4 * entry.isectStart  # the stream's first FAT slot
    data[fat_at : fat_at + 4] = entry.isectStart.to_bytes(4, "little")
    dir_sector = int.from_bytes(data[48:52], "little")
    size_at = 512 * (1 + dir_sector) + 128 * entry.sid + 120
    data[size_at : size_at + 8] = (2**30).to_bytes(8, "little")
    damaged = bytes(data)
    streams = OleStreams(olefile.OleFileIO(io.BytesIO(damaged)), damaged)
    assert streams.size("big") == 2**30
    assert len(streams.read("big")) <= len(damaged)


def test_olefile_has_the_internals_the_fast_path_follows() -> None:
    ole = olefile.OleFileIO(io.BytesIO(FILES["hwp5"]))
    assert has_internals(ole)
    assert OleStreams(ole, FILES["hwp5"]).fast


@pytest.mark.parametrize("name", sorted(FILES))
def test_public_api_path_reads_the_same_as_the_fast_path(name: str) -> None:
    """Without olefile's internals, paths, sizes and bytes come from its public API."""
    data = FILES[name]
    ole = olefile.OleFileIO(io.BytesIO(data))
    fast, public = OleStreams(ole, data), OleStreams(ole, data, fast=False)
    assert not public.fast and public.paths == fast.paths
    for path in fast.paths:
        assert public.size(path.upper()) == fast.size(path)
        assert public.read(path.upper()) == fast.read(path), path
    with pytest.raises(KeyError):
        public.read("no such stream")
