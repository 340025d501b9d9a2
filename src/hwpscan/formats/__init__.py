"""Readers: bytes in, :class:`~hwpscan.models.Document` out. No terminal, no network.

:func:`read_document` sniffs the content and hands it to the right reader. Formats we
recognise but do not read (HWP 3.x, HTML saved under a document name, other OLE or ZIP
files) come back as documents with status ``unsupported`` and a reason; a file wrapped
by an enterprise DRM product (:mod:`hwpscan.formats.drm`) is ``encrypted``, the product
named.
"""

from __future__ import annotations

from hwpscan.formats.drm import drm_product, drm_reason
from hwpscan.formats.sniff import SNIFF_BYTES, is_text, sniff
from hwpscan.models import Document, Format, Status

__all__ = ["read_document", "sniff"]

_UNSUPPORTED_REASONS = {
    Format.HWP3: "HWP 3.x document (a different, pre-2002 format): not read",
    Format.HTML: "an HTML page, not a document (often a server error page saved as the file)",
}


def read_document(
    data: bytes, *, count_plain_body: bool = False, body_only: bool = False
) -> Document:
    """Read *data* as whatever its content says it is.

    May raise :class:`~hwpscan.errors.FormatError`; the scanner turns that into a status.
    *count_plain_body* is for a scan that wants counts, not text: an HWP 5 body without
    a surrogate or private-use unit may then be counted instead of segmented (see
    :func:`hwpscan.formats.hwp5.read_ole`). *body_only* skips what only a scan reports
    (an HWP 5 document's preview and DocInfo names).

    >>> read_document(b"").status
    <Status.CORRUPT: 'corrupt'>
    >>> read_document(b"HWP Document File V3.00 \\x1a\\x01\\x02\\x03\\x04\\x05").format
    <Format.HWP3: 'hwp3'>
    """
    head = data[:SNIFF_BYTES]
    product = drm_product(head)
    if product is not None:
        return Document(format=Format.UNKNOWN, status=Status.ENCRYPTED, reason=drm_reason(product))
    fmt = sniff(head, zip_entries=False)  # read_zip reads HWPX and other ZIPs alike
    if fmt is Format.OLE:
        from hwpscan.formats.hwp5 import read_ole  # olefile: only for an OLE file

        return read_ole(data, count_plain_body=count_plain_body, body_only=body_only)
    if fmt in (Format.HWPX, Format.ZIP):  # the package's entries decide, wherever they sit
        from hwpscan.formats.hwpx import read_zip  # python-hwpx: only for a ZIP

        return read_zip(data)
    if fmt is Format.PDF:
        from hwpscan.formats.pdf import read_pdf  # pypdf: only for a PDF

        return read_pdf(data)
    if fmt is Format.EMPTY:
        return Document(format=fmt, status=Status.CORRUPT, reason="empty file (0 bytes)")
    if fmt in _UNSUPPORTED_REASONS:
        return Document(format=fmt, status=Status.UNSUPPORTED, reason=_UNSUPPORTED_REASONS[fmt])
    return Document(format=Format.UNKNOWN, status=Status.UNSUPPORTED, reason=_unknown_reason(data))


LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/"
LFS_POINTER_REASON = (
    "a Git LFS pointer, not the file: run git lfs pull, or check out with lfs: true"
)


def _unknown_reason(data: bytes) -> str:
    r"""Why content we do not read is not a document.

    >>> _unknown_reason(b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n")
    'a Git LFS pointer, not the file: run git lfs pull, or check out with lfs: true'
    """
    head = data[:SNIFF_BYTES]
    if head.startswith(LFS_POINTER_PREFIX) and b"\noid " in head:
        return LFS_POINTER_REASON
    if is_text(head):
        return "plain text, not a document"
    distinct = len(set(head))
    if len(head) >= 512 and distinct > 240:
        return "unrecognised binary with near-random bytes (encrypted or DRM-wrapped?)"
    return f"unrecognised content (starts with {head[:8].hex(' ')})"
