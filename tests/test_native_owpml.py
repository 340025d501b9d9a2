"""The native HWPX section walk (``hwpscan.formats._owpml``) against its expat twin.

:func:`hwpscan.formats.hwpx.section_text` is the reference. For every input the C walk
either declines (``None``) or returns exactly the paragraph texts the expat walk adds,
and it never accepts a part expat refuses. Checked on every fixture's sections, on
generated packages, on hand-made XML covering each construct the C walk reads or
declines, and on a hypothesis-driven stream of mutated sections. Skipped where the
package was installed without a compiler.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwpscan.errors import FormatError
from hwpscan.formats import hwpx
from hwpscan.formats.hwpx import MAX_DEPTH, _Walk, section_text
from hwpscan.rehearsal.synth.hwpx import build_hwpx

_owpml = pytest.importorskip("hwpscan.formats._owpml")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
NS = (
    'xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
    'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"'
)


def _sections(data: bytes) -> list[bytes]:
    """The section parts of a package (none for a file that is no readable ZIP)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return [
                archive.read(n)
                for n in archive.namelist()
                if "section" in n.lower() and n.lower().endswith(".xml")
            ]
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError):
        return []
    except Exception:  # zlib.error and the like: a damaged fixture
        return []


def _expat(xml: bytes, max_paragraphs: int = 1_000_000) -> list[str | None] | None:
    walk = _Walk(max_paragraphs=max_paragraphs)
    try:
        section_text([xml], walk, "section0.xml")
    except (FormatError, LookupError):  # LookupError: an encoding expat does not know
        return None
    return walk.slots


def _agree(xml: bytes, max_paragraphs: int = 1_000_000) -> list[str] | None:
    """The C walk's answer, held to expat's: declined, or the very same texts."""
    got = _owpml.section_texts(xml, MAX_DEPTH, max_paragraphs)
    if got is not None:
        assert got == _expat(xml, max_paragraphs), xml[:300]
    return got


def _wrap(body: str, head: str = '<?xml version="1.0" encoding="UTF-8"?>') -> bytes:
    return f"{head}<hs:sec {NS}>{body}</hs:sec>".encode()


_FIXTURE_SECTIONS = [x for p in sorted(FIXTURES.rglob("*.hwpx")) for x in _sections(p.read_bytes())]


def test_every_fixture_section_is_read_in_c_and_agrees() -> None:
    assert _FIXTURE_SECTIONS
    read = [_agree(x) for x in _FIXTURE_SECTIONS]
    assert sum(r is not None for r in read) >= len(read) - 2  # the damaged ones decline


def test_generated_packages_agree() -> None:
    blocks: list[object] = ["보도자료 " + chr(0xF02B1), [["구분", "내용"], ["가", "나"]], "끝"]
    for n in (1, 5, 40):
        for sections in (1, 2):
            for xml in _sections(build_hwpx(blocks * n, sections=sections)):  # type: ignore[arg-type]
                assert _agree(xml) is not None


READ = [
    "<hp:p><hp:run><hp:t>가&amp;나 &lt;&gt;&quot;&apos; &#65;&#x1F600;&#xF02B1;</hp:t>"
    "</hp:run></hp:p>",
    "<hp:p><hp:run><hp:t>a<hp:lineBreak/>b<hp:tab>x</hp:tab>c<hp:nbSpace/><hp:fwSpace/>"
    "<hp:hyphen/><hp:markpenBegin color='red'/>d<hp:markpenEnd/></hp:t></hp:run></hp:p>",
    "<hp:p><hp:run><hp:t><![CDATA[<raw> & ]]></hp:t><hp:lineBreak/><hp:tab/>"
    '<hp:ctrl id="TAB"/><hp:ctrl id="t&#65;b"/><hp:ctrl id="x"/></hp:run></hp:p>',
    "<hp:p><hp:run><hp:t>p <hp:p><hp:run><hp:t>안쪽</hp:t></hp:run></hp:p> 뒤</hp:t>"
    "</hp:run></hp:p>",
    "<!-- note --><?pi data?><hp:p ><hp:run\n\tx = 'a>b' ><hp:t>t</hp:t ></hp:run></hp:p>",
    "<hp:p><hp:run><hp:t xml:space='preserve'>  </hp:t></hp:run></hp:p><hp:p/>",
]


@pytest.mark.parametrize("body", READ)
def test_constructs_the_c_walk_reads(body: str) -> None:
    assert _agree(_wrap(body)) is not None


def test_byte_order_mark_and_declarations_are_read() -> None:
    body = "<hp:p><hp:run><hp:t>x</hp:t></hp:run></hp:p>"
    for head in ("", '<?xml version="1.0"?>', "<?xml version='1.0' standalone='yes' ?>"):
        assert _agree(_wrap(body, head)) is not None
        assert _agree(b"\xef\xbb\xbf" + _wrap(body, head)) is not None


DECLINED = [
    "<hp:p><hp:run><hp:t>a\rb</hp:t></hp:run></hp:p>",  # expat turns CR into LF
    "<hp:p><hp:run><hp:t>&nbsp;</hp:t></hp:run></hp:p>",  # undefined entity
    "<hp:p><hp:run><hp:t>&#0;</hp:t></hp:run></hp:p>",  # not an XML character
    "<hp:p><hp:run><hp:t>&#xD800;</hp:t></hp:run></hp:p>",
    "<hp:p><hp:run><hp:t>a]]>b</hp:t></hp:run></hp:p>",
    "<hp:p><hp:run><hp:t>a</hp:run></hp:p>",  # mismatched end tag
    "<hp:p><zz:run/></hp:p>",  # unbound prefix
    "<hp:p a='1' a='2'/>",  # duplicate attribute
    "<hp:p a='1'b='2'/>",  # no space between attributes
    "<hp:p a='<'/>",
    "<hp:p zz:a='1'/>",  # an attribute prefix other than xml:
    "<hp:p xmlns:x='urn:x'><x:t/></hp:p>",  # a declaration below the root
    "<hp:p><hp:t>\x01</hp:t></hp:p>",
    "<hp:p><hp:t>\ufffe</hp:t></hp:p>",
    "<hp:p><!-- a -- b --></hp:p>",
    "<hp:p><?xml version='1.0'?></hp:p>",
    "<hp:p>",  # unclosed
    "<가/>",  # a name that is not ASCII
]


@pytest.mark.parametrize("body", DECLINED)
def test_constructs_left_to_expat(body: str) -> None:
    assert _agree(_wrap(body)) is None


def test_outside_the_root_and_declarations() -> None:
    good = "<hp:p><hp:run><hp:t>x</hp:t></hp:run></hp:p>"
    for xml in (
        _wrap(good) + b"<second/>",
        _wrap(good) + b"tail",
        b"lead" + _wrap(good),
        b" " + _wrap(good),  # the XML declaration must come first
        _wrap(good, '<?xml version="1.1"?>'),
        _wrap(good, '<?xml version="1.0" encoding="EUC-KR"?>'),
        _wrap(good, '<!DOCTYPE x [<!ENTITY e "boom">]>'),
        b"",
        b"\xff" + _wrap(good),
    ):
        assert _agree(xml) is None


def test_budgets_are_left_to_expat() -> None:
    deep = _wrap("<hp:p>" * (MAX_DEPTH + 1) + "</hp:p>" * (MAX_DEPTH + 1))
    assert _agree(deep) is None
    three = _wrap("<hp:p/>" * 3)
    assert _agree(three, max_paragraphs=3) == ["", "", ""]
    assert _agree(three, max_paragraphs=2) is None


def test_the_package_reads_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    packages = [p.read_bytes() for p in sorted(FIXTURES.rglob("*.hwpx"))]
    fast = [hwpx.read_zip(p) for p in packages]
    monkeypatch.setattr(hwpx.native, "owpml_section", None)
    slow = [hwpx.read_zip(p) for p in packages]
    assert fast == slow


_BASE = _wrap(READ[0] + READ[1] + READ[2] + READ[3])
_PIECES = st.sampled_from(
    [
        b"<",
        b">",
        b"&",
        b";",
        b"/",
        b"'",
        b'"',
        b"]]>",
        b"\r",
        b"\n",
        b" ",
        b"=",
        b"#x",
        b"&amp;",
        b"<hp:t>",
        b"</hp:t>",
        b"<hp:p>",
        b"</hp:p>",
        b"<![CDATA[",
        b"<!--",
        b"-->",
        b"\xea\xb0",
        b"\x80",
        b"xmlns:q='u'",
        b"hp:",
        b"<hp:lineBreak/>",
        b"\x00",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(_BASE)), st.integers(0, 3), _PIECES), max_size=4))
def test_mutated_sections_never_disagree(edits: list[tuple[int, int, bytes]]) -> None:
    xml = _BASE
    for where, cut, piece in edits:
        at = min(where, len(xml))
        xml = xml[:at] + piece + xml[at + cut :]
    _agree(xml)
