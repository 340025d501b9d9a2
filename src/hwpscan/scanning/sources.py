"""Where the files to scan are: local paths (searched as
:func:`~hwpscan.scanning.inputs.collect_files` does) or fsspec URLs (``s3://bucket/prefix``,
``file:///data``...), listed lazily as :class:`WorkItem` objects. Nothing here reads a
file's bytes: a worker does that, wherever it runs.

Dates follow the folder rules: a ``manifest.jsonl`` in the file's folder or an ancestor
that knows the file, else the innermost ``YYYY-MM-DD`` component of the key. Credentials
come from each filesystem's own configuration; a URL's userinfo is never shown.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwpscan.errors import UsageError
from hwpscan.locations import shown_url, url_from_argument
from hwpscan.manifest import MANIFEST_NAME, parse_entries
from hwpscan.redaction import (
    redact_credentials,
    redact_text,
    userinfo_secrets,
)
from hwpscan.scanning.inputs import (
    _is_attachment_name,
    collect_files,
    date_from_path,
    display_path,
    resolve_dates,
)

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

_MANIFEST_CAP = 64 * 2**20  # a manifest bigger than this is not one of ours


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One file to scan: small and picklable, so it can travel to any worker.

    ``location`` is a local path (``os.fsdecode`` form) or an fsspec URL; ``shown`` is
    the path results carry (the same as the local executor's for local files, the URL
    without userinfo for remote ones). ``size`` and ``etag`` are what the listing said
    (``None`` when it did not say), for ``--resume``.
    """

    index: int
    location: str
    shown: str
    date: str | None = None
    size: int | None = None
    etag: str | None = None
    remote: bool = False


def filesystem(url: str) -> tuple[AbstractFileSystem, str]:
    """The fsspec filesystem for *url* and the path inside it.

    Raises :class:`UsageError` naming what to install when the protocol's package is
    missing, and for a URL fsspec cannot open.
    """
    try:
        import fsspec.core
    except ImportError:
        raise UsageError(
            f"{shown_url(url)}: reading URLs needs fsspec: pip install 'hwpscan[cloud]'"
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as exc:
        raise UsageError(
            f"{shown_url(url)}: this protocol needs a package that is not installed "
            f"(pip install 'hwpscan[cloud]' for s3://): {redact_credentials(str(exc))}"
        ) from None
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(f"{shown_url(url)}: cannot open: {redact_credentials(str(exc))}") from None
    return fs, str(path)


def iter_items(sources: Sequence[str | Path], *, start: int = 0) -> Iterator[WorkItem]:
    """Every file below *sources*, in the order the local executor scans them.

    Local paths are collected and dated exactly as :func:`hwpscan.scanning.inputs.collect_files`
    and :func:`hwpscan.scanning.inputs.resolve_dates` do; URLs are listed one folder at a time
    as the items are consumed, so a listing of millions of keys never sits in memory.
    """
    index = start
    local: list[Path] = []
    for source in [*sources, None]:
        url = url_from_argument(source) if source is not None else None
        if source is not None and url is None:
            local.append(Path(source))
            continue
        if local:  # flush the run of local paths, keeping the command line's order
            for item in _local_items(local, index):
                index += 1
                yield item
            local = []
        if url is not None:
            for item in _url_items(url, index):
                index += 1
                yield item


def _local_items(paths: Iterable[Path], start: int) -> Iterator[WorkItem]:
    files = collect_files(paths)
    dates = resolve_dates(files)
    for n, path in enumerate(files, start):
        try:
            size: int | None = path.stat().st_size
        except OSError:
            size = None
        yield WorkItem(n, os.fsdecode(path), display_path(path), dates.get(path), size)


def _url_items(url: str, start: int) -> Iterator[WorkItem]:
    fs, root = filesystem(url)
    root = root.rstrip("/") or root
    try:
        info = fs.info(root)
    except FileNotFoundError:
        raise UsageError(f"no such file or folder: {shown_url(url)}") from None
    except Exception as exc:  # each backend raises its SDK's own errors (botocore's...)
        # an SDK repeats user:password@bucket when it takes it for a bucket name
        text = redact_credentials(f"{type(exc).__name__}: {exc}")
        text = redact_text(text, userinfo_secrets([url]))[:500]
        raise UsageError(f"{shown_url(url)}: cannot list: {text}") from None
    manifests: dict[str, dict[str, str]] = {}
    index = start
    if info.get("type") != "directory":
        folder = posixpath.dirname(root)
        yield _url_item(fs, info, index, _date_for(fs, root, folder, manifests))
        return
    try:
        for entry, folder in _walk(fs, root, manifests):
            yield _url_item(fs, entry, index, _date_for(fs, entry["name"], folder, manifests))
            index += 1
    except UsageError as exc:
        raise UsageError(redact_text(str(exc), userinfo_secrets([url]))) from None


def _walk(
    fs: AbstractFileSystem, folder: str, manifests: dict[str, dict[str, str]]
) -> Iterator[tuple[dict[str, Any], str]]:
    """Files of *folder* (sorted), then each sub-folder's: the order of ``os.walk``."""
    try:
        listing = fs.ls(folder, detail=True)
    except Exception as exc:  # each backend raises its SDK's own errors
        raise UsageError(
            f"cannot list {_shown(fs, folder)}: {redact_credentials(str(exc))}"
        ) from None
    files: list[dict[str, Any]] = []
    dirs: list[str] = []
    for entry in listing:
        name = str(entry["name"]).rstrip("/")
        base = posixpath.basename(name)
        if name == folder or not base:
            continue
        if entry.get("type") == "directory":
            if not base.startswith("."):
                dirs.append(name)
        elif base == MANIFEST_NAME:
            manifests[folder] = _read_manifest(fs, name, folder)
        elif _is_attachment_name(base):
            files.append(entry)
    manifests.setdefault(folder, {})
    for entry in sorted(files, key=lambda e: posixpath.basename(str(e["name"]))):
        yield entry, folder
    for sub in sorted(dirs, key=posixpath.basename):
        yield from _walk(fs, sub, manifests)


def _read_manifest(fs: AbstractFileSystem, name: str, folder: str) -> dict[str, str]:
    """Dates a ``manifest.jsonl`` gives, keyed by full path (the latest line wins)."""
    try:
        if int(fs.size(name) or 0) > _MANIFEST_CAP:
            return {}
        text = bytes(fs.cat_file(name)).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    for entry in parse_entries(text):
        if entry.path:
            full = posixpath.normpath(posixpath.join(folder, entry.path))
            if entry.date:
                out[full] = entry.date
            else:
                out.pop(full, None)
    return out


def _date_for(
    fs: AbstractFileSystem, name: str, folder: str, manifests: dict[str, dict[str, str]]
) -> str | None:
    """The innermost manifest that dates the file, else its key's date component."""
    here = folder
    while True:
        if here not in manifests:  # a folder above the source root: its manifest, if any
            manifest = posixpath.join(here, MANIFEST_NAME)
            try:
                exists = bool(fs.isfile(manifest))
            except (OSError, ValueError):
                exists = False
            manifests[here] = _read_manifest(fs, manifest, here) if exists else {}
        if (found := manifests[here].get(name)) is not None:
            return found
        parent = posixpath.dirname(here)
        if not parent or parent == here:
            break
        here = parent
    return date_from_path(name)


def _url_item(
    fs: AbstractFileSystem, entry: dict[str, Any], index: int, date: str | None
) -> WorkItem:
    name = str(entry["name"])
    url = _shown(fs, name)
    size = entry.get("size")
    etag = entry.get("ETag") or entry.get("etag")
    return WorkItem(
        index,
        url,
        url,
        date,
        int(size) if isinstance(size, int) else None,
        str(etag).strip('"') if etag else None,
        remote=True,
    )


def _shown(fs: AbstractFileSystem, path: str) -> str:
    return shown_url(str(fs.unstrip_protocol(path)))
