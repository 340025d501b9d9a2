"""Enterprise document-DRM wrappers, recognised by the marker their files begin with.

Korean public and financial bodies often wrap attachments in a document-DRM product
before publishing them: the file keeps its ``.hwp``/``.pdf``/``.xlsx`` name, but its
bytes are the product's container, and the document inside is encrypted. No reader
can get text out of it without the product's client, so hwpscan names the product
and reports the file ``encrypted`` instead of calling it an unknown binary.

The markers below are the leading bytes such files carry. They are the ones that
public file-type validators and upload filters written for Korean institutions test
for, and that published surveys of downloaded public attachments report:

=====================  ===============================================================
product                marker at byte 0
=====================  ===============================================================
MarkAny Document SAFER ``<MARKANY_DOCUMENTSAFER>``, or ``<DOCUMENT SAFER `` (older)
Fasoo DRM              ``\\x9b DRMONE`` (then ``This Document is encrypted and protected
                       by Fasoo DRM``), or ``<!-- FasooSecureContainer``
SoftCamp (SCDSA)       ``SCDSA`` and a three-digit version (``SCDSA002``, ``SCDSA004``)
=====================  ===============================================================

Only a marker at the very start counts (after a UTF-8 byte order mark at most): the
text ``SCDSA`` inside a document's body is not a wrapper.

>>> drm_product(b"SCDSA004" + bytes(40))
'SoftCamp Document Security (SCDSA004 container)'
>>> drm_product(b"<MARKANY_DOCUMENTSAFER>..." ) is not None, drm_product(b"%PDF-1.7")
(True, None)
"""

from __future__ import annotations

import re

__all__ = ["DRM_MARKERS", "drm_product", "drm_reason"]

#: (product, leading marker) pairs; checked in order against the file's first bytes.
DRM_MARKERS: tuple[tuple[str, bytes], ...] = (
    ("MarkAny Document SAFER", b"<MARKANY_DOCUMENTSAFER>"),
    ("MarkAny Document SAFER", b"<DOCUMENT SAFER "),
    ("Fasoo DRM", b"\x9b DRMONE"),
    ("Fasoo DRM", b"<!-- FasooSecureContainer"),
)
_SCDSA_RE = re.compile(rb"SCDSA(\d{3})")


def drm_product(head: bytes) -> str | None:
    """The DRM product whose wrapper *head* (a file's first bytes) starts with, or None."""
    probe = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    for product, marker in DRM_MARKERS:
        if probe.startswith(marker):
            return product
    m = _SCDSA_RE.match(probe)
    if m is not None:
        return f"SoftCamp Document Security (SCDSA{m.group(1).decode('ascii')} container)"
    return None


def drm_reason(product: str) -> str:
    """The reason given for a file wrapped by *product*.

    >>> drm_reason("Fasoo DRM")
    'wrapped by Fasoo DRM: the document inside is encrypted and needs the product to open'
    """
    return f"wrapped by {product}: the document inside is encrypted and needs the product to open"
