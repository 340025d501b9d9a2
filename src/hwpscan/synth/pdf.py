"""A minimal, deterministic PDF writer whose text comes back through a ToUnicode CMap.

No font program is embedded. Each page draws its lines with a Type0 font (encoding
``Identity-H``): every distinct character of the document gets a two-byte glyph code
(CID 1, 2, ... in order of first appearance), and the font's ``ToUnicode`` CMap maps
each code back to the character as UTF-16BE. That is all a text extractor such as
pypdf needs, and it can map a code to anything: Korean syllables, BMP private use,
and characters outside the BMP such as U+F02B1 (written as the surrogate pair
``<DB80DEB1>``, the way UTF-16BE spells it).

``broken_cmap=True`` writes the malformed CMap real files have carried: every
character outside the BMP is mapped to its *high surrogate alone* (``<DB80>`` for
U+F02B1). pypdf decodes CMap strings with ``errors="surrogatepass"``, so its
``extract_text`` returns a lone surrogate code point (``chr(0xDB80)``) where the
character was -- not U+FFFD, and no exception.

There is no creation date and no file ``/ID``: the same pages give the same bytes.

>>> data = build_pdf([["금융감독원 보도자료"]])
>>> data[:8], data.rstrip().endswith(b"%%EOF")
(b'%PDF-1.7', True)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["build_pdf", "glyph_codes", "tounicode_cmap"]

_PAGE_WIDTH = 595
_PAGE_HEIGHT = 842
_MARGIN_X = 56
_TOP_Y = 786
_FONT_SIZE = 10
_LEADING = 16
_BFCHAR_MAX = 100  # the CMap syntax allows at most 100 entries per bfchar block


def glyph_codes(pages: Sequence[Sequence[str]]) -> dict[str, int]:
    """One glyph code per distinct character, numbered from 1 by first appearance.

    >>> glyph_codes([["aba"], ["c"]])
    {'a': 1, 'b': 2, 'c': 3}
    """
    codes: dict[str, int] = {}
    for page in pages:
        for line in page:
            for ch in line:
                if ch not in codes:
                    codes[ch] = len(codes) + 1
    if len(codes) > 0xD7FF:  # keep codes clear of the surrogate range pypdf decodes them in
        raise ValueError("too many distinct characters for one synthetic font")
    return codes


def _utf16be_hex(ch: str, *, broken: bool) -> str:
    """The CMap destination for *ch*: UTF-16BE hex, or only the high half if *broken*.

    >>> _utf16be_hex("가", broken=False), _utf16be_hex(chr(0xF02B1), broken=False)
    ('AC00', 'DB80DEB1')
    >>> _utf16be_hex(chr(0xF02B1), broken=True)
    'DB80'
    """
    hexed = ch.encode("utf-16-be", "surrogatepass").hex().upper()
    if broken and ord(ch) > 0xFFFF:
        return hexed[:4]
    return hexed


def tounicode_cmap(codes: dict[str, int], *, broken: bool = False) -> bytes:
    """The ToUnicode CMap program mapping each glyph code to its character.

    >>> b"<0001> <AC00>" in tounicode_cmap({"가": 1})
    True
    """
    entries = [f"<{code:04X}> <{_utf16be_hex(ch, broken=broken)}>" for ch, code in codes.items()]
    lines = [
        "/CIDInit /ProcSet findresource begin",
        "12 dict begin",
        "begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def",
        "/CMapType 2 def",
        "1 begincodespacerange",
        "<0000> <FFFF>",
        "endcodespacerange",
    ]
    for start in range(0, len(entries), _BFCHAR_MAX):
        chunk = entries[start : start + _BFCHAR_MAX]
        lines.append(f"{len(chunk)} beginbfchar")
        lines.extend(chunk)
        lines.append("endbfchar")
    lines += [
        "endcmap",
        "CMapName currentdict /CMap defineresource pop",
        "end",
        "end",
    ]
    return ("\n".join(lines) + "\n").encode("ascii")


def _content_stream(lines: Sequence[str], codes: dict[str, int]) -> bytes:
    ops = [f"BT /F1 {_FONT_SIZE} Tf {_MARGIN_X} {_TOP_Y} Td"]
    for i, line in enumerate(lines):
        if i:
            ops.append(f"0 -{_LEADING} Td")
        if line:
            hexed = "".join(f"{codes[ch]:04X}" for ch in line)
            ops.append(f"<{hexed}> Tj")
    ops.append("ET")
    return ("\n".join(ops) + "\n").encode("ascii")


def _stream(dictionary: str, data: bytes) -> bytes:
    return (
        f"<< {dictionary} /Length {len(data)} >>\nstream\n".encode("ascii") + data + (b"endstream")
    )


def build_pdf(pages: Sequence[Sequence[str]], *, broken_cmap: bool = False) -> bytes:
    """A PDF with one page per item of *pages*, each a sequence of text lines.

    ``broken_cmap`` maps every character outside the BMP to its high surrogate alone
    (see the module docstring). Identical arguments give identical bytes.

    >>> build_pdf([["가"]]) == build_pdf([["가"]])
    True
    >>> build_pdf([])
    Traceback (most recent call last):
    ...
    ValueError: a PDF needs at least one page
    """
    if not pages:
        raise ValueError("a PDF needs at least one page")
    codes = glyph_codes(pages)
    n_pages = len(pages)
    first_page = 7  # objects 1-6: catalog, pages, fonts, descriptor, CMap
    page_ids = [first_page + 2 * i for i in range(n_pages)]
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        (
            f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {n_pages} >>"
        ).encode("ascii"),
        (
            b"<< /Type /Font /Subtype /Type0 /BaseFont /HwpscanSynth /Encoding /Identity-H "
            b"/DescendantFonts [4 0 R] /ToUnicode 6 0 R >>"
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
        objects.append(
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_PAGE_WIDTH} {_PAGE_HEIGHT}] "
                f"/Resources << /Font << /F1 3 0 R >> >> /Contents {page_ids[i] + 1} 0 R >>"
            ).encode("ascii")
        )
        objects.append(_stream("", _content_stream(lines, codes)))
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode("ascii") + body + b"\nendobj\n"
    xref_at = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode("ascii")
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref_at}\n%%EOF\n"
    ).encode("ascii")
    return bytes(out)
