"""What both example extractors share: the PARA_TEXT payloads of an HWP 5 file, and
printing. Deliberately small and independent of the scanner's own HWP 5 reader."""

from __future__ import annotations

import struct
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import olefile

PARA_TEXT = 67
#: Controls that take 8 code units (spec: inline and extended controls).
WIDE = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23})
#: Controls that stand for a character: tab, line break, paragraph end, hyphen, spaces.
CHARS = {9: "\t", 10: "\n", 13: "\n", 24: "-", 30: " ", 31: " "}


def para_texts(data: bytes) -> Iterator[bytes]:
    """The raw UTF-16LE payload of every PARA_TEXT record, section by section."""
    with olefile.OleFileIO(data) as ole:
        header = ole.openstream("FileHeader").read()
        compressed = bool(struct.unpack_from("<I", header, 36)[0] & 1)
        n = 0
        while ole.exists(f"BodyText/Section{n}"):
            raw = ole.openstream(f"BodyText/Section{n}").read()
            stream = zlib.decompress(raw, -15) if compressed else raw
            pos = 0
            while pos + 4 <= len(stream):
                (word,) = struct.unpack_from("<I", stream, pos)
                tag, size, pos = word & 0x3FF, word >> 20, pos + 4
                if size == 0xFFF:
                    (size,) = struct.unpack_from("<I", stream, pos)
                    pos += 4
                if tag == PARA_TEXT:
                    yield stream[pos : pos + size]
                pos += size
            n += 1


def units_to_text(units: str) -> str:
    """One paragraph's code units (already decoded) with its controls taken out."""
    out: list[str] = []
    i = 0
    while i < len(units):
        code = ord(units[i])
        if code >= 32:
            out.append(units[i])
            i += 1
            continue
        if code in CHARS:
            out.append(CHARS[code])
        i += 8 if code in WIDE else 1
    return "".join(out)


def main(decode: Callable[[bytes], str]) -> int:
    """``python -m hwpscan.examples.X FILE``: print the file's text; exit 1 if unreadable."""
    if len(sys.argv) != 2:
        print("usage: python -m hwpscan.examples.NAME FILE", file=sys.stderr)
        return 2
    path = Path(sys.argv[1])
    data = path.read_bytes()
    if olefile.isOleFile(data):
        text = "".join(decode(payload) for payload in para_texts(data))
    else:  # HWPX, PDF: hwpscan's readers (both examples agree there)
        from hwpscan.matrix.parsers import strict_text  # only for HWPX/PDF: HWP 5 stays light

        text = strict_text(str(path))
    sys.stdout.buffer.write(text.encode("utf-8", "surrogatepass"))
    return 0
