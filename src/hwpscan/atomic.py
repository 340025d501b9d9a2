"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

The data goes to a temp file in the target's folder (a dot-name ending ``.part``, which
scanning skips), is flushed to disk, and is then renamed over the target. On any error,
interruption included, the temp file is removed and the target is left as it was.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> atomic_write(folder / "a" / "b.txt", "안녕\\n")
>>> (folder / "a" / "b.txt").read_text(encoding="utf-8")
'안녕\\n'
>>> sorted(p.name for p in (folder / "a").iterdir())
['b.txt']
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

#: How every temp file hwpscan writes beside its target begins.
TEMP_PREFIX = ".hwpscan-tmp-"


def current_umask() -> int:
    """The process's umask, read now: from ``/proc/self/status`` where Linux has it
    (setting the umask to read it would race with threads creating files), else by
    setting it and putting it back.

    >>> old = os.umask(0o027)
    >>> current_umask() == 0o027
    True
    >>> _ = os.umask(old)
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def shared_mode() -> int:
    """The mode of a file written for people and other tools (downloads, manifests,
    reports, repaired text): what ``open()`` would give under the umask of the moment,
    0644 under the usual 022, 0600 under 077."""
    return 0o666 & ~current_umask()


#: :func:`shared_mode` when this module was imported (kept for callers that read it).
SHARED_MODE = shared_mode()


@contextmanager
def atomic_file(
    path: Path, *, prefix: str = TEMP_PREFIX, suffix: str = ".part", shared: bool = False
) -> Iterator[BinaryIO]:
    """A binary handle whose bytes replace *path* (its folder created when missing) when
    the block ends without error. *prefix* and *suffix* name the temp file (a downloader
    puts its pid in the prefix). The file is the owner's alone (0600) unless *shared*:
    then it gets :func:`shared_mode`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    tmp = Path(name)
    if shared:
        os.fchmod(fd, shared_mode())
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: Path, data: str | bytes, *, shared: bool = False) -> None:
    """Write *data* (text as UTF-8, newlines as given) to *path* atomically (*shared*:
    readable by others, see :func:`atomic_file`)."""
    with atomic_file(path, shared=shared) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
