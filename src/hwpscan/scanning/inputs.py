"""The inputs of a scan: files listed from paths and folders, and each file's date
(from a manifest, a dated folder or file name)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from hwpscan.manifest import MANIFEST_NAME, dates_for, is_iso_date

#: Names that live beside attachments but are not attachments.
SIDECAR_NAMES = frozenset({"manifest.jsonl", "expected.jsonl", "README.md", "README.txt"})
_SIDECAR_SUFFIXES = (".part", ".tmp")


def display_path(path: str | os.PathLike[str]) -> str:
    """A printable form of a path: undecodable bytes become escapes, not surrogates.

    >>> display_path(os.fsdecode(b"a\\xff.hwp"))
    'a\\\\xff.hwp'
    """
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def date_from_path(path: str | os.PathLike[str]) -> str | None:
    """The date named by a whole ``YYYY-MM-DD`` folder (innermost first) or file stem.

    >>> date_from_path("downloads/2025-07-21/보도자료.hwp")
    '2025-07-21'
    >>> date_from_path("2025-07-21/a_2025-08-01.hwp"), date_from_path("x2025-07-21y/a.hwp")
    ('2025-07-21', None)
    >>> date_from_path("x/2025-13-40/a.pdf") is None
    True
    """
    text = os.fspath(path)
    head, name = os.path.split(text)
    if not name or name in (".", ".."):  # pathlib reads these otherwise: ask it
        p = Path(text)
        return _named_date(p.stem) or _folder_date(os.fspath(p.parent))
    return _listed_date(head, name)


def _listed_date(folder: str, name: str) -> str | None:
    """:func:`date_from_path` of *name* (a plain name, as listed) in *folder*."""
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name  # as Path.stem
    # only a ten-character stem can be a date: most names are not asked the pattern
    return (len(stem) == 10 and _named_date(stem)) or _folder_date(folder)


def _named_date(part: str) -> str | None:
    """*part* when it is a whole, real ``YYYY-MM-DD`` date."""
    return part if is_iso_date(part) else None


@functools.lru_cache(maxsize=4096)
def _folder_date(folder: str) -> str | None:
    """The innermost whole date among *folder*'s components, once per folder: the files
    of a folder share it. (Components pathlib would drop, empty or ``.``, are no date.)"""
    return next(filter(None, map(_named_date, reversed(folder.split(os.sep)))), None)


def collect_files(inputs: Iterable[Path]) -> list[Path]:
    """Files named, and files below folders named (recursively, sorted, sidecars skipped),
    each once. A missing path or a folder that cannot be listed is kept: its row says so.
    """
    return [Path(found.text) for found in _listed(inputs)]


def collect_dated(
    inputs: Iterable[Path], problems: list[str] | None = None
) -> tuple[list[Path], dict[Path, str]]:
    """:func:`collect_files` and :func:`resolve_dates` of the files, in one pass: what
    the listing learnt of each file (its real folder) is not asked of the disk again.
    Manifest lines that date nothing (a bad date...) are described in *problems*."""
    texts, dated = collect_listed(inputs, problems)
    paths = [Path(text) for text in texts]
    return paths, {p: dated[t] for p, t in zip(paths, texts, strict=True) if t in dated}


def collect_listed(
    inputs: Iterable[Path], problems: list[str] | None = None
) -> tuple[list[str], dict[str, str]]:
    """:func:`collect_dated` with each file as the text of its path, the dates keyed by
    it: what the pool takes (a ``Path`` per file would cost a parse and a hash each)."""
    found = _listed(inputs)
    return [f.text for f in found], _dates(found, problems)


class _Listed(NamedTuple):
    """A file the listing found (a tuple: made in C, many thousands per scan)."""

    text: str  # the path as a string: str() of its Path
    real: str  # its real path (os.path.realpath)
    # for a file found below a folder: that folder as walked, and the file's name in it
    # (so that its date and its manifest are asked per folder, not worked out per file)
    folder: str | None = None
    name: str = ""
    real_folder: str | None = None  # the folder's real path, when the file is no symlink


def _listed(inputs: Iterable[Path]) -> list[_Listed]:
    out: list[_Listed] = []
    seen: set[str] = set()
    real = _RealPaths()

    for item in inputs:
        if not item.is_dir():
            if (key := real(item)) not in seen:
                seen.add(key)
                out.append(_Listed(os.fspath(item), key))
            continue
        for root, files in _walk(os.fspath(item)):
            if files is None:  # a folder that cannot be listed: kept, its row says why
                if (key := real(root)) not in seen:
                    seen.add(key)
                    out.append(_Listed(root, key))
                continue
            # os.path.join(root, name) and (folder, name), for names that hold no separator
            real_root = real.folder(root)
            # "." is left out in front, as pathlib writes the paths below it
            within = "" if root == os.curdir else _joiner(root)
            real_within = _joiner(real_root)
            for name, link in files:
                if not _is_attachment_name(name):
                    continue
                text = within + name
                # a file that is no symlink is its folder's real path plus its name
                key = real(text) if link else real_within + name
                if key not in seen:
                    seen.add(key)
                    folder_real = None if link else real_root
                    out.append(_Listed(text, key, root, name, folder_real))
    return out


def _joiner(folder: str) -> str:
    """What :func:`os.path.join` puts before a plain name (no separator in it) below
    *folder*: one join per folder instead of one per file.

    >>> [_joiner(f) + "a.hwp" == os.path.join(f, "a.hwp") for f in ("x", "x/", "/", "")]
    [True, True, True, True]
    """
    if not folder or folder.endswith(os.sep) or (os.altsep and folder.endswith(os.altsep)):
        return folder
    return os.path.join(folder, "")


def _walk(top: str) -> Iterator[tuple[str, list[tuple[str, bool]] | None]]:
    """The folders below *top* as :func:`os.walk` goes (folders in name order, hidden and
    symlinked ones not entered), each with its files in name order and whether each is a
    symlink; a folder that cannot be listed comes with ``None``. Below ``.`` folders are
    named without it, as pathlib names them."""
    try:
        with os.scandir(top) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        yield top, None
        return
    folders: list[os.DirEntry[str]] = []
    files: list[tuple[str, bool]] = []
    for entry in entries:
        if _entry_is(entry.is_dir):
            folders.append(entry)
        else:
            files.append((entry.name, _entry_is(entry.is_symlink)))
    yield top, files
    for entry in folders:
        if not entry.name.startswith(".") and not _entry_is(entry.is_symlink):
            yield from _walk(entry.name if top == os.curdir else os.path.join(top, entry.name))


def _entry_is(test: Callable[[], bool]) -> bool:
    """A directory entry's test, False when it cannot be answered (as os.walk takes it)."""
    try:
        return test()
    except OSError:
        return False


def _is_attachment_name(name: str) -> bool:
    return not (name.startswith(".") or name in SIDECAR_NAMES or name.endswith(_SIDECAR_SUFFIXES))


class _RealPaths:
    """``os.path.realpath`` for many files of few folders: a folder is resolved once,
    and a file that is no symlink is its resolved folder plus its name (one ``lstat``
    instead of one per path component).

    >>> real = _RealPaths()
    >>> [real(Path(p)) == os.path.realpath(p) for p in ("/", "no/such", "/tmp/x")]
    [True, True, True]
    """

    def __init__(self) -> None:
        self._folders: dict[str, str] = {}

    def __call__(self, path: str | os.PathLike[str]) -> str:
        text = os.fspath(path)
        head, name = os.path.split(text)
        if not name or name in (".", "..") or os.path.islink(text):
            return os.path.realpath(text)
        return os.path.join(self.folder(head), name)

    def folder(self, head: str) -> str:
        """``os.path.realpath`` of a folder (``""`` is the current one), once."""
        found = self._folders.get(head)
        if found is None:
            found = self._folders[head] = os.path.realpath(head or ".")
        return found


def resolve_dates(paths: Iterable[Path]) -> dict[Path, str]:
    """Dates for files: a fetch manifest when one knows the file (looked up only below a
    folder that has one), else the path."""
    real = _RealPaths()
    given = [(p, os.fspath(p)) for p in paths]
    dated = _dates([_Listed(text, real(text)) for _, text in given])
    return {p: dated[text] for p, text in given if text in dated}


def _dates(files: list[_Listed], problems: list[str] | None = None) -> dict[str, str]:
    """The date of each listed file that has one, keyed by its text."""
    known: dict[str, bool] = {}

    def under_manifest(folder: str) -> bool:
        found = known.get(folder)
        if found is None:
            parent = os.path.dirname(folder)
            here = os.path.isfile(os.path.join(folder, MANIFEST_NAME))
            found = known[folder] = here or (parent != folder and under_manifest(parent))
        return found

    listed = {
        Path(f.text): f.text
        for f in files
        if under_manifest(f.real_folder if f.real_folder is not None else os.path.dirname(f.real))
    }
    named = {listed[p]: d for p, d in dates_for(listed, problems).items()} if listed else {}
    dates: dict[str, str] = {}  # the path names what the manifests do not
    for f in files:
        found = date_from_path(f.text) if f.folder is None else _listed_date(f.folder, f.name)
        if found is not None:
            dates[f.text] = found
    dates.update(named)
    return dates
