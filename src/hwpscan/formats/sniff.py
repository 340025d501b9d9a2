"""Decide a file's format from its first bytes, never from its name.

>>> sniff(b"%PDF-1.7\\n")
<Format.PDF: 'pdf'>
>>> sniff(b"HWP Document File V3.00 \\x1a\\x01\\x02\\x03\\x04\\x05")
<Format.HWP3: 'hwp3'>
>>> sniff(b"<!DOCTYPE html><html>")
<Format.HTML: 'html'>
>>> sniff(b"")
<Format.EMPTY: 'empty'>
>>> sniff(b"<!-- saved from the portal -->\\n\\n")   # an HTML fragment: a comment alone
<Format.HTML: 'html'>

A PDF is found the way PDF readers accept one: its ``%PDF-`` header anywhere in the
first kilobyte (after junk a server or a mail gateway put first), or, when the header
is missing, an indirect object (``1 0 obj``) starting a line there:

>>> sniff(b"\\x00junk\\r\\n%PDF-1.4\\n"), sniff(b"%\\xe2\\xe3\\xcf\\xd3\\n1 0 obj\\n<< >>")
(<Format.PDF: 'pdf'>, <Format.PDF: 'pdf'>)
>>> sniff(b"see 1 0 obj in the spec")   # not at a line start: text
<Format.UNKNOWN: 'unknown'>

A ZIP is called ``hwpx`` here when its first local entries already say so (see
:func:`zip_head_is_hwpx`); the whole package is judged by
:func:`hwpscan.formats.hwpx.read_zip`, which also finds a ``mimetype`` entry that comes
late, is compressed or is missing altogether.
"""

from __future__ import annotations

import re
import struct
import zlib

from hwpscan.models import Format

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"
HWP3_MAGIC = b"HWP Document File V3"
HWPX_MIMETYPE = b"application/hwp+zip"
_HTML_RE = re.compile(
    rb"(<!doctype\s+html|<html|<head|<body|<meta\s|<title|<script|<style|<div|<table|<iframe"
    rb"|<form|<p[\s>]|<br\s*/?>|<\?xml[^>]*>\s*<html)",
    re.I,
)
#: Entry names whose presence among the first local headers marks an HWPX package.
HWPX_PART_RE = re.compile(r"^(contents/(content\.hpf|section\d+\.xml|header\.xml)|mimetype)$", re.I)

#: An indirect object's start at a line start: a PDF without its header (see above).
_PDF_OBJECT_RE = re.compile(rb"(?:^|[\r\n])[ \t]*\d{1,10}[ \t\r\n]+\d{1,5}[ \t\r\n]+obj\b")
#: How far into a file a PDF's header or first object is looked for.
PDF_PROBE_BYTES = 1024

#: How many leading bytes :func:`sniff` needs to decide.
SNIFF_BYTES = 4096


def sniff(head: bytes, *, zip_entries: bool = True) -> Format:
    """The format of a file whose first bytes are *head* (at least :data:`SNIFF_BYTES`).

    An OLE file is only called HWP 5 once its ``FileHeader`` stream is checked, which
    needs the whole file: this function answers ``ole`` for every compound file and
    :func:`hwpscan.formats.read_document` refines it. Without *zip_entries* every ZIP is
    ``zip``, its local entries unread (for a caller that reads ``hwpx`` and ``zip`` alike).

    >>> sniff(b"PK\x03\x04" + bytes(26) + b"mimetype", zip_entries=False)
    <Format.ZIP: 'zip'>
    """
    if not head:
        return Format.EMPTY
    if head.startswith(CFB_MAGIC):
        return Format.OLE
    if b"%PDF-" in head[:PDF_PROBE_BYTES]:
        return Format.PDF
    if head.startswith(HWP3_MAGIC):
        return Format.HWP3
    if head.startswith(ZIP_MAGIC):
        return Format.HWPX if zip_entries and zip_head_is_hwpx(head) else Format.ZIP
    if looks_like_html(head):
        return Format.HTML
    if _PDF_OBJECT_RE.search(head[:PDF_PROBE_BYTES]):
        return Format.PDF
    return Format.UNKNOWN


def looks_like_html(head: bytes) -> bool:
    """True when *head*, after whitespace and HTML comments, starts with an HTML tag,
    or holds nothing but comments (a fragment saved under a document's name).

    >>> looks_like_html(b"  <!-- a -->  <!-- b -->\\r\\n"), looks_like_html(b"<div>x</div>")
    (True, True)
    >>> looks_like_html(b"   "), looks_like_html(b"plain text <html>")
    (False, False)
    """
    rest = head[:SNIFF_BYTES].removeprefix(b"\xef\xbb\xbf").lstrip()
    comments = 0
    while rest.startswith(b"<!--"):
        end = rest.find(b"-->", 4)
        if end < 0:  # a comment running past the probe: still markup
            return True
        rest = rest[end + 3 :].lstrip()
        comments += 1
    if not rest:
        return comments > 0
    return _HTML_RE.match(rest[:1024]) is not None


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


def zip_local_entries(head: bytes, limit: int = 16) -> list[tuple[str, int, bytes]]:
    """(name, method, first bytes of data) of the local file headers at the start of a ZIP,
    as far as *head* reaches: no central directory needed (a cut file still shows them).

    Names written with ``\\`` are given with ``/``.
    """
    out: list[tuple[str, int, bytes]] = []
    pos = 0
    while len(out) < limit and head.startswith(ZIP_MAGIC, pos) and pos + 30 <= len(head):
        (_sig, _ver, _flags, method, _t, _d, _crc, csize, _usize, nlen, xlen) = struct.unpack_from(
            "<4sHHHHHIIIHH", head, pos
        )
        raw = head[pos + 30 : pos + 30 + nlen]
        name = raw.decode("utf-8", "replace").replace("\\", "/")
        start = pos + 30 + nlen + xlen
        out.append((name, method, head[start : start + min(csize, 256)]))
        pos = start + csize
    return out


def zip_head_is_hwpx(head: bytes) -> bool:
    """The first local entries of a ZIP mark an HWPX package: a ``mimetype`` entry holding
    ``application/hwp+zip`` (stored or deflated), or HWPX part names.

    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
    ...     zf.writestr("mimetype", "application/hwp+zip")
    >>> zip_head_is_hwpx(buf.getvalue())
    True
    """
    for name, method, data in zip_local_entries(head):
        if name.lower() == "mimetype":
            return _mimetype_text(method, data) == HWPX_MIMETYPE
        if HWPX_PART_RE.match(name):
            return True
    return False


def _mimetype_text(method: int, data: bytes) -> bytes:
    if method == 8:
        try:
            data = zlib.decompressobj(-15).decompress(data, 256)
        except zlib.error:
            return b""
    return data.strip()
