"""The response cache: every paid-for answer is on disk before it is parsed, per API URL
(secrets removed) and window: the raw body (key replaced) and a JSON sidecar saying how it
came and whether it is *trusted* (a refusal or an HTML page is kept, never taken for data).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwpscan.api.dates import KST, Window
from hwpscan.atomic import atomic_write
from hwpscan.redaction import redact_url

if TYPE_CHECKING:
    from hwpscan.api.client import RawAnswer

try:
    import fcntl
except ImportError:  # Windows: no advisory file locks; concurrent runs may both pay
    fcntl = None  # type: ignore[assignment]

CACHE_DIR = "cache/responses"


def endpoint_id(api_url: str) -> str:
    """A stable folder name for an endpoint, from its URL with secrets removed.

    >>> endpoint_id("https://h/api?authKey=one") == endpoint_id("https://h/api?authKey=two")
    True
    """
    return hashlib.sha256(redact_url(api_url).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One cached answer: raw bytes and sidecar facts (``trusted``, ``verdict``, ``key_sha256``)."""

    body: bytes
    path: Path
    meta: dict[str, Any]


class ResponseCache:
    """Raw API answers on disk, one file per (endpoint, window)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def body_path(self, api_url: str, window: Window) -> Path:
        name = f"{window.start.isoformat()}_{window.end.isoformat()}.body"
        return self.root / endpoint_id(api_url) / name

    @contextmanager
    def lock(self, api_url: str, window: Window) -> Iterator[None]:
        """Hold the window's lock file, so runs sharing the state folder pay for it once."""
        path = self.body_path(api_url, window).with_suffix(".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a+b") as handle:  # closing it lets the lock go
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield

    def get(self, api_url: str, window: Window) -> CacheEntry | None:
        """The cached answer for the window, or ``None``."""
        path = self.body_path(api_url, window)
        try:
            body = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        return CacheEntry(body, path, meta if isinstance(meta, dict) else {})

    def put(
        self, api_url: str, window: Window, raw: RawAnswer, *, key_sha256: str | None = None
    ) -> Path:
        """Store the raw answer (body first), untrusted until :meth:`mark` says so, with the
        paying key's :func:`hwpscan.redaction.key_hash` (never the key)."""
        path = self.body_path(api_url, window)
        atomic_write(path, raw.body)
        meta = {
            "url": redact_url(api_url),
            "window": str(window),
            "fetched_at": datetime.now(tz=KST).isoformat(timespec="seconds"),
            "status_code": raw.status_code,
            "content_type": raw.content_type,
            "bytes": len(raw.body),
            "sha256": hashlib.sha256(raw.body).hexdigest(),
            "trusted": False,
        } | ({} if key_sha256 is None else {"key_sha256": key_sha256})
        _write_meta(path, meta)
        return path

    def mark(self, api_url: str, window: Window, *, trusted: bool, verdict: str) -> None:
        """Record how the stored answer parsed."""
        if (entry := self.get(api_url, window)) is not None:
            _write_meta(entry.path, dict(entry.meta, trusted=trusted, verdict=verdict))


def _write_meta(body_path: Path, meta: dict[str, Any]) -> None:
    data = json.dumps(meta, ensure_ascii=False, indent=1).encode("utf-8")
    atomic_write(body_path.with_suffix(".json"), data)
