"""Attachment downloads: bounded, retried, capped, atomic and resumable.

One :class:`httpx.Client` serves every download; a small thread pool bounds the
concurrency. A file appears under its final name only when it is complete (temp file,
fsync, rename), so a rerun skips any file that exists, and a killed run leaves at most
a ``.hwpscan-tmp-*`` file that the next run removes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx

from hwpscan.fetch.urls import redact_text, redact_url

TEMP_PREFIX = ".hwpscan-tmp-"
DEFAULT_MAX_BYTES = 100_000_000  # per attachment; --max-mb changes it
MAX_NAME_BYTES = 150
_CHUNK = 64 * 1024

_UNSAFE_CHARS_RE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]')
_RESERVED = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{i}" for i in range(1, 10)),
        *(f"lpt{i}" for i in range(1, 10)),
    }
)
_FILENAME_STAR_RE = re.compile(r"filename\*\s*=\s*([^']*)'[^']*'([^;]+)", re.IGNORECASE)
_FILENAME_RE = re.compile(r'filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))', re.IGNORECASE)


def safe_filename(
    name: str, *, max_bytes: int = MAX_NAME_BYTES, fallback: str = "attachment"
) -> str:
    """A file name that cannot leave its folder: no separators, no ``..``, capped, Korean kept.

    >>> safe_filename("../../etc/passwd")
    'passwd'
    >>> safe_filename("C:\\\\Windows\\\\보도자료.hwp")
    '보도자료.hwp'
    >>> safe_filename("..")
    'attachment'
    >>> safe_filename('a<b>:c?.pdf')
    'a_b__c_.pdf'
    >>> safe_filename("CON.txt")
    '_CON.txt'
    >>> name = safe_filename("가" * 200 + ".hwp")
    >>> len(name.encode("utf-8")) <= 150, name.endswith(".hwp")
    (True, True)
    """
    text = unicodedata.normalize("NFC", name or "")
    text = re.split(r"[/\\]", text)[-1]
    text = _UNSAFE_CHARS_RE.sub("_", text).strip().strip(".").strip()
    if not text:
        text = fallback
    stem, dot, ext = text.rpartition(".")
    if not dot or not stem or len(ext) > 10:
        stem, ext = text, ""
    if stem.lower() in _RESERVED:
        stem = "_" + stem
    suffix = f".{ext}" if ext else ""
    budget = max_bytes - len(suffix.encode("utf-8"))
    encoded = stem.encode("utf-8")
    if len(encoded) > budget:
        stem = encoded[:budget].decode("utf-8", errors="ignore").rstrip()
    return stem + suffix


def filename_from_disposition(raw: bytes | str | None) -> str | None:
    """The file name a ``Content-Disposition`` header carries (RFC 5987, UTF-8 or EUC-KR).

    >>> filename_from_disposition(b"attachment; filename*=UTF-8''%EB%B3%B4%EB%8F%84.hwp")
    '보도.hwp'
    >>> filename_from_disposition('attachment; filename="보도.hwp"'.encode("euc-kr"))
    '보도.hwp'
    >>> filename_from_disposition('attachment; filename="보도.hwp"'.encode("utf-8"))
    '보도.hwp'
    >>> filename_from_disposition(b'attachment; filename="%EB%B3%B4.pdf"')
    '보.pdf'
    >>> filename_from_disposition(b"inline") is None
    True
    """
    if raw is None:
        return None
    data = raw if isinstance(raw, bytes) else raw.encode("latin-1", errors="replace")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp949", errors="replace")
    star = _FILENAME_STAR_RE.search(text)
    if star:
        charset = star.group(1).strip() or "utf-8"
        try:
            return unquote(star.group(2).strip().strip('"'), encoding=charset, errors="strict")
        except (LookupError, UnicodeDecodeError):
            pass
    plain = _FILENAME_RE.search(text)
    if not plain:
        return None
    value = plain.group(1) if plain.group(1) is not None else plain.group(2).strip()
    value = re.sub(r"\\(.)", r"\1", value)
    if "%" in value:
        with contextlib.suppress(UnicodeDecodeError):
            value = unquote(value, errors="strict")
    return value or None


@dataclass(frozen=True, slots=True)
class DownloadJob:
    """One file to fetch to ``dest``; ``tag`` lets the caller find its context again."""

    url: str
    dest: Path
    tag: object = None


@dataclass(frozen=True, slots=True)
class DownloadResult:
    """How a job ended: ``downloaded``, ``skipped`` (already complete) or ``failed``."""

    job: DownloadJob
    status: str
    sha256: str | None = None
    bytes: int = 0
    content_type: str | None = None
    disposition_name: str | None = None
    reason: str | None = None
    attempts: int = 0


class _Retry(Exception):
    """A failure worth another attempt (timeout, connection, 5xx)."""


class _Fail(Exception):
    """A failure another attempt will not fix (4xx, over the size cap)."""


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def remove_stale_temp_files(folder: Path) -> int:
    """Delete temp files a killed run left under ``folder``; returns how many."""
    if not folder.is_dir():
        return 0
    removed = 0
    for path in folder.rglob(TEMP_PREFIX + "*"):
        if path.is_file():
            path.unlink(missing_ok=True)
            removed += 1
    return removed


class Downloader:
    """Downloads jobs over one shared client with retries, a size cap and atomic writes."""

    def __init__(
        self,
        http: httpx.Client,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        retries: int = 3,
        backoff: float = 0.5,
        jobs: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        secrets: Iterable[str] = (),
    ) -> None:
        self._http = http
        self.max_bytes = max_bytes
        self.retries = retries
        self.backoff = backoff
        self.jobs = max(1, jobs)
        self._sleep = sleep
        self._secrets = tuple(secrets)

    def download(self, job: DownloadJob) -> DownloadResult:
        """Fetch one job; never raises for network or server trouble (status ``failed``)."""
        if job.dest.is_file():
            return DownloadResult(job, "skipped", file_sha256(job.dest), job.dest.stat().st_size)
        last = "no attempt made"
        for attempt in range(1, self.retries + 2):
            try:
                return self._attempt(job, attempt)
            except _Retry as exc:
                last = str(exc)
                if attempt <= self.retries:
                    self._sleep(self.backoff * 2 ** (attempt - 1))
            except _Fail as exc:
                return DownloadResult(job, "failed", reason=str(exc), attempts=attempt)
        return DownloadResult(
            job,
            "failed",
            reason=f"{last} (after {self.retries + 1} attempts)",
            attempts=self.retries + 1,
        )

    def _attempt(self, job: DownloadJob, attempt: int) -> DownloadResult:
        try:
            with self._http.stream("GET", job.url) as response:
                if response.status_code >= 500:
                    raise _Retry(f"HTTP {response.status_code}")
                if response.status_code != 200:
                    raise _Fail(f"HTTP {response.status_code}")
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > self.max_bytes:
                    raise _Fail(
                        f"announced {int(declared)} bytes, over the {self.max_bytes}-byte cap"
                    )
                digest, size = self._write(job, response)
                raw_cd = response.headers.raw
                disposition = next(
                    (v for k, v in raw_cd if k.lower() == b"content-disposition"), None
                )
                return DownloadResult(
                    job,
                    "downloaded",
                    digest,
                    size,
                    response.headers.get("content-type"),
                    filename_from_disposition(disposition),
                    attempts=attempt,
                )
        except httpx.HTTPError as exc:
            detail = redact_text(str(exc), self._secrets) or type(exc).__name__
            message = f"{type(exc).__name__}: {detail}"
            if isinstance(
                exc, (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
            ):
                raise _Retry(message) from exc
            raise _Fail(message) from exc

    def _write(self, job: DownloadJob, response: httpx.Response) -> tuple[str, int]:
        job.dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=job.dest.parent)
        tmp = Path(tmp_name)
        digest = hashlib.sha256()
        size = 0
        try:
            with os.fdopen(fd, "wb") as handle:
                for chunk in response.iter_bytes(_CHUNK):
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise _Fail(f"more than {self.max_bytes} bytes, over the size cap: stopped")
                    digest.update(chunk)
                    handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, job.dest)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return digest.hexdigest(), size

    def run(self, jobs: Iterable[DownloadJob]) -> Iterator[DownloadResult]:
        """Download jobs concurrently; yields each result as it completes."""
        pending = list(jobs)
        if not pending:
            return
        with ThreadPoolExecutor(max_workers=min(self.jobs, len(pending))) as pool:
            futures = [pool.submit(self.download, job) for job in pending]
            for future in as_completed(futures):
                yield future.result()


def name_from_url(url: str) -> str:
    """A last-resort file name from a URL's path or ``fileSn``.

    >>> name_from_url("https://h/fss/cmmn/file/fileDown.do?atchFileId=ab&fileSn=2")
    'fileDown-2'
    >>> name_from_url("https://h/files/%EB%B3%B4.hwp")
    '보.hwp'
    """
    parts = urlsplit(url)
    base = unquote(parts.path.rsplit("/", 1)[-1])
    serial = re.search(r"(?:^|&)fileSn=([^&]+)", parts.query)
    if base.endswith(".do") or base.endswith(".jsp") or not base:
        stem = base.rsplit(".", 1)[0] or "attachment"
        return f"{stem}-{serial.group(1)}" if serial else stem
    return base


__all__ = [
    "DEFAULT_MAX_BYTES",
    "DownloadJob",
    "DownloadResult",
    "Downloader",
    "file_sha256",
    "filename_from_disposition",
    "name_from_url",
    "redact_url",
    "remove_stale_temp_files",
    "safe_filename",
]
