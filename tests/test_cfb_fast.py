"""Our strict compound file reader against olefile: identical streams, or it declines.

Every check compares three readings of the same bytes: :func:`open_cfb`, olefile's
tables followed by :class:`OleStreams`, and olefile's own public ``openstream``; and
``read_ole`` with and without the fast path must give equal documents.
"""

from __future__ import annotations

import io
import os
import struct
from array import array
from collections.abc import Callable
from pathlib import Path

import olefile
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.formats import cfb_fast
from hwpscan.formats.cfb_fast import DECLINES, MAX_TREE_DEPTH, open_cfb
from hwpscan.formats.hwp5 import read_ole
from hwpscan.formats.ole_streams import OleStreams
from hwpscan.rehearsal.synth.cfb import ENDOFCHAIN, FATSECT, FREESECT, write_cfb
from hwpscan.rehearsal.synth.hwp5 import (
    Table,
    build_hwp5,
    foreign_ole,
    office_encrypted,
    record_overrun,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
DIFSECT = 0xFFFFFFFC
EXAMPLES = int(os.environ.get("HWPSCAN_FUZZ_EXAMPLES", "150"))


def _noisy(n: int, size: int) -> bytes:
    return bytes((i * 131 + n * 17 + (i >> 7)) % 256 for i in range(size))


def _base() -> bytes:
    """Small and large streams, nested storages, a real HWP 5 document."""
    return build_hwp5(["본문 " + chr(0xF02B1), Table([["셀"]]), "가" * 2500], sections=2)


FILES: dict[str, bytes] = {
    "hwp5": _base(),
    "hwp5-raw": build_hwp5(["가" * 3000], compressed=False),
    "office": office_encrypted(),
    "word": foreign_ole(),
    "overrun": record_overrun(),
    "sizes": write_cfb({f"s/{n}": _noisy(n, n) for n in (0, 1, 64, 4095, 4096, 4097, 20_000)}),
    "deep": write_cfb({"a/b/c/d/e/f": b"deep" * 300, "a/x": b"", "Z": _noisy(3, 9000)}),
}


def agree(data: bytes) -> bool:
    """True when the fast path read *data*, False when it declined; fails on any
    difference from olefile."""
    fast = open_cfb(data)
    if fast is None:
        return False
    ole = olefile.OleFileIO(io.BytesIO(data))  # what we accept, olefile must open
    ref = OleStreams(ole, data)
    assert fast.paths == ref.paths
    listed = sorted(("/".join(p) for p in ole.listdir()), key=str.lower)
    assert fast.paths == listed
    for path in fast.paths:
        body = fast.read(path)
        assert fast.size(path) == ref.size(path) == len(body), path
        assert body == ref.read(path) == ole.openstream(path).read(), path
        assert fast.read(path.upper()) == body  # names are case-blind
    with pytest.raises(KeyError):
        fast.read("no such stream")
    return True


def same_document(data: bytes) -> None:
    assert read_ole(data) == read_ole(data, fast=False)


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.read_bytes()[:8] == MAGIC)


@pytest.mark.parametrize("path", _fixture_files(), ids=lambda p: p.name)
def test_every_fixture_reads_the_same_or_declines(path: Path) -> None:
    data = path.read_bytes()
    accepted = agree(data)
    same_document(data)
    if "broken" not in path.parts:  # every well-formed fixture takes the fast path
        assert accepted, path


@pytest.mark.parametrize("name", sorted(FILES))
def test_generated_files_take_the_fast_path(name: str) -> None:
    assert agree(FILES[name])
    same_document(FILES[name])


# --- Hand-made damage: each one declines, with its reason counted ---------------------


def _dir_entry_at(data: bytes | bytearray, sid: int) -> int:
    """Byte offset of directory entry *sid* (write_cfb lays the directory out in a row)."""
    (dir_start,) = struct.unpack_from("<I", data, 48)
    return 512 * (1 + dir_start) + 128 * sid


def _sid(data: bytes, name: str) -> int:
    ole = olefile.OleFileIO(io.BytesIO(data))
    return next(e.sid for e in ole.direntries if e is not None and e.name == name)


def _put(data: bytes, at: int, fmt: str, *values: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, at, *values)
    return bytes(out)


def _fat_at(sector: int) -> int:
    return 512 + 4 * sector  # write_cfb's first FAT sector is sector 0


def _start(data: bytes, name: str) -> int:
    return int(struct.unpack_from("<I", data, _dir_entry_at(data, _sid(data, name)) + 116)[0])


BIG = FILES["sizes"]


def _loop() -> bytes:
    s = _start(BIG, "20000")
    return _put(BIG, _fat_at(s + 1), "<I", s)


def _shared() -> bytes:
    other = _start(BIG, "4097")
    return _put(BIG, _dir_entry_at(BIG, _sid(BIG, "20000")) + 116, "<I", other)


def _size(name: str, size: int) -> bytes:
    return _put(BIG, _dir_entry_at(BIG, _sid(BIG, name)) + 120, "<I", size)


def _entry(name: str, offset: int, fmt: str, value: int) -> bytes:
    return _put(BIG, _dir_entry_at(BIG, _sid(BIG, name)) + offset, fmt, value)


def _rename(name: str, new: str) -> bytes:
    raw = new.encode("utf-16-le", "surrogatepass")
    at = _dir_entry_at(BIG, _sid(BIG, name))
    out = bytearray(BIG)
    out[at : at + 64] = raw.ljust(64, b"\0")
    struct.pack_into("<H", out, at + 64, len(raw) + 2)
    return bytes(out)


def _reached_twice() -> bytes:
    at = _dir_entry_at(BIG, _sid(BIG, "20000"))
    return _put(BIG, at + 68, "<I", _sid(BIG, "s"))  # a child pointing at its storage


DAMAGE: dict[str, tuple[Callable[[], bytes], str]] = {
    "cut mid-sector": (lambda: BIG[:-100], "file is not whole sectors"),
    "cut at a sector": (lambda: BIG[: len(BIG) // 2 // 512 * 512], "sector chain leaves its table"),
    "version 4": (lambda: _put(BIG, 26, "<H", 4), "not a version 3 little-endian header"),
    "big-endian mark": (
        lambda: _put(BIG, 28, "<H", 0xFEFF),
        "not a version 3 little-endian header",
    ),
    "mini cutoff": (lambda: _put(BIG, 56, "<I", 2048), "unusual mini stream geometry"),
    "header clsid": (lambda: _put(BIG, 8, "<I", 1), "reserved header fields set"),
    "transaction": (lambda: _put(BIG, 52, "<I", 1), "reserved header fields set"),
    "no FAT": (lambda: _put(BIG, 44, "<I", 0), "FAT sector count out of range"),
    "FAT slot past count": (
        lambda: _put(BIG, 80, "<I", 5),
        "header DIFAT slots past the FAT count in use",
    ),
    "DIFAT count": (
        lambda: _put(BIG, 72, "<I", 1),
        "DIFAT sector count does not match the FAT count",
    ),
    "FAT unmarked": (
        lambda: _put(BIG, _fat_at(0), "<I", FREESECT),
        "FAT sector not marked as such",
    ),
    "loop": (_loop, "sector chain loops or shares a sector"),
    "shared": (_shared, "sector chain loops or shares a sector"),
    "size short of chain": (lambda: _size("20000", 19_000), "sector chain longer than its stream"),
    "size past chain": (lambda: _size("20000", 21_000), "sector chain ends before its stream"),
    "mini size past chain": (lambda: _size("64", 200), "sector chain ends before its stream"),
    "size over 4 GB": (
        lambda: _entry("20000", 124, "<I", 1),
        "stream with children or a size over 4 GB",
    ),
    "stream with child": (
        lambda: _entry("64", 76, "<I", 2),
        "stream with children or a size over 4 GB",
    ),
    "storage with size": (lambda: _entry("s", 120, "<I", 5), "storage with a size"),
    "odd name length": (lambda: _entry("64", 64, "<H", 5), "bad directory entry name length"),
    "name too long": (lambda: _entry("64", 64, "<H", 66), "bad directory entry name length"),
    "no terminator": (lambda: _entry("64", 64, "<H", 2), "bad directory entry name length"),
    "slash in name": (lambda: _rename("64", "6/"), "directory entry name with '/' or NUL"),
    "lone surrogate name": (
        lambda: _rename("64", "6" + chr(0xDC00)),
        "directory entry name is not UTF-16",
    ),
    "case twins": (lambda: _rename("4096", "4097".upper()), "two names equal but for case"),
    "unknown type": (
        lambda: _entry("64", 66, "<B", 3),
        "directory entry neither stream nor storage",
    ),
    "reached twice": (_reached_twice, "directory entry out of range or reached twice"),
    "bad root": (lambda: _put(BIG, _dir_entry_at(BIG, 0) + 66, "<B", 1), "bad root entry"),
    # olefile never marks the root as placed: a root typed as a storage that is its own
    # child once sent the reference walk round for ever
    "root its own child": (
        lambda: _put(
            _put(BIG, _dir_entry_at(BIG, 0) + 66, "<B", 1), _dir_entry_at(BIG, 0) + 76, "<I", 0
        ),
        "bad root entry",
    ),
    "mini stream odd size": (
        lambda: _put(BIG, _dir_entry_at(BIG, 0) + 120, "<I", 4096 + 64 * 3 + 1),
        "mini stream not whole mini sectors",
    ),
    "no MiniFAT": (lambda: _put(BIG, 64, "<I", 0), "mini stream without a MiniFAT"),
    "empty with start": (lambda: _entry("0", 116, "<I", 3), "empty stream with a start sector"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damage_declines_with_its_reason_and_olefile_decides(case: str) -> None:
    make, reason = DAMAGE[case]
    data = make()
    assert data != BIG
    before = DECLINES[reason]
    assert not agree(data)
    assert DECLINES[reason] == before + 1, dict(DECLINES)
    same_document(data)


def test_a_lone_surrogate_name_is_read_by_olefile_with_a_replacement() -> None:
    """The reason the fast path declines undecodable names: olefile replaces them."""
    data = _rename("64", "6" + chr(0xDC00))
    ole = olefile.OleFileIO(io.BytesIO(data))
    assert ["s", "6\ufffd"] in ole.listdir()


def _with_difat(data: bytes, extra: int = 110) -> bytes:
    """*data* (one FAT sector) with *extra* more FAT sectors, those past the header's
    109 slots listed in a DIFAT sector: a layout only files over ~7 MB need, built
    small here by giving the FAT sectors free entries."""
    (count,) = struct.unpack_from("<I", data, 44)
    assert count == 1
    n = len(data) // 512 - 1
    fat = array("I", data[512:1024])
    ids = [0, *range(n, n + extra)]
    difat_id = n + extra
    total = len(ids) * 128
    entries = list(fat[:n]) + [FATSECT] * extra + [DIFSECT]
    entries += [FREESECT] * (total - len(entries))
    table = struct.pack(f"<{total}I", *entries)
    out = bytearray(data)
    out[512:1024] = table[:512]
    out += table[512:]
    slots = ids[109:] + [FREESECT] * (127 - len(ids[109:])) + [ENDOFCHAIN]
    out += struct.pack("<128I", *slots)
    struct.pack_into("<I", out, 44, len(ids))
    struct.pack_into("<II", out, 68, difat_id, 1)
    struct.pack_into("<109I", out, 76, *ids[:109])
    return bytes(out)


def test_a_difat_file_reads_the_same() -> None:
    data = _with_difat(BIG)
    assert olefile.OleFileIO(io.BytesIO(data)).openstream("s/20000").read() == _noisy(
        20_000, 20_000
    )
    assert agree(data)
    same_document(_with_difat(FILES["hwp5"]))


def test_a_damaged_difat_declines() -> None:
    data = _with_difat(BIG)
    (difat_id,) = struct.unpack_from("<I", data, 68)
    at = 512 * (difat_id + 1)
    (second_fat,) = struct.unpack_from("<I", data, 80)  # holds FAT entries 128-255
    mark = 512 * (second_fat + 1) + 4 * (difat_id - 128)
    assert struct.unpack_from("<I", data, mark)[0] == DIFSECT
    for mutate in (
        lambda b: struct.pack_into("<I", b, at + 508, 7),  # next DIFAT link into a FAT sector
        lambda b: struct.pack_into("<I", b, at + 8, 0),  # a slot past the count in use
        lambda b: struct.pack_into("<I", b, mark, FATSECT),  # DIFAT unmarked
        lambda b: struct.pack_into("<I", b, 68, len(b) // 512 + 5),  # start out of the file
    ):
        damaged = bytearray(data)
        mutate(damaged)
        assert not agree(bytes(damaged))
        same_document(bytes(damaged))


def _linear_tree(count: int) -> bytes:
    """*count* empty streams in the root whose sibling tree is one long right spine."""
    names = [f"n{i:04d}" for i in range(count)]
    data = bytearray(write_cfb(dict.fromkeys(names, b"")))
    ole = olefile.OleFileIO(io.BytesIO(bytes(data)))
    sids = [e.sid for e in sorted(ole.root.kids, key=lambda e: e.name)]
    struct.pack_into("<I", data, _dir_entry_at(data, 0) + 76, sids[0])
    for a, b in zip(sids, [*sids[1:], 0xFFFFFFFF], strict=True):
        struct.pack_into("<II", data, _dir_entry_at(data, a) + 68, 0xFFFFFFFF, b)
    return bytes(data)


def test_a_tree_deeper_than_olefile_can_safely_recurse_is_left_to_it() -> None:
    shallow, deep = _linear_tree(MAX_TREE_DEPTH - 10), _linear_tree(MAX_TREE_DEPTH + 10)
    assert agree(shallow)
    before = DECLINES["directory tree too deep"]
    assert not agree(deep)
    assert DECLINES["directory tree too deep"] == before + 1
    assert len(olefile.OleFileIO(io.BytesIO(deep)).listdir()) == MAX_TREE_DEPTH + 10
    same_document(deep)


def test_decline_never_raises_and_logs_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("DEBUG", logger=cfb_fast.__name__):
        for data in (b"", MAGIC, MAGIC + bytes(2000), bytes(4096), BIG[:1536]):
            assert open_cfb(data) is None
    assert any("left to olefile" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_every_single_word_overwrite_of_the_structures_agrees_or_declines() -> None:
    """Deterministic sweep: each 32-bit word of the header, FAT and directory set to
    each of a few telling values; both outcomes must occur."""
    data = FILES["hwp5"]
    (dir_start,) = struct.unpack_from("<I", data, 48)
    spots = [*range(0, 1024, 4), *range(512 * (1 + dir_start), 512 * (2 + dir_start), 4)]
    outcomes = {True: 0, False: 0}
    for at in spots:
        for value in (0, 1, 3, 0xFFFFFFFE, 0xFFFFFFFF):
            mutated = _put(data, at, "<I", value)
            outcomes[agree(mutated)] += 1
    assert outcomes[True] > 100 and outcomes[False] > 100, outcomes


_WORDS = st.sampled_from([0, 1, 2, 3, 7, 64, 4096, 0xFFFFFFFC, 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFFF])


def _mutated(name: str, edits: list[tuple[int, int, bool]], cut: int | None) -> bytes:
    """FILES[name] with words or bytes overwritten at *edits* and maybe cut at *cut*."""
    data = bytearray(FILES[name])
    for spot, value, word in edits:
        at = spot % (len(data) - 4)
        if word:
            struct.pack_into("<I", data, at, value)
        else:
            data[at] = value & 0xFF
    if cut is not None:
        del data[cut % (len(data) + 1) :]
    return bytes(data)


#: Mutated fixture files (:func:`_mutated`): the early sectors, where the header, FAT and
#: directory lie, more often than anywhere else.
MUTATED = st.builds(
    _mutated,
    st.sampled_from(sorted(FILES)),
    st.lists(
        st.tuples(
            st.one_of(st.integers(0, 2047), st.integers(0, 10**6)),
            st.one_of(_WORDS, st.integers(0, 2**32 - 1)),
            st.booleans(),
        ),
        min_size=1,
        max_size=4,
    ),
    st.one_of(st.none(), st.integers(0, 10**6)),
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=MUTATED)
def test_mutated_files_agree_or_decline(data: bytes) -> None:
    agree(data)
    same_document(data)
