"""Decide a file's format from its first bytes, never from its name.

>>> sniff(b"%PDF-1.7\\n")
<Format.PDF: 'pdf'>
>>> sniff(b"HWP Document File V3.00 \\x1a\\x01\\x02\\x03\\x04\\x05")
<Format.HWP3: 'hwp3'>
>>> sniff(b"<!DOCTYPE html><html>")
<Format.HTML: 'html'>
>>> sniff(b"")
<Format.EMPTY: 'empty'>
"""

from __future__ import annotations

import re
import struct

from hwpscan.models import Format

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"
HWP3_MAGIC = b"HWP Document File V3"
HWPX_MIMETYPE = b"application/hwp+zip"
_HTML_RE = re.compile(rb"^\s*(<!doctype\s+html|<html|<head|<body|<\?xml[^>]*>\s*<html)", re.I)

#: How many leading bytes :func:`sniff` needs to decide.
SNIFF_BYTES = 4096


def sniff(head: bytes) -> Format:
    """The format of a file whose first bytes are *head* (at least :data:`SNIFF_BYTES`).

    An OLE file is only called HWP 5 once its ``FileHeader`` stream is checked, which
    needs the whole file: this function answers ``ole`` for every compound file and
    :func:`hwpscan.formats.read_document` refines it.
    """
    if not head:
        return Format.EMPTY
    if head.startswith(CFB_MAGIC):
        return Format.OLE
    if head.startswith(b"%PDF-") or (b"%PDF-" in head[:1024]):
        return Format.PDF
    if head.startswith(HWP3_MAGIC):
        return Format.HWP3
    if head.startswith(ZIP_MAGIC):
        return Format.HWPX if _zip_first_entry_is_hwpx(head) else Format.ZIP
    probe = head.lstrip(b"\xef\xbb\xbf")
    if _HTML_RE.match(probe[:1024]):
        return Format.HTML
    return Format.UNKNOWN


def is_text(head: bytes) -> bool:
    """True when *head* looks like plain text (UTF-8 or CP949, no NUL bytes).

    >>> is_text("보도자료".encode("cp949")), is_text(b"\\x00\\x01\\x02")
    (True, False)
    """
    if not head or b"\x00" in head:
        return False
    for enc in ("utf-8", "cp949"):
        try:
            head.decode(enc)
            return True
        except UnicodeDecodeError as exc:
            if exc.start >= len(head) - 4:  # cut mid-character at the end of the probe
                return True
    return False


def _zip_first_entry_is_hwpx(head: bytes) -> bool:
    """The first local file header names ``mimetype`` holding ``application/hwp+zip``."""
    if len(head) < 30:
        return False
    (_sig, _ver, _flags, method, _t, _d, _crc, csize, _usize, nlen, xlen) = struct.unpack(
        "<4sHHHHHIIIHH", head[:30]
    )
    name = head[30 : 30 + nlen]
    if name != b"mimetype":
        return False
    start = 30 + nlen + xlen
    if method != 0:  # the spec stores it uncompressed; a deflated one is not a valid HWPX
        return False
    return head[start : start + csize].strip() == HWPX_MIMETYPE
