"""The strict ZIP reader of the HWPX path (``hwpscan.formats.zip_fast``, ``_zip.c``)
against zipfile, its reference.

:func:`hwpscan.formats.hwpx.read_zip` reads a plain package through the strict reader
and reads it again through zipfile wherever that declines. Each check reads a package
both ways -- as the scan does, and with the strict reader switched off -- and holds
the two documents (format, status, reason, body, preview, meta, warnings, info) to
equality; where the strict reader accepts a package, its entries (names, flags,
methods, CRCs and sizes) and every entry's bytes must also be zipfile's. Checked on
every fixture that is a ZIP, on generated packages, on hand-made damage and on a seeded
stream of mutated packages. Skipped where the package was installed without a compiler.
"""

from __future__ import annotations

import io
import random
import struct
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hwpscan.formats import hwpx, native, read_document
from hwpscan.formats.hwpx import MAX_ENTRIES, MAX_UNCOMPRESSED
from hwpscan.formats.zip_fast import Declined, open_fast
from hwpscan.models import Format, Status
from hwpscan.rehearsal.synth.hwpx import MIMETYPE_PLACES, build_hwpx

pytest.importorskip("hwpscan.formats._zip")
if native.zip_central is None:  # HWPSCAN_PURE_PYTHON=1: nothing to compare
    pytest.skip("the native paths are off", allow_module_level=True)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EOCD = 22
BLOCKS: list[Any] = ["보도자료 " + chr(0xF02B1), [["구분", "내용"], ["가", "나"]], "끝"]


@contextmanager
def _zipfile_only() -> Iterator[None]:
    """Within: the strict reader is off, every package goes through zipfile."""
    saved = native.zip_central
    native.zip_central = None
    try:
        yield
    finally:
        native.zip_central = saved


def _outcome(read: Callable[[bytes], object], data: bytes) -> object:
    """What *read* gives, or the exception it raises (its type and text)."""
    try:
        return read(data)
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def fast_reads(data: bytes) -> bool:
    """True when the strict reader reads the package to the end (no decline)."""
    package = open_fast(data, max_entries=MAX_ENTRIES, max_declared=MAX_UNCOMPRESSED)
    if package is None:
        return False
    try:
        hwpx._read_archive(package, data)  # never raises for a damaged package
    except Declined:
        return False
    return True


def entries_agree(data: bytes) -> None:
    """Where the strict reader accepts *data*, its entries and their bytes are zipfile's."""
    package = open_fast(data, max_entries=MAX_ENTRIES, max_declared=MAX_UNCOMPRESSED)
    if package is None:
        return
    ours = package.infolist()
    with zipfile.ZipFile(io.BytesIO(data)) as ref:
        infos = ref.infolist()
        want = [
            (i.filename, i.flag_bits, i.compress_type, i.CRC, i.compress_size, i.file_size)
            for i in infos
        ]
        assert [tuple(e)[:6] for e in ours] == want
        assert [e.is_dir() for e in ours] == [i.is_dir() for i in infos]
        for info, entry in zip(infos, ours, strict=True):
            try:
                got = package.part(entry, 2**30)
            except Declined:
                continue
            assert got == ref.read(info), info.filename


def same(data: bytes) -> bool:
    """Both paths give the same document (or raise the same); True when the strict
    reader read the package to the end."""
    fast = _outcome(hwpx.read_zip, data)
    with _zipfile_only():
        ref = _outcome(hwpx.read_zip, data)
    assert fast == ref
    entries_agree(data)
    return fast_reads(data)


def test_the_switch_turns_the_strict_reader_off() -> None:
    data = build_hwpx(BLOCKS)
    assert open_fast(data, max_entries=10, max_declared=2**20) is not None
    with _zipfile_only():
        assert open_fast(data, max_entries=10, max_declared=2**20) is None


# -- fixtures and generated packages -------------------------------------------------

_ZIP_FIXTURES = [
    p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.read_bytes()[:2] == b"PK"
]


@pytest.mark.parametrize("path", _ZIP_FIXTURES, ids=lambda p: p.name)
def test_every_zip_fixture_reads_the_same(path: Path) -> None:
    data = path.read_bytes()
    read = same(data)
    if path.name in ("hwpx-zip-version-7.hwpx", "hwpx-encrypted.hwpx", "not-hwpx.hwpx"):
        return
    assert read, "a plain fixture package is read by the strict reader"
    fast = read_document(data)
    with _zipfile_only():
        assert read_document(data) == fast


def test_there_are_zip_fixtures() -> None:
    assert len(_ZIP_FIXTURES) >= 10


def _generated() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for place in MIMETYPE_PLACES:
        for backslash in (False, True):
            out[f"{place}-{backslash}"] = build_hwpx(BLOCKS, mimetype=place, backslash=backslash)
    for n, sections in ((1, 12), (40, 3), (200, 1)):
        out[f"{n}x{sections}"] = build_hwpx(BLOCKS * n, sections=sections)
    out["empty-sections"] = build_hwpx([], sections=3)
    out["empty-paragraphs"] = build_hwpx(["", " ", ""], sections=2)
    out["encrypted"] = build_hwpx(BLOCKS, encrypted=True)
    out["version-7"] = build_hwpx(BLOCKS, version_needed=70)
    return out


GENERATED = _generated()


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_packages_read_the_same(name: str) -> None:
    read = same(GENERATED[name])
    assert read is (name != "version-7")


# -- hand-made damage ------------------------------------------------------------------

BASE = build_hwpx(BLOCKS * 3, sections=2)


def _layout(data: bytes) -> tuple[int, list[int], list[int]]:
    """(end record offset, central directory entry offsets, local header offsets)."""
    eocd = len(data) - EOCD
    count, _size, cd_at = struct.unpack_from("<HII", data, eocd + 10)
    cds, p = [], cd_at
    for _ in range(count):
        cds.append(p)
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, p + 28)
        p += 46 + name_len + extra_len + comment_len
    return eocd, cds, [struct.unpack_from("<I", data, c + 42)[0] for c in cds]


def _put(data: bytes, at: int, fmt: str, *values: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, at, *values)
    return bytes(out)


def _cd(data: bytes, entry: int, field: int, fmt: str, *values: int) -> bytes:
    """*data* with a field of central directory entry *entry* (-1: the last) set."""
    return _put(data, _layout(data)[1][entry] + field, fmt, *values)


def _field(data: bytes, entry: int, field: int) -> int:
    """A 32-bit field of central directory entry *entry*."""
    return int(struct.unpack_from("<I", data, _layout(data)[1][entry] + field)[0])


def _local(data: bytes, entry: int, field: int, fmt: str, *values: int) -> bytes:
    return _put(data, _layout(data)[2][entry] + field, fmt, *values)


def _eocd(data: bytes, field: int, fmt: str, *values: int) -> bytes:
    return _put(data, len(data) - EOCD + field, fmt, *values)


def _written(entries: list[tuple[str, bytes, int]], **options: Any) -> bytes:
    """A ZIP written by zipfile: (name, bytes, method) per entry."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are written on purpose
        with zipfile.ZipFile(buf, "w", **options) as zf:
            for name, data, method in entries:
                zf.writestr(name, data, compress_type=method)
    return buf.getvalue()


class _Unseekable(io.RawIOBase):
    """A stream zipfile cannot seek in: it writes data descriptors."""

    def __init__(self) -> None:
        self.buf = io.BytesIO()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return self.buf.write(b)


def _parts(data: bytes) -> list[tuple[str, bytes, int]]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return [(i.filename, zf.read(i), i.compress_type) for i in zf.infolist()]


def _info(name: str, method: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.compress_type = method
    return info


def _with_descriptors(data: bytes) -> bytes:
    raw = _Unseekable()
    with zipfile.ZipFile(raw, "w") as zf:
        for name, body, method in _parts(data):
            with zf.open(_info(name, method), "w") as handle:
                handle.write(body)
    return raw.buf.getvalue()


def _replaced(data: bytes, name: str, body: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    return _written(
        [(n, body if n == name else b, m if n != name else method) for n, b, m in _parts(data)]
    )


def _bomb(data: bytes, size: int) -> bytes:
    """Section 0 padded with *size* bytes of whitespace before its root closes."""
    xml = {n: b for n, b, _m in _parts(data)}["Contents/section0.xml"]
    cut = xml.rindex(b"</")
    return _replaced(data, "Contents/section0.xml", xml[:cut] + b" " * size + xml[cut:])


def _declared_small(data: bytes) -> bytes:
    """Section 0 declares 100 bytes but inflates to far more (CRC of the first 100)."""
    _eocd_at, cds, _locals = _layout(data)
    i = next(k for k, c in enumerate(cds) if data[c + 46 : c + 46 + 21] == b"Contents/section0.xml")
    return _cd(data, i, 24, "<I", 100)


def _stub(data: bytes) -> bytes:
    return b"MZ" + bytes(62) + data  # offsets not moved: zipfile counts the stub


def _trailing(data: bytes) -> bytes:
    return data + b"\0" * 10


def _with_comment(data: bytes) -> bytes:
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as zf:
        zf.comment = b"PK\x05\x06 a comment that looks like a record"
    return buf.getvalue()


def _zip64_locator(data: bytes) -> bytes:
    eocd = len(data) - EOCD
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, 0, 1)
    return data[:eocd] + locator + data[eocd:]


def _zip64_forced(data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, body, method in _parts(data):
            with zf.open(_info(name, method), "w", force_zip64=True) as handle:
                handle.write(body)
    return buf.getvalue()


def _extra(data: bytes, entry: int, extra: bytes) -> bytes:
    """A central directory extra field added to *entry* (offsets after it moved)."""
    _eocd_at, cds, _locals = _layout(data)
    c = cds[entry]
    name_len, extra_len = struct.unpack_from("<HH", data, c + 28)
    at = c + 46 + name_len + extra_len
    out = _put(data, c + 30, "<H", extra_len + len(extra))
    out = out[:at] + extra + out[at:]
    size = struct.unpack_from("<I", out, len(out) - EOCD + 12)[0]
    return _eocd(out, 12, "<I", size + len(extra))


def _names(entries: list[tuple[bytes, bytes, int]]) -> bytes:
    """A ZIP of raw names (bytes, not decoded) and flag bits, stored."""
    out, cd = b"", b""
    for name, body, flags in entries:
        crc = zlib.crc32(body)
        header = struct.pack(
            "<4s5H3I2H", b"PK\x03\x04", 20, flags, 0, 0, 0, crc, len(body), len(body), len(name), 0
        )
        cd += (
            struct.pack(
                "<4s6H3I5HII",
                b"PK\x01\x02",
                20,
                20,
                flags,
                0,
                0,
                0,
                crc,
                len(body),
                len(body),
                len(name),
                0,
                0,
                0,
                0,
                0,
                len(out),
            )
            + name
        )
        out += header + name + body
    end = struct.pack(
        "<4s4H2IH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(cd), len(out), 0
    )
    return out + cd + end


_MIME = (b"mimetype", b"application/hwp+zip", 0)
_SECTION = {n: b for n, b, _m in _parts(BASE)}["Contents/section0.xml"]

DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "eocd-cut": lambda d: d[:-1],
    "eocd-gone": lambda d: d[: _layout(d)[0]],
    "cd-truncated": lambda d: d[: _layout(d)[1][-1]] + d[_layout(d)[0] :],
    "cd-size-short": lambda d: _eocd(d, 12, "<I", struct.unpack_from("<I", d, len(d) - 10)[0] - 1),
    "cd-size-long": lambda d: _eocd(d, 12, "<I", struct.unpack_from("<I", d, len(d) - 10)[0] + 1),
    "cd-offset-early": lambda d: _eocd(d, 16, "<I", struct.unpack_from("<I", d, len(d) - 6)[0] - 1),
    "cd-offset-late": lambda d: _eocd(d, 16, "<I", struct.unpack_from("<I", d, len(d) - 6)[0] + 1),
    "count-high": lambda d: _eocd(d, 8, "<HH", 99, 99),
    "count-low": lambda d: _eocd(d, 8, "<HH", 2, 2),
    "count-disk-differs": lambda d: _eocd(d, 8, "<H", 1),
    "count-ffff": lambda d: _eocd(d, 8, "<HH", 0xFFFF, 0xFFFF),
    "multi-disk": lambda d: _eocd(d, 4, "<HH", 1, 1),
    "disk-start": lambda d: _cd(d, 2, 34, "<H", 1),
    "stub": _stub,
    "trailing-bytes": _trailing,
    "comment": _with_comment,
    "cd-magic": lambda d: _cd(d, 3, 0, "<I", 0),
    "local-magic": lambda d: _local(d, 5, 0, "<I", 0),
    "local-offset+1": lambda d: _cd(d, 5, 42, "<I", _layout(d)[2][5] + 1),
    "local-offset-past": lambda d: _cd(d, 5, 42, "<I", len(d) + 100),
    "local-offsets-at-the-end": lambda d: _cd(
        _cd(d, 5, 42, "<I", len(d) - 10), 6, 42, "<I", len(d) + 1000
    ),
    "local-offset-cd": lambda d: _cd(d, 5, 42, "<I", _layout(d)[1][0]),
    "overlap-same-offset": lambda d: _cd(d, 6, 42, "<I", _layout(d)[2][5]),
    "overlap-into-next": lambda d: _cd(d, 3, 20, "<I", _field(d, 3, 20) + 40),
    "local-name-differs": lambda d: _put(d, _layout(d)[2][5] + 30, "<B", ord("X")),
    "local-name-length": lambda d: _local(d, 5, 26, "<H", 3),
    "local-extra-long": lambda d: _local(d, 5, 28, "<H", 4000),
    "local-utf8-flag": lambda d: _local(d, 5, 6, "<H", 0x800),
    "encrypted-flag": lambda d: _local(_cd(d, 5, 8, "<H", 1), 5, 6, "<H", 1),
    "encrypted-flag-mimetype": lambda d: _cd(d, 0, 8, "<H", 1),
    "strong-encryption-flag": lambda d: _cd(d, 5, 8, "<H", 0x41),
    "patched-data-flag": lambda d: _cd(d, 5, 8, "<H", 0x20),
    "unknown-flag": lambda d: _cd(d, 5, 8, "<H", 0x1000),
    "method-unknown": lambda d: _cd(d, 5, 10, "<H", 99),
    "method-bzip2": lambda d: _replaced(d, "Contents/section0.xml", _SECTION, zipfile.ZIP_BZIP2),
    "method-lzma": lambda d: _replaced(d, "Contents/section1.xml", _SECTION, zipfile.ZIP_LZMA),
    "version-needed-7": lambda d: _cd(d, 5, 6, "<B", 70),
    "crc-wrong": lambda d: _cd(d, 5, 16, "<I", 1234),
    "crc-wrong-mimetype": lambda d: _cd(d, 0, 16, "<I", 1234),
    "crc-wrong-container": lambda d: _cd(d, 2, 16, "<I", 1234),
    "size-small": lambda d: _cd(d, 5, 24, "<I", 10),
    "size-large": lambda d: _cd(d, 5, 24, "<I", 10**6),
    "size-huge": lambda d: _cd(d, 5, 24, "<I", 0xFFFF_FFF0),
    "size-sum-over-cap": lambda d: _cd(_cd(d, 5, 24, "<I", 2**27 + 5), 6, 24, "<I", 2**27),
    "compressed-size-short": lambda d: _cd(d, 5, 20, "<I", 100),
    "compressed-size-huge": lambda d: _cd(d, 5, 20, "<I", 0xFFFF_FFF0),
    "stored-sizes-differ": lambda d: _cd(d, 0, 24, "<I", 18),
    "zip64-sizes": lambda d: _cd(d, 5, 20, "<II", 0xFFFF_FFFF, 0xFFFF_FFFF),
    "zip64-offset": lambda d: _cd(d, 5, 42, "<I", 0xFFFF_FFFF),
    "zip64-locator": _zip64_locator,
    "zip64-forced": _zip64_forced,
    "zip64-extra": lambda d: _extra(d, 5, struct.pack("<HHQ", 1, 8, 5)),
    "extra-unicode-path": lambda d: _extra(d, 5, struct.pack("<HHB", 0x7075, 1, 1)),
    "extra-malformed": lambda d: _extra(d, 5, struct.pack("<HH", 0x5455, 9)),
    "extra-short": lambda d: _extra(d, 5, b"\x01\x02"),
    "extra-harmless": lambda d: _extra(d, 5, struct.pack("<HHBI", 0x5455, 5, 1, 0)),
    "duplicate-names": lambda d: _written([*_parts(d), ("Contents/section0.xml", b"<x/>", 8)]),
    "duplicate-normalised": lambda d: _written(
        [*_parts(d), ("Contents\\section0.xml", b"<x/>", 8)]
    ),
    "data-descriptors": _with_descriptors,
    "bomb-declared-small": _declared_small,
    "bomb-past-the-whole-cap": lambda d: _bomb(d, 17 * 2**20),
    "deflate-truncated": lambda d: _cd(d, 5, 20, "<I", _field(d, 5, 20) - 1),
    "empty-zip": lambda d: _written([]),
    "folders": lambda d: _written([("Contents/", b"", 0), *_parts(d)]),
    "empty-name": lambda d: _names([_MIME, (b"", b"x", 0)]),
    "nul-in-name": lambda d: _names([_MIME, (b"Contents/section0.xml\0x", _SECTION, 0)]),
    "cp437-name": lambda d: _names(
        [_MIME, (b"Contents/section0.xml", _SECTION, 0), (b"\x82\xa0.bin", b"x", 0)]
    ),
    "utf8-name": lambda d: _names(
        [_MIME, (b"Contents/section0.xml", _SECTION, 0), ("그림.bin".encode(), b"x", 0x800)]
    ),
    "utf8-name-invalid": lambda d: _names(
        [_MIME, (b"Contents/section0.xml", _SECTION, 0), (b"\xff\xfe.bin", b"x", 0x800)]
    ),
    "raw-stored": lambda d: _names([_MIME, (b"Contents/section0.xml", _SECTION, 0)]),
    "mimetype-other": lambda d: _names([(b"mimetype", b"application/epub+zip", 0)]),
    "mimetype-big": lambda d: _names(
        [
            (b"mimetype", b"application/hwp+zip" + b" " * 5000, 0),
            (b"Contents/section0.xml", _SECTION, 0),
        ]
    ),
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_hand_made_damage_reads_the_same(name: str) -> None:
    data = DAMAGE[name](BASE)
    assert data != BASE
    same(data)


#: Damage the strict reader reads itself (zipfile reads it the same way).
READ = {
    "data-descriptors",
    "extra-harmless",
    "duplicate-normalised",
    "folders",
    "utf8-name",
    "cp437-name",
    "raw-stored",
    "mimetype-other",
    "zip64-forced",  # ZIP64 fields in the local headers only: readers go by the directory
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_the_strict_reader_reads_only_plain_packages(name: str) -> None:
    assert fast_reads(DAMAGE[name](BASE)) is (name in READ)


# -- mutated packages ------------------------------------------------------------------

_SEEDS = [
    BASE,
    GENERATED["late-True"],
    GENERATED["deflated-False"],
    DAMAGE["data-descriptors"](BASE),
]
_SPECIAL = (0, 1, 0xFF, 0xFFFF, 0xFFFF_FFFF, 0x8000_0000, 22, 46)


def _mutate(rng: random.Random, data: bytes) -> bytes:
    """*data* with one to three seeded edits, most of them in the ZIP's structures."""
    out = bytearray(data)
    eocd, cds, locals_ = _layout(data)
    spots = [eocd, *cds, *locals_]
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        if kind == 0:  # a random byte anywhere
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif kind in (1, 2):  # a field of a record
            at = min(rng.choice(spots) + rng.randrange(46), len(out) - 4)
            fmt = rng.choice(("<B", "<H", "<I"))
            value = rng.choice(_SPECIAL) if kind == 1 else rng.randrange(1 << 16)
            struct.pack_into(
                fmt, out, at, value & {"<B": 0xFF, "<H": 0xFFFF, "<I": 0xFFFF_FFFF}[fmt]
            )
        elif kind == 3:  # cut
            del out[rng.randrange(len(out)) :]
        elif kind == 4:  # a slice doubled or dropped
            a = rng.randrange(len(out) + 1)
            b = min(len(out), a + rng.randrange(1, 64))
            out[a:a] = out[a:b] if rng.random() < 0.5 else b""
            if rng.random() < 0.5:
                del out[a:b]
        else:  # a byte of compressed data
            at = rng.choice(locals_) + 30 + rng.randrange(64)
            if at < len(out):
                out[at] ^= 1 << rng.randrange(8)
        if len(out) < EOCD + 1:
            break
    return bytes(out)


def _sweep(seed: int, count: int) -> tuple[int, int]:
    """*count* mutated packages read both ways; (read by the strict reader, declined)."""
    rng = random.Random(seed)
    read = 0
    for _ in range(count):
        read += same(_mutate(rng, rng.choice(_SEEDS)))
    return read, count - read


def test_mutated_packages_read_the_same() -> None:
    read, declined = _sweep(1, 1500)
    assert read > 0 and declined > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 6))
def test_many_mutated_packages_read_the_same(seed: int) -> None:
    read, declined = _sweep(seed, 5000)
    assert read > 0 and declined > 0


def test_an_entry_without_a_name_makes_the_package_corrupt_not_an_internal_error() -> None:
    """zipfile cannot tell whether a nameless entry is a folder (it raises IndexError);
    the row says what is wrong with the file instead."""
    from hwpscan.scanning.one_file import scan_bytes

    row = scan_bytes(DAMAGE["empty-name"](BASE), path="x.hwpx")
    assert row.status is Status.CORRUPT and row.format is Format.HWPX
    assert row.reason is not None and "without a name" in row.reason


def test_entry_names_are_normalised_as_by_splitting_every_one() -> None:
    """The shortcut for names that need nothing done answers as the split does, for
    every name of up to six characters over the characters that matter."""
    import itertools

    def split_and_join(name: str) -> str:
        return "/".join(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))

    for k in range(7):
        for chars in itertools.product("a/\\.b", repeat=k):
            name = "".join(chars)
            assert hwpx._normal(name) == split_and_join(name), name
