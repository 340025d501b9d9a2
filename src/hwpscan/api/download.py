"""Attachment downloads over one httpx client and a small thread pool: bounded, retried,
capped, atomic (a file gets its name only when complete, so a rerun skips what exists) and
resumable (a killed run's ``.hwpscan-tmp-<pid>-...`` file goes once that process is gone).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from hwpscan.api.client import decode_body
from hwpscan.api.settings import FetchSettings
from hwpscan.atomic import TEMP_PREFIX, atomic_file
from hwpscan.redaction import redact_bytes, redact_text

if TYPE_CHECKING:  # httpx loads with the first download: --help needs only the constants
    import httpx

#: ``.hwpscan-tmp-<pid>-<start time>-...``: who is writing the file.
_OWNER_RE = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-(\d+)-")
#: Seconds untouched after which a temp file of unknown owner counts as abandoned.
STALE_AFTER = 15 * 60
MAX_NAME_BYTES = 150
#: A download slower than this on average (after :data:`RATE_GRACE` seconds) is given up.
MIN_RATE = 1024
RATE_GRACE = 30.0

#: Control characters, characters Windows forbids, lone surrogates (a JSON ``\ud800``
#: decodes to one, and no file system takes it), and look-alikes of ``/`` and ``\``.
_UNSAFE_CHARS_RE = re.compile(
    '[\x00-\x1f\x7f-\x9f<>:"/\\\\|?*\ud800-\udfff\u2044\u2215\u29f5\u29f8\uff0f\uff3c]'
)
#: Device names Windows reserves whatever the extension (``con.tar.gz`` is CON).
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$", "clock$"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"}
)
_FILENAME_STAR_RE = re.compile(r"filename\*\s*=\s*([^']*)'[^']*'([^;]+)", re.IGNORECASE)
_FILENAME_RE = re.compile(r'filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))', re.IGNORECASE)


def safe_filename(
    name: str, *, max_bytes: int = MAX_NAME_BYTES, fallback: str = "attachment"
) -> str:
    """A file name that cannot leave its folder: no separators, no ``..``, capped, Korean kept.

    >>> safe_filename("../../etc/passwd"), safe_filename("a<b>:c?.pdf"), safe_filename("CON.txt")
    ('passwd', 'a_b__c_.pdf', '_CON.txt')
    """
    text = re.split(r"[/\\]", name or "")[-1]
    text = _UNSAFE_CHARS_RE.sub("_", text)  # surrogates go before normalising
    text = unicodedata.normalize("NFC", text)
    # Bidi overrides, zero-width characters, BOMs, soft hyphens (category Cf) change how a
    # name looks without changing what it is: "\u202egpj.exe" displays as "exe.jpg".
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = text.strip().strip(".").strip()
    if not text:
        text = fallback
    stem, dot, ext = text.rpartition(".")
    if not dot or not stem or len(ext) > 10:
        stem, ext = text, ""
    if text.split(".", 1)[0].rstrip(" ").lower() in _RESERVED:
        stem = "_" + stem
    suffix = f".{ext}" if ext else ""
    budget = max_bytes - len(suffix.encode("utf-8"))
    encoded = stem.encode("utf-8")
    if len(encoded) > budget:
        stem = encoded[:budget].decode("utf-8", errors="ignore").rstrip()
    return stem + suffix


def filename_from_disposition(raw: bytes) -> str | None:
    """The file name a ``Content-Disposition`` header carries (RFC 5987, UTF-8 or EUC-KR).

    >>> filename_from_disposition(b"attachment; filename*=UTF-8''%EB%B3%B4%EB%8F%84.hwp")
    '보도.hwp'
    """
    text = decode_body(raw)[0]
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
    #: Ask again even when ``dest`` exists (conditionally, with ``etag`` when known); a
    #: changed file replaces it and the earlier copy is kept under ``.superseded/``.
    revalidate: bool = False
    etag: str | None = None


@dataclass(frozen=True, slots=True)
class DownloadResult:
    """How a job ended: ``downloaded``, ``skipped`` (complete, or unchanged: ``reason`` says
    how it was known) or ``failed``; ``superseded`` holds a changed file's earlier copy."""

    job: DownloadJob
    status: str
    sha256: str | None = None
    bytes: int = 0
    content_type: str | None = None
    disposition_name: str | None = None
    reason: str | None = None
    attempts: int = 0
    etag: str | None = None
    superseded: Path | None = None


class _Retry(Exception):
    """A failure worth another attempt (timeout, connection, 5xx)."""


class _Fail(Exception):
    """A failure another attempt will not fix (4xx, over the size cap)."""


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in chunks."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """``(state, start time)`` of a process from ``/proc`` (Linux), or ``None``."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = raw.rpartition(")")[2].split()  # the command name may hold spaces and ")"
    return (fields[0], fields[19]) if len(fields) > 19 else None


def temp_prefix() -> str:
    """This process's temp-file prefix: its pid and start time, so that another run can
    tell a live download from one a killed run left."""
    stat = _proc_stat(os.getpid())
    return f"{TEMP_PREFIX}{os.getpid()}-{stat[1] if stat else 0}-"


def _owner_alive(pid: int, started: str) -> bool | None:
    """Whether the process that named a temp file still runs (``None``: cannot tell)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":  # no cheap, safe probe (os.kill would signal it)
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    except OSError:
        return None
    stat = _proc_stat(pid)  # dead if a zombie, or if the pid now names a newer process
    return stat is None or (stat[0] not in ("Z", "X") and started in ("0", stat[1]))


def remove_stale_temp_files(folder: Path) -> int:
    """Delete (and count) the temp files under ``folder`` whose owner (:func:`temp_prefix`)
    is gone, or, when that cannot be told, that are :data:`STALE_AFTER` seconds untouched."""
    if not folder.is_dir():
        return 0
    now = time.time()
    removed = 0
    for path in folder.rglob(TEMP_PREFIX + "*"):
        owner = _OWNER_RE.match(path.name)
        alive = _owner_alive(int(owner[1]), owner[2]) if owner else None
        if alive:
            continue
        try:
            if alive is None and now - path.stat().st_mtime < STALE_AFTER:
                continue
            if path.is_file():
                path.unlink()
                removed += 1
        except FileNotFoundError:  # its owner finished, or another run cleaned it first
            continue
    return removed


def size_cap(max_bytes: int) -> str:
    """The per-file size cap in words, naming the option that raises it."""
    return f"the size cap of {max_bytes / 1_000_000:g} MB per file (raise it with --max-mb)"


def default_deadline(max_bytes: int) -> float:
    """Seconds one file may take in all: a minute, or the size cap at 100 kB/s if longer."""
    return max(60.0, max_bytes / 100_000)


class Downloader:
    """Downloads jobs over one client with retries, a size cap and atomic writes; an attempt
    has a ``deadline`` and must average ``min_rate`` bytes/s after ``rate_grace`` seconds."""

    def __init__(
        self,
        http: httpx.Client,
        settings: FetchSettings | None = None,
        *,
        secrets: Iterable[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        min_rate: float = MIN_RATE,
        rate_grace: float = RATE_GRACE,
    ) -> None:
        settings = settings or FetchSettings()
        self._http, self._sleep = http, sleep
        #: What must never be written: redacted from failure reasons (and by callers).
        self.secrets = tuple(secrets)
        self.max_bytes, self.retry = settings.max_bytes, settings.retry
        self.jobs = max(1, settings.downloads)
        deadline = settings.download_deadline
        self.deadline = default_deadline(self.max_bytes) if deadline is None else deadline
        self.min_rate, self.rate_grace = min_rate, rate_grace
        #: Bytes all downloads together may take; past it, every file fails.
        self.max_total_bytes = settings.limits.max_download_bytes
        self.total_bytes = 0
        self.over_budget = threading.Event()
        self._total_lock = threading.Lock()
        #: Told ``(job, what happened and when it is tried again)`` before each retry.
        self.on_retry: Callable[[DownloadJob, str], None] | None = None

    def download(self, job: DownloadJob, stop: threading.Event | None = None) -> DownloadResult:
        """Fetch one job (until *stop* is set); never raises for network or server trouble."""
        stop = stop or threading.Event()
        if job.dest.is_file() and not job.revalidate:
            return DownloadResult(job, "skipped", file_sha256(job.dest), job.dest.stat().st_size)
        if self.over_budget.is_set():
            return DownloadResult(job, "failed", reason=self.budget_reason())

        def attempt(number: int) -> DownloadResult:
            if stop.is_set():
                return DownloadResult(job, "failed", reason="cancelled", attempts=number - 1)
            try:
                return self._attempt(job, number, stop)
            except _Fail as exc:
                return DownloadResult(job, "failed", reason=str(exc), attempts=number)

        def gave_up(exc: _Retry, attempts: int) -> DownloadResult:
            reason = f"{exc} (after {attempts} attempts)"
            return DownloadResult(job, "failed", reason=reason, attempts=attempts)

        def retrying(exc: _Retry, when: str) -> None:
            if self.on_retry is not None:
                self.on_retry(job, f"{exc}; {when}")

        return self.retry.run(
            attempt, catch=_Retry, give_up=gave_up, on_retry=retrying, sleep=self._sleep
        )

    def _attempt(self, job: DownloadJob, attempt: int, stop: threading.Event) -> DownloadResult:
        """One GET of ``job``: a result, or :class:`_Retry` / :class:`_Fail`."""
        import httpx

        old = job.dest if job.revalidate and job.dest.is_file() else None
        headers = {"If-None-Match": job.etag} if old is not None and job.etag else {}
        try:
            with self._http.stream("GET", job.url, headers=headers) as response:
                if response.status_code == 304 and old is not None:
                    why = "unchanged (the server answered 304 Not Modified)"
                    size = old.stat().st_size
                    return DownloadResult(
                        job, "skipped", file_sha256(old), size, None, None, why, attempt, job.etag
                    )
                status, declared = response.status_code, response.headers.get("content-length")
                if status != 200:
                    raise (_Retry if status >= 500 else _Fail)(f"HTTP {status}")
                if declared and declared.isdigit() and int(declared) > self.max_bytes:
                    cap = size_cap(self.max_bytes)
                    raise _Fail(f"announced {int(declared):,} bytes, over {cap}")
                if old is not None:
                    return self._replace(job, response, stop, attempt)
                digest, size = self._write(job, response, stop)
                return self._downloaded(job, response, digest, size, attempt)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            detail = redact_text(str(exc), self.secrets) or type(exc).__name__
            what = f"{type(exc).__name__}: {detail}"
            if isinstance(
                exc, (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
            ):
                raise _Retry(what) from exc  # worth another attempt
            if isinstance(exc, httpx.InvalidURL):  # not an HTTPError: a redirect to data:...
                what = f"the server sent an unusable URL: {what}"
            raise _Fail(what) from exc  # a bad URL, too many redirects...

    def _downloaded(
        self, job: DownloadJob, response: httpx.Response, digest: str, size: int, attempt: int
    ) -> DownloadResult:
        """A complete download's result, with the server's name and type (key taken out)."""
        raw = response.headers.raw
        disposition = next((v for k, v in raw if k.lower() == b"content-disposition"), b"")
        name = filename_from_disposition(redact_bytes(disposition, self.secrets))
        ctype = response.headers.get("content-type")
        ctype, name = (None if t is None else redact_text(t, self.secrets) for t in (ctype, name))
        etag = response.headers.get("etag")
        return DownloadResult(job, "downloaded", digest, size, ctype, name, None, attempt, etag)

    def _write(
        self, job: DownloadJob, response: httpx.Response, stop: threading.Event
    ) -> tuple[str, int]:
        digest = hashlib.sha256()
        size = 0
        started = time.monotonic()
        try:
            with atomic_file(job.dest, prefix=temp_prefix(), suffix="", shared=True) as handle:
                for chunk in response.iter_bytes():  # as the bytes come, not per 64 KiB
                    size += len(chunk)
                    self._check(size, len(chunk), time.monotonic() - started, stop)
                    digest.update(chunk)
                    handle.write(chunk)
        except FileNotFoundError as exc:  # the partial file removed under us: download again
            raise _Retry("the partial file vanished before it was complete") from exc
        return digest.hexdigest(), size

    def _check(self, size: int, added: int, elapsed: float, stop: threading.Event) -> None:
        """Stop a download over its size cap, the run's byte budget, its deadline or pace."""
        if size > self.max_bytes:
            cap = size_cap(self.max_bytes)
            raise _Fail(f"more than {self.max_bytes:,} bytes, over {cap}: stopped")
        with self._total_lock:
            self.total_bytes += added
            if self.total_bytes > self.max_total_bytes:
                self.over_budget.set()
        if self.over_budget.is_set():
            raise _Fail(self.budget_reason())
        if stop.is_set():
            raise _Fail("cancelled")
        if elapsed > self.deadline:
            raise _Fail(f"not complete after the {self.deadline:g}-second deadline: stopped")
        if elapsed > self.rate_grace and size < self.min_rate * elapsed:
            raise _Fail(
                f"{size} bytes in {elapsed:.0f} s, slower than {self.min_rate:g} bytes/s: stopped"
            )

    def budget_reason(self) -> str:
        return (
            f"the run's download budget of {self.max_total_bytes:,} bytes is used up "
            "(--max-total-mb): not downloaded"
        )

    def _replace(
        self, job: DownloadJob, response: httpx.Response, stop: threading.Event, attempt: int
    ) -> DownloadResult:
        """Download a revalidated file again; keep the earlier copy when it changed."""
        old_sha = file_sha256(job.dest)
        keep = job.dest.parent / ".superseded" / f"{old_sha[:12]}_{job.dest.name}"
        keep_copy(job.dest, keep)
        try:
            digest, size = self._write(job, response, stop)
        finally:
            if file_sha256(job.dest) == old_sha:  # failed, or the same bytes again
                keep.unlink(missing_ok=True)
        got = replace(self._downloaded(job, response, digest, size, attempt), disposition_name=None)
        if digest == old_sha:
            return replace(got, status="skipped", reason="unchanged (downloaded again: same bytes)")
        reason = f"content changed since the last fetch; the earlier copy is {keep}"
        return replace(got, reason=reason, superseded=keep)

    def run(self, jobs: Iterable[DownloadJob]) -> Iterator[DownloadResult]:
        """Download jobs concurrently; yields each result as it completes. When the caller
        stops early, queued jobs are cancelled and running ones stop at their next chunk."""
        pending = list(jobs)
        if not pending:
            return
        stop = threading.Event()
        pool = ThreadPoolExecutor(max_workers=min(self.jobs, len(pending)))
        try:
            futures = [pool.submit(self.download, job, stop) for job in pending]
            for future in as_completed(futures):
                yield future.result()
        finally:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)


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
    if base.endswith((".do", ".jsp")) or not base:
        stem = base.rsplit(".", 1)[0] or "attachment"
        return f"{stem}-{serial.group(1)}" if serial else stem
    return base


def keep_copy(src: Path, keep: Path) -> None:
    """Keep *src*'s bytes at *keep* (a hard link, else a copy); another run doing so is fine."""
    keep.parent.mkdir(parents=True, exist_ok=True)
    if keep.exists():
        return
    try:
        os.link(src, keep)
    except FileExistsError:  # another run kept it first
        pass
    except OSError:  # no hard links here: a copy
        aside = keep.with_name(f".{keep.name}.{os.getpid()}.{threading.get_ident()}.part")
        try:
            shutil.copy2(src, aside)
            os.replace(aside, keep)
        finally:
            aside.unlink(missing_ok=True)
