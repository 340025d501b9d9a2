"""HWPX (OWPML, a ZIP package): recognised by its entries, read by our own bounded walk.

A ZIP is an HWPX package when its entries say so (:func:`is_hwpx`): a
``mimetype`` entry holding ``application/hwp+zip`` in any position and with any
compression, a ``Contents/content.hpf`` manifest, ``Contents/sectionN.xml`` parts, or
a ``META-INF/container.xml`` naming an HWPML package. Real writers compress the
mimetype, put it late, leave it out or write entry names with ``\\``; all of those are
read. A ZIP with none of these is reported ``unsupported`` with what was missing.

The text comes from :func:`~hwpscan.formats.hwpx_xml.section_text`, a streaming walk
over each section's XML (expat, no tree), with every part inflated under a byte cap.
It returns the same text as python-hwpx's ``TextExtractor.extract_text(
include_nested=True)``, the reference it is tested against on every fixture.

XML is UTF-8 and cannot carry a lone surrogate, so an HWPX body holds none;
private-use characters appear as themselves. The counts are computed on that text.

>>> from hwpscan.rehearsal.synth.hwpx_writer import build_hwpx
>>> doc = read_zip(build_hwpx(["보도자료", [["구분", "내용"]]]))
>>> [s.text for s in doc.body], doc.info.sections
(['보도자료', '구분', '내용'], 1)
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from itertools import count, repeat
from operator import itemgetter
from typing import cast

from hwpscan.errors import BudgetError, CorruptFileError, EncryptedFileError, FormatError
from hwpscan.formats import fast_readers
from hwpscan.formats.hwpx_xml import (
    MAX_DEPTH,
    MAX_PARAGRAPHS,
    Walk,
    parse_xml,
    section_text,
    shown_name,
)
from hwpscan.formats.sniff import HWPX_MIMETYPE, SNIFF_BYTES, zip_head_is_hwpx
from hwpscan.models import Document, Format, ReadInfo, Segment, Status

__all__ = [
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_PARAGRAPHS",
    "MAX_PART_BYTES",
    "MAX_UNCOMPRESSED",
    "is_hwpx",
    "read_zip",
    "section_text",
]

#: Inflate no more than this in total: a ZIP may declare huge uncompressed sizes.
MAX_UNCOMPRESSED = 256 * 2**20
#: A package lists at most this many entries (Hancom's own files hold a few dozen).
MAX_ENTRIES = 10_000
#: One section part inflates to at most this many bytes (large real ones: a few MB).
MAX_PART_BYTES = 64 * 2**20
#: Small parts (mimetype, container, manifests) are read up to this size.
MAX_SMALL_PART = 4 * 2**20

#: Section parts up to this size (declared and inflated) go through the C reader whole.
FAST_PART_BYTES = 16 * 2**20

_CHUNK = 64 * 1024
_SECTION_RE = re.compile(r"^section(\d+)\.xml$", re.I)
_MAIN_ROOTFILE = "application/hwpml-package+xml"
#: The elements read of META-INF/container.xml and of the package manifest (.hpf).
_SHOWN = 5
_new = tuple.__new__  # _new(Segment, fields): no named tuple __new__ in Python
_TEXT_OF = itemgetter(3)


def read_zip(data: bytes) -> Document:
    """Any ZIP: an HWPX package's text, or a verdict on another ZIP. Never raises for a
    damaged file: the document carries a status and a reason.

    The package is read through zipfile, or where the native reader is built, an
    ordinary one in one call (:data:`~hwpscan.formats.fast_readers.hwpx_package`)."""
    fast = fast_readers.hwpx_package
    caps = (MAX_ENTRIES, MAX_UNCOMPRESSED, MAX_SMALL_PART, FAST_PART_BYTES)
    made = fast(data, *caps, MAX_DEPTH, MAX_PARAGRAPHS) if fast is not None else None
    if made is not None:
        sections, texts = made
        return _document(Walk(cast("list[str | None]", texts), len(texts)), sections, [])
    try:
        archive = _open(data)
    except EncryptedFileError as exc:
        return Document(format=_head_format(data), status=Status.ENCRYPTED, reason=str(exc))
    except FormatError as exc:
        return Document(format=_head_format(data), status=Status.CORRUPT, reason=str(exc))
    return _read_archive(archive, data)


def _read_archive(archive: zipfile.ZipFile, data: bytes) -> Document:
    with archive:
        try:
            entries = _entries(archive)
        except CorruptFileError as exc:
            return Document(format=_head_format(data), status=Status.CORRUPT, reason=str(exc))
        if not is_hwpx(archive, entries):
            return Document(
                format=Format.ZIP, status=Status.UNSUPPORTED, reason=_plain_zip_reason(entries)
            )
        try:
            return _read_package(archive, entries)
        except EncryptedFileError as exc:
            return Document(format=Format.HWPX, status=Status.ENCRYPTED, reason=str(exc))
        except FormatError as exc:
            return Document(format=Format.HWPX, status=Status.CORRUPT, reason=str(exc))


def _head_format(data: bytes) -> Format:
    return Format.HWPX if zip_head_is_hwpx(data[:SNIFF_BYTES]) else Format.ZIP


def _open(data: bytes) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except NotImplementedError as exc:  # zipfile refuses what it cannot read
        text = str(exc)
        if "encryption" in text:
            raise EncryptedFileError(f"ZIP uses {text}") from exc
        raise CorruptFileError(f"ZIP needs a feature this reader lacks: {text}") from exc
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise CorruptFileError(f"not a readable ZIP package: {exc}") from exc
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        archive.close()
        raise BudgetError(f"ZIP lists {len(infos):,} entries, over the budget of {MAX_ENTRIES:,}")
    declared = sum(info.file_size for info in infos)
    if declared > MAX_UNCOMPRESSED:
        archive.close()
        raise CorruptFileError(
            f"ZIP declares {declared:,} uncompressed bytes, over the cap of {MAX_UNCOMPRESSED:,}"
        )
    return archive


def _part(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes:
    """One entry, inflated never past *cap* bytes (whatever it declares): one read of at
    most one byte more than the cap tells a part over it. Raises :class:`FormatError`
    where zipfile cannot read it."""
    try:
        with archive.open(info) as handle:
            data = handle.read(cap + 1)
        if len(data) > cap:
            raise BudgetError(f"{shown_name(info.filename)}: inflates past {cap:,} bytes")
    except NotImplementedError as exc:
        if "encrypt" in str(exc):
            raise EncryptedFileError(f"{shown_name(info.filename)}: {exc}") from exc
        raise CorruptFileError(f"{shown_name(info.filename)}: {exc}") from exc
    except RuntimeError as exc:  # zipfile: "File ... is encrypted, password required"
        raise EncryptedFileError(f"{shown_name(info.filename)}: {exc}") from exc
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError) as exc:
        raise CorruptFileError(f"{shown_name(info.filename)}: damaged entry ({exc})") from exc
    return data


def _chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """A section part as chunks of inflated bytes, the byte cap counted as they come."""
    total = 0
    name = shown_name(info.filename)
    try:
        with archive.open(info) as handle:
            while block := handle.read(_CHUNK):
                total += len(block)
                if total > MAX_PART_BYTES:
                    raise BudgetError(f"{name}: inflates past {MAX_PART_BYTES:,} bytes")
                yield block
    except NotImplementedError as exc:
        raise CorruptFileError(f"{name}: {exc}") from exc
    except RuntimeError as exc:
        raise EncryptedFileError(f"{name}: {exc}") from exc
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError) as exc:
        raise CorruptFileError(f"{name}: damaged entry ({exc})") from exc


def _entries(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """Entries by normalised name: ``\\`` read as ``/``, no leading ``/`` or ``./``.

    Raises :class:`CorruptFileError` for an entry without a name: no writer makes one,
    and zipfile cannot say whether it is a folder."""
    out: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        if not info.filename:
            raise CorruptFileError("a ZIP entry without a name (a damaged central directory?)")
        if info.is_dir():
            continue
        name = _normal(info.filename)
        out.setdefault(name, info)
    return out


def _normal(name: str) -> str:
    r"""*name* with ``\`` read as ``/`` and no empty or ``.`` part.

    >>> [_normal(n) for n in ("Contents/a.xml", "./a", "a//b\\c", "/x/./y/", "a/.", ".")]
    ['Contents/a.xml', 'a', 'a/b/c', 'x/y', 'a', '']
    """
    return "/".join(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))


def _find(entries: dict[str, zipfile.ZipInfo], name: str) -> zipfile.ZipInfo | None:
    info = entries.get(name)
    if info is not None:
        return info
    lowered = name.lower()
    return next((i for n, i in entries.items() if n.lower() == lowered), None)


def is_hwpx(archive: zipfile.ZipFile, entries: dict[str, zipfile.ZipInfo]) -> bool:
    """Whether *archive* is an HWPX package: its mimetype says so or, where it has none
    naming another package type (EPUB, ODF...), a manifest, a section part or an HWPML
    ``META-INF/container.xml`` does."""
    mime = _find(entries, "mimetype")
    if mime is not None:
        try:
            value = _part(archive, mime, 4096).strip()
        except FormatError:
            value = b""
        if value:
            return value == HWPX_MIMETYPE
    parts = (n.rpartition("/")[2] for n in entries if n.lower().startswith("contents/"))
    if _find(entries, "Contents/content.hpf") is not None or any(map(_SECTION_RE.match, parts)):
        return True
    container = _find(entries, "META-INF/container.xml")
    try:
        return (
            container is not None and b"hwpml" in _part(archive, container, MAX_SMALL_PART).lower()
        )
    except FormatError:
        return False


def _plain_zip_reason(entries: dict[str, zipfile.ZipInfo]) -> str:
    names = sorted(entries)
    shown = ", ".join(shown_name(n) for n in names[:_SHOWN]) or "none"
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return (
        "a ZIP archive that is not an HWPX package: no application/hwp+zip mimetype, "
        "no Contents/content.hpf, no Contents/section*.xml, no HWPML META-INF/container.xml "
        f"(entries: {shown}{more})"
    )


def _read_package(archive: zipfile.ZipFile, entries: dict[str, zipfile.ZipInfo]) -> Document:
    encrypted = [i for i in entries.values() if i.flag_bits & 0x1]
    if encrypted:
        raise EncryptedFileError(
            f"ZIP entries are encrypted ({len(encrypted)} of {len(entries)}, "
            f"first {shown_name(encrypted[0].filename)})"
        )
    protected = _manifest_encryption(archive, entries)
    if protected:
        shown = ", ".join(shown_name(p) for p in protected[:_SHOWN])
        raise EncryptedFileError(
            "HWPX package is password-protected: META-INF/manifest.xml declares encryption "
            f"for {len(protected)} part(s) ({shown})"
        )
    sections = _section_names(archive, entries)
    if not sections:
        raise CorruptFileError("HWPX package without section parts (Contents/section*.xml)")
    walk = Walk()
    unread: list[str] = []
    for name in sections:
        if walk.stopped is not None:
            unread.append(shown_name(name))
            continue
        if name not in entries:
            unread.append(f"{shown_name(name)} (named by the manifest, missing from the package)")
            continue
        try:
            section_text(_chunks(archive, entries[name]), walk, name)
        except EncryptedFileError:
            raise
        except FormatError as exc:
            walk.stopped = str(exc)
            unread.append(f"{shown_name(name)} from the damage on")
    return _document(walk, len(sections), unread)


def _document(walk: Walk, sections: int, unread: list[str]) -> Document:
    """The Document of a package whose *sections* were walked into *walk*, *unread*
    naming those that were not (or not to the end)."""
    # Segment("Contents", n, 0, line) for the n-th line when it is not empty, made in C:
    # tuple.__new__ over zipped fields, empty lines filtered out by their text
    lines = "\n".join(walk.texts()).split("\n")
    made = map(_new, repeat(Segment), zip(repeat("Contents"), count(), repeat(0), lines))
    segments = cast("tuple[Segment, ...]", tuple(filter(_TEXT_OF, made)))
    info = ReadInfo(sections=sections, paragraphs=walk.paragraphs)
    status = reason = None
    if unread:
        if not segments and walk.stopped is None:
            raise CorruptFileError("no section readable: " + ", ".join(unread[:_SHOWN]))
        status = Status.CORRUPT
        reason = (
            f"{walk.stopped + '; ' if walk.stopped else ''}unread: {', '.join(unread[:_SHOWN])}"
        )
        if len(unread) > _SHOWN:
            reason += f" and {len(unread) - _SHOWN} more"
    return Document(
        Format.HWPX, segments, status=status, reason=reason, warnings=tuple(walk.notes), info=info
    )


def _manifest_encryption(
    archive: zipfile.ZipFile, entries: dict[str, zipfile.ZipInfo]
) -> list[str]:
    """Parts ``META-INF/manifest.xml`` declares encrypted (ODF ``encryption-data``)."""
    info = _find(entries, "META-INF/manifest.xml")
    if info is None:
        return []
    try:
        data = _part(archive, info, MAX_SMALL_PART)
    except FormatError:
        return []
    if b"encryption-data" not in data:
        return []
    parts: list[str] = []
    current: list[str] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        local = name.rpartition("}")[2]
        if local == "file-entry":
            current[:] = [_attr(attrs, "full-path")]
        elif local == "encryption-data" and current:
            parts.append(current[0])

    try:
        parse_xml([data], start, None, None, "META-INF/manifest.xml")
    except FormatError:
        return parts or ["META-INF/manifest.xml (unparseable, but it names encryption-data)"]
    return parts or ["(parts not named)"]


def _attr(attrs: dict[str, str], local: str) -> str:
    for key, value in attrs.items():
        if key.rpartition("}")[2] == local:
            return value
    return ""


def _section_names(archive: zipfile.ZipFile, entries: dict[str, zipfile.ZipInfo]) -> list[str]:
    """Section parts in reading order: the manifest's spine when it names them (as
    python-hwpx reads them), else every ``section*.xml`` by number."""
    spine = _spine_sections(archive, entries)
    if spine:
        return spine
    found = [n for n in entries if n.rpartition("/")[2].lower().startswith("section")]
    found = [n for n in found if n.lower().endswith(".xml")]
    return sorted(found, key=_section_key)


def _section_key(name: str) -> tuple[int, str]:
    m = _SECTION_RE.match(name.rpartition("/")[2])
    return (int(m.group(1)) if m else 0, name)


def _spine_sections(archive: zipfile.ZipFile, entries: dict[str, zipfile.ZipInfo]) -> list[str]:
    container = _find(entries, "META-INF/container.xml")
    if container is None:
        return []
    roots: list[tuple[str, str]] = []

    def root_start(name: str, attrs: dict[str, str]) -> None:
        if name.rpartition("}")[2] == "rootfile":
            path = _attr(attrs, "full-path") or _attr(attrs, "fullPath")
            if path:
                roots.append((_normal(path), _attr(attrs, "media-type")))

    try:
        parse_xml([_part(archive, container, MAX_SMALL_PART)], root_start, None, None, "container")
    except FormatError:
        return []
    chosen = next((p for p, m in roots if m == _MAIN_ROOTFILE), roots[0][0] if roots else None)
    if chosen is None or chosen not in entries:
        return []
    items: dict[str, str] = {}
    spine: list[str] = []

    def hpf_start(name: str, attrs: dict[str, str]) -> None:
        local = name.rpartition("}")[2]
        if local == "item":
            items[_attr(attrs, "id")] = _attr(attrs, "href")
        elif local == "itemref":
            spine.append(_attr(attrs, "idref"))

    try:
        parse_xml([_part(archive, entries[chosen], MAX_SMALL_PART)], hpf_start, None, None, chosen)
    except FormatError:
        return []
    base = chosen.rpartition("/")[0]
    out: list[str] = []
    for ref in spine:
        href = items.get(ref)
        if not href:
            continue
        is_section = _normal(href).rpartition("/")[2].lower().startswith("section")
        under = href if href.startswith("/") or not base else f"{base}/{href}"
        found = [c for c in (_normal(href), _normal(under)) if c in entries]
        if is_section:  # a section the spine names but the package lacks is kept: unread
            out.append(found[0] if found else _normal(href))
    return out


def python_hwpx_text(data: bytes) -> str:
    """The text python-hwpx's extractor returns for *data*: the reference our walk is
    held to (tests), kept out of the scan path because it is quadratic in paragraphs."""
    import logging

    from hwpx.tools.text_extractor import TextExtractor  # slow to import

    logging.getLogger("hwpx").setLevel(logging.ERROR)
    with (
        zipfile.ZipFile(io.BytesIO(data)) as archive,
        TextExtractor(archive) as extractor,
    ):
        return str(extractor.extract_text(include_nested=True))


def walk_text(data: bytes) -> str:
    """The text our walk reads from an HWPX package, joined the way python-hwpx joins it."""
    archive = _open(data)
    with archive:
        entries = _entries(archive)
        walk = Walk()
        for name in _section_names(archive, entries):
            if name in entries:
                section_text(_chunks(archive, entries[name]), walk, name)
    return "\n".join(walk.texts())
