"""The native HWPX package reader (``hwpx_package`` of ``hwpscan.formats._readers``)
against its reference, :func:`hwpscan.formats.hwpx.read_zip` through zipfile and expat.

For every input the C either declines (``None``) or answers, and read_zip makes the same
Document (or raises the same) either way. Checked on every fixture, on generated
packages (each of which it must answer), on hand-made packages for each thing it reads
or declines, and on seeded mutants: of the ZIP structure, and of the XML of the
container, the content.hpf manifest and the sections. The sweeps count how often the C
answers, and fail where it answers too rarely: a reader that always declined would pass
the rest. Skipped where the package was installed without a compiler.
"""

from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from mutants import with_part, xml_mutant, zip_mutant

from hwpscan.formats import fast_readers, hwpx
from hwpscan.formats.hwpx_xml import MAX_DEPTH, MAX_PARAGRAPHS
from hwpscan.rehearsal.synth.hwpx_writer import HancomLayout, build_hwpx

_readers = pytest.importorskip("hwpscan.formats._readers")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CAPS = (hwpx.MAX_ENTRIES, hwpx.MAX_UNCOMPRESSED, hwpx.MAX_SMALL_PART, hwpx.FAST_PART_BYTES)
_BLOCKS: list[object] = ["보도자료 " + chr(0xF02B1) + " 첫 문단", [["구분", "내용 &<>"]], "끝"]
#: Clean generated packages: the native reader must answer for each.
_PACKAGES = [
    build_hwpx(_BLOCKS * n, sections=s, hancom=layout)  # type: ignore[arg-type]
    for n, s, layout in ((1, 1, None), (3, 2, None), (2, 1, HancomLayout()), (4, 3, HancomLayout()))
]
CONTAINER = "META-INF/container.xml"
HPF = "Contents/content.hpf"


def _native(data: bytes, caps: tuple[int, ...] = CAPS, paragraphs: int = MAX_PARAGRAPHS) -> object:
    return _readers.hwpx_package(data, *caps, MAX_DEPTH, paragraphs)


def _read_zip(data: bytes) -> object:
    """read_zip's Document, or the (type, text) of what it raised."""
    try:
        return hwpx.read_zip(data)
    except Exception as exc:  # a reader that raises is compared, not hidden
        return type(exc), str(exc)


def _both(data: bytes) -> bool:
    """*data* read by read_zip with the native package reader and with Python alone, the
    two held equal: whether the C answered."""
    package = fast_readers.hwpx_package
    answered = _native(data) is not None
    try:
        fast = _read_zip(data)
        fast_readers.hwpx_package = None
        ref = _read_zip(data)
    finally:
        fast_readers.hwpx_package = package
    assert fast == ref
    return answered


def test_every_fixture_reads_the_same_and_clean_ones_natively() -> None:
    answered = {p.name: _both(p.read_bytes()) for p in sorted(FIXTURES.rglob("*.hwpx"))}
    assert all(answered[n] for n in answered if n.startswith("보도자료"))
    assert not answered["hwpx-encrypted.hwpx"] and not answered["not-hwpx.hwpx"]


def test_generated_packages_are_read_natively() -> None:
    package = fast_readers.hwpx_package
    for data in _PACKAGES:
        assert _both(data)
        sections, texts = _native(data)  # type: ignore[misc]
        try:
            fast_readers.hwpx_package = None  # the counts of the Python reader
            info = hwpx.read_zip(data).info
        finally:
            fast_readers.hwpx_package = package
        assert (sections, len(texts)) == (info.sections, info.paragraphs) and texts


def _rewritten(
    data: bytes, edit: Callable[[zipfile.ZipInfo], None] | None = None, drop: str = ""
) -> bytes:
    """*data* written again, each entry's ZipInfo changed by *edit*, *drop* left out."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w") as new:
        for info in old.infolist():
            part = old.read(info)
            if info.filename != drop:
                if edit is not None:
                    edit(info)
                new.writestr(info, part)
    return out.getvalue()


def _stored(info: zipfile.ZipInfo) -> None:
    info.compress_type = zipfile.ZIP_STORED


def _descriptor(info: zipfile.ZipInfo) -> None:
    info.flag_bits |= 0x8  # sizes and CRC after the data too


def _extra(info: zipfile.ZipInfo) -> None:
    info.extra = b"UT\x05\x00\x01\x00\x00\x00\x00"  # a modification time


def _upper(info: zipfile.ZipInfo) -> None:
    info.filename = info.filename.replace("section0", "SECTION0")


def _backslash(info: zipfile.ZipInfo) -> None:
    info.filename = info.filename.replace("/", "\\")


def _replaced(data: bytes, name: str, old: bytes, new: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        part = archive.read(name)
    assert old in part
    return with_part(data, name, part.replace(old, new))


def with_added(data: bytes, name: str, part: bytes | None = None) -> bytes:
    """*data* with part *name* added (a folder where *part* is ``None``)."""
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a") as archive:
        if part is None:
            archive.mkdir(name)
        else:
            archive.writestr(name, part)
    return out.getvalue()


def central_field(data: bytes, name: bytes, at: int, change: int) -> bytes:
    """*data* with *change* added to the 4-byte field at *at* of the central directory
    entry of part *name* (16: the CRC, 20: the compressed size)."""
    entry = data.index(b"PK\x01\x02")
    while data[entry + 46 : entry + 46 + len(name)] != name:
        entry = data.index(b"PK\x01\x02", entry + 1)
    value = (int.from_bytes(data[entry + at : entry + at + 4], "little") + change) % 2**32
    return data[: entry + at] + value.to_bytes(4, "little") + data[entry + at + 4 :]


_BASE = _PACKAGES[1]
_ROOTFILE = (
    b'<ocf:rootfile full-path="Contents/content.hpf" media-type="application/hwpml-package+xml"/>'
)
_OTHER_ROOT = b'<ocf:rootfile full-path="Contents/other.hpf" media-type="text/xml"/>'
_ITEM = b'<opf:item id="section0"'
_HREF = b'href="Contents/section0.xml"'
#: Packages read as a writer may write them, which the C answers.
ANSWERED = {
    "stored parts": _rewritten(_BASE, _stored),
    "data descriptors": _rewritten(_BASE, _descriptor),
    "a fullPath rootfile": _replaced(_BASE, CONTAINER, b"full-path=", b"fullPath="),
    "the main rootfile second": _replaced(_BASE, CONTAINER, _ROOTFILE, _OTHER_ROOT + _ROOTFILE),
    "an href below the manifest's folder": _replaced(_BASE, HPF, _HREF, b'href="section0.xml"'),
    "an href with ./ in it": _replaced(_BASE, HPF, _HREF, b'href="./Contents/section0.xml"'),
    "an xml:id before the id": _replaced(_BASE, HPF, _ITEM, b'<opf:item xml:id="x" id="section0"'),
    "an item named twice": _replaced(
        _BASE,
        HPF,
        b"</opf:manifest>",
        b'<opf:item id="section1" href="Contents/section0.xml"/></opf:manifest>',
    ),
    "a manifest without encryption": with_added(_BASE, "META-INF/manifest.xml", b"<manifest/>"),
    "folders listed": with_added(_BASE, "Contents/"),
    # zipfile inflates to the stream's end whatever the directory says it takes
    "a compressed size overstated": central_field(_BASE, b"Contents/section0.xml", 20, 600),
}
#: Packages the C leaves to zipfile and expat (read_zip reads or judges them).
DECLINED = {
    "a ZIP comment": _BASE[:-2] + b"\x02\x00hi",
    "bytes before the ZIP": b"MZ" * 8 + _BASE,
    "a central extra field": _rewritten(_BASE, _extra),
    "a name in upper case": _rewritten(_BASE, _upper),
    "a backslash in a name": _rewritten(_BASE, _backslash),
    "no mimetype": _rewritten(_BASE, drop="mimetype"),
    "another mimetype": with_part(_BASE, "mimetype", b"application/epub+zip"),
    "a mimetype with a line end": with_part(_BASE, "mimetype", b"application/hwp+zip\n"),
    "no container": _rewritten(_BASE, drop=CONTAINER),
    "no rootfile path": _replaced(_BASE, CONTAINER, b'full-path="Contents/content.hpf"', b""),
    "a spine of no section": _replaced(_BASE, HPF, b'idref="section', b'idref="nosection'),
    "a section the spine names missing": _rewritten(_BASE, drop="Contents/section1.xml"),
    "an href with a reference": _replaced(_BASE, HPF, _HREF, b'href="Contents/&#115;ection0.xml"'),
    "an href not in ASCII": _replaced(_BASE, HPF, _HREF, 'href="Contents/섹션.xml"'.encode()),
    "encryption in the manifest": with_added(
        _BASE, "META-INF/manifest.xml", b"<m><encryption-data/></m>"
    ),
    "a bad CRC": central_field(_BASE, b"Contents/section0.xml", 16, 1),
    "a DTD in the container": _replaced(
        _BASE, CONTAINER, b"<ocf:container", b"<!DOCTYPE c><ocf:container"
    ),
    "CRLF in the manifest": _replaced(_BASE, HPF, b"<opf:spine>", b"\r\n<opf:spine>"),
    # expat refuses a namespace name holding the separator parse_xml gives it: the
    # container is unreadable and read_zip takes the sections by number, not the spine's
    "a namespace name with expat's separator": _replaced(
        _replaced(_BASE, CONTAINER, b'xmlns:ocf="urn:', b'xmlns:ocf="urn:}'),
        HPF,
        b'<opf:itemref idref="section0" linear="yes"/><opf:itemref idref="section1" linear="yes"/>',
        b'<opf:itemref idref="section1" linear="yes"/><opf:itemref idref="section0" linear="yes"/>',
    ),
}


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_packages_as_writers_write_them_are_answered(name: str) -> None:
    assert _both(ANSWERED[name])


@pytest.mark.parametrize("name", sorted(DECLINED))
def test_what_the_reader_cannot_judge_is_left_to_zipfile(name: str) -> None:
    assert not _both(DECLINED[name])


def test_the_budgets_are_left_to_the_python_reader() -> None:
    data = _PACKAGES[3]
    assert _native(data) is not None
    assert _native(data, (3, *CAPS[1:])) is None  # entries
    assert _native(data, (CAPS[0], 1000, *CAPS[2:])) is None  # declared bytes
    assert _native(data, (*CAPS[:2], 100, CAPS[3])) is None  # small parts
    assert _native(data, (*CAPS[:3], 100)) is None  # sections
    assert _native(data, paragraphs=2) is None


def _sweep(seed: int, count: int) -> tuple[int, int]:
    """(answered natively, mutants) over ZIP structural mutants and packages with one
    part's XML mutated, each read both ways."""
    rng = random.Random(seed)
    answered = 0
    for _ in range(count):
        base = rng.choice(_PACKAGES)
        if rng.random() < 0.4:
            data = zip_mutant(rng, base)[1]
        else:
            name = rng.choice((CONTAINER, HPF, HPF, "Contents/section0.xml"))
            with zipfile.ZipFile(io.BytesIO(base)) as archive:
                data = with_part(base, name, xml_mutant(rng, archive.read(name))[1])
        answered += _both(data)
    print(f"HWPX package mutants: {count}; answered natively {answered}")
    return answered, count


def test_package_mutants_read_the_same_and_are_often_answered() -> None:
    answered, count = _sweep(20261204, 800)
    assert 0.3 * count <= answered < count


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_many_package_mutants_read_the_same(seed: int) -> None:
    answered, count = _sweep(3000 + seed, 6_000)
    assert 0.3 * count <= answered < count
