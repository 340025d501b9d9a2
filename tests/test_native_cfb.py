"""The native compound file layout (``hwpscan.formats._cfb``) against its Python twin.

:class:`~hwpscan.formats.cfb_fast.CfbStreams`' constructor is the reference. For every
input the C layout is ``None`` where the constructor declines and otherwise equals what
the constructor computes: the streams (lowercased key, path as written, size, sector
runs, mini flag), the mini stream's runs and the sorted paths; a reader built from it
reads the same bytes. Checked on every fixture, on generated documents, on the hand-made
damage of ``tests/test_cfb_fast.py``, on fragmented files (sectors swapped, so chains
jump about) and on a hypothesis-driven stream of mutated files. Skipped where the
package was installed without a compiler.
"""

from __future__ import annotations

import gc
import random
import struct
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cfb_fast import (
    BIG,
    DAMAGE,
    EXAMPLES,
    FILES,
    MAGIC,
    MUTATED,
    _linear_tree,
    _with_difat,
)

from hwpscan.formats import cfb_fast, native
from hwpscan.formats.cfb_fast import CfbStreams, open_cfb
from hwpscan.native import wanted as native_wanted
from hwpscan.rehearsal.synth.cfb import ENDOFCHAIN, FATSECT, write_cfb
from hwpscan.rehearsal.synth.hwp5 import Table, build_hwp5

_cfb = pytest.importorskip("hwpscan.formats._cfb")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
Layout = tuple[object, object, object]


def python_layout(data: bytes) -> Layout | None:
    try:
        ref = CfbStreams(data)
    except cfb_fast._Decline:
        return None
    return ref._streams, ref._ministream_runs, ref.paths


def same(data: bytes) -> bool:
    """True when both read *data*, False when both decline; fails on any difference."""
    want = python_layout(data)
    got = _cfb.layout(data)
    if want is None:
        assert got is None
        return False
    assert got == want
    native_reader, ref = CfbStreams.from_layout(data, *got), CfbStreams(data)
    for path in ref.paths:
        assert native_reader.size(path) == ref.size(path)
        assert native_reader.read(path) == ref.read(path), path
    return True


def _documents() -> dict[str, bytes]:
    docs = {
        p.name: p.read_bytes()
        for p in sorted(FIXTURES.rglob("*"))
        if p.is_file() and p.read_bytes()[:8] == MAGIC
    }
    docs.update(FILES)
    docs["difat"] = _with_difat(BIG)
    docs["difat-hwp5"] = _with_difat(FILES["hwp5"])
    docs["many"] = write_cfb(
        {f"BinData/BIN{i:04X}.png": bytes([i % 256]) * (i * 37) for i in range(300)}
    )
    docs["korean"] = write_cfb({"본문/가": b"a" * 10, "ΑΣ/Σ": b"b" * 5000, "\U0001f600\ufeff": b""})
    docs["tables"] = build_hwp5([Table([["a", "b"], ["c", "d"]]), "\udb80 외톨이"] * 40)
    docs["shallow"] = _linear_tree(cfb_fast.MAX_TREE_DEPTH - 10)
    docs["deep"] = _linear_tree(cfb_fast.MAX_TREE_DEPTH + 10)
    return docs


DOCUMENTS = _documents()


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_every_fixture_and_generated_file_has_the_same_layout(name: str) -> None:
    same(DOCUMENTS[name])


def test_the_well_formed_files_all_take_the_native_path() -> None:
    taken = [name for name, data in DOCUMENTS.items() if _cfb.layout(data) is not None]
    assert len(taken) >= len(FILES) + 6
    assert "deep" not in taken and "shallow" in taken


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_each_hand_made_damage_declines_in_c_too(case: str) -> None:
    data = DAMAGE[case][0]()
    assert python_layout(data) is None
    assert _cfb.layout(data) is None


def test_a_decline_is_still_counted_by_the_python_constructor() -> None:
    make, reason = DAMAGE["loop"]
    before = cfb_fast.DECLINES[reason]
    assert open_cfb(make()) is None
    assert cfb_fast.DECLINES[reason] == before + 1
    total = sum(cfb_fast.DECLINES.values())
    assert open_cfb(BIG) is not None
    assert sum(cfb_fast.DECLINES.values()) == total


def test_open_cfb_takes_the_native_layout_when_built() -> None:
    wanted = _cfb.layout if native_wanted() else None  # HWPSCAN_PURE_PYTHON turns it off
    assert native.cfb_layout is wanted
    assert cfb_fast._NATIVE_LAYOUT is wanted
    assert (_cfb.MAX_ENTRIES, _cfb.MAX_TREE_DEPTH) == (
        cfb_fast.MAX_ENTRIES,
        cfb_fast.MAX_TREE_DEPTH,
    )


@pytest.mark.slow
def test_too_many_entries_are_left_to_the_python_constructor() -> None:
    over = write_cfb(dict.fromkeys((f"n{i:05d}" for i in range(cfb_fast.MAX_ENTRIES + 1)), b""))
    under = write_cfb(dict.fromkeys((f"n{i:05d}" for i in range(cfb_fast.MAX_ENTRIES - 1)), b""))
    assert not same(over)
    assert same(under)


# --- Fragmented files: sectors swapped, every reference to them moved along ----------


def _swap(data: bytearray, a: int, b: int) -> None:
    """Swap sectors *a* and *b* of a file with its FAT in the header's slots, keeping
    what every stream reads: the FAT entries of both, every FAT entry and start sector
    naming either, and the sectors' bytes."""
    (count, dir_start) = struct.unpack_from("<II", data, 44)
    fat_ids = struct.unpack_from(f"<{count}I", data, 76)
    nsect = len(data) // 512 - 1

    def remap(s: int) -> int:
        return b if s == a else a if s == b else s

    def fat_at(i: int) -> int:
        return 512 * (fat_ids[i // 128] + 1) + 4 * (i % 128)

    entries = [struct.unpack_from("<I", data, fat_at(i))[0] for i in range(nsect)]
    directory: list[int] = []
    s = dir_start
    while s < nsect and len(directory) < nsect:
        directory.append(s)
        s = entries[s]
    for at in (48, 60):  # directory and MiniFAT starts
        struct.pack_into("<I", data, at, remap(struct.unpack_from("<I", data, at)[0]))
    for d in directory:  # big streams' and the root's (the mini stream's) start sectors
        for k in range(4):
            at = 512 * (d + 1) + 128 * k
            kind, start, size = data[at + 66], *struct.unpack_from("<II", data, at + 116)
            if kind == 5 or (kind == 2 and size >= 4096):
                struct.pack_into("<I", data, at + 116, remap(start))
    entries = [remap(e) for e in entries]
    entries[a], entries[b] = entries[b], entries[a]
    for i, e in enumerate(entries):
        struct.pack_into("<I", data, fat_at(i), e)
    pa, pb = 512 * (a + 1), 512 * (b + 1)
    data[pa : pa + 512], data[pb : pb + 512] = data[pb : pb + 512], data[pa : pa + 512]


def _fragmented(data: bytes, seed: int, swaps: int) -> bytes:
    out = bytearray(data)
    (count,) = struct.unpack_from("<I", out, 44)
    fixed = set(struct.unpack_from(f"<{count}I", out, 76))
    movable = [s for s in range(len(out) // 512 - 1) if s not in fixed]
    rng = random.Random(seed)
    for _ in range(swaps):
        a, b = rng.sample(movable, 2)
        _swap(out, a, b)
    return bytes(out)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["hwp5", "hwp5-raw", "sizes", "deep", "word"]),
    seed=st.integers(0, 2**32),
    swaps=st.integers(1, 12),
)
def test_fragmented_files_read_the_same_streams(name: str, seed: int, swaps: int) -> None:
    original = CfbStreams(FILES[name])
    data = _fragmented(FILES[name], seed, swaps)
    assert same(data)
    moved = CfbStreams.from_layout(data, *_cfb.layout(data))
    assert moved.paths == original.paths
    for path in original.paths:
        assert moved.read(path) == original.read(path), path


def test_a_fragmented_file_has_runs_of_many_pieces() -> None:
    data = _fragmented(FILES["sizes"], 7, 12)
    streams, _, _ = _cfb.layout(data)
    assert max(len(runs) for _, _, runs, _ in streams.values()) > 2


# --- Mutated files, as in tests/test_cfb_fast.py ----------------------------------------


@settings(max_examples=4 * EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=MUTATED)
@pytest.mark.slow
def test_mutated_files_have_the_same_layout_or_both_decline(data: bytes) -> None:
    same(data)


def test_every_single_word_overwrite_has_the_same_layout_or_both_decline() -> None:
    """Each 32-bit word of the header, the FAT, the MiniFAT and the directory set to a
    few telling values; both outcomes occur."""
    data = FILES["hwp5"]
    (dir_start, _, _, minifat_start) = struct.unpack_from("<IIII", data, 48)
    spots = [
        *range(0, 1024, 4),
        *range(512 * (1 + dir_start), 512 * (2 + dir_start), 4),
        *range(512 * (1 + minifat_start), 512 * (1 + minifat_start) + 128, 4),
    ]
    outcomes = {True: 0, False: 0}
    for at in spots:
        for value in (0, 1, 3, 0xFFFFFFFC, 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFFF):
            mutated = bytearray(data)
            struct.pack_into("<I", mutated, at, value)
            outcomes[same(bytes(mutated))] += 1
    assert outcomes[True] > 100 and outcomes[False] > 100, outcomes


@given(data=st.binary(max_size=3000))
def test_random_bytes_behind_the_magic_never_crash(data: bytes) -> None:
    same(MAGIC + data)
    same((MAGIC + data).ljust(1536, b"\0"))


def test_any_buffer_is_read_and_anything_else_refused() -> None:
    data = FILES["sizes"]
    assert _cfb.layout(bytearray(data)) == _cfb.layout(memoryview(data)) == python_layout(data)
    for wrong in ("text", 5, None):
        with pytest.raises(TypeError):
            _cfb.layout(wrong)
    assert _cfb.layout(b"") is None


@pytest.mark.slow
def test_no_memory_is_kept_across_calls() -> None:
    """Readings and declines at every stage leave nothing behind: a leaked list, string
    or buffer, even one small object a call, would grow the traced memory by well over
    100 KB in these 8,000 calls; what else a process allocates meanwhile does not."""
    inputs = [FILES["hwp5"], DOCUMENTS["korean"], DOCUMENTS["many"], DOCUMENTS["deep"]]
    inputs += [DAMAGE[case][0]() for case in ("loop", "case twins", "lone surrogate name")]
    inputs += [DAMAGE[case][0]() for case in ("FAT unmarked", "no MiniFAT", "bad root")]
    for data in inputs:
        _cfb.layout(data)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(800):
            for data in inputs:
                _cfb.layout(data)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 100_000, grown


# --- The edges of every table: one before, at and past its last entry ---------------


def _edges(data: bytes) -> list[int]:
    """Sector and mini sector numbers around the ends of the FAT, the file and the mini
    stream (a bound off by one reads a word past a table, or accepts a link past it)."""
    nsect = len(data) // 512 - 1
    (dir_start,) = struct.unpack_from("<I", data, 48)
    (root_size,) = struct.unpack_from("<I", data, 512 * (dir_start + 1) + 120)
    ends = {nsect, 128, root_size // 64, 0}
    return sorted({e + d for e in ends for d in (-1, 0, 1) if e + d >= 0})


def _table_words(data: bytes) -> list[int]:
    """Offsets of the words that link sectors: the header's starts, the FAT, the MiniFAT
    and every directory entry's start sector."""
    (dir_start, _, _, minifat_start) = struct.unpack_from("<IIII", data, 48)
    fat = 512 * (1 + struct.unpack_from("<I", data, 76)[0])
    nsect = len(data) // 512 - 1
    spots = [48, 60, 68, *range(fat, fat + 4 * min(nsect + 2, 128), 4)]
    spots += range(512 * (1 + minifat_start), 512 * (2 + minifat_start), 4)
    spots += [512 * (1 + dir_start) + 128 * k + 116 for k in range(4)]
    return spots


@pytest.mark.parametrize("name", ["sizes", "hwp5", "deep"])
def test_links_at_the_edges_of_each_table_have_the_same_layout(name: str) -> None:
    data = FILES[name]
    outcomes = {True: 0, False: 0}
    for at in _table_words(data):
        for value in _edges(data):
            mutated = bytearray(data)
            struct.pack_into("<I", mutated, at, value)
            outcomes[same(bytes(mutated))] += 1
    assert outcomes[True] and outcomes[False], outcomes


def test_a_file_longer_than_its_fat_declines() -> None:
    data = FILES["sizes"]
    nsect = len(data) // 512 - 1
    for extra in (128 - nsect, 129 - nsect, 200 - nsect):
        longer = data + bytes(512 * extra)
        covered = len(longer) // 512 - 1 <= 128
        assert same(longer) == covered


def _named(data: bytes, sid: int, raw: bytes, length: int) -> bytes:
    (dir_start,) = struct.unpack_from("<I", data, 48)
    at = 512 * (1 + dir_start) + 128 * sid
    out = bytearray(data)
    out[at : at + 64] = raw.ljust(64, b"\0")[:64]
    struct.pack_into("<H", out, at + 64, length)
    return bytes(out)


@pytest.mark.parametrize(
    ("raw", "length"),
    [
        (b"", 0),
        (b"", 2),  # an empty name: its terminator alone
        (b"a\0", 4),
        (b"a\0", 3),
        ("x" * 31, 64),
        (b"a\0" * 31 + b"\0\0", 64),
        (b"a\0" * 32, 64),  # no room for the terminator
        (b"a\0" * 32, 66),
        ("\ud83d\ude00".encode("utf-16-le", "surrogatepass"), 6),
        ("\ud83d".encode("utf-16-le", "surrogatepass"), 4),  # a high surrogate at the end
        ("\ude00a".encode("utf-16-le", "surrogatepass"), 6),
        ("\ud83da".encode("utf-16-le", "surrogatepass"), 6),
        ("\udbff".encode("utf-16-le", "surrogatepass"), 4),  # the last high surrogate
        ("\udbff\udfff".encode("utf-16-le", "surrogatepass"), 6),  # U+10FFFF
        ("\ud800\udc00".encode("utf-16-le", "surrogatepass"), 6),  # U+10000
        ("\udfff".encode("utf-16-le", "surrogatepass"), 4),
        ("\ufeffa".encode("utf-16-le"), 6),  # a byte order mark is a character here
        ("İ".encode("utf-16-le"), 4),  # lowercases to two characters
    ],
)
def test_names_at_the_edges_have_the_same_layout(raw: bytes | str, length: int) -> None:
    data = FILES["sizes"]
    if isinstance(raw, str):
        raw = raw.encode("utf-16-le")
    for sid in range(1, 4):
        same(_named(data, sid, raw, length))


def test_a_damaged_difat_declines_in_c_too() -> None:
    data = _with_difat(BIG)
    (difat_id,) = struct.unpack_from("<I", data, 68)
    at = 512 * (difat_id + 1)
    (second_fat,) = struct.unpack_from("<I", data, 80)
    mark = 512 * (second_fat + 1) + 4 * (difat_id - 128)
    for offset, value in (
        (at + 508, 7),  # the next DIFAT link into a FAT sector
        (at + 508, difat_id),  # the DIFAT chain looping on itself
        (at + 8, 0),  # a slot past the count in use
        (mark, FATSECT),  # the DIFAT sector not marked as such
        (68, len(data) // 512 + 5),  # its start out of the file
        (68, len(data) // 512 - 1),  # its start one past the last sector
        (72, 2),  # one DIFAT sector too many
    ):
        damaged = bytearray(data)
        struct.pack_into("<I", damaged, offset, value)
        assert not same(bytes(damaged)), (offset, value)


def test_a_mini_stream_one_mini_sector_past_its_minifat_declines() -> None:
    """129 mini sectors need two MiniFAT sectors; with the second cut off (the count set
    to one, the chain ended after the first) the mini stream outgrows its MiniFAT by one
    entry."""
    data = write_cfb({f"m{i:03d}": bytes([i]) * 64 for i in range(129)})
    assert same(data)
    minifat_start, minifat_count = struct.unpack_from("<II", data, 60)
    assert minifat_count == 2
    (fat_sector,) = struct.unpack_from("<I", data, 76)
    cut = bytearray(data)
    struct.pack_into("<I", cut, 64, 1)
    struct.pack_into("<I", cut, 512 * (fat_sector + 1) + 4 * minifat_start, ENDOFCHAIN)
    assert not same(bytes(cut))
    before = cfb_fast.DECLINES["mini stream larger than its MiniFAT"]
    assert open_cfb(bytes(cut)) is None
    assert cfb_fast.DECLINES["mini stream larger than its MiniFAT"] == before + 1
