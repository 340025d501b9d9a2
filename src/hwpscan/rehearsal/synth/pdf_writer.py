"""A minimal, deterministic PDF writer whose text comes back through a ToUnicode CMap.

No font program: a Type0 font gives each distinct character a two-byte code and its
``ToUnicode`` CMap maps it back as UTF-16BE (U+F02B1 as ``<DB80DEB1>``).
``broken_cmap=True`` writes the malformed CMap real files carry, mapping a character
outside the BMP to its high half alone, which pypdf returns as a lone surrogate.

>>> data = build_pdf([["금융감독원 보도자료"]])
>>> data[:8], data.rstrip().endswith(b"%%EOF")
(b'%PDF-1.7', True)
"""

from __future__ import annotations

import base64
import hashlib
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

_PAGE_WIDTH = 595
_PAGE_HEIGHT = 842
_MARGIN_X = 56
_TOP_Y = 786
_FONT_SIZE = 10
_LEADING = 16
_FIRST_PAGE = 7  # objects 1-6: catalog, pages, fonts, descriptor, CMap
_BFCHAR_MAX = 100  # the CMap syntax allows at most 100 entries per bfchar block


def glyph_codes(pages: Sequence[Sequence[str]]) -> dict[str, int]:
    """One glyph code per distinct character, numbered from 1 by first appearance.

    >>> glyph_codes([["aba"], ["c"]])
    {'a': 1, 'b': 2, 'c': 3}
    """
    chars = dict.fromkeys(ch for page in pages for line in page for ch in line)
    codes = {ch: code for code, ch in enumerate(chars, 1)}
    if len(codes) > 0xD7FF:  # keep codes clear of the surrogate range pypdf decodes them in
        raise ValueError("too many distinct characters for one synthetic font")
    return codes


def _utf16be(text: str) -> str:
    return text.encode("utf-16-be", "surrogatepass").hex().upper()


def tounicode_cmap(codes: dict[str, int], *, broken: bool = False) -> bytes:
    """The ToUnicode CMap program mapping each glyph code to its character (*broken*: a
    character outside the BMP to its high half only).

    >>> b"<0001> <DB80DEB1>" in tounicode_cmap({chr(0xF02B1): 1})
    True
    >>> b"<0001> <DB80>" in tounicode_cmap({chr(0xF02B1): 1}, broken=True)
    True
    """
    cut = {ch: 4 if broken and ord(ch) > 0xFFFF else None for ch in codes}
    entries = [f"<{code:04X}> <{_utf16be(ch)[: cut[ch]]}>" for ch, code in codes.items()]
    chunks = [entries[start : start + _BFCHAR_MAX] for start in range(0, len(entries), _BFCHAR_MAX)]
    blocks = "".join(f"{len(c)} beginbfchar\n" + "\n".join(c) + "\nendbfchar\n" for c in chunks)
    return (_CMAP_HEAD + blocks + _CMAP_TAIL).encode("ascii")


_CMAP_HEAD = (
    "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
    "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
    "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
    "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
)
_CMAP_TAIL = "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"


def _content_stream(lines: Sequence[str], codes: dict[str, int]) -> bytes:
    ops = [f"BT /F1 {_FONT_SIZE} Tf {_MARGIN_X} {_TOP_Y} Td"]
    for i, line in enumerate(lines):
        if i:
            ops.append(f"0 -{_LEADING} Td")
        if line:
            ops.append("<" + "".join(f"{codes[ch]:04X}" for ch in line) + "> Tj")
    ops.append("ET")
    return ("\n".join(ops) + "\n").encode("ascii")


def _stream(dictionary: str, data: bytes) -> bytes:
    return f"<< {dictionary} /Length {len(data)} >>\nstream\n".encode("ascii") + data + b"endstream"


@dataclass(frozen=True, slots=True)
class PdfExtras:
    """Real-world variations of :func:`build_pdf`, all off by default (pages 0-based)."""

    #: content encoded with a filter no reader knows: pypdf raises, PDFium finds no text
    bad_filter_pages: tuple[int, ...] = ()
    junk: bytes = b""  # before the %PDF- header; offsets count it
    #: "rc4" (RC4-128, empty user password), "rc4-password" (user password 1234),
    #: "rc4-104" (a 13-byte key the cryptography package refuses), "pubsec" (certificates)
    encryption: str | None = None
    annotations: dict[int, tuple[str, ...]] = field(default_factory=dict)  # text, per page
    fields: tuple[tuple[str, str], ...] = ()  # form text fields: (name, value)
    font_encoding: bytes = b"Identity-H"  # the font's /Encoding name as written (#1B: ESC)
    #: also draw a JBIG2 image (a codec pypdf needs a program for; text never decodes it)
    jbig2_image_pages: tuple[int, ...] = ()
    #: ("array" or "dict", n): nested n deep in every page's /Resources (recursion fails)
    deep_resources: tuple[str, int] | None = None
    #: content ASCII85-encoded under /A85, a name old producers write and pypdf refuses
    a85_pages: tuple[int, ...] = ()
    plain_unknown_filter_pages: tuple[int, ...] = ()  # an unknown filter over plain content
    self_drawing_pages: tuple[int, ...] = ()  # also draw a form XObject that draws itself
    page_tree_depth: int = 0  # a chain of this many intermediate /Pages nodes
    linearized: bool = False  # a linearization dictionary, written first


#: The 32-byte padding string of the standard security handler (ISO 32000-1, 7.6.3.3).
_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
#: The file identifier of every encrypted fixture: fixed, so the bytes are reproducible.
_FILE_ID = hashlib.md5(b"hwpscan synth pdf").digest()
_PERMISSIONS = -3904
_OWNER_PASSWORD = b"hwpscan-owner"
USER_PASSWORD = b"1234"


def _rc4(key: bytes, data: bytes) -> bytes:
    """RC4, as the standard security handler uses it (test fixtures only)."""
    box = list(range(256))
    j = 0
    for i in range(256):
        j = (j + box[i] + key[i % len(key)]) & 0xFF
        box[i], box[j] = box[j], box[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) & 0xFF
        j = (j + box[i]) & 0xFF
        box[i], box[j] = box[j], box[i]
        out.append(byte ^ box[(box[i] + box[j]) & 0xFF])
    return bytes(out)


def _rc4_rounds(key: bytes, data: bytes) -> bytes:
    for i in range(20):
        data = _rc4(bytes(b ^ i for b in key), data)
    return data


def _md5_50(data: bytes, size: int = 16) -> bytes:
    digest = hashlib.md5(data).digest()[:size]
    for _ in range(50):
        digest = hashlib.md5(digest).digest()[:size]
    return digest


def _standard_security(user: bytes, size: int = 16) -> tuple[bytes, bytes, bytes]:
    """(file key, /O, /U) for revision 3 RC4 with a *size*-byte key (algorithms 2, 3, 5)."""
    owner_key = _md5_50((_OWNER_PASSWORD + _PAD)[:32])[:size]
    o_value = _rc4_rounds(owner_key, (user + _PAD)[:32])
    key = _md5_50((user + _PAD)[:32] + o_value + struct.pack("<i", _PERMISSIONS) + _FILE_ID, size)
    u_value = _rc4_rounds(key, hashlib.md5(_PAD + _FILE_ID).digest()) + bytes(16)
    return key, o_value, u_value


def _object_key(key: bytes, number: int) -> bytes:
    digest = hashlib.md5(key + number.to_bytes(3, "little") + b"\0\0").digest()
    return digest[: min(len(key) + 5, 16)]


def _text_string(text: str) -> str:
    """A PDF text string: UTF-16BE with its byte order mark, as hex."""
    return f"<FEFF{_utf16be(text)}>"


def build_pdf(
    pages: Sequence[Sequence[str]], *, broken_cmap: bool = False, extras: PdfExtras | None = None
) -> bytes:
    """A PDF with one page of text lines per item of *pages* (at least one)."""
    if not pages:
        raise ValueError("a PDF needs at least one page")
    extras = extras or PdfExtras()
    codes = glyph_codes(pages)
    n_pages = len(pages)
    page_ids = [_FIRST_PAGE + 2 * i for i in range(n_pages)]
    tail = _Tail(extras, codes, _FIRST_PAGE + 2 * n_pages, page_ids)
    form = f" /AcroForm << /Fields [{_refs(tail.field_ids)}] >>" if tail.field_ids else ""
    top_kids = _refs(tail.tree_ids[:1] or page_ids)
    objects: list[bytes] = [
        f"<< /Type /Catalog /Pages 2 0 R{form} >>".encode("ascii"),
        f"<< /Type /Pages /Kids [{top_kids}] /Count {n_pages} >>".encode("ascii"),
        (
            b"<< /Type /Font /Subtype /Type0 /BaseFont /HwpscanSynth /Encoding /"
            + extras.font_encoding
            + b" /DescendantFonts [4 0 R] /ToUnicode 6 0 R >>"
        ),
        (
            b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /HwpscanSynth "
            b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "
            b"/FontDescriptor 5 0 R /DW 1000 /CIDToGIDMap /Identity >>"
        ),
        (
            b"<< /Type /FontDescriptor /FontName /HwpscanSynth /Flags 4 "
            b"/FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 880 /Descent -120 "
            b"/CapHeight 700 /StemV 80 >>"
        ),
        _stream("", tounicode_cmap(codes, broken=broken_cmap)),
    ]
    for i, lines in enumerate(pages):
        objects += _page(i, lines, codes, extras, tail)
    objects += tail.objects
    trailer_extra = ""
    if extras.encryption is not None:
        objects = _encrypt(objects, extras.encryption)
        trailer_extra = f" /Encrypt {len(objects)} 0 R /ID [<{_FILE_ID.hex()}> <{_FILE_ID.hex()}>]"
    if extras.linearized:  # its parameter dictionary is the last object, written first
        linear = f"/Linearized 1 /L 0 /H [0 0] /O {page_ids[0]} /E 0 /N {n_pages} /T 0"
        objects.append(f"<< {linear} >>".encode())
    return write_pdf(objects, junk=extras.junk, trailer=trailer_extra, last_first=extras.linearized)


def _refs(ids: Sequence[int]) -> str:
    return " ".join(f"{i} 0 R" for i in ids)


class _Tail:
    """The objects after the pages, numbered from *first*, and their numbers."""

    def __init__(self, extras: PdfExtras, codes: dict[str, int], first: int, pages: list[int]):
        self.first = first
        self.objects: list[bytes] = []
        self.annot_ids: dict[int, list[int]] = {}
        for page, notes in sorted(extras.annotations.items()):
            for note in notes:
                body = "/Type /Annot /Subtype /Text /Rect [56 56 76 76] /Contents "
                self.annot_ids.setdefault(page, []).append(self._add(body + _text_string(note)))
        self.field_ids = [
            self._add(f"/FT /Tx /T {_text_string(name)} /V {_text_string(value)} {_WIDGET}")
            for name, value in extras.fields
        ]
        self.image_id = self.form_id = 0
        if extras.jbig2_image_pages:
            noise = hashlib.shake_256(b"hwpscan jbig2").digest(300)
            self.image_id = self._add(_stream(_JBIG2, noise))
        if extras.self_drawing_pages:
            form = self.first + len(self.objects)
            drawn = _content_stream([next(iter(codes))], codes)
            drawn = b"q 0.5 0 0 0.5 0 0 cm /Fm1 Do Q\n" + drawn
            fm1 = f"/Resources << /Font << /F1 3 0 R >> /XObject << /Fm1 {form} 0 R >> >>"
            self.form_id = self._add(_stream(f"/Type /XObject /Subtype /Form {_BBOX} {fm1}", drawn))
        start = self.first + len(self.objects)
        self.tree_ids = [start + k for k in range(extras.page_tree_depth)]
        for k in range(len(self.tree_ids)):
            kids = _refs(self.tree_ids[k + 1 : k + 2] or pages)
            parent = self.tree_ids[k - 1] if k else 2
            self._add(f"/Type /Pages /Parent {parent} 0 R /Kids [{kids}] /Count {len(pages)}")

    def _add(self, body: str | bytes) -> int:
        """Add an object (a ``str``: a dictionary's entries) and return its number."""
        self.objects.append(body if isinstance(body, bytes) else f"<< {body} >>".encode("ascii"))
        return self.first + len(self.objects) - 1


_WIDGET = "/Rect [56 20 300 40] /Subtype /Widget"
_JBIG2 = (
    "/Type /XObject /Subtype /Image /Width 64 /Height 64 /BitsPerComponent 1 "
    "/ColorSpace /DeviceGray /Filter /JBIG2Decode"
)
_BBOX = "/BBox [0 0 595 842]"


def _page(
    i: int, lines: Sequence[str], codes: dict[str, int], extras: PdfExtras, tail: _Tail
) -> list[bytes]:
    """Page *i*'s page object and content stream."""
    annots = tail.annot_ids.get(i)
    annot = f" /Annots [{_refs(annots)}]" if annots else ""
    image = i in extras.jbig2_image_pages
    selfish = i in extras.self_drawing_pages
    im1, fm1 = f" /Im1 {tail.image_id} 0 R", f" /Fm1 {tail.form_id} 0 R"
    xobjects = (im1 if image else "") + (fm1 if selfish else "")
    xobject = f" /XObject <<{xobjects} >>" if xobjects else ""
    xobject += _nested(extras.deep_resources)
    parent = tail.tree_ids[-1] if tail.tree_ids else 2
    page = (
        f"<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 {_PAGE_WIDTH} {_PAGE_HEIGHT}] "
        f"/Resources << /Font << /F1 3 0 R >>{xobject} >> "
        f"/Contents {_FIRST_PAGE + 2 * i + 1} 0 R{annot} >>"
    )
    drawn = b"q 64 0 0 64 56 56 cm /Im1 Do Q\n" if image else b""
    drawn += b"q /Fm1 Do Q\n" if selfish else b""
    content = drawn + _content_stream(lines, codes)
    if i in extras.bad_filter_pages:  # encoded for real: no reader can decode it
        stream = _stream("/Filter /HwpscanUnknownDecode", zlib.compress(content, 9))
    elif i in extras.plain_unknown_filter_pages:
        stream = _stream("/Filter /HwpscanUnknownDecode", content)
    elif i in extras.a85_pages:
        stream = _stream("/Filter /A85", base64.a85encode(content) + b"~>")
    else:
        stream = _stream("", content)
    return [page.encode("ascii"), stream]


def write_pdf(
    objects: list[bytes], *, junk: bytes = b"", trailer: str = "", last_first: bool = False
) -> bytes:
    """A PDF of *objects* (object 1 the catalog) with its xref table and trailer: *junk*
    before the header, *trailer* in the trailer dictionary, *last_first*: the last object
    written first (a linearized file's parameter dictionary)."""
    out = bytearray(junk + b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = [0] * len(objects)
    order = list(range(len(objects)))
    if last_first:
        order.insert(0, order.pop())
    for index in order:
        offsets[index] = len(out)
        out += b"%d 0 obj\n" % (index + 1) + objects[index] + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\n" % (len(objects) + 1, trailer.encode())
    return bytes(out + b"startxref\n%d\n%%%%EOF\n" % xref_at)


def _nested(deep: tuple[str, int] | None) -> str:
    """A ``/Deep`` resource entry nested *n* levels (see :class:`PdfExtras`).

    >>> _nested(("array", 2)), _nested(("dict", 2)), _nested(None)
    (' /Deep [[0]]', ' /Deep << /A << /A 0 >> >>', '')
    """
    if deep is None:
        return ""
    (head, tail), depth = {"array": ("[", "]"), "dict": ("<< /A ", " >>")}[deep[0]], deep[1]
    return " /Deep " + head * depth + "0" + tail * depth


def _encrypt(objects: list[bytes], how: str) -> list[bytes]:
    """Encrypt every stream of *objects* and append the encryption dictionary."""
    if how == "pubsec":
        recipient = hashlib.shake_256(b"hwpscan recipient").hexdigest(96)
        pubsec = "/Filter /Adobe.PubSec /SubFilter /adbe.pkcs7.s4 /V 4 /R 4 /Length 128"
        return [*objects, f"<< {pubsec} /Recipients [<{recipient}>] >>".encode("ascii")]
    if how not in ("rc4", "rc4-password", "rc4-104"):
        raise ValueError(f"unknown encryption {how!r}")
    user = USER_PASSWORD if how == "rc4-password" else b""
    bits = 104 if how == "rc4-104" else 128
    key, o_value, u_value = _standard_security(user, bits // 8)

    def encrypted(number: int, body: bytes) -> bytes:  # RC4 keeps the length: /Length stays
        head, sep, rest = body.partition(b"stream\n")
        if not (sep and rest.endswith(b"endstream")):
            return body
        return (
            head + sep + _rc4(_object_key(key, number), rest[: -len(b"endstream")]) + b"endstream"
        )

    standard = (
        f"<< /Filter /Standard /V 2 /R 3 /Length {bits} /O <{o_value.hex()}> "
        f"/U <{u_value.hex()}> /P {_PERMISSIONS} >>"
    )
    return [*(encrypted(n, body) for n, body in enumerate(objects, 1)), standard.encode("ascii")]
