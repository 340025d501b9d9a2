"""Seeded mutants of our generator's documents, to drive a native reader against its
Python reference (``tests/formats/test_native_hwp5_reader.py``,
``tests/formats/test_native_hwpx_walk.py``).

- :func:`hwp5_mutant`: an HWP 5 compound file with bytes changed, in a stream (inflated
  first when compressed) or in the container itself (its header, directory, anywhere);
- :func:`zip_mutant`: an HWPX package with one field of its ZIP structure changed: a
  central directory entry's or local header's sizes, CRC, method, flags, name or extra
  lengths, offset; the end record's counts, offset and size; or the file cut short;
- :func:`xml_mutant`: an HWPX section part changed where XML is hard to read right:
  namespace declarations (reserved prefixes and names, rebinding, undeclared or
  unbound prefixes, declarations below the root), the XML declaration (version,
  ``encoding=``, ``standalone``, a byte order mark, a second one), entity and
  character references, CDATA sections, comments and processing instructions.

Every mutant is a function of the ``random.Random`` it is given, so a fixed seed gives
the same mutants on every run.
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib

from hwpscan.rehearsal.synth.cfb import write_cfb

# -- HWP 5 --------------------------------------------------------------------------------

#: What a mutated byte may become besides a random value: the high bytes of surrogates,
#: private use, U+FFFD and folded units, and control codes.
SPECIAL_BYTES = (0x00, 0xD8, 0xDC, 0xE0, 0xF8, 0xFF, 0xFD, 0xA0, 0x0D, 0x0A, 0x0B, 0x09, 0x18)


def _deflate(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    return comp.compress(data) + comp.flush()


def mutated_stream(rng: random.Random, data: bytes) -> bytes:
    """*data* with one to three bytes changed, and now and then cut short."""
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        if not out:
            break
        at = rng.randrange(len(out))
        choice = rng.random()
        if choice < 0.5:
            out[at] = rng.randrange(256)
        elif choice < 0.7:
            out[at] ^= 1 << rng.randrange(8)
        else:
            out[at] = rng.choice(SPECIAL_BYTES)
    if rng.random() < 0.1:
        del out[rng.randrange(len(out) + 1) :]
    return bytes(out)


def hwp5_mutant(
    rng: random.Random, bases: dict[str, dict[str, bytes]], container: float = 0.2
) -> bytes:
    """A document of *bases* (its streams, by name; ``uncompressed`` is the one whose
    streams are stored as they are) with a stream's bytes changed (inflated first when
    compressed), or, one time in ``1 / container``, the compound file's own bytes."""
    name = rng.choice(sorted(bases))
    streams = dict(bases[name])
    if rng.random() < container:  # the container: anywhere, or in its header or directory
        whole = bytearray(write_cfb(streams))
        (directory,) = struct.unpack_from("<I", whole, 48)
        for _ in range(rng.choice((1, 2))):
            where = rng.choice((0, len(whole), 512 * (directory + 1)))
            at = rng.randrange(where, where + 512) if where < len(whole) else rng.randrange(where)
            whole[at] = rng.choice((rng.randrange(256), 0, 0xFF, 0xFE))
        return bytes(whole)
    path = rng.choice(sorted(streams))
    data = streams[path]
    packed = name != "uncompressed" and (path == "DocInfo" or path.startswith("BodyText"))
    if packed and rng.random() < 0.85:
        streams[path] = _deflate(mutated_stream(rng, zlib.decompressobj(-15).decompress(data)))
    else:
        streams[path] = mutated_stream(rng, data)
    return write_cfb(streams)


# -- the ZIP package of an HWPX file --------------------------------------------------------

#: (offset, width) of the fields a mutant changes, in a central directory entry...
_CENTRAL_FIELDS = {
    "flags": (8, 2), "method": (10, 2), "crc": (16, 4), "compressed size": (20, 4),
    "size": (24, 4), "name length": (28, 2), "extra length": (30, 2),
    "comment length": (32, 2), "disk": (34, 2), "local header offset": (42, 4),
}  # fmt: skip
#: ...in a local header...
_LOCAL_FIELDS = {
    "flags": (6, 2), "method": (8, 2), "crc": (14, 4), "compressed size": (18, 4),
    "size": (22, 4), "name length": (26, 2), "extra length": (28, 2),
}  # fmt: skip
#: ...and in the end of central directory record.
_END_FIELDS = {
    "disk": (4, 2), "directory disk": (6, 2), "entries here": (8, 2), "entries": (10, 2),
    "directory size": (12, 4), "directory offset": (16, 4), "comment length": (20, 2),
}  # fmt: skip


def _new_value(rng: random.Random, old: int, width: int) -> int:
    top = (1 << (8 * width)) - 1
    return rng.choice(
        (old + 1, old - 1, old + rng.randrange(1, 64), old - rng.randrange(1, 64), old * 2,
         old // 2, 0, top, rng.randrange(top + 1), old ^ (1 << rng.randrange(8 * width)))
    ) & top  # fmt: skip


def _records(data: bytes, signature: bytes) -> list[int]:
    out, at = [], data.find(signature)
    while at >= 0:
        out.append(at)
        at = data.find(signature, at + 1)
    return out


def zip_mutant(rng: random.Random, package: bytes) -> tuple[str, bytes]:
    """(what was changed, *package* with one field of its ZIP structure changed): mostly
    of a section part's entry, where the native walk would then read."""
    out = bytearray(package)
    central = _records(package, b"PK\x01\x02")
    local = _records(package, b"PK\x03\x04")
    end = package.rfind(b"PK\x05\x06")
    kind = rng.random()
    if kind < 0.05:
        cut = rng.randrange(len(out))
        return f"cut at {cut}", bytes(out[:cut])
    if kind < 0.15 and end >= 0:
        at, fields, what = end, _END_FIELDS, "end record"
    else:
        on_central = kind < 0.6
        starts = central if on_central else local
        if not starts:
            return "nothing", package
        sections = [a for a in starts if b"section" in package[a : a + 200].lower()]
        at = rng.choice(sections if sections and rng.random() < 0.7 else starts)
        fields = _CENTRAL_FIELDS if on_central else _LOCAL_FIELDS
        what = "central entry" if on_central else "local header"
    name = rng.choice(sorted(fields))
    offset, width = fields[name]
    if at + offset + width > len(out):
        return "nothing", package
    fmt = "<H" if width == 2 else "<I"
    (old,) = struct.unpack_from(fmt, out, at + offset)
    new = _new_value(rng, old, width)
    struct.pack_into(fmt, out, at + offset, new)
    return f"{what} {name} {old} -> {new}", bytes(out)


def with_part(package: bytes, name: str, data: bytes) -> bytes:
    """*package* written again with part *name* replaced by *data* (the other parts,
    their order and methods kept)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as old, zipfile.ZipFile(out, "w") as new:
        for info in old.infolist():
            new.writestr(info, data if info.filename == name else old.read(info))
    return out.getvalue()


# -- the XML of an HWPX section part --------------------------------------------------------

_RESERVED_XML = "http://www.w3.org/XML/1998/namespace"
_RESERVED_XMLNS = "http://www.w3.org/2000/xmlns/"
#: Namespace declarations added to the root or to an element below it.
_DECLARATIONS = (
    f'xmlns:xml="{_RESERVED_XML}"', 'xmlns:xml="urn:other"', f'xmlns:q="{_RESERVED_XML}"',
    f'xmlns="{_RESERVED_XML}"', f'xmlns:q="{_RESERVED_XMLNS}"', f'xmlns="{_RESERVED_XMLNS}"',
    'xmlns:xmlns="urn:x"', 'xmlns:q=""', 'xmlns=""', 'xmlns:hp="urn:rebound"',
    'xmlns:q="urn:q"', 'xmlns:hp=""', 'xmlns:q="&amp;"', 'xmlns:q="urn:&#113;"',
    'xmlns:Q="urn:q"', 'xmlns:q="urn:q" xmlns:q="urn:q"', 'xmlns:q:r="urn:q"',
    'xmlns:1q="urn:q"', "xmlns:q='urn:q'", 'xml:lang="ko"', 'xml:space="preserve"',
    'xml:x="1"', 'xmlns:q="http://www.w3.org/XML/1998/namespace/"', 'xmlns:q="urn:q}x"',
    'xmlns:hp="urn:}"',
)  # fmt: skip
#: XML declarations put in place of the part's own (or before it).
_XML_DECLS = (
    "", '<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-8"?>',
    '<?xml version="1.0" encoding="utf-8"?>', '<?xml version="1.0" encoding="UTF8"?>',
    '<?xml version="1.0" encoding="euc-kr"?>', '<?xml version="1.0" encoding="cp949"?>',
    '<?xml version="1.0" encoding="ISO-8859-1"?>', '<?xml version="1.0" encoding="US-ASCII"?>',
    '<?xml version="1.0" encoding="UTF-16"?>', '<?xml version="1.0" encoding="bogus"?>',
    '<?xml version="1.1"?>', '<?xml version="2.0"?>', "<?xml version='1.0' standalone='yes'?>",
    '<?xml version="1.0" standalone="no"?>', '<?xml version="1.0" standalone="maybe"?>',
    '<?xml encoding="UTF-8"?>', '<?xml version="1.0" encoding="UTF-8" ?>',
    '<?xml  version = "1.0"  ?>', '<?XML version="1.0"?>', '<?xml version="1.0"encoding="UTF-8"?>',
    '\ufeff<?xml version="1.0"?>', ' <?xml version="1.0"?>',
    '<?xml version="1.0"?><?xml version="1.0"?>',
)  # fmt: skip
#: What is put between two tags or into a text: references, CDATA, comments, PIs, DTDs.
_INSERTS = (
    "&amp;", "&lt;&gt;&quot;&apos;", "&nbsp;", "&amp", "&;", "&#65;", "&#x41;", "&#xAC00;",
    "&#0;", "&#xD800;", "&#xDFFF;", "&#xFFFE;", "&#x110000;", "&#99999999999;", "&#x;",
    "&#-1;", "&#X41;", "&#xf02b1;", "&#9;", "&#13;", "&#10;", "&e;",
    "<![CDATA[x]]>", "<![CDATA[<&>]]>", "<![CDATA[]]>", "<![CDATA[a]]]]><![CDATA[>b]]>",
    "<![CDATA[", "]]>", "<![cdata[x]]>", "<!-- c -->", "<!---->", "<!-- a -- b -->",
    "<!-- c --->", "<!--", "-->", "<?pi x?>", "<?pi?>", "<?xml version='1.0'?>",
    "<?XmL x?>", "<?xml-stylesheet href='a'?>", "<? x?>", "<?pi", "?>",
    '<!DOCTYPE x [<!ENTITY e "boom">]>', "<!DOCTYPE x>", '<!ENTITY e "x">', "<!ELEMENT x ANY>",
    "\r", "\r\n", "\x00", "\x01", "\ufffe", "\x85", "\u2028",
)  # fmt: skip


def _tag_starts(xml: bytes) -> list[int]:
    return [i for i in range(len(xml)) if xml[i] == 0x3C]  # '<'


def xml_mutant(rng: random.Random, xml: bytes) -> tuple[str, bytes]:
    """(what was changed, section part *xml* with one XML construct changed)."""
    kind = rng.randrange(6)
    starts = _tag_starts(xml)
    root = next((i for i in starts if xml[i + 1 : i + 2] not in (b"?", b"!")), 0)
    root_end = xml.find(b">", root)
    if kind == 0:  # a namespace declaration on the root
        decl = rng.choice(_DECLARATIONS)
        return f"root {decl}", xml[:root_end] + b" " + decl.encode() + xml[root_end:]
    if kind == 1:  # a declaration or a prefix below the root
        inner = [i for i in starts if i > root_end and xml[i + 1 : i + 2] not in (b"/", b"?", b"!")]
        if not inner:
            return "nothing", xml
        at = rng.choice(inner)
        end = xml.find(b">", at)
        if rng.random() < 0.6:
            decl = rng.choice(_DECLARATIONS)
            if xml[end - 1 : end] == b"/":
                end -= 1
            return f"inner {decl}", xml[:end] + b" " + decl.encode() + xml[end:]
        prefix = rng.choice((b"q:", b"xml:", b"xmlns:", b"", b"hp:hp:", b":"))
        name_at = at + 1
        colon = xml.find(b":", name_at, end)
        local_at = colon + 1 if colon >= 0 else name_at
        return f"prefix {prefix!r}", xml[:name_at] + prefix + xml[local_at:]
    if kind == 2:  # the XML declaration
        decl = rng.choice(_XML_DECLS).encode()
        body = xml[xml.find(b"?>") + 2 :] if xml.startswith(b"<?xml") else xml
        return f"declaration {decl!r}", decl + body
    if kind == 3 and starts:  # an insert between two tags
        at = rng.choice(starts)
        piece = rng.choice(_INSERTS)
        return f"insert {piece!r}", xml[:at] + piece.encode() + xml[at:]
    if kind == 4:  # an insert in text (after a '>' that is followed by text)
        texts = [i + 1 for i in range(len(xml) - 1) if xml[i] == 0x3E and xml[i + 1] != 0x3C]
        if not texts:
            return "nothing", xml
        at = rng.choice(texts)
        piece = rng.choice(_INSERTS)
        return f"text insert {piece!r}", xml[:at] + piece.encode() + xml[at:]
    # an insert inside an attribute value, or a byte changed in the markup
    quotes = [i + 1 for i in range(len(xml)) if xml[i] == 0x22]
    if quotes and rng.random() < 0.5:
        at = rng.choice(quotes)
        piece = rng.choice((*_INSERTS[:22], "<", ">", "'", "\t", "\n"))
        return f"value insert {piece!r}", xml[:at] + piece.encode() + xml[at:]
    at = rng.randrange(len(xml))
    byte = rng.choice(b"<>&;:/=\"'?!-[] \r\n\x00\x80\xff")
    return f"byte {at} -> {byte:#x}", xml[:at] + bytes([byte]) + xml[at + 1 :]
