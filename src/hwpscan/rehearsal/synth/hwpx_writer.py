"""A small, deterministic HWPX (OWPML) writer for test fixtures.

A ZIP package (KS X 6101): ``mimetype`` first and stored, ``version.xml``,
``META-INF/container.xml``, ``Contents/content.hpf``, ``header.xml`` and
``sectionN.xml``. The same input gives the same bytes. XML is UTF-8, so U+F02B1 is
written as itself; a lone surrogate is refused.

>>> import io, zipfile
>>> data = build_hwpx(["보도자료", [["구분", "내용"], ["일시", "7.21."]]])
>>> names = zipfile.ZipFile(io.BytesIO(data)).namelist()
>>> names[0], names[-1]
('mimetype', 'Contents/section0.xml')
>>> data[30:38], data[38:57]
(b'mimetype', b'application/hwp+zip')
"""

from __future__ import annotations

import hashlib
import io
import itertools
import re
import zipfile
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass

#: A paragraph (``str``) or a table (a list of rows, each a list of cell texts).
Block = str | list[list[str]]

MIMETYPE = b"application/hwp+zip"
#: The timestamp of every entry (the earliest a ZIP can carry): no clock in the output.
ZIP_DATE_TIME = (1980, 1, 1, 0, 0, 0)

_NS = {
    "ha": "http://www.hancom.co.kr/hwpml/2011/app",
    "hp": "http://www.hancom.co.kr/hwpml/2011/paragraph",
    "hs": "http://www.hancom.co.kr/hwpml/2011/section",
    "hc": "http://www.hancom.co.kr/hwpml/2011/core",
    "hh": "http://www.hancom.co.kr/hwpml/2011/head",
    "hpf": "http://www.hancom.co.kr/schema/2011/hpf",
    "opf": "http://www.idpf.org/2007/opf/",
    "ocf": "urn:oasis:names:tc:opendocument:xmlns:container",
}
_XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>'
#: Characters XML 1.0 cannot carry: C0 controls other than tab/LF/CR, surrogates, U+FFFE/F.
_NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_CELL_WIDTH = 8000
_CELL_HEIGHT = 1000
#: Characters per laid-out line of an A4 page in Hancom's default body style (10 pt).
_LINE_CHARS = 45
#: The languages of a font list in ``header.xml`` (each lists its own fonts).
_FONT_LANGS = ("HANGUL", "LATIN", "HANJA", "JAPANESE", "OTHER", "SYMBOL", "USER")
#: Hancom's default template styles (바탕글 .. 캡션): every real document carries them.
TEMPLATE_STYLES = (
    *("바탕글", "본문", *(f"개요 {n}" for n in range(1, 11)), "쪽 번호", "머리말", "각주"),
    *("미주", "메모", "차례 제목", "차례 1", "차례 2", "차례 3", "캡션"),
)


def _xmlns(*prefixes: str) -> str:
    return " ".join(f'xmlns:{p}="{_NS[p]}"' for p in prefixes)


def xml_text(text: str) -> str:
    """Escape *text* for an XML text node; refuse what XML cannot carry.

    >>> xml_text("A & <B> " + chr(0xF02B1)) == "A &amp; &lt;B&gt; " + chr(0xF02B1)
    True
    >>> xml_text("x" + chr(0xDB80))
    Traceback (most recent call last):
    ...
    ValueError: XML cannot carry U+DB80 at position 1
    """
    bad = _NOT_XML_RE.search(text)
    if bad is not None:
        raise ValueError(f"XML cannot carry U+{ord(bad.group()):04X} at position {bad.start()}")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _SectionWriter:
    """Writes one ``hs:sec``; numbers paragraphs and tables in document order."""

    def __init__(self, *, layout: bool = False) -> None:
        self.para_ids, self.table_ids = itertools.count(), itertools.count()
        self.layout = layout

    def paragraph(self, inner: str, chars: int = 0, pid: int | None = None) -> str:
        pid = next(self.para_ids) if pid is None else pid
        return (
            f'<hp:p id="{pid}" paraPrIDRef="0" styleIDRef="0" pageBreak="0" '
            f'columnBreak="0" merged="0"><hp:run charPrIDRef="0">{inner}</hp:run>'
            f"{self.lines(chars)}</hp:p>"
        )

    def lines(self, chars: int) -> str:
        """The laid-out lines of a paragraph of *chars* characters, as Hancom Office
        writes them after its runs (one ``hp:lineseg`` per line); none without layout."""
        if not self.layout:
            return ""
        count = max(1, -(-chars // _LINE_CHARS))
        segs = "".join(
            f'<hp:lineseg textpos="{i * _LINE_CHARS}" vertpos="{i * 1600}" vertsize="1000" '
            'textheight="1000" baseline="850" spacing="600" horzpos="0" horzsize="42520" '
            'flags="393216"/>'
            for i in range(count)
        )
        return f"<hp:linesegarray>{segs}</hp:linesegarray>"

    def text_paragraph(self, text: str) -> str:
        return self.paragraph(f"<hp:t>{xml_text(text)}</hp:t>", len(text))

    def table(self, rows: Sequence[Sequence[str]]) -> str:
        n_rows = len(rows)
        n_cols = max((len(r) for r in rows), default=0)
        if n_rows == 0 or n_cols == 0:
            raise ValueError("a table needs at least one row and one cell")
        tid = next(self.table_ids)
        head = (
            f'<hp:tbl id="{1000 + tid}" zOrder="{tid}" numberingType="TABLE" '
            f'textWrap="TOP_AND_BOTTOM" textFlow="BOTH_SIDES" lock="0" dropcapstyle="None" '
            f'pageBreak="CELL" repeatHeader="1" rowCnt="{n_rows}" colCnt="{n_cols}" '
            f'cellSpacing="0" borderFillIDRef="1" noAdjust="0">'
            f'<hp:sz width="{_CELL_WIDTH * n_cols}" widthRelTo="ABSOLUTE" '
            f'height="{_CELL_HEIGHT * n_rows}" heightRelTo="ABSOLUTE" protect="0"/>'
            '<hp:pos treatAsChar="1" affectLSpacing="0" flowWithText="1" allowOverlap="0" '
            'holdAnchorAndSO="0" vertRelTo="PARA" horzRelTo="COLUMN" vertAlign="TOP" '
            'horzAlign="LEFT" vertOffset="0" horzOffset="0"/>'
        )
        out = [head]
        for r, row in enumerate(rows):
            cells = (self._cell(r, c, row[c] if c < len(row) else "") for c in range(n_cols))
            out.append(f"<hp:tr>{''.join(cells)}</hp:tr>")
        return "".join(out) + "</hp:tbl>"

    def _cell(self, r: int, c: int, text: str) -> str:
        return (
            '<hp:tc name="" header="0" hasMargin="0" protect="0" editable="0" '
            'dirty="0" borderFillIDRef="1">'
            '<hp:subList id="" textDirection="HORIZONTAL" lineWrap="BREAK" '
            'vertAlign="CENTER" linkListIDRef="0" linkListNextIDRef="0" '
            'textWidth="0" textHeight="0" hasTextRef="0" hasNumRef="0">'
            f"{self.text_paragraph(text)}</hp:subList>"
            f'<hp:cellAddr colAddr="{c}" rowAddr="{r}"/>'
            '<hp:cellSpan colSpan="1" rowSpan="1"/>'
            f'<hp:cellSz width="{_CELL_WIDTH}" height="{_CELL_HEIGHT}"/>'
            '<hp:cellMargin left="510" right="510" top="141" bottom="141"/></hp:tc>'
        )

    def render(self, blocks: Sequence[Block], *, first: bool) -> bytes:
        body: list[str] = []
        if first:
            body.append(self.paragraph(_SEC_PR + "<hp:t/>"))
        for block in blocks:
            if isinstance(block, str):
                body.append(self.text_paragraph(block))
            else:
                pid = next(self.para_ids)  # the anchor paragraph first, as Hancom numbers
                body.append(self.paragraph(self.table(block) + "<hp:t/>", pid=pid))
        xml = f"{_XML_DECL}<hs:sec {_xmlns('ha', 'hp', 'hs', 'hc', 'hh')}>{''.join(body)}</hs:sec>"
        return xml.encode("utf-8")


_SEC_PR = (
    '<hp:secPr id="" textDirection="HORIZONTAL" spaceColumns="1134" tabStop="8000" '
    'tabStopVal="4000" tabStopUnit="HWPUNIT" outlineShapeIDRef="0" memoShapeIDRef="0" '
    'textVerticalWidthHead="0" masterPageCnt="0">'
    '<hp:pagePr landscape="WIDELY" width="59528" height="84186" gutterType="LEFT_ONLY">'
    '<hp:margin header="4252" footer="4252" gutter="0" left="8504" right="8504" '
    'top="5668" bottom="4252"/></hp:pagePr></hp:secPr>'
)


def _split_sections(blocks: Sequence[Block], sections: int) -> list[Sequence[Block]]:
    """Cut *blocks* into *sections* consecutive, nearly equal runs (some may be empty).

    >>> [len(s) for s in _split_sections(list("abcde"), 2)]
    [3, 2]
    """
    if sections < 1:
        raise ValueError("sections must be at least 1")
    size, extra = divmod(len(blocks), sections)
    ends = [(i + 1) * size + min(i + 1, extra) for i in range(sections)]
    return [blocks[end - size - (i < extra) : end] for i, end in enumerate(ends)]


def _header_xml(sections: int, template: bool) -> bytes:
    """``header.xml``: one font, shape and style (바탕글), or with *template* the
    reference lists of Hancom's default template (two fonts for each of the seven
    languages, a character and a paragraph shape per style, the template's styles)."""
    styles: tuple[str, ...] = ("바탕글",)
    faces: tuple[str, ...] = ("함초롬바탕",)
    langs: tuple[str, ...] = ("HANGUL",)
    type_info, char_extra, para_extra = "/>", "", ""
    if template:
        styles, faces, langs = TEMPLATE_STYLES, ("함초롬바탕", "함초롬돋움"), _FONT_LANGS
        type_info = (
            '><hh:typeInfo familyType="FCAT_GOTHIC" weight="6" proportion="4" contrast="0" '
            'strokeVariation="1" armStyle="1" letterform="1" midline="1" xHeight="1"/></hh:font>'
        )
        char_extra = (
            '<hh:ratio hangul="100" latin="100" hanja="100" japanese="100" other="100" '
            'symbol="100" user="100"/><hh:spacing hangul="0" latin="0" hanja="0" japanese="0" '
            'other="0" symbol="0" user="0"/>'
        )
        para_extra = (
            '<hh:heading type="NONE" idRef="0" level="0"/>'
            '<hh:breakSetting breakLatinWord="KEEP_WORD" breakNonLatinWord="KEEP_WORD" '
            'widowOrphan="0" keepWithNext="0" keepLines="0" pageBreakBefore="0" lineWrap="BREAK"/>'
            '<hh:margin><hc:intent value="0" unit="HWPUNIT"/><hc:left value="{left}" '
            'unit="HWPUNIT"/><hc:right value="0" unit="HWPUNIT"/><hc:prev value="0" '
            'unit="HWPUNIT"/><hc:next value="0" unit="HWPUNIT"/></hh:margin>'
            '<hh:lineSpacing type="PERCENT" value="160" unit="HWPUNIT"/>'
        )
    fonts = "".join(
        f'<hh:font id="{i}" face="{face}" type="TTF" isEmbedded="0"{type_info}'
        for i, face in enumerate(faces)
    )
    n = len(styles)
    chars = "".join(
        f'<hh:charPr id="{i}" height="{1000 + 100 * (i % 5)}" textColor="#000000" '
        'shadeColor="none" useFontSpace="0" useKerning="0" symMark="NONE" borderFillIDRef="1">'
        '<hh:fontRef hangul="0" latin="0" hanja="0" japanese="0" other="0" symbol="0" user="0"/>'
        f"{char_extra}</hh:charPr>"
        for i in range(n)
    )
    paras = "".join(
        f'<hh:paraPr id="{i}" tabPrIDRef="0" condense="0" fontLineHeight="0" snapToGrid="1" '
        'suppressLineNumbers="0" checked="0"><hh:align horizontal="JUSTIFY" '
        f'vertical="BASELINE"/>{para_extra.format(left=i * 1000)}</hh:paraPr>'
        for i in range(n)
    )
    english = "" if template else "Normal"
    xml = (
        f'{_XML_DECL}<hh:head {_xmlns("ha", "hp", "hs", "hc", "hh")} version="1.4" '
        f'secCnt="{sections}">'
        '<hh:beginNum page="1" footnote="1" endnote="1" pic="1" tbl="1" equation="1"/>'
        f'<hh:refList><hh:fontfaces itemCnt="{len(langs)}">'
        + "".join(
            f'<hh:fontface lang="{lang}" fontCnt="{len(faces)}">{fonts}</hh:fontface>'
            for lang in langs
        )
        + "</hh:fontfaces>"
        '<hh:borderFills itemCnt="1"><hh:borderFill id="1" threeD="0" shadow="0" '
        'centerLine="NONE" breakCellSeparateLine="0"/></hh:borderFills>'
        f'<hh:charProperties itemCnt="{n}">{chars}</hh:charProperties>'
        f'<hh:paraProperties itemCnt="{n}">{paras}</hh:paraProperties>'
        f'<hh:styles itemCnt="{n}">'
        + "".join(
            f'<hh:style id="{i}" type="PARA" name="{xml_text(name)}" engName="{english}" '
            f'paraPrIDRef="{i}" charPrIDRef="{i}" nextStyleIDRef="{i}" langID="1042" lockForm="0"/>'
            for i, name in enumerate(styles)
        )
        + "</hh:styles></hh:refList></hh:head>"
    )
    return xml.encode("utf-8")


def _content_hpf(sections: int, title: str, images: int = 0) -> bytes:
    parts = ["header", *(f"section{i}" for i in range(sections))]
    items = [
        f'<opf:item id="{p}" href="Contents/{p}.xml" media-type="application/xml"/>' for p in parts
    ]
    items += [
        f'<opf:item id="image{i}" href="BinData/image{i}.png" media-type="image/png" '
        'isEmbeded="1"/>'
        for i in range(1, images + 1)
    ]
    refs = [f'<opf:itemref idref="{p}" linear="yes"/>' for p in parts]
    xml = (
        f"{_XML_DECL}<opf:package {_xmlns('ha', 'hp', 'hs', 'hc', 'hh', 'hpf', 'opf')} "
        'version="" unique-identifier="" id="">'
        f"<opf:metadata><opf:title>{xml_text(title)}</opf:title>"
        "<opf:language>ko</opf:language></opf:metadata>"
        f"<opf:manifest>{''.join(items)}</opf:manifest>"
        f"<opf:spine>{''.join(refs)}</opf:spine></opf:package>"
    )
    return xml.encode("utf-8")


_CONTAINER_XML = (
    f"{_XML_DECL}<ocf:container {_xmlns('ocf', 'hpf')}><ocf:rootfiles>"
    '<ocf:rootfile full-path="Contents/content.hpf" '
    'media-type="application/hwpml-package+xml"/></ocf:rootfiles></ocf:container>'
).encode()

_VERSION_XML = (
    f'{_XML_DECL}<hv:HCFVersion xmlns:hv="http://www.hancom.co.kr/hwpml/2011/version" '
    'tagetApplication="WORDPROCESSOR" major="5" minor="1" micro="0" buildNumber="1" '
    'os="1" xmlVersion="1.4" application="hwpscan synth" appVersion="1"/>'
).encode()


def zip_package(
    entries: Mapping[str, bytes], *, stored: Container[str] = (), version: int = 0
) -> bytes:
    """A ZIP of *entries* in order, deflated but for the *stored* names, each with the
    same timestamp and attributes; *version*: "version needed to extract" (x10)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE_TIME)
            info.compress_type = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
            info.create_system = 0
            if version:
                info.extract_version = version
            zf.writestr(info, data, compresslevel=6)
    return buf.getvalue()


#: Where :func:`build_hwpx` puts ``mimetype``: first stored (the spec), first deflated, last, none.
MIMETYPE_PLACES = ("first", "deflated", "late", "none")


def _manifest_xml(parts: Sequence[str]) -> bytes:
    """An ODF-style ``META-INF/manifest.xml`` declaring *parts* encrypted (AES-256-CBC,
    PBKDF2), the way a password-protected HWPX announces it."""
    entries = "".join(
        f'<odf:file-entry full-path="{p}" media-type="application/xml">'
        '<odf:encryption-data checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0'
        '#sha256-1k" checksum="AAAA">'
        '<odf:algorithm algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" '
        'initialisation-vector="AAAA"/>'
        '<odf:key-derivation key-derivation-name="urn:oasis:names:tc:opendocument:xmlns:'
        'manifest:1.0#pbkdf2" key-size="32" iteration-count="1024" salt="AAAA"/>'
        "</odf:encryption-data></odf:file-entry>"
        for p in parts
    )
    return (
        f'{_XML_DECL}<odf:manifest xmlns:odf="urn:oasis:names:tc:opendocument:xmlns:'
        f'manifest:1.0">{entries}</odf:manifest>'
    ).encode()


@dataclass(frozen=True)
class HancomLayout:
    """What Hancom Office writes into every package beyond the text: laid-out lines,
    the default template's reference lists, and *images* (``BinData/imageN.png``)."""

    images: tuple[bytes, ...] = ()


def build_hwpx(
    blocks: Sequence[Block],
    *,
    sections: int = 1,
    title: str = "",
    mimetype: str = "first",
    backslash: bool = False,
    encrypted: bool = False,
    version_needed: int = 0,
    hancom: HancomLayout | None = None,
) -> bytes:
    """An HWPX package holding *blocks* (a ``str`` is a paragraph, a list of rows of cell
    texts a table) in *sections* section parts. The keywords write what real packages
    do: *mimetype* in one of :data:`MIMETYPE_PLACES`; *backslash* names entries
    ``Contents\\section0.xml``; *encrypted* declares the parts encrypted in
    ``META-INF/manifest.xml`` and stores noise; *version_needed* sets each entry's
    "version needed to extract" (x10); *hancom*: see :class:`HancomLayout`."""
    if mimetype not in MIMETYPE_PLACES:
        raise ValueError(f"mimetype must be one of {MIMETYPE_PLACES}")
    images = () if hancom is None else hancom.images
    content = {"Contents/header.xml": _header_xml(sections, hancom is not None)}
    for i, part in enumerate(_split_sections(blocks, sections)):
        writer = _SectionWriter(layout=hancom is not None)
        content[f"Contents/section{i}.xml"] = writer.render(part, first=i == 0)
    if encrypted:
        content = {
            name: hashlib.shake_256(b"hwpx cipher " + data).digest(len(data) + 16)
            for name, data in content.items()
        }
    sep = "\\" if backslash else "/"
    entries: dict[str, bytes] = {}
    if mimetype in ("first", "deflated"):
        entries["mimetype"] = MIMETYPE
    entries["version.xml"] = _VERSION_XML
    entries[f"META-INF{sep}container.xml"] = _CONTAINER_XML
    if encrypted:
        entries["META-INF/manifest.xml"] = _manifest_xml(list(content))
    entries[f"Contents{sep}content.hpf"] = _content_hpf(sections, title, len(images))
    entries.update((name.replace("/", sep), data) for name, data in content.items())
    images_at = {f"BinData{sep}image{i}.png": image for i, image in enumerate(images, 1)}
    entries.update(images_at)  # images are kept as they are: stored
    if mimetype == "late":
        entries["mimetype"] = MIMETYPE
    stored = {*images_at, *(["mimetype"] if mimetype == "first" else [])}
    return zip_package(entries, stored=stored, version=version_needed)
