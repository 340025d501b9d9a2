"""``manifest.jsonl``: one line per attachment, appended the moment the file exists (a
killed run loses at most that line; a torn line is skipped, a later line for the same
path wins). ``path`` is relative to the output folder. :func:`dates_for` dates files.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from datetime import date
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: runs sharing a folder are not kept apart
    fcntl = None  # type: ignore[assignment]

MANIFEST_NAME = "manifest.jsonl"
#: Where runs sharing an output folder keep their locks (a dot-folder: never scanned).
LOCK_FOLDER = ".hwpscan-fetch"
_OPTIONAL_TEXT = ("date", "path", "sha256", "content_type", "reason", "etag")


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """One attachment: where it came from, where it is, what it was. ``status`` is
    ``downloaded``, ``failed``, ``refused`` (the URL failed validation) or ``skipped``;
    ``reason`` says why."""

    date: str | None
    content_id: str
    subject: str
    name: str
    url: str
    path: str | None
    sha256: str | None
    bytes: int
    content_type: str | None
    status: str
    reason: str | None = None
    etag: str | None = None  # the server's ETag, for a conditional re-download

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ManifestEntry:
        """Rebuild an entry, ignoring keys this version does not know.

        >>> e = ManifestEntry("2025-07-21", "1", "s", "a.hwp", "u", "a.hwp", None, 0, None,
        ...                   "failed")
        >>> ManifestEntry.from_json(e.to_json() | {"extra": 1}) == e
        True
        >>> ManifestEntry.from_json([1])
        Traceback (most recent call last):
        ...
        TypeError: a manifest line must be a JSON object, not list
        >>> ManifestEntry.from_json(e.to_json() | {"date": "21/07/2025"})
        Traceback (most recent call last):
        ...
        ValueError: a manifest line whose date '21/07/2025' is not YYYY-MM-DD
        """
        if not isinstance(data, dict):
            raise TypeError(f"a manifest line must be a JSON object, not {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        texts = ("content_id", "subject", "name", "url", "status")
        bad = [n for n in texts if not isinstance(values.get(n), str)]
        bad += [n for n in _OPTIONAL_TEXT if not isinstance(values.get(n), (str, type(None)))]
        if type(values.get("bytes")) is not int:
            bad.append("bytes")
        if bad:
            raise TypeError(f"a manifest line with a wrong or missing {', '.join(bad)}")
        if values.get("date") is not None and not is_iso_date(values["date"]):
            raise ValueError(f"a manifest line whose date {values['date']!r} is not YYYY-MM-DD")
        return cls(**values)


def is_iso_date(text: str) -> bool:
    """A real calendar date written ``YYYY-MM-DD`` (what every reader of ``date`` takes).

    >>> is_iso_date("2025-07-21"), is_iso_date("2025-02-30"), is_iso_date("2025-7-21")
    (True, False, False)
    >>> is_iso_date("2025-07-21\x1b[2J"), is_iso_date("２０２５-07-21")
    (False, False)
    """
    if len(text) != 10 or not text.isascii() or text[4] != "-" or text[7] != "-":
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


class ManifestWriter:
    """Appends entries to ``folder/manifest.jsonl``, safe from several threads and
    processes: each line whole under the :class:`FolderLock`, after reading what other
    runs appended (:meth:`refresh` hands those out), and never a line the manifest
    already says (the last for its path; without a path, :func:`pathless_key`).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / MANIFEST_NAME
        self._lock = threading.Lock()
        self._folder_lock = FolderLock(self.folder)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        self._offset = 0  # how far this writer has read the file
        self._unseen: list[ManifestEntry] = []  # read, not yet handed out by refresh()
        self._latest: dict[str, ManifestEntry] = {}  # path -> its last line
        self._pathless: set[tuple[str, str, str]] = set()
        with self._lock, self._folder_lock:
            size = os.fstat(self._fd).st_size
            if size > 0 and not _ends_with_newline(self.path):
                _write_all(self._fd, b"\n")  # a killed run left a torn line: start clean

    def refresh(self) -> list[ManifestEntry]:
        """The entries appended since the last call (the whole file the first time),
        by any run, in file order; torn or foreign lines skipped."""
        with self._lock, self._folder_lock:
            self._read_new()
            out, self._unseen = self._unseen, []
        return out

    def write(self, entry: ManifestEntry) -> bool:
        """Append *entry* unless the manifest already says it; whether it was written."""
        line = json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":"))
        with self._lock, self._folder_lock:
            self._read_new()
            if self._known(entry):
                return False
            data = (line + "\n").encode("utf-8")
            _write_all(self._fd, data)
            os.fsync(self._fd)
            self._offset += len(data)
            self._learn(entry)
        return True

    def _read_new(self) -> None:
        """Read the whole lines appended since :attr:`_offset` (the lock held)."""
        with self.path.open("rb") as handle:
            handle.seek(self._offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        if not end:
            return
        self._offset += end
        for entry in parse_entries(data[:end].decode("utf-8", errors="replace")):
            self._learn(entry)
            self._unseen.append(entry)

    def _known(self, entry: ManifestEntry) -> bool:
        if entry.path:
            return self._latest.get(entry.path) == entry
        return pathless_key(entry) in self._pathless

    def _learn(self, entry: ManifestEntry) -> None:
        if entry.path:
            self._latest[entry.path] = entry
        else:
            self._pathless.add(pathless_key(entry))

    def close(self) -> None:
        os.close(self._fd)
        self._folder_lock.close()

    def __enter__(self) -> ManifestWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pathless_key(entry: ManifestEntry) -> tuple[str, str, str]:
    """What makes two lines without a file (failed, refused, skipped) say the same: one
    release, URL and status.

    >>> e = ManifestEntry("2025-07-21", "7", "s", "a.hwp", "u", None, None, 0, None,
    ...                   "failed", "HTTP 404")
    >>> pathless_key(e)
    ('7', 'u', 'failed')
    """
    return (entry.content_id, entry.url, entry.status)


class FolderLock:
    """An exclusive lock on an output folder among processes (``fcntl.flock`` on
    ``folder/.hwpscan-fetch/lock``; without ``fcntl``, none), re-entered for each short
    critical section."""

    def __init__(self, folder: Path) -> None:
        lock_dir = Path(folder) / LOCK_FOLDER
        lock_dir.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(lock_dir / "lock", os.O_RDONLY | os.O_CREAT, 0o666)

    def __enter__(self) -> FolderLock:
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        if fcntl is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def parse_entries(
    text: str, problems: list[str] | None = None, where: str = ""
) -> Iterator[ManifestEntry]:
    """The well-formed lines of a manifest's text, in order; a torn or foreign line is
    skipped, and described in *problems* (as ``where:line``) when a list is given."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield ManifestEntry.from_json(json.loads(line))
        except (ValueError, TypeError, RecursionError) as exc:
            if problems is not None:
                problems.append(f"{where}:{number}: skipped, not a manifest entry ({exc})")


def read_entries(path: Path, *, problems: list[str] | None = None) -> list[ManifestEntry]:
    """Every well-formed line of a manifest file (see :func:`parse_entries`)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as exc:
        if problems is not None:
            problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
        return []
    return list(parse_entries(text, problems, str(path)))


def _resolve(path: Path) -> Path | None:
    """``path.resolve()``, or ``None`` for a symlink loop or an unreadable path."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def load_manifest(folder: Path, problems: list[str] | None = None) -> dict[Path, ManifestEntry]:
    """The latest entry per file, keyed by the file's absolute path (lines skipped are
    described in *problems*, see :func:`read_entries`)."""
    folder = _resolve(Path(folder)) or Path(folder).absolute()
    out: dict[Path, ManifestEntry] = {}
    for entry in read_entries(folder / MANIFEST_NAME, problems=problems):
        if entry.path and (resolved := _resolve(folder / entry.path)) is not None:
            out[resolved] = entry
    return out


def dates_for(paths: Iterable[Path], problems: list[str] | None = None) -> dict[Path, str]:
    """The release date of each path (as given) a manifest in its folder or an ancestor
    knows; a line that is no entry dates nothing and is described in *problems*."""
    loaded: dict[Path, dict[Path, ManifestEntry]] = {}
    out: dict[Path, str] = {}
    for given in paths:
        absolute = _resolve(Path(given))
        if absolute is None:  # a symlink loop: nothing to date
            continue
        for folder in absolute.parents:
            if folder not in loaded:
                manifest = folder / MANIFEST_NAME
                loaded[folder] = load_manifest(folder, problems) if manifest.is_file() else {}
            entry = loaded[folder].get(absolute)
            if entry is not None and entry.date:
                out[given] = entry.date
                break
    return out
