"""The native record walks (``hwpscan.formats._records``) against their Python twins.

:func:`~hwpscan.formats.hwp5_text._scan_free` and
:func:`~hwpscan.formats.hwp5._docinfo_spans` are the reference. The C walk of a section
answers exactly as the Python one for every stream and end (damaged tails, extended
sizes, sizes near 4 GB); the C DocInfo walk answers exactly as the Python one wherever
the Python one writes no warning, and hands the stream back (``None``) wherever it does.
Checked on hypothesis input, on every fixture's streams and on generated documents.
Skipped where the package was installed without a compiler.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.formats import hwp5, hwp5_text, native
from hwpscan.formats import hwp5_spec as spec
from hwpscan.formats.cfb_fast import open_cfb
from hwpscan.formats.hwp5_text import WarningList
from hwpscan.models import Segment
from hwpscan.native import wanted as native_wanted
from hwpscan.rehearsal.synth.hwp5 import Table, build_hwp5

records = pytest.importorskip("hwpscan.formats._records")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _record(tag: int, payload: bytes, level: int = 0, *, extended: bool = False) -> bytes:
    if extended or len(payload) >= 0xFFF:
        return struct.pack("<II", tag | level << 10 | 0xFFF << 20, len(payload)) + payload
    return struct.pack("<I", tag | level << 10 | len(payload) << 20) + payload


_TAGS = [spec.PARA_HEADER, spec.PARA_TEXT, spec.PARA_CHAR_SHAPE, spec.FACE_NAME, spec.STYLE]
_records = st.lists(
    st.builds(
        _record,
        st.sampled_from([*_TAGS, 71, 0, 1023, spec.PARA_HEADER | 0x100]),
        st.binary(max_size=24),
        st.integers(0, 3),
        extended=st.booleans(),
    ),
    max_size=30,
)
#: Whole records, then maybe a tail that breaks the stream: a header cut short, a size
#: past the end, an extended size near 4 GB.
_tails = st.one_of(
    st.binary(max_size=9),
    st.builds(
        lambda n: struct.pack("<II", spec.PARA_TEXT | 0xFFF << 20, n), st.integers(0, 2**32 - 1)
    ),
)
_streams = st.tuples(_records, _tails).map(lambda t: b"".join(t[0]) + t[1])


def _name(text: str) -> bytes:
    raw = text.encode("utf-16-le", "surrogatepass")
    return struct.pack("<H", len(raw) // 2) + raw


_names = st.text(max_size=6).map(_name)
#: FACE_NAME and STYLE records as writers make them (every property bit), and cut.
_name_records = st.one_of(
    st.builds(
        lambda prop, a, kind, b, info, c: _record(
            spec.FACE_NAME, bytes([prop]) + a + kind + b + info + c
        ),
        st.integers(0, 255),
        _names,
        st.binary(min_size=0, max_size=1),
        _names,
        st.binary(min_size=0, max_size=10),
        _names,
    ),
    st.builds(
        lambda a, b, rest: _record(spec.STYLE, a + b + rest), _names, _names, st.binary(max_size=8)
    ),
    st.builds(_record, st.sampled_from(_TAGS), st.binary(max_size=12)),
)
_docinfo = st.tuples(st.lists(_name_records, max_size=12), _tails).map(
    lambda t: b"".join(t[0]) + t[1]
)


def _assert_same_walk(data: bytes) -> None:
    for end in (len(data), len(data) // 2, max(0, len(data) - 3)):
        for counted in (True, False):
            assert records.scan_free(data, end, counted) == hwp5_text._scan_free(data, end, counted)


def _assert_same_spans(data: bytes, cap: int) -> None:
    warnings: list[str] = []
    want = hwp5._docinfo_spans(data, warnings, cap)
    got = records.docinfo_spans(data, cap)
    if warnings:
        assert got is None, warnings
    else:
        assert got == want
    _assert_same_plain_names(data, cap)


def _assert_same_plain_names(data: bytes, cap: int) -> None:
    """``docinfo_plain`` counts exactly where the Python reader would count the names
    of a plain DocInfo from their spans with nothing to warn, and nowhere else (its
    None sends the reader the old way, which decides as before)."""
    warnings: list[str] = []
    spans, cut = hwp5._docinfo_spans(data, warnings, cap)
    counts = hwp5._plain_names(data, spans) if spans else None
    got = records.docinfo_plain(data, cap)
    if warnings or cut is not None or counts is None:
        assert got is None, (warnings, cut, counts)
    else:
        assert got == tuple(counts)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_streams)
@pytest.mark.slow
def test_the_native_section_walk_answers_as_the_python_walk(data: bytes) -> None:
    _assert_same_walk(data)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_docinfo, cap=st.integers(0, 8))
@pytest.mark.slow
def test_the_native_docinfo_walk_answers_as_the_python_walk_or_hands_it_back(
    data: bytes, cap: int
) -> None:
    _assert_same_spans(data, cap)
    _assert_same_spans(data, 50_000)


def test_a_docinfo_walk_that_would_warn_is_handed_back() -> None:
    face = _record(spec.FACE_NAME, b"\x80" + _name("바탕"))  # an alternative name missing
    cut = _record(spec.STYLE, _name("본문") + _name("Body"))[:-2]
    for data in (face, cut, _record(spec.STYLE, b"\x01\x00")):
        warnings: list[str] = []
        hwp5._docinfo_spans(data, warnings, 100)
        assert warnings
        assert records.docinfo_spans(data, 100) is None


def test_a_cut_by_the_name_cap_is_where_the_python_walk_cuts() -> None:
    data = b"".join(_record(spec.STYLE, _name(f"s{i}") + _name(f"e{i}")) for i in range(9))
    assert records.docinfo_spans(data, 5) == hwp5._docinfo_spans(data, [], 5)
    assert records.docinfo_spans(data, 5)[1] == 2  # record 2 holds names 5 and 6


@pytest.mark.parametrize(
    ("names", "counted"),
    [
        (["바탕", "본문\n"], (4, 5)),  # a line break is a unit and no character
        (["바탕", "\ufffd"], False),  # U+FFFD: the names are analysed, not counted
        (["바탕", "\ue000"], False),  # private use
        (["바탕", "\udb80\udeb1"], False),  # a pair
        (["\ufd41", "\u00ff"], False),  # bytes FD FF across two units, as is_plain sees them
        ([], False),  # no name: nothing to count
    ],
)
def test_a_plain_docinfo_is_counted_without_spans(names: list[str], counted: object) -> None:
    data = b"".join(_record(spec.FACE_NAME, b"\x00" + _name(n)) for n in names)
    data += _record(spec.PARA_TEXT, b"\xff\xfd\x00\xd8")  # another record: not read
    got = records.docinfo_plain(data, 100)
    assert got == (counted or None)
    _assert_same_plain_names(data, 100)
    if names and counted:
        assert records.docinfo_plain(data, len(names) - 1) is None  # the cap cuts: no count


def test_wrong_arguments_raise_instead_of_reading() -> None:
    with pytest.raises(TypeError):
        records.scan_free("text", 4, True)
    with pytest.raises(TypeError):
        records.scan_free(b"")
    with pytest.raises(TypeError):
        records.docinfo_spans(b"", "cap")
    assert records.docinfo_spans(b"", -1) is None  # a negative cap: the Python walk's
    with pytest.raises(TypeError):
        records.docinfo_plain(b"", "cap")
    assert records.docinfo_plain(_record(spec.STYLE, _name("a") + _name("b")), -1) is None


def _streams_of(data: bytes) -> list[bytes]:
    cfb = open_cfb(data)
    if cfb is None:
        return []
    out = []
    for path in cfb.paths:
        if path.lower() == "docinfo" or path.lower().startswith("bodytext/"):
            raw = cfb.read(path)
            try:
                out.append(zlib.decompress(raw, -15))
            except zlib.error:
                out.append(raw)
    return out


def test_every_fixture_and_generated_document_walks_alike() -> None:
    documents = [p.read_bytes() for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    documents += [
        build_hwp5(["본문", "\ud83d\ude00 쌍", "외톨이 \udb80", Table([["a", "b"], ["c", "d"]])]),
        build_hwp5(["x" * 5000] * 3, compressed=False),
    ]
    walked = 0
    for document in documents:
        for stream in _streams_of(document):
            _assert_same_walk(stream)
            _assert_same_spans(stream, 50_000)
            walked += 1
    assert walked > 50


def test_the_readers_use_the_native_walks_when_built() -> None:
    on = native_wanted()  # HWPSCAN_PURE_PYTHON turns them off
    assert native.ACTIVE is on
    assert hwp5_text._NATIVE_SCAN is (records.scan_free if on else None)
    assert hwp5._NATIVE_SPANS is (records.docinfo_spans if on else None)
    assert hwp5._NATIVE_PLAIN_NAMES is (records.docinfo_plain if on else None)


def test_an_extended_size_cut_short_stops_the_walk_as_in_python() -> None:
    head = struct.pack("<I", spec.PARA_TEXT | 0xFFF << 20)
    whole = _record(spec.PARA_HEADER, b"") + _record(spec.PARA_TEXT, b"ab")
    for cut in range(4):
        data = whole + head + b"\x05\x00\x00\x00"[:cut]
        _assert_same_walk(data)
        assert records.scan_free(data, len(data), True)[3] == len(data) + 1


#: Code units a section's text holds: text, every control, surrogates, private use,
#: U+FFFD and their neighbours.
_UNITS = st.one_of(
    st.integers(0, 31),
    st.sampled_from([0x41, 0xAC00, 0xD7A3, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xF8FF]),
    st.sampled_from([0xF900, 0xFFFD, 0xFFFC, 0xFDFF, 0xFFFF, 0x0A0D, 0xFD41]),
)


def _section_units(
    paragraphs: list[list[int]], controls: list[int], default: int = 9
) -> tuple[bytes, list[int]]:
    """UTF-16LE units of paragraphs with whole 8-unit controls (parameters that look like
    anything, *default* where the unit there is no such control) put in at *controls*,
    as writers do, and the paragraphs' sizes (the last one takes what the controls
    added)."""
    flat = [u for p in paragraphs for u in p]
    for at in controls:
        if flat:
            i = at % len(flat)
            code = flat[i] if flat[i] in hwp5_text._WIDE else default
            flat[i : i + 1] = [code, 0xDC07, 0xE000, 0xFFFD, 0x0D, 0x0A, 0xD800, code]
    sizes, rest = [], len(flat)
    for p in paragraphs:
        n = min(len(p), rest)
        sizes.append(n)
        rest -= n
    if sizes:
        sizes[-1] += rest
    return struct.pack(f"<{len(flat)}H", *flat), sizes


def _python_plain_counts(raw: bytes, sizes: list[int], warnings: list[str]) -> object:
    text = hwp5_text.SectionText(len(sizes), [(0, 0, p) for p in range(len(sizes))], sizes, raw)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(hwp5_text, "_NATIVE_PLAIN", None)
        return hwp5_text.plain_counts(text, "s", warnings)


def _assert_same_counts(raw: bytes, sizes: list[int]) -> None:
    warnings: list[str] = []
    want = _python_plain_counts(raw, sizes, warnings)
    got = records.plain_counts(raw, sizes)
    if got is False:  # a notable unit in the text proper: the Python code answers None
        assert want is None and not warnings, (warnings, want)
    elif warnings or want is None:
        assert got is None, (warnings, want)
    else:
        assert got == tuple(want)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paragraphs=st.lists(st.lists(_UNITS, max_size=30), max_size=6),
    controls=st.lists(st.integers(0, 200), max_size=4),
)
@pytest.mark.slow
def test_the_native_counts_of_a_section_answer_as_the_python_counts(
    paragraphs: list[list[int]], controls: list[int]
) -> None:
    raw, sizes = _section_units(paragraphs, controls, default=2)
    _assert_same_counts(raw, sizes)


def test_the_native_counts_take_parameters_for_no_text() -> None:
    secd = [2, 0x6573, 0x6463, 0xDC07, 0, 0, 0, 2]  # a section definition, surrogate-like
    tab = [9, 0, 0, 0, 0, 0, 0, 9]
    text = [*secd, 0xAC00, *tab, 0x41, 10, 24, 30, 31, 0, 13]
    raw = struct.pack(f"<{len(text)}H", *text)
    assert records.plain_counts(raw, [len(text)]) == (6, 7)  # 가 \t A - nbsp space, \n
    _assert_same_counts(raw, [len(text)])
    for bad in ([0xDC07], [0xE000], [0xFFFD]):  # in the text: told at once
        raw = struct.pack(f"<{len(text) + len(bad)}H", *text, *bad)
        assert records.plain_counts(raw, [len(text) + len(bad)]) is False
        _assert_same_counts(raw, [len(text) + len(bad)])
        # sizes that do not cover the text: the Python code decides
        assert records.plain_counts(raw, [len(text)]) is None
        assert records.plain_counts(raw, [len(text) + len(bad), 1]) is None
    raw = struct.pack(f"<{len(text) + 3}H", *text, 2, 0, 0)  # a control cut short: it warns
    assert records.plain_counts(raw, [len(text) + 3]) is None
    _assert_same_counts(raw, [len(text) + 3])


def test_sizes_that_do_not_cover_the_text_are_left_to_python() -> None:
    raw = "abc".encode("utf-16-le")
    assert records.plain_counts(raw, [2]) is None
    assert records.plain_counts(raw, [4]) is None
    assert records.plain_counts(raw, [-1, 4]) is None
    assert records.plain_counts(raw + b"x", [3]) is None
    with pytest.raises(TypeError):
        records.plain_counts(raw, (3,))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paragraphs=st.lists(st.lists(_UNITS, max_size=30), max_size=6),
    controls=st.lists(st.integers(0, 200), max_size=4),
    first=st.integers(0, 3),
    limit=st.one_of(st.just(-1), st.integers(0, 12)),
    stream=st.sampled_from(["BodyText/Section0", "본문", "s\udc00"]),
)
@pytest.mark.slow
def test_the_native_segments_of_a_section_are_the_python_segments(
    paragraphs: list[list[int]], controls: list[int], first: int, limit: int, stream: str
) -> None:
    raw, sizes = _section_units(paragraphs, controls)
    hits = [(0, 0, first + 2**40 * (p == 3) + p) for p in range(len(sizes))]
    text = hwp5_text.SectionText(len(sizes), hits, sizes, raw)
    big = records.codeunit_view(raw)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(hwp5_text, "_NATIVE_VIEW", None)
        assert big == hwp5_text.codeunit_view(raw)
    start = [Segment("earlier", 0, 0, "x")] * first  # a section after others
    out, warnings = list(start), hwp5_text.WarningList(["before"], cap=2)
    want_out, want_warnings = list(start), hwp5_text.WarningList(["before"], cap=2)
    bound = -1 if limit < 0 else first + limit
    done = records.paragraph_runs(
        big, hits, sizes, stream, out, warnings, bound, Segment, hwp5_text._TRANSLATE
    )
    want = hwp5_text._paragraph_runs(big, text, stream, want_out, want_warnings, bound)
    assert (done, out, warnings) == (want, want_out, want_warnings)
    assert warnings.final() == want_warnings.final()  # the dropped ones counted alike
    assert all(type(seg) is Segment for seg in out)


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=64).map(lambda b: b[: len(b) & ~1]))
def test_the_native_codeunit_view_is_the_python_one(raw: bytes) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(hwp5_text, "_NATIVE_VIEW", None)
        want = hwp5_text.codeunit_view(raw)
    got = records.codeunit_view(raw)
    assert got == want and len(got) == len(raw) // 2


def test_the_native_segments_refuse_what_python_would_not_take() -> None:
    big = "ab\r"
    for hits, sizes in (
        ([(0, 0, 0)], [4]),
        ([(0, 0, 0)], []),
        ([(0, 0)], [3]),
        ([(0, 0, 0)], [-1]),
    ):
        out: list[Segment] = []
        assert records.paragraph_runs(big, hits, sizes, "s", out, [], -1, Segment, {}) is None
        assert out == []
    with pytest.raises(TypeError):
        records.paragraph_runs(big, [], [], "s", (), [], -1, Segment, {})
    # segments going to a list of another kind are left to the Python code
    assert (
        records.paragraph_runs(big, [(0, 0, 0)], [3], "s", WarningList(), [], -1, Segment, {})
        is None
    )
    with pytest.raises(ValueError, match="odd"):
        records.codeunit_view(b"abc")
    assert hwp5_text.codeunit_view(b"a\x00\x00\xd8") == "a\ud800"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_streams, units=st.one_of(st.none(), st.integers(0, 40)))
@pytest.mark.slow
def test_a_section_text_is_joined_alike_in_c_and_in_python(data: bytes, units: int | None) -> None:
    def read(native_join: object) -> tuple[object, list[str], object]:
        warnings: list[str] = []
        budget = None if units is None else hwp5_text.Budget(units=units)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(hwp5_text, "_NATIVE_JOIN", native_join)
            text = hwp5_text.section_text(data, "s", warnings, budget)
        return text, warnings, budget

    assert read(records.join_payloads) == read(None)


def test_payloads_not_whole_inside_the_data_are_left_to_python() -> None:
    data = b"abcdef"
    assert records.join_payloads(data, [(0, 3, 0), (3, 6, 1)]) == (b"ab" + b"de", [1, 1], 6)
    for hits in ([(0, 7, 0)], [(4, 3, 0)], [(-1, 2, 0)], [(0, 2)], [(0, 2**70, 0)]):
        assert records.join_payloads(data, hits) is None
