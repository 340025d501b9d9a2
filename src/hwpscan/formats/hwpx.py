"""HWPX (OWPML, a ZIP package): recognised by its entries, read by our own bounded walk.

A ZIP is an HWPX package when its entries say so (:func:`hwpx_evidence`): a
``mimetype`` entry holding ``application/hwp+zip`` in any position and with any
compression, a ``Contents/content.hpf`` manifest, ``Contents/sectionN.xml`` parts, or
a ``META-INF/container.xml`` naming an HWPML package. Real writers compress the
mimetype, put it late, leave it out or write entry names with ``\\``; all of those are
read. A ZIP with none of these is reported ``unsupported`` with what was missing.

The text comes from :func:`section_text`, a streaming walk over each section's XML
(expat, no tree): no DTD or entity declaration is accepted, every part is inflated
under a byte cap, and nesting depth and paragraph count are checked while the XML
streams in, so a hostile file is refused before it costs memory. It returns the same
text as python-hwpx's ``TextExtractor.extract_text(include_nested=True)``, the
reference it is tested against on every fixture, in linear time (python-hwpx lists
every paragraph's siblings, which is quadratic in the paragraphs of a section).

XML is UTF-8 and cannot carry a lone surrogate, so an HWPX body holds none;
private-use characters appear as themselves. The counts are computed on that text.

>>> from hwpscan.rehearsal.synth.hwpx import build_hwpx
>>> doc = read_zip(build_hwpx(["보도자료", [["구분", "내용"]]]))
>>> [s.text for s in doc.body], doc.info.sections
(['보도자료', '구분', '내용'], 1)
"""

from __future__ import annotations

import codecs
import io
import re
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import count, repeat
from operator import itemgetter
from typing import Any, cast
from xml.parsers import expat

from hwpscan.errors import BudgetError, CorruptFileError, EncryptedFileError, FormatError
from hwpscan.formats import fast_readers
from hwpscan.formats.sniff import HWPX_MIMETYPE, SNIFF_BYTES, zip_head_is_hwpx
from hwpscan.models import Document, Format, ReadInfo, Segment, Status

__all__ = [
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_PARAGRAPHS",
    "MAX_PART_BYTES",
    "MAX_UNCOMPRESSED",
    "hwpx_evidence",
    "read_hwpx",
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
#: XML nesting deeper than this is refused (real sections: under 40, tables in tables).
MAX_DEPTH = 256
#: Paragraphs over the whole package (real documents: thousands, rarely 100,000).
MAX_PARAGRAPHS = 1_000_000

#: Section parts up to this size (declared and inflated) go through the C walk whole.
FAST_PART_BYTES = 16 * 2**20

_CHUNK = 64 * 1024
_SECTION_RE = re.compile(r"^section(\d+)\.xml$", re.I)
_MAIN_ROOTFILE = "application/hwpml-package+xml"
#: The elements read of META-INF/container.xml and of the package manifest (.hpf).
#: Elements inside ``hp:t`` that stand for one character (their own content is not text).
_INLINE = {
    "lineBreak": "\n",
    "nbSpace": "\u00a0",
    "fwSpace": "\u3000",
    "tab": "\t",
    "hyphen": "\u00ad",
    "markpenBegin": "",
    "markpenEnd": "",
}
_SHOWN = 5
_new = tuple.__new__  # _new(Segment, fields): no named tuple __new__ in Python
_TEXT_OF = itemgetter(3)


def read_zip(data: bytes) -> Document:
    """Any ZIP: an HWPX package's text, or a verdict on another ZIP. Never raises for a
    damaged file: the document carries a status and a reason.

    The package is read through zipfile."""
    try:
        archive = _open(data)
    except EncryptedFileError as exc:
        return Document(format=_head_format(data), status=Status.ENCRYPTED, reason=str(exc))
    except FormatError as exc:
        return Document(format=_head_format(data), status=Status.CORRUPT, reason=str(exc))
    return _read_archive(archive, data)


def _read_archive(archive: _Archive, data: bytes) -> Document:
    with archive:
        try:
            entries = _entries(archive)
        except CorruptFileError as exc:
            return Document(format=_head_format(data), status=Status.CORRUPT, reason=str(exc))
        evidence = hwpx_evidence(archive, entries)
        if not evidence:
            return Document(
                format=Format.ZIP, status=Status.UNSUPPORTED, reason=_plain_zip_reason(entries)
            )
        try:
            return _read_package(archive, entries)
        except EncryptedFileError as exc:
            return Document(format=Format.HWPX, status=Status.ENCRYPTED, reason=str(exc))
        except FormatError as exc:
            return Document(format=Format.HWPX, status=Status.CORRUPT, reason=str(exc))


def read_hwpx(data: bytes, *, max_uncompressed: int = MAX_UNCOMPRESSED) -> Document:
    """Extract the body text of an HWPX package; raises :class:`FormatError` when it
    cannot be read at all (a partly read package comes back ``corrupt`` with its text)."""
    archive = _open(data, max_uncompressed=max_uncompressed)
    with archive:
        return _read_package(archive, _entries(archive))


def _head_format(data: bytes) -> Format:
    return Format.HWPX if zip_head_is_hwpx(data[:SNIFF_BYTES]) else Format.ZIP


def _open(data: bytes, *, max_uncompressed: int = MAX_UNCOMPRESSED) -> _Zipped:
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
    if declared > max_uncompressed:
        archive.close()
        raise CorruptFileError(
            f"ZIP declares {declared:,} uncompressed bytes, over the cap of {max_uncompressed:,}"
        )
    return _Zipped(archive)


class _Zipped:
    """A package read through zipfile. A small part read whole is kept for a second
    read (``META-INF/container.xml`` is read to tell the package and again for its
    spine): zipfile gives the same bytes each time."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self._small: dict[int, bytes] = {}  # id(info): bytes, for a cap of MAX_SMALL_PART

    def __enter__(self) -> _Zipped:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.archive.close()

    def infolist(self) -> list[zipfile.ZipInfo]:
        return self.archive.infolist()

    def part(self, info: Any, cap: int) -> bytes:
        """One entry, inflated never past *cap* bytes (whatever it declares): one read
        of at most one byte more than the cap tells a part over it."""
        info = cast("zipfile.ZipInfo", info)
        if cap == MAX_SMALL_PART:
            kept = self._small.get(id(info))
            if kept is None:
                kept = self._small[id(info)] = self._part(info, cap)
            return kept
        return self._part(info, cap)

    def _part(self, info: zipfile.ZipInfo, cap: int) -> bytes:
        try:
            with self.archive.open(info) as handle:
                data = handle.read(cap + 1)
            if len(data) > cap:
                raise BudgetError(f"{_shown(info.filename)}: inflates past {cap:,} bytes")
        except NotImplementedError as exc:
            if "encrypt" in str(exc):
                raise EncryptedFileError(f"{_shown(info.filename)}: {exc}") from exc
            raise CorruptFileError(f"{_shown(info.filename)}: {exc}") from exc
        except RuntimeError as exc:  # zipfile: "File ... is encrypted, password required"
            raise EncryptedFileError(f"{_shown(info.filename)}: {exc}") from exc
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError) as exc:
            raise CorruptFileError(f"{_shown(info.filename)}: damaged entry ({exc})") from exc
        return data

    def chunks(self, info: Any, cap: int, chunk: int) -> _Chunks:
        return _Chunks(self.archive, cast("zipfile.ZipInfo", info), cap, chunk)


#: A package being read.
_Archive = _Zipped
#: One of its entries.
_Info = zipfile.ZipInfo


def _entries(archive: _Archive) -> dict[str, _Info]:
    """Entries by normalised name: ``\\`` read as ``/``, no leading ``/`` or ``./``.

    Raises :class:`CorruptFileError` for an entry without a name: no writer makes one,
    and zipfile cannot say whether it is a folder."""
    out: dict[str, _Info] = {}
    for info in archive.infolist():
        if not info.filename:
            raise CorruptFileError("a ZIP entry without a name (a damaged central directory?)")
        if info.is_dir():
            continue
        name = _normal(info.filename)
        out.setdefault(name, info)
    return out


def _normal(name: str) -> str:
    r"""*name* with ``\`` read as ``/`` and no empty or ``.`` part; a name that has
    none of those (what writers write) comes back as it is, without a split.

    >>> [_normal(n) for n in ("Contents/a.xml", "./a", "a//b\\c", "/x/./y/", "a/.", ".")]
    ['Contents/a.xml', 'a', 'a/b/c', 'x/y', 'a', '']
    """
    if not (
        "\\" in name
        or "//" in name
        or "/./" in name
        or name.startswith(("/", "./"))
        or name.endswith(("/", "/."))
        or name in ("", ".")
    ):
        return name
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _name(path: str) -> str:
    """The last part of a normalised entry name (``PurePosixPath(path).name``).

    >>> _name("Contents/section0.xml"), _name("mimetype"), _name("")
    ('section0.xml', 'mimetype', '')
    """
    return path.rpartition("/")[2]


def _under(base: str, href: str) -> str:
    """*href* read from the folder *base* (``""``: the top), before normalisation.

    >>> _under("Contents", "section0.xml"), _under("", "a.xml"), _under("x", "/abs.xml")
    ('Contents/section0.xml', 'a.xml', '/abs.xml')
    """
    if href.startswith("/") or not base:
        return href
    return f"{base}/{href}"


def _find(entries: dict[str, _Info], name: str) -> _Info | None:
    info = entries.get(name)
    if info is not None:
        return info
    lowered = name.lower()
    return next((i for n, i in entries.items() if n.lower() == lowered), None)


def _read_part(archive: _Archive, info: _Info, cap: int) -> bytes:
    """One entry, inflated never past *cap* bytes: raises :class:`FormatError` where
    zipfile cannot read it."""
    return archive.part(info, cap)


def _shown(name: str) -> str:
    return name if name.isprintable() else ascii(name)


def hwpx_evidence(archive: _Archive, entries: dict[str, _Info]) -> list[str]:
    """What marks *archive* as an HWPX package (empty: nothing does)."""
    found: list[str] = []
    mime = _find(entries, "mimetype")
    if mime is not None:
        try:
            value = _read_part(archive, mime, 4096).strip()
        except FormatError:
            value = b""
        if value == HWPX_MIMETYPE:
            found.append("mimetype")
        elif value:  # another package type that says what it is (EPUB, ODF...)
            return []
    if _find(entries, "Contents/content.hpf") is not None:
        found.append("Contents/content.hpf")
    if any(n.lower().startswith("contents/") and _SECTION_RE.match(_name(n)) for n in entries):
        found.append("Contents/section*.xml")
    container = _find(entries, "META-INF/container.xml")
    if container is not None:
        try:
            if b"hwpml" in _read_part(archive, container, MAX_SMALL_PART).lower():
                found.append("META-INF/container.xml")
        except FormatError:
            pass
    return found


def _plain_zip_reason(entries: dict[str, _Info]) -> str:
    names = sorted(entries)
    shown = ", ".join(_shown(n) for n in names[:_SHOWN]) or "none"
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return (
        "a ZIP archive that is not an HWPX package: no application/hwp+zip mimetype, "
        "no Contents/content.hpf, no Contents/section*.xml, no HWPML META-INF/container.xml "
        f"(entries: {shown}{more})"
    )


def _read_package(archive: _Archive, entries: dict[str, _Info]) -> Document:
    encrypted = [i for i in entries.values() if i.flag_bits & 0x1]
    if encrypted:
        raise EncryptedFileError(
            f"ZIP entries are encrypted ({len(encrypted)} of {len(entries)}, "
            f"first {_shown(encrypted[0].filename)})"
        )
    protected = _manifest_encryption(archive, entries)
    if protected:
        shown = ", ".join(_shown(p) for p in protected[:_SHOWN])
        raise EncryptedFileError(
            "HWPX package is password-protected: META-INF/manifest.xml declares encryption "
            f"for {len(protected)} part(s) ({shown})"
        )
    sections = _section_names(archive, entries)
    if not sections:
        raise CorruptFileError("HWPX package without section parts (Contents/section*.xml)")
    walk = _Walk()
    unread: list[str] = []
    for name in sections:
        if walk.stopped is not None:
            unread.append(_shown(name))
            continue
        if name not in entries:
            unread.append(f"{_shown(name)} (named by the manifest, missing from the package)")
            continue
        try:
            _section_into(archive, entries[name], walk, name)
        except EncryptedFileError:
            raise
        except FormatError as exc:
            walk.stopped = str(exc)
            unread.append(f"{_shown(name)} from the damage on")
    # Segment("Contents", n, 0, line) for the n-th line when it is not empty, made in C:
    # tuple.__new__ over zipped fields, empty lines filtered out by their text
    lines = "\n".join(walk.texts()).split("\n")
    made = map(_new, repeat(Segment), zip(repeat("Contents"), count(), repeat(0), lines))
    segments = cast("tuple[Segment, ...]", tuple(filter(_TEXT_OF, made)))
    info = ReadInfo(sections=len(sections), paragraphs=walk.paragraphs)
    notes = tuple(walk.notes)
    if not unread:
        return Document(format=Format.HWPX, body=segments, info=info, warnings=notes)
    if not segments and walk.stopped is None:
        raise CorruptFileError("no section readable: " + ", ".join(unread[:_SHOWN]))
    reason = f"{walk.stopped + '; ' if walk.stopped else ''}unread: {', '.join(unread[:_SHOWN])}"
    if len(unread) > _SHOWN:
        reason += f" and {len(unread) - _SHOWN} more"
    return Document(
        format=Format.HWPX,
        body=segments,
        status=Status.CORRUPT,
        reason=reason,
        info=info,
        warnings=notes,
    )


def _manifest_encryption(archive: _Archive, entries: dict[str, _Info]) -> list[str]:
    """Parts ``META-INF/manifest.xml`` declares encrypted (ODF ``encryption-data``)."""
    info = _find(entries, "META-INF/manifest.xml")
    if info is None:
        return []
    try:
        data = _read_part(archive, info, MAX_SMALL_PART)
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
        _parse(data, start, None, None, "META-INF/manifest.xml")
    except FormatError:
        return parts or ["META-INF/manifest.xml (unparseable, but it names encryption-data)"]
    return parts or ["(parts not named)"]


def _attr(attrs: dict[str, str], local: str) -> str:
    for key, value in attrs.items():
        if key.rpartition("}")[2] == local:
            return value
    return ""


def _section_names(archive: _Archive, entries: dict[str, _Info]) -> list[str]:
    """Section parts in reading order: the manifest's spine when it names them (as
    python-hwpx reads them), else every ``section*.xml`` by number."""
    spine = _spine_sections(archive, entries)
    if spine:
        return spine
    found = [n for n in entries if _name(n).lower().startswith("section")]
    found = [n for n in found if n.lower().endswith(".xml")]
    return sorted(found, key=_section_key)


def _section_key(name: str) -> tuple[int, str]:
    m = _SECTION_RE.match(_name(name))
    return (int(m.group(1)) if m else 0, name)


def _spine_sections(archive: _Archive, entries: dict[str, _Info]) -> list[str]:
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
        _parse(_read_part(archive, container, MAX_SMALL_PART), root_start, None, None, "container")
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
        _parse(_read_part(archive, entries[chosen], MAX_SMALL_PART), hpf_start, None, None, chosen)
    except FormatError:
        return []
    base = chosen.rpartition("/")[0]
    out: list[str] = []
    for ref in spine:
        href = items.get(ref)
        if not href:
            continue
        is_section = _name(_normal(href)).lower().startswith("section")
        found = [c for c in (_normal(href), _normal(_under(base, href))) if c in entries]
        if is_section:  # a section the spine names but the package lacks is kept: unread
            out.append(found[0] if found else _normal(href))
    return out


def _section_into(archive: _Archive, info: _Info, walk: _Walk, name: str) -> None:
    """Add section part *info*'s paragraphs to *walk*: through the C walk when it is
    built and the part is small enough to inflate whole, else (or where it declines,
    or the part cannot be inflated whole) through :func:`section_text`, the reference,
    which streams the part and says what is wrong with it."""
    fast = fast_readers.hwpx_section
    if fast is not None and info.file_size <= FAST_PART_BYTES:
        data = _whole(archive, info, FAST_PART_BYTES)
        if data is not None:
            texts = fast(data, walk.max_depth, walk.max_paragraphs - walk.paragraphs)
            if texts is not None:
                walk.slots.extend(texts)
                walk.paragraphs += len(texts)
                return
    section_text(_stream(archive, info), walk, name)


def _whole(archive: _Archive, info: _Info, cap: int) -> bytes | None:
    """*info* inflated whole, or ``None`` when it is damaged or passes *cap* (the
    streaming walk then reads what it can and names the damage)."""
    try:
        return _read_part(archive, info, cap)
    except FormatError:
        return None


def _stream(archive: _Archive, info: _Info) -> Iterable[bytes]:
    return archive.chunks(info, MAX_PART_BYTES, _CHUNK)


@dataclass
class _Chunks:
    """A section part as chunks of inflated bytes, the byte cap counted as they come."""

    archive: zipfile.ZipFile
    info: zipfile.ZipInfo
    cap: int = MAX_PART_BYTES
    chunk: int = _CHUNK

    def __iter__(self) -> Any:
        total = 0
        name = _shown(self.info.filename)
        try:
            with self.archive.open(self.info) as handle:
                while block := handle.read(self.chunk):
                    total += len(block)
                    if total > self.cap:
                        raise BudgetError(f"{name}: inflates past {self.cap:,} bytes")
                    yield block
        except NotImplementedError as exc:
            raise CorruptFileError(f"{name}: {exc}") from exc
        except RuntimeError as exc:
            raise EncryptedFileError(f"{name}: {exc}") from exc
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError) as exc:
            raise CorruptFileError(f"{name}: damaged entry ({exc})") from exc


@dataclass(slots=True)  # its fields are read at every element of its paragraph
class _Para:
    depth: int
    slot: int
    parts: list[str] = field(default_factory=list)
    capture: int = 0  # depth of the hp:t being captured (0: none)
    mute: int = 0  # depth of an inline element whose content is not text (0: none)


@dataclass
class _Walk:
    """The state of the text walk over all sections of one package."""

    slots: list[str | None] = field(default_factory=list)
    paragraphs: int = 0
    stopped: str | None = None
    max_paragraphs: int = MAX_PARAGRAPHS
    max_depth: int = MAX_DEPTH
    notes: list[str] = field(default_factory=list)  # the row's warnings

    def texts(self) -> list[str]:
        """Paragraph texts in document order, empty ones left out (python-hwpx's rule:
        nothing left after ``strip()``, which is what ``isspace()`` tells without making
        the stripped copy).

        >>> _Walk(["a", None, "", " \\u3000\\n", " b "]).texts()
        ['a', ' b ']
        """
        return [t for t in self.slots if t and not t.isspace()]


def section_text(chunks: Any, walk: _Walk, name: str) -> None:
    """Walk one section part's XML (an iterable of byte chunks) and add its paragraphs'
    text to *walk*.

    The text of a paragraph (``hp:p`` at any depth, in document order) is what its own
    runs hold: ``hp:t`` text with its inline line breaks, tabs and spaces, a run-level
    ``hp:lineBreak`` or ``hp:tab``; objects (tables, pictures), notes and controls add
    nothing to it, and their own paragraphs follow it as paragraphs of their own.
    Raises :class:`FormatError` for malformed XML or a budget passed; the paragraphs
    finished before that stay in *walk*.
    """
    stack: list[str] = []
    open_paras: list[_Para] = []
    # expat gives each element's name as namespace}local, one string object per name
    # (it interns them): the local part is cut once per name, not once per element
    locals_: dict[str, str] = {}
    max_depth = walk.max_depth
    inline = _INLINE

    def start(tag: str, attrs: list[str]) -> None:  # [name, value, name, value, ...]
        local = locals_.get(tag)
        if local is None:
            local = locals_[tag] = tag.rpartition("}")[2]
        stack.append(local)
        depth = len(stack)
        if depth > max_depth:
            raise BudgetError(f"{_shown(name)}: XML nested deeper than {max_depth} levels")
        for para in open_paras:
            if para.capture:
                if not para.mute and local in inline:
                    if inline[local]:
                        para.parts.append(inline[local])
                    para.mute = depth
            elif depth == para.depth + 2 and stack[para.depth] == "run":
                if local == "t":
                    para.capture = depth
                elif local == "lineBreak":
                    para.parts.append("\n")
                elif local == "tab" or (local == "ctrl" and _listed_attr(attrs, "id") == "tab"):
                    para.parts.append("\t")
        if local == "p":
            walk.paragraphs += 1
            if walk.paragraphs > walk.max_paragraphs:
                raise BudgetError(
                    f"{_shown(name)}: more than {walk.max_paragraphs:,} paragraphs (the budget)"
                )
            walk.slots.append(None)
            open_paras.append(_Para(depth, len(walk.slots) - 1))

    def end(tag: str) -> None:
        depth = len(stack)
        for para in open_paras:
            if para.mute == depth:
                para.mute = 0
            if para.capture == depth:
                para.capture = 0
        if open_paras and open_paras[-1].depth == depth:
            para = open_paras.pop()
            walk.slots[para.slot] = "".join(para.parts)
        stack.pop()

    def text(data: str) -> None:
        for para in open_paras:
            if para.capture and not para.mute:
                para.parts.append(data)

    declared = _parse_chunks(chunks, start, end, text, name, listed=True)
    if declared is not None:
        walk.notes.append(f"{_shown(name)}: XML in {declared}, decoded as its declaration says")


def _listed_attr(attrs: list[str], key: str) -> str:
    """The value of attribute *key* in expat's ordered list, lower case (``""``: none).

    >>> _listed_attr(["type", "x", "id", "TAB"], "id"), _listed_attr(["id2", "tab"], "id")
    ('tab', '')
    """
    for i in range(0, len(attrs) - 1, 2):
        if attrs[i] == key:
            return attrs[i + 1].lower()
    return ""


def _parse(
    data: bytes,
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None] | None,
    text: Callable[[str], None] | None,
    name: str,
) -> None:
    _parse_chunks([data], start, end, text, name)


def _refuse(what: str, name: str) -> Callable[..., None]:
    def handler(*_args: object) -> None:
        raise CorruptFileError(f"{_shown(name)}: {what} refused (no DTD or entities in HWPX)")

    return handler


def _parse_chunks(
    chunks: Any,
    start: Callable[[str, Any], None],
    end: Callable[[str], None] | None,
    text: Callable[[str], None] | None,
    name: str,
    *,
    listed: bool = False,
) -> str | None:
    """Stream XML through expat, defused: a DTD, entity declaration or external entity
    reference ends the parse with an error. *start* is given each element's attributes
    as a dict, or with *listed* as expat's flat list of names and values (no dict is
    built per element: a section's walk reads one attribute of one element kind).

    expat reads UTF-8, UTF-16 and single-byte encodings; XML declared in a multi-byte
    one (``euc-kr``, ``cp949``) is decoded here as declared and given to expat as text.
    Returns that encoding's name, else ``None``.
    """
    parser = expat.ParserCreate(namespace_separator="}")
    parser.buffer_text = True
    parser.ordered_attributes = listed
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("a DTD", name)
    parser.EntityDeclHandler = _refuse("an entity declaration", name)
    refuse_external = _refuse("an external entity", name)

    def external(*args: str | None) -> int:
        refuse_external(*args)
        return 0

    parser.ExternalEntityRefHandler = external
    parser.StartElementHandler = start
    if end is not None:
        parser.EndElementHandler = end
    if text is not None:
        parser.CharacterDataHandler = text
    blocks = _growing(chunks)
    first = next(blocks, b"")
    declared = _multibyte_declared(first)
    try:
        if declared is None:
            parser.Parse(first, False)
            for chunk in blocks:
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        else:
            decoder = codecs.getincrementaldecoder(declared)()  # strict: bad bytes are damage
            parser.Parse(decoder.decode(first), False)
            for chunk in blocks:
                parser.Parse(decoder.decode(chunk), False)
            parser.Parse(decoder.decode(b"", True), True)
    except UnicodeDecodeError as exc:
        raise CorruptFileError(
            f"{_shown(name)}: XML declared in {declared} is not valid {declared} ({exc.reason})"
        ) from exc
    except expat.ExpatError as exc:
        raise CorruptFileError(f"{_shown(name)}: XML malformed ({exc})") from exc
    except LookupError as exc:  # the XML declaration names an encoding Python lacks
        raise CorruptFileError(f"{_shown(name)}: XML in an unknown encoding ({exc})") from exc
    except RecursionError as exc:
        raise BudgetError(f"{_shown(name)}: XML too deep ({exc})") from exc
    return declared


#: The most bytes handed to expat at once (see :func:`_growing`).
_MOST_FED = 4 * 2**20


def _growing(chunks: Iterable[bytes], first: int = _CHUNK) -> Iterator[bytes]:
    """*chunks* joined into blocks that double in size, from *first* bytes up to
    :data:`_MOST_FED`: what is handed to expat at a time.

    expat (before 2.6) parses a token that a block leaves unfinished again from its
    start at every later block: a 60 MB start tag fed 64 KB at a time was scanned
    a thousand times (half a minute). Doubling blocks make that a few scans; the
    events are the same whatever the blocks.

    >>> [len(b) for b in _growing([b"x" * 10] * 7, first=10)]
    [10, 20, 40]
    """
    want, pending, size = first, [], 0
    for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        if size >= want:
            yield b"".join(pending)
            want, pending, size = min(want * 2, _MOST_FED), [], 0
    if pending:
        yield b"".join(pending)


_DECLARED_RE = re.compile(
    rb"<\?xml[^>]{0,200}?encoding\s*=\s*[\"']([A-Za-z][A-Za-z0-9._-]{0,40})[\"']"
)


def _multibyte_declared(head: bytes) -> str | None:
    """The encoding the XML declaration at the start of *head* names, when it is a
    multi-byte encoding Python knows (expat reads the others itself); else ``None``.
    An encoding Python lacks is left to expat, which names it in its error.

    >>> _multibyte_declared(b'<?xml version="1.0" encoding="EUC-KR"?><a/>')
    'euc_kr'
    >>> _multibyte_declared(b'<?xml version="1.0" encoding="UTF-8"?>'), _multibyte_declared(
    ...     b"<?xml version='1.0' encoding='cp1252'?>")
    (None, None)
    """
    found = _DECLARED_RE.match(head)
    if found is None:
        return None
    try:
        info = codecs.lookup(found.group(1).decode("ascii"))
    except LookupError:
        return None
    if info.name in ("utf-8", "utf-16", "utf-16-be", "utf-16-le", "ascii", "latin-1"):
        return None
    # expat's own test, as pyexpat makes it: a single-byte table maps all 256 bytes
    single = len(bytes(range(256)).decode(info.name, "replace")) == 256
    return None if single else info.name


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
        walk = _Walk()
        for name in _section_names(archive, entries):
            if name in entries:
                _section_into(archive, entries[name], walk, name)
    return "\n".join(walk.texts())
