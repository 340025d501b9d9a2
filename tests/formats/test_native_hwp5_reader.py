"""An ordinary HWP 5 document read in one C call (``read_hwp5`` of the native module
``hwpscan.formats._readers``), plain or not, against the Python reader, its reference.

:func:`hwpscan.formats.hwp5.read_ole` with ``count_plain_body`` asks the native reader
first; it answers for an ordinary document -- its body, preview and DocInfo names as
segments where their text holds a notable unit (a surrogate, private use, U+FFFD, a
folded symbol), as counts where it is plain -- and declines anything unusual, which the
Python reader then reads as ever. Each check reads a file both ways (as the scan does,
and with the native readers switched off) and holds the two Documents equal (a text the
native reader counted against what a scan counts of the reference's segments), the keys
of their info in the same order, every segment a :class:`~hwpscan.models.Segment`, and the
scan rows equal (but for ``seconds``); the same for a read of the body alone
(``body_only``, always segmented) and, with the rows, what :func:`hwpscan.extract` makes
of the file (text, receipt, parts, or its error). Checked on every compound-file fixture,
generated documents (contaminated and plain sections mixed), hand-made unusual ones
(each of which must be declined) and seeded mutants of contaminated documents
(:func:`mutants.hwp5_mutant`: a stream's bytes or the compound file's own).
The native reader must also answer for the ordinary fixtures and every clean generated
document, and the mutant sweep counts its answers and fails where they are too few: a
reader that always declined would pass the rest. Skipped where the package
was installed without a compiler.
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
    python_only,
    read,
    record,
    section,
    with_streams,
)
from mutants import hwp5_mutant

from hwpscan.errors import FormatError
from hwpscan.forensics.surrogates import analyze
from hwpscan.formats import fast_readers, hwp5, hwp5_text
from hwpscan.formats import hwp5_spec as spec
from hwpscan.models import Document, Format, PlainCounts, ReadInfo, Segment, TextStats
from hwpscan.rehearsal.synth.cfb import write_cfb
from hwpscan.rehearsal.synth.hwp5_writer import (
    Block,
    Footnote,
    HeaderFooter,
    Table,
    TextBox,
    build_hwp5,
    hwp5_streams,
)
from hwpscan.scanning.one_file import scan_bytes
from hwpscan.usecases.extract import extract

pytest.importorskip("hwpscan.formats._readers")
if fast_readers.read_hwp5 is None:  # HWPSCAN_PURE_PYTHON=1: nothing to compare
    pytest.skip("the native paths are off", allow_module_level=True)

DIRTY: list[Block] = [
    "보도자료 " + PAIR + " 첫 문단\t탭",
    "둘째 줄\n줄바꿈 \u00a0 끝 \ue000",
    Table([["구분", "내용 " + PAIR], ["가", "나\ufffd"]]),
    Footnote("각주 \ua001 본문", anchor="본문"),
    TextBox("글상자 \udc00", anchor="앞"),
    HeaderFooter("머리말 \ud800"),
    "",
    "마지막 -\u00ad 끝",
]
CLEAN: list[Block] = ["깨끗한 문단\t탭", Table([["a", "b"]]), "", "끝\n줄"]


def accepted(data: bytes, caps: tuple[int, int, int] = CAPS, *, body_only: bool = False) -> bool:
    """True when the native reader answers for *data* (no decline)."""
    assert fast_readers.read_hwp5 is not None
    return fast_readers.read_hwp5(data, *caps, body_only) is not None


def _segments_typed(doc: Document) -> bool:
    return all(type(s) is Segment for s in (*doc.body, *doc.preview, *doc.meta))


def _counts(segments: tuple[Segment, ...], counted: PlainCounts | None) -> PlainCounts | None:
    """What a scan counts of *segments* where the native reader *counted* them: their
    text plain (no surrogate, private use, U+FFFD), its chars and code units."""
    if counted is None:
        return None
    assert analyze(segments, max_locations=0) == TextStats(chars=counted.chars)
    return PlainCounts(counted.chars, sum(len(seg.text) for seg in segments))


def _counted_as(ref: Document, fast: Document) -> Document:
    """*ref* (the Python reader's segments) with each text *fast* counted made counts."""
    body, preview, meta = (fast.info.plain_body, fast.info.plain_preview, fast.info.plain_meta)
    return replace(
        ref,
        body=() if body else ref.body,
        preview=() if preview else ref.preview,
        meta=() if meta else ref.meta,
        info=replace(
            ref.info,
            plain_body=_counts(ref.body, body),
            plain_preview=_counts(ref.preview, preview),
            plain_meta=_counts(ref.meta, meta),
        ),
    )


def extracted(data: bytes) -> object:
    """What :func:`hwpscan.extract` makes of *data*: its text, receipt and parts, or the
    error it raises."""
    try:
        done = extract(data)
    except (FormatError, UnicodeEncodeError) as exc:
        return type(exc), str(exc)
    return done.text, done.receipt.as_dict(), done.sections(), done.paragraphs()


def same(data: bytes, caps: tuple[int, int, int] = CAPS, *, rows: bool = False) -> bool:
    """Both ways give the same Document (info keys in the same order, every segment a
    Segment) and, with *rows*, the same scan row; True when the native reader answered."""
    return compared(data, caps, rows=rows)[0]


def compared(
    data: bytes, caps: tuple[int, int, int] = CAPS, *, rows: bool = False
) -> tuple[bool, Document]:
    """:func:`same`'s checks; whether the native reader answered, and the reference's
    Document."""
    fast = read(data, caps)
    with python_only():
        ref = read(data, caps)
    assert fast == _counted_as(ref, fast)
    assert _segments_typed(fast) and _segments_typed(ref)
    body = read(data, caps, body_only=True)
    with python_only():
        assert body == read(data, caps, body_only=True)
    assert _segments_typed(body)
    if rows:
        fast_row = replace(scan_bytes(data, path="x.hwp"), seconds=0.0)
        with python_only():
            ref_row = replace(scan_bytes(data, path="x.hwp"), seconds=0.0)
            ref_text = extracted(data)
        assert fast_row == ref_row
        assert extracted(data) == ref_text
    answered = accepted(data, caps)
    if answered:  # only ever for a document the Python reader reads without a remark
        assert ref.status is None and ref.reason is None and not ref.warnings
    return answered, ref


def test_the_switch_turns_the_native_reader_off() -> None:
    data = build_hwp5(DIRTY)
    assert accepted(data)
    with python_only():
        assert hwp5._NATIVE_DOCUMENT is None
    assert dict(spec.CHAR_REPLACEMENTS) == fast_readers._TRANSLATE


def test_a_contaminated_document_is_what_the_python_reader_makes() -> None:
    data = build_hwp5(DIRTY, sections=2, preview="미리 " + PAIR, style_names=["바탕" + PAIR])
    assert same(data, rows=True)
    doc = read(data, CAPS)
    assert doc.info == ReadInfo(
        version="5.1.0.1", compressed=True, flags=("compressed",), paragraphs=16, sections=2
    )
    assert doc.body and doc.preview and doc.meta and doc.warnings == ()


# -- fixtures ----------------------------------------------------------------------------

_OLE_FIXTURES = [
    p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.read_bytes()[:8] == OLE_MAGIC
]


@pytest.mark.parametrize("path", _OLE_FIXTURES, ids=lambda p: p.name)
def test_every_compound_file_fixture_reads_the_same(path: Path) -> None:
    same(path.read_bytes(), rows=True)


def test_every_ordinary_fixture_is_read_natively() -> None:
    """What the Python reader reads without a remark among the fixtures -- the
    contaminated ones among them -- the native reader answers for."""
    ordinary, answered, contaminated = [], [], []
    for path in _OLE_FIXTURES:
        data = path.read_bytes()
        with python_only():
            ref = read(data, CAPS)
        if ref.format is Format.HWP5 and ref.status is None and not ref.warnings:
            ordinary.append(path.name)
            if ref.body:
                contaminated.append(path.name)
        if accepted(data):
            answered.append(path.name)
            assert accepted(data, body_only=True)
    assert len(contaminated) >= 2
    assert answered == ordinary


# -- generated documents ---------------------------------------------------------------

_GENERATED: dict[str, tuple[Callable[[], bytes], bool]] = {  # name: (file, answered)
    "dirty": (lambda: build_hwp5(DIRTY), True),
    "dirty-3-sections": (lambda: build_hwp5(DIRTY * 3, sections=3), True),
    "dirty-uncompressed": (lambda: build_hwp5(DIRTY, compressed=False), True),
    "dirty-no-controls": (lambda: build_hwp5(DIRTY, tabs_and_controls=False), True),
    "plain-then-dirty": (lambda: build_hwp5(CLEAN * 2 + DIRTY, sections=3), True),
    "dirty-then-plain": (lambda: build_hwp5(DIRTY + CLEAN * 4, sections=3), True),
    "plain-dirty-plain": (lambda: build_hwp5(CLEAN + DIRTY + CLEAN, sections=3), True),
    "many-sections": (lambda: build_hwp5(CLEAN * 6 + ["x" + PAIR] + CLEAN * 5, sections=12), True),
    "plain": (lambda: build_hwp5(CLEAN, sections=2), True),
    "fold-only": (lambda: build_hwp5(["a\ua000b", "c\ua8ffd"]), True),
    "fffd-only": (lambda: build_hwp5(["a\ufffdb"], preview=""), True),
    "lone-high": (lambda: build_hwp5(["a\ud800", "\udbff"]), True),
    "lone-low": (lambda: build_hwp5(["\udc00b"]), True),
    "pua-edges": (lambda: build_hwp5(["\ue000\uf8ff\uf900"]), True),
    "only-the-notable": (lambda: build_hwp5([PAIR]), True),
    "long-dirty": (lambda: build_hwp5(["가나다" * 300 + PAIR] * 40, sections=2), True),
    "dirty-preview-only": (lambda: build_hwp5(CLEAN, preview="a" + PAIR + "\r\n\r\nb\r\n"), True),
    "preview-lines": (
        lambda: build_hwp5(DIRTY, preview="\r\n" + PAIR + "\r\r\n\n\r\nz\x00\x00"),
        True,
    ),
    "preview-fd-ff-across": (lambda: build_hwp5(CLEAN, preview="\ufd41\u00ff"), True),
    "preview-fffd": (lambda: build_hwp5(DIRTY, preview="\ufffd\r\n"), True),
    "preview-all-nul": (lambda: build_hwp5(DIRTY, preview="\x00\x00"), True),
    "preview-empty": (lambda: build_hwp5(DIRTY, preview=""), True),
    "dirty-names": (lambda: build_hwp5(CLEAN, style_names=["바탕" + PAIR, "", "x\ue001"]), True),
    "dirty-names-and-body": (lambda: build_hwp5(DIRTY, style_names=["a", "\ufffd"]), True),
    "names-fd-ff-across": (lambda: build_hwp5(DIRTY, style_names=["\ufd41", "\u00ffb"]), True),
    "title": (lambda: build_hwp5(DIRTY, title="제목 " + PAIR), True),
    "password": (lambda: build_hwp5(DIRTY, password=True), False),
    "distribution": (lambda: build_hwp5(DIRTY, distribution=True), False),
}


@pytest.mark.parametrize("name", sorted(_GENERATED))
def test_generated_documents_read_the_same(name: str) -> None:
    make, answered = _GENERATED[name]
    assert same(make(), rows=True) is answered


# -- hand-made documents ---------------------------------------------------------------


def _units(*codes: int) -> bytes:
    return struct.pack(f"<{len(codes)}H", *codes)


S = hwp5_streams(DIRTY)
SECTION = inflate(S["BodyText/Section0"])
DOCINFO = inflate(S["DocInfo"])
CLEAN_SECTION = hwp5_streams(CLEAN)["BodyText/Section0"]

_UNUSUAL: dict[str, Callable[[], bytes]] = {
    "version-4": lambda: with_streams(S, FileHeader=header(0x04000000)),
    "password-bit": lambda: with_streams(S, FileHeader=header(flags=3)),
    "distribution-bit": lambda: with_streams(S, FileHeader=header(flags=5)),
    "no-docinfo": lambda: with_streams(S, DocInfo=None),
    "no-body": lambda: with_streams(S, BodyText__Section0=None),
    "viewtext-too": lambda: with_streams(S, ViewText__Section0=S["BodyText/Section0"]),
    "preview-odd": lambda: with_streams(
        S, PrvText=PAIR.encode("utf-16-le", "surrogatepass") + b"a"
    ),
    "docinfo-not-deflate": lambda: with_streams(S, DocInfo=b"\xff\xff"),
    "docinfo-cut": lambda: with_streams(S, DocInfo=S["DocInfo"][:-3]),
    "docinfo-record-past-end": lambda: with_streams(S, DocInfo=deflate(DOCINFO[:-1])),
    "docinfo-dirty-then-cut": lambda: with_streams(
        S,
        DocInfo=deflate(
            DOCINFO
            + record(spec.STYLE, b"\x01\x00\x00\xe0\x00\x00")
            + record(spec.STYLE, b"\x05\x00ab")
        ),
    ),
    "section-not-deflate": lambda: with_streams(S, BodyText__Section0=b"\x00\x01"),
    "section-cut": lambda: with_streams(S, BodyText__Section0=S["BodyText/Section0"][:-2]),
    "section-record-past-end": lambda: with_streams(S, BodyText__Section0=deflate(SECTION[:-1])),
    "section-header-cut": lambda: with_streams(
        S, BodyText__Section0=deflate(SECTION + b"\x42\x00")
    ),
    "section-lone-text": lambda: with_streams(
        S, BodyText__Section0=deflate(section(_units(0xE000), header=False))
    ),
    "section-odd-payload": lambda: with_streams(
        S, BodyText__Section0=deflate(section(_units(0xE000) + b"b"))
    ),
    "section-control-cut-after-notable": lambda: with_streams(
        S, BodyText__Section0=deflate(section(_units(0xE000, 2, 0, 0)))
    ),
    "section-control-cut-later-paragraph": lambda: with_streams(
        S, BodyText__Section0=deflate(section(_units(0xE000, 13), _units(65, 11, 0)))
    ),
    "plain-section-control-cut": lambda: with_streams(
        S,
        BodyText__Section0=deflate(section(_units(65, 3, 0))),
        BodyText__Section1=S["BodyText/Section0"],
    ),
    "dirty-later-section-cut": lambda: with_streams(S, BodyText__Section1=deflate(SECTION[:-1])),
    "section-number-too-long": lambda: with_streams(
        S, BodyText__Section1234567890123456789=S["BodyText/Section0"]
    ),
    # 19 digits: the number would overflow 64 bits (the digit bound comes first)
    "section-number-19-nines": lambda: with_streams(
        S, BodyText__Section9999999999999999999=S["BodyText/Section0"]
    ),
    "non-ascii-name": lambda: with_streams(S, 데이터=b"x"),
    "nested-storage": lambda: with_streams(S, BinData__a__b=b"x"),
}


@pytest.mark.parametrize("name", sorted(_UNUSUAL))
def test_unusual_documents_are_declined_and_read_the_same(name: str) -> None:
    data = _UNUSUAL[name]()
    assert not same(data, rows=True), name


_ACCEPTED: dict[str, Callable[[], bytes]] = {
    "names-any-case": lambda: write_cfb({k.lower(): v for k, v in S.items()}),
    "section-order-by-number": lambda: with_streams(
        S,
        BodyText__Section10=CLEAN_SECTION,
        BodyText__Section2=S["BodyText/Section0"],
        BodyText__Section02=CLEAN_SECTION,
        BodyText__Section0=deflate(section(_units(0xDBFF, 0xDFFF, 13))),
    ),
    "storages-case-apart": lambda: with_streams(
        S, bodytext__Section1=S["BodyText/Section0"], BODYTEXT__Section01=CLEAN_SECTION
    ),
    "section-numbers-long": lambda: with_streams(
        S, BodyText__Section000000000000000000000001=S["BodyText/Section0"]
    ),
    "notable-in-control-parameters": lambda: with_streams(
        S,
        BodyText__Section0=deflate(
            section(_units(11, 0xD800, 0xE000, 0xFFFD, 0, 0, 0, 11, 0xE000, 13))
        ),
    ),
    "every-control-dirty": lambda: with_streams(
        S,
        BodyText__Section0=deflate(
            section(
                b"".join(
                    _units(c, 1, 2, 3, 4, 5, 6, c)
                    if c in spec.INLINE_CONTROLS | spec.EXTENDED_CONTROLS
                    else _units(c, 0xE000 + c)
                    for c in range(32)
                )
            )
        ),
    ),
    "kept-controls-translated": lambda: with_streams(
        S, BodyText__Section0=deflate(section(_units(0xE000, 10, 24, 30, 31, 65, 0, 13)))
    ),
    "empty-payloads": lambda: with_streams(
        S, BodyText__Section0=deflate(section(b"", _units(0xE000), b"", _units(13)))
    ),
    "headers-without-text": lambda: with_streams(
        S, BodyText__Section0=deflate(record(66, b"") * 3 + SECTION + record(66, b""))
    ),
    "section-other-tags": lambda: with_streams(
        S, BodyText__Section0=deflate(record(71, b"\xd8" * 9) + SECTION + record(1023, b""))
    ),
    "extended-size": lambda: with_streams(
        S, BodyText__Section0=deflate(section(_units(0xE000) * 3000))
    ),
    "docinfo-no-names": lambda: with_streams(S, DocInfo=deflate(b"")),
    "no-preview": lambda: with_streams(S, PrvText=None),
    "other-flags": lambda: with_streams(S, FileHeader=header(flags=0x8E9)),
}


@pytest.mark.parametrize("name", sorted(_ACCEPTED))
def test_usual_variants_are_read_natively_and_the_same(name: str) -> None:
    assert same(_ACCEPTED[name](), rows=True), name


def test_caps_and_budgets_decline_as_the_python_reader_refuses() -> None:
    data = build_hwp5(DIRTY * 3, sections=2)
    assert same(data)
    section = len(inflate(hwp5_streams(DIRTY * 3, sections=2)["BodyText/Section0"]))
    for caps in (
        (section - 1, CAPS[1], CAPS[2]),  # a section inflates past the stream cap
        (CAPS[0], section, CAPS[2]),  # the document inflates past its cap
        (CAPS[0], CAPS[1], 3),  # more DocInfo names than the cap
        (CAPS[0], CAPS[1], -1),
    ):
        assert not same(data, caps), caps
    dirty_names = build_hwp5(DIRTY, style_names=["a" + PAIR, "b", "c"])
    assert same(dirty_names)
    assert not same(dirty_names, (CAPS[0], CAPS[1], 3))  # cut after the notable name


def test_a_body_near_the_segment_budget_is_declined() -> None:
    """Far below the budget of segments the native reader declines a contaminated body
    (MAX_SEGMENTS / 2 code units of text), so no budget is ever reached there."""
    half = hwp5_text.MAX_SEGMENTS // 2
    fits = with_streams(S, BodyText__Section0=deflate(section(_units(0xE000) * half)))
    assert same(fits)
    over = with_streams(S, BodyText__Section0=deflate(section(_units(0xE000) * (half + 1))))
    assert not same(over)
    plain = deflate(section(b"a\x00" * (half + 1)))
    small = deflate(section(b"b\x00" * 10))
    big_plain = with_streams(S, BodyText__Section0=plain, BodyText__Section1=small)
    assert same(big_plain)  # counted, not kept: answered
    big_then_dirty = with_streams(
        S, BodyText__Section0=plain, BodyText__Section1=S["BodyText/Section0"]
    )
    assert not same(big_then_dirty)


# -- mutations -------------------------------------------------------------------------

_BASES = {
    "compressed": hwp5_streams(
        DIRTY + CLEAN, sections=3, style_names=["바탕" + PAIR, "굴림"], preview="미리\r\n" + PAIR
    ),
    "uncompressed": hwp5_streams(CLEAN + DIRTY, compressed=False, sections=2),
    "plain-first": hwp5_streams(CLEAN * 3 + DIRTY[:2], sections=3),
}


def _sweep(seed: int, count: int) -> tuple[int, int, int]:
    """(answered natively, read by the reference without a remark, mutants): every
    mutant read both ways and held equal."""
    rng = random.Random(seed)
    answered = ordinary = 0
    for i in range(count):
        data = hwp5_mutant(rng, _BASES)
        took, ref = compared(data, rows=i % 16 == 0)
        assert accepted(data, body_only=True) >= took  # reads less: declines no more
        answered += took
        ordinary += ref.format is Format.HWP5 and ref.status is None and not ref.warnings
    print(
        f"HWP 5 mutants: {count}; answered natively {answered}, declined {count - answered};"
        f" read by the reference without a remark {ordinary}"
    )
    return answered, ordinary, count


def test_mutated_documents_read_the_same() -> None:
    answered, ordinary, count = _sweep(20261204, 3000)
    # both ways taken; of the mutants the reference reads without a remark (the cases
    # the native reader is for), nearly all answered natively
    assert answered < count
    assert answered >= 0.85 * ordinary > count // 4


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_many_mutated_documents_read_the_same(seed: int) -> None:
    answered, ordinary, count = _sweep(1000 + seed, 20_000)
    assert answered < count
    assert answered >= 0.85 * ordinary > count // 4


@pytest.mark.slow
def test_the_benchmark_corpus_reads_the_same() -> None:
    corpus = Path(__file__).resolve().parents[2] / "benchmarks" / "out" / "corpus"
    files = sorted(corpus.rglob("*.hwp"))[:2000]
    if not files:
        pytest.skip("no benchmark corpus (benchmarks/scan_throughput.py builds it)")
    answered = sum(same(p.read_bytes(), rows=True) for p in files)
    assert answered > len(files) // 2
