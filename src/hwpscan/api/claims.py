"""Claims on releases, so that fetches sharing an output folder share its work: an
exclusive ``flock`` on ``<out>/.hwpscan-fetch/claims/<hash>`` until the release's manifest
lines are written, removed while still held (a run that locked a removed file tries
again). Without ``fcntl`` (Windows) every claim is granted.

>>> import tempfile
>>> claims = ReleaseClaims(Path(tempfile.mkdtemp()))
>>> first = claims.take("7", wait=False)
>>> first is not None, claims.take("7", wait=False) is None
(True, True)
>>> first.release()
>>> again = claims.take("7", wait=False)
>>> again is not None
True
>>> again.release()
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from hwpscan.manifest import LOCK_FOLDER

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


class Claim:
    """A release this process is fetching; :meth:`release` when its lines are written."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd, self.path = fd, path

    def release(self) -> None:
        if self._fd < 0:
            return
        self.path.unlink(missing_ok=True)  # while still held: no one locks a stale file
        os.close(self._fd)
        self._fd = -1


class ReleaseClaims:
    """The claims of the runs sharing the output folder *out_dir*."""

    def __init__(self, out_dir: Path) -> None:
        self.folder = Path(out_dir) / LOCK_FOLDER / "claims"

    def take(self, key: str, *, wait: bool) -> Claim | None:
        """Claim the release *key*: ``None`` when another run holds it and not *wait*;
        with *wait*, blocks until that run lets it go."""
        self.folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        path = self.folder / name
        while True:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
            if fcntl is None:
                return Claim(fd, path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                os.close(fd)
                return None
            with contextlib.suppress(FileNotFoundError):
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    return Claim(fd, path)
            os.close(fd)  # its holder removed it between our open and our lock: again
