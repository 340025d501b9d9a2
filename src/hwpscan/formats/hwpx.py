"""HWPX (OWPML, a ZIP package) through python-hwpx's text extractor.

XML is UTF-8 and cannot carry a lone surrogate, so a correct HWPX reader yields none;
private-use characters appear as themselves. What the extractor returns is the text a
pipeline would hand on, so the counts are computed on exactly that.
"""

from __future__ import annotations

import io
import logging
import zipfile
import zlib

from hwpscan.errors import CorruptFileError, EncryptedFileError
from hwpscan.models import Document, Format, Segment

#: Inflate no more than this in total: a ZIP may declare huge uncompressed sizes.
MAX_UNCOMPRESSED = 256 * 2**20


def read_hwpx(data: bytes, *, max_uncompressed: int = MAX_UNCOMPRESSED) -> Document:
    """Extract the body text of an HWPX package into one segment per line."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise CorruptFileError(f"not a readable ZIP package: {exc}") from exc
    with archive:
        declared = sum(info.file_size for info in archive.infolist())
        if declared > max_uncompressed:
            raise CorruptFileError(
                f"ZIP declares {declared:,} uncompressed bytes, "
                f"over the cap of {max_uncompressed:,}"
            )
        if any(info.flag_bits & 0x1 for info in archive.infolist()):
            raise EncryptedFileError("ZIP entries are encrypted")
        names = archive.namelist()
        text = _extract(archive)
    sections = sum(1 for n in names if n.startswith("Contents/section") and n.endswith(".xml"))
    segments = tuple(
        Segment("Contents", i, 0, line) for i, line in enumerate(text.split("\n")) if line
    )
    return Document(format=Format.HWPX, body=segments, info={"sections": sections})


def _extract(archive: zipfile.ZipFile) -> str:
    from hwpx.tools.text_extractor import TextExtractor  # imported lazily: slow to import

    logging.getLogger("hwpx").setLevel(logging.ERROR)
    try:
        with TextExtractor(archive) as extractor:
            return extractor.extract_text(include_nested=True)
    except (zipfile.BadZipFile, KeyError, EOFError, zlib.error) as exc:
        raise CorruptFileError(f"HWPX package is damaged: {exc}") from exc
    except Exception as exc:  # python-hwpx raises its own tree and lxml/ElementTree errors
        if "encrypt" in str(exc).lower():
            raise EncryptedFileError(f"HWPX package is protected: {exc}") from exc
        raise CorruptFileError(
            f"HWPX text could not be extracted: {type(exc).__name__}: {exc}"
        ) from exc
