"""A plain HWP 5 document counted in one C call (``_hwp5plain.c``) against the Python
reader, its reference.

:func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body`` asks the native reader
first; it answers only for a plain document and declines anything else, which the
Python reader then reads as ever. Each check reads a file both ways -- as the scan does,
and with the native reader switched off -- and holds the two Documents equal, the keys
of their info in the same order, and the scan rows equal (but for ``seconds``). Checked
on every compound-file fixture, generated documents, hand-made unusual ones (each of
which must be declined) and seeded streams of mutated documents. The native reader must
also answer for the common clean documents: a reader that always declined would pass
the rest. Skipped where the package was installed without a compiler.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hwp5_native_parts import (
    CAPS,
    FIXTURES,
    OLE_MAGIC,
    PAIR,
    deflate,
    header,
    inflate,
    mutant,
    python_only,
    read,
    record,
    section,
    with_streams,
)

from hwpscan.formats import hwp5, hwp5_text, native
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.cfb_fast import MAX_ENTRIES, MAX_TREE_DEPTH
from hwpscan.models import Document
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5 import (
    Block,
    Footnote,
    HeaderFooter,
    Table,
    TextBox,
    build_hwp5,
    hwp5_streams,
)
from hwpscan.scanning.one_file import scan_bytes

plain_module = pytest.importorskip("hwpscan.formats._hwp5plain")
if native.plain_hwp5 is None:  # HWPSCAN_PURE_PYTHON=1: nothing to compare
    pytest.skip("the native paths are off", allow_module_level=True)

BLOCKS: list[Block] = [
    "보도자료 첫 문단\t탭",
    "둘째 줄\n줄바꿈 \u00a0 끝",
    Table([["구분", "내용"], ["가", "나"]]),
    Footnote("각주 본문", anchor="본문"),
    TextBox("글상자", anchor="앞"),
    HeaderFooter("머리말"),
    "",
    "마지막",
]


def accepted(data: bytes, caps: tuple[int, int, int] = CAPS) -> bool:
    """True when the native reader answers for *data* (no decline)."""
    return native.plain_hwp5 is not None and native.plain_hwp5(data, *caps) is not None


def same(data: bytes, caps: tuple[int, int, int] = CAPS, *, rows: bool = False) -> bool:
    """Both ways give the same Document (info keys in the same order) and, with *rows*,
    the same scan row; True when the native reader answered."""
    fast = read(data, caps)
    with python_only():
        ref = read(data, caps)
    assert fast == ref
    assert list(fast.info) == list(ref.info)
    if rows:
        fast_row = replace(scan_bytes(data, path="x.hwp"), seconds=0.0)
        with python_only():
            ref_row = replace(scan_bytes(data, path="x.hwp"), seconds=0.0)
        assert fast_row == ref_row
    answered = accepted(data, caps)
    if answered:  # only ever for a plain document, as the Python reader reads it
        assert _plain(ref) and "plain_body" in ref.info
    return answered


def test_the_switch_turns_the_native_reader_off() -> None:
    data = build_hwp5(["가"])
    assert accepted(data)
    with python_only():
        assert hwp5._NATIVE_DOCUMENT is None


def test_the_budgets_are_the_python_readers() -> None:
    assert plain_module.MAX_RECORDS == hwp5_text.MAX_RECORDS
    assert plain_module.MAX_PARAGRAPHS == hwp5_text.MAX_PARAGRAPHS
    assert plain_module.MAX_SEGMENTS == hwp5_text.MAX_SEGMENTS
    assert plain_module.MAX_ENTRIES == MAX_ENTRIES
    assert plain_module.MAX_TREE_DEPTH == MAX_TREE_DEPTH


def test_a_plain_document_is_what_the_python_reader_makes() -> None:
    data = build_hwp5(BLOCKS, sections=2)
    assert same(data, rows=True)
    doc = read(data, CAPS)
    assert list(doc.info) == [
        "version", "compressed", "flags", "paragraphs", "plain_body", "sections",
        "plain_preview", "plain_meta",
    ]  # fmt: skip
    assert doc.body == doc.preview == doc.meta == doc.warnings == ()


# -- fixtures ----------------------------------------------------------------------------

_OLE_FIXTURES = [
    p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.read_bytes()[:8] == OLE_MAGIC
]


@pytest.mark.parametrize("path", _OLE_FIXTURES, ids=lambda p: p.name)
def test_every_compound_file_fixture_reads_the_same(path: Path) -> None:
    same(path.read_bytes(), rows=True)


def _plain(doc: Document) -> bool:
    return doc.status is None and not (doc.body or doc.preview or doc.meta or doc.warnings)


def test_every_plain_fixture_is_read_natively() -> None:
    """What the Python reader reads as plain among the fixtures (they are all usual
    documents), the native reader answers for; the rest it declines."""
    plain, answered = [], []
    for path in _OLE_FIXTURES:
        data = path.read_bytes()
        with python_only():
            if _plain(read(data, CAPS)):
                plain.append(path.name)
        if accepted(data):
            answered.append(path.name)
    assert len(plain) >= 3
    assert answered == plain


# -- generated documents ---------------------------------------------------------------

_GENERATED: dict[str, tuple[bytes, bool]] = {  # name: (file, answered natively)
    "plain": (build_hwp5(BLOCKS), True),
    "plain-3-sections": (build_hwp5(BLOCKS * 3, sections=3), True),
    "uncompressed": (build_hwp5(BLOCKS, compressed=False), True),
    "no-controls": (build_hwp5(BLOCKS, tabs_and_controls=False), True),
    "empty-body": (build_hwp5([]), True),
    "empty-paragraphs": (build_hwp5(["", "", ""], sections=2), True),
    "empty-preview": (build_hwp5(BLOCKS, preview=""), True),
    "preview-breaks": (build_hwp5(BLOCKS, preview="a\r\n\r\nb\rc\n\r\r\n\r\n"), True),
    "preview-only-breaks": (build_hwp5(BLOCKS, preview="\r\n\r\n"), True),
    "preview-nul-inside": (build_hwp5(BLOCKS, preview="a\x00b\x00\x00"), True),
    "style-names": (build_hwp5(BLOCKS, style_names=["바탕", "본문\n", "a\rb"]), True),
    "title": (build_hwp5(BLOCKS, title="제목 " + PAIR), True),
    "long-body": (build_hwp5(["가나다라마바사" * 400] * 30, sections=2), True),
    "body-pair": (build_hwp5(["앞 " + PAIR + " 뒤"]), False),
    "body-pair-late": (build_hwp5(["가" * 2000, "끝 " + PAIR], preview="가"), False),
    "body-pua": (build_hwp5(["\ue000"], preview=""), False),
    "body-fffd": (build_hwp5(["a\ufffdb"], preview=""), False),
    "body-fold": (build_hwp5(["a\ua000b"], preview=""), False),
    "body-lone-low": (build_hwp5(["a\udc00"], preview=""), False),
    "table-pair": (build_hwp5([Table([["a", PAIR]])], preview=""), False),
    "preview-pair": (build_hwp5(BLOCKS, preview="미리 " + PAIR), False),
    "preview-pua": (build_hwp5(BLOCKS, preview="\uf8ff"), False),
    "preview-fffd": (build_hwp5(BLOCKS, preview="\ufffd"), False),
    "preview-fd-ff-across": (build_hwp5(BLOCKS, preview="\ufd41\u00ff"), False),
    "style-pair": (build_hwp5(BLOCKS, style_names=["바탕" + PAIR]), False),
    "style-pua": (build_hwp5(BLOCKS, style_names=["\ue001"]), False),
    "password": (build_hwp5(BLOCKS, password=True), False),
    "distribution": (build_hwp5(BLOCKS, distribution=True), False),
}


@pytest.mark.parametrize("name", sorted(_GENERATED))
def test_generated_documents_read_the_same(name: str) -> None:
    data, answered = _GENERATED[name]
    assert same(data, rows=True) is answered


# -- hand-made unusual documents: each one declined ---------------------------------------


def _streams(**overrides: object) -> dict[str, bytes]:
    return hwp5_streams(BLOCKS, **overrides)  # type: ignore[arg-type]


S = _streams()
SECTION = inflate(S["BodyText/Section0"])
DOCINFO = inflate(S["DocInfo"])

_UNUSUAL: dict[str, Callable[[], bytes]] = {
    "version-4": lambda: with_streams(S, FileHeader=header(0x04000000)),
    "version-6": lambda: with_streams(S, FileHeader=header(0x06000000)),
    "password-bit": lambda: with_streams(S, FileHeader=header(flags=3)),
    "drm-bit": lambda: with_streams(S, FileHeader=header(flags=0x11)),
    "cert-bits": lambda: with_streams(S, FileHeader=header(flags=0x501)),
    "distribution-bit": lambda: with_streams(S, FileHeader=header(flags=5)),
    "header-short": lambda: with_streams(S, FileHeader=header(size=39)),
    "header-no-signature": lambda: with_streams(S, FileHeader=b"HWP Document Fil" + bytes(240)),
    "no-header": lambda: with_streams(S, FileHeader=None),
    "no-docinfo": lambda: with_streams(S, DocInfo=None),
    "no-body": lambda: with_streams(S, BodyText__Section0=None),
    "viewtext-too": lambda: with_streams(S, ViewText__Section0=S["BodyText/Section0"]),
    "viewtext-only": lambda: with_streams(S, BodyText__Section0=None, ViewText__Section0=b"x"),
    "preview-odd": lambda: with_streams(S, PrvText=b"a\x00b"),
    "docinfo-not-deflate": lambda: with_streams(S, DocInfo=b"\xff\xff"),
    "docinfo-cut": lambda: with_streams(S, DocInfo=S["DocInfo"][:-3]),
    "docinfo-empty-deflate": lambda: with_streams(S, DocInfo=b""),
    "docinfo-record-past-end": lambda: with_streams(S, DocInfo=deflate(DOCINFO[:-1])),
    "docinfo-style-cut": lambda: with_streams(
        S, DocInfo=deflate(DOCINFO + record(spec.STYLE, b"\x05\x00ab"))
    ),
    "section-not-deflate": lambda: with_streams(S, BodyText__Section0=b"\x00\x01"),
    "section-cut": lambda: with_streams(S, BodyText__Section0=S["BodyText/Section0"][:-2]),
    "section-record-past-end": lambda: with_streams(S, BodyText__Section0=deflate(SECTION[:-1])),
    "section-header-cut": lambda: with_streams(
        S, BodyText__Section0=deflate(SECTION + b"\x42\x00")
    ),
    "section-extended-cut": lambda: with_streams(
        S, BodyText__Section0=deflate(SECTION + struct.pack("<I", 67 | 0xFFF << 20))
    ),
    "section-lone-text": lambda: with_streams(
        S, BodyText__Section0=deflate(section("a".encode("utf-16-le"), header=False))
    ),
    "section-two-texts": lambda: with_streams(
        S, BodyText__Section0=deflate(SECTION + record(spec.PARA_TEXT, b"a\x00"))
    ),
    "section-odd-payload": lambda: with_streams(S, BodyText__Section0=deflate(section(b"a\x00b"))),
    "section-control-cut": lambda: with_streams(
        S, BodyText__Section0=deflate(section(struct.pack("<4H", 2, 0, 0, 0)))
    ),
    "non-ascii-name": lambda: with_streams(S, 데이터=b"x"),
    "nested-storage": lambda: with_streams(S, BinData__a__b=b"x"),
    "line-feed-name": lambda: with_streams(
        S, BodyText__Section9=None, **{"BodyText__Section1\n": SECTION}
    ),
}


@pytest.mark.parametrize("name", sorted(_UNUSUAL))
def test_unusual_documents_are_declined_and_read_the_same(name: str) -> None:
    data = _UNUSUAL[name]()
    assert not same(data, rows=True), name


def test_declines_that_the_python_reader_reads_as_plain() -> None:
    """Declines that cost nothing but the Python reader's time: it reads these as plain."""
    for data in (
        with_streams(S, 데이터=b"x"),  # a name that is not ASCII
        with_streams(S, BinData__a__b=b"x"),  # a storage inside a storage
        with_streams(S, ViewText__Section0=S["BodyText/Section0"]),  # ViewText beside BodyText
    ):
        assert not same(data)
        assert "plain_body" in read(data, CAPS).info


_ACCEPTED: dict[str, Callable[[], bytes]] = {
    "no-preview": lambda: with_streams(S, PrvText=None),
    "preview-empty-stream": lambda: with_streams(S, PrvText=b""),
    "preview-big": lambda: with_streams(S, PrvText=("가나다\r\n" * 2000).encode("utf-16-le")),
    "names-any-case": lambda: write_cfb({k.lower(): v for k, v in S.items()}),
    "section-numbers": lambda: with_streams(S, BodyText__Section007=S["BodyText/Section0"]),
    "body-other-stream": lambda: with_streams(S, BodyText__Other=b"x", BodyText__Section=b"y"),
    "docinfo-no-names": lambda: with_streams(S, DocInfo=deflate(b"")),
    "docinfo-trailing-bytes": lambda: with_streams(S, DocInfo=S["DocInfo"] + b"junk"),
    "section-empty": lambda: with_streams(S, BodyText__Section0=deflate(b"")),
    "section-no-text": lambda: with_streams(S, BodyText__Section0=deflate(record(66, b"") * 3)),
    "section-empty-payload": lambda: with_streams(S, BodyText__Section0=deflate(section(b""))),
    "section-extended-size": lambda: with_streams(
        S, BodyText__Section0=deflate(section("가".encode("utf-16-le") * 3000))
    ),
    "section-other-tags": lambda: with_streams(
        S, BodyText__Section0=deflate(record(71, b"\xd8" * 9) + SECTION + record(1023, b""))
    ),
    "surrogate-in-control-parameters": lambda: with_streams(
        S,
        BodyText__Section0=deflate(
            section(struct.pack("<9H", 11, 0xD800, 0xE000, 0xFFFD, 0, 0, 0, 11, 13))
        ),
    ),
    "every-control": lambda: with_streams(
        S,
        BodyText__Section0=deflate(
            section(
                b"".join(
                    struct.pack("<8H", c, 1, 2, 3, 4, 5, 6, c)
                    if c in spec.INLINE_CONTROLS | spec.EXTENDED_CONTROLS
                    else struct.pack("<H", c)
                    for c in range(32)
                )
            )
        ),
    ),
    "other-flags": lambda: with_streams(S, FileHeader=header(flags=0x8E9)),
}


@pytest.mark.parametrize("name", sorted(_ACCEPTED))
def test_usual_variants_are_read_natively_and_the_same(name: str) -> None:
    assert same(_ACCEPTED[name](), rows=True), name


def test_caps_and_budgets_decline_as_the_python_reader_refuses() -> None:
    data = build_hwp5(BLOCKS * 3, sections=2)
    assert same(data)
    section = len(inflate(hwp5_streams(BLOCKS * 3, sections=2)["BodyText/Section0"]))
    for caps in (
        (section - 1, CAPS[1], CAPS[2]),  # a section inflates past the stream cap
        (255, CAPS[1], CAPS[2]),  # the FileHeader itself is over the cap
        (CAPS[0], section, CAPS[2]),  # the document inflates past its cap
        (CAPS[0], CAPS[1], 3),  # more DocInfo names than the cap
        (CAPS[0], CAPS[1], -1),
    ):
        assert not same(data, caps), caps
    assert same(data, (section, 10 * section, 1000))
    uncompressed = build_hwp5(BLOCKS * 3, compressed=False)
    assert same(uncompressed, (CAPS[0], 1, CAPS[2]))  # no budget without inflating


def test_the_document_cap_accepts_exactly_what_the_python_reader_reads() -> None:
    """All the inflated streams at the document cap are read, one byte over is not, as
    the Python reader reads them (DocInfo first; the native reader takes the body first)."""
    streams = hwp5_streams(BLOCKS * 3, sections=3)
    data = write_cfb(streams)
    total = sum(
        len(inflate(v)) for k, v in streams.items() if k == "DocInfo" or k.startswith("Body")
    )
    biggest = max(len(inflate(v)) for k, v in streams.items() if k.startswith("Body"))
    assert same(data, (biggest, total, CAPS[2]))
    assert not same(data, (biggest, total - 1, CAPS[2]))
    assert not same(data, (biggest - 1, total, CAPS[2]))


def test_a_body_past_the_segment_budget_is_declined() -> None:
    units = hwp5_text.MAX_SEGMENTS
    fits = with_streams(S, BodyText__Section0=deflate(section(b"a\x00" * units)))
    assert same(fits)
    over = with_streams(S, BodyText__Section0=deflate(section(b"a\x00" * units, b"b\x00")))
    assert not same(over)


# -- mutations -------------------------------------------------------------------------

_BASES = {
    "compressed": _streams(sections=2, style_names=["바탕", "굴림"]),
    "uncompressed": _streams(compressed=False, preview="미리\r\n보기"),
}


def _sweep(seed: int, count: int) -> tuple[int, int]:
    rng = random.Random(seed)
    answered = 0
    for i in range(count):
        data = mutant(rng, _BASES, 0.25)
        answered += same(data, rows=i % 16 == 0)
    return answered, count


def test_mutated_documents_read_the_same() -> None:
    answered, count = _sweep(20261203, 4000)
    assert 0 < answered < count  # both ways taken


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_many_mutated_documents_read_the_same(seed: int) -> None:
    answered, count = _sweep(seed, 25_000)
    assert 0 < answered < count


@pytest.mark.slow
def test_the_benchmark_corpus_reads_the_same() -> None:
    corpus = Path(__file__).resolve().parent.parent / "benchmarks" / "out" / "corpus"
    files = sorted(corpus.rglob("*.hwp"))[:2000]
    if not files:
        pytest.skip("no benchmark corpus (benchmarks/scan_throughput.py builds it)")
    answered = sum(same(p.read_bytes(), rows=True) for p in files)
    assert answered > len(files) // 4
