"""The fetch orchestrator: windows -> cached or paid calls -> attachments -> manifest.

Order matters and is the point of this module:

1. A call is counted in the ledger *before* it is made (so the limit is never passed).
2. The answer's raw bytes go to the cache *before* they are parsed.
3. Each window's attachments are downloaded before the next call, and each file's
   manifest line is written the moment the file exists.

So a run stopped at any point (quota, refusal, network, SIGKILL) keeps everything it
paid for, and a rerun spends no call on a finished window.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import httpx

from hwpscan.errors import ApiError, ApiRefusedError, ApiResponseError, HwpscanError, UnsafeUrlError
from hwpscan.fetch.cache import ResponseCache
from hwpscan.fetch.client import (
    DEFAULT_API_URL,
    ApiAnswer,
    ApiClient,
    ApiNetworkError,
    DailyLimitError,
    Release,
    check_answer,
    parse_answer,
)
from hwpscan.fetch.dates import (
    DEFAULT_WINDOW_DAYS,
    Window,
    check_range,
    korea_today,
    split_windows,
    year_warning,
)
from hwpscan.fetch.download import (
    DEFAULT_MAX_BYTES,
    Downloader,
    DownloadJob,
    name_from_url,
    remove_stale_temp_files,
    safe_filename,
)
from hwpscan.fetch.manifest import ManifestEntry, ManifestWriter, load_manifest, read_entries
from hwpscan.fetch.plan import open_cache, open_ledger, usable_cached
from hwpscan.fetch.quota import DEFAULT_DAILY_LIMIT, QuotaLedger
from hwpscan.fetch.urls import (
    DEFAULT_DOWNLOAD_PATHS,
    Resolver,
    redact_url,
    system_resolver,
    validate_attachment_url,
)
from hwpscan.home import state_dir
from hwpscan.models import ExitCode

#: Calls left today at or under which an empty answer is suspicious.
NEAR_LIMIT = 2


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """A progress tick for ``calls`` or ``downloads``: ``total`` grows, ``advance`` counts."""

    kind: str
    total: int = 0
    advance: int = 0
    message: str = ""


Progress = Callable[[ProgressEvent], None]


@dataclass(frozen=True)
class FetchReport:
    """What a fetch did. ``error`` is the :class:`ApiError` that stopped it, if any."""

    start: date
    end: date
    windows: tuple[Window, ...]
    calls_made: int
    calls_cached: int
    releases: int
    files_downloaded: int
    files_skipped: int
    files_failed: int
    files_refused: int
    warnings: tuple[str, ...]
    out_dir: Path
    manifest_path: Path
    error: ApiError | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def complete(self) -> bool:
        """No stop, no failed download and no refused attachment URL."""
        return self.error is None and not self.files_failed and not self.files_refused

    @property
    def exit_code(self) -> ExitCode:
        """``API`` (3) when the API, its limits or the network stopped the run, or left
        files undownloaded (failed after retries, or URLs refused); else ``OK``."""
        return ExitCode.OK if self.complete else ExitCode.API


@dataclass
class _Tally:
    calls_made: int = 0
    calls_cached: int = 0
    releases: int = 0
    downloaded: int = 0
    skipped: int = 0
    failed: int = 0
    refused: int = 0
    warnings: list[str] = field(default_factory=list)


def _notify(progress: Progress | None, event: ProgressEvent) -> None:
    if progress is not None:
        progress(event)


class _Run:
    """State of one fetch; :func:`fetch_range` is its public face."""

    def __init__(
        self,
        *,
        api: ApiClient,
        key: str,
        cache: ResponseCache,
        ledger: QuotaLedger,
        downloader: Downloader,
        writer: ManifestWriter,
        out_dir: Path,
        allow_hosts: tuple[str, ...],
        path_prefixes: tuple[str, ...],
        resolver: Resolver | None,
        progress: Progress | None,
        api_retries: int,
        backoff: float,
        sleep: Callable[[float], None],
    ) -> None:
        self.api, self.key, self.cache, self.ledger = api, key, cache, ledger
        self.downloader, self.writer, self.out_dir = downloader, writer, out_dir
        self.allow_hosts, self.path_prefixes, self.resolver = allow_hosts, path_prefixes, resolver
        self.progress, self.api_retries, self.backoff, self.sleep = (
            progress,
            api_retries,
            backoff,
            sleep,
        )
        self.tally = _Tally()
        self.seen: set[str] = set()
        self.known = load_manifest(out_dir)
        previous = read_entries(writer.path)
        self.pathless = {(e.content_id, e.url, e.status) for e in previous if not e.path}
        #: Where an earlier run put each URL's file (names may have come from the server).
        self.by_url = {
            e.url: out_dir / e.path for e in previous if e.status == "downloaded" and e.path
        }

    # -- calls -------------------------------------------------------------------------
    def answer_for(self, window: Window) -> ApiAnswer:
        cached = usable_cached(self.cache, self.api.api_url, window)
        if cached is not None:
            self.tally.calls_cached += 1
            return cached
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._call(window)
            except ApiNetworkError as exc:
                if not exc.retryable or attempt > self.api_retries:
                    raise ApiNetworkError(
                        f"{exc} (after {attempt} attempts)", retryable=False
                    ) from exc
                self.tally.warnings.append(f"window {window}: {exc}; retrying")
                self.sleep(self.backoff * 2 ** (attempt - 1))

    def _call(self, window: Window) -> ApiAnswer:
        self.ledger.reserve(self.key)  # raises QuotaExceededError before any request
        try:
            raw = self.api.get(window)
        except ApiNetworkError as exc:
            if exc.sent:
                self.tally.calls_made += 1
            else:
                self.ledger.refund(self.key)
            raise
        self.tally.calls_made += 1
        self.cache.put(
            self.api.api_url,
            window,
            raw.body,
            status_code=raw.status_code,
            content_type=raw.content_type,
        )
        if raw.status_code >= 500:
            self.cache.mark(
                self.api.api_url, window, trusted=False, verdict=f"http {raw.status_code}"
            )
            raise ApiNetworkError(
                f"the API answered HTTP {raw.status_code} for {window}", retryable=True
            )
        try:
            answer = parse_answer(raw.body)
        except HwpscanError as exc:
            self.cache.mark(self.api.api_url, window, trusted=False, verdict=type(exc).__name__)
            if isinstance(exc, DailyLimitError):
                self.ledger.mark_exhausted(self.key)
            if raw.status_code != 200 and isinstance(exc, ApiResponseError):
                raise ApiResponseError(f"the API answered HTTP {raw.status_code}: {exc}") from exc
            raise
        status = self.ledger.status(self.key)
        assessment = check_answer(answer, window, near_limit=status.remaining <= NEAR_LIMIT)
        self.tally.warnings.extend(answer.warnings)
        if assessment.suspicious_empty:
            self.cache.mark(self.api.api_url, window, trusted=False, verdict="suspicious-empty")
            raise ApiRefusedError(
                f"{assessment.warnings[0]}. {status.describe()}. Nothing was treated as fetched "
                "for this window; run again later (the window will be asked again)",
                code=answer.code,
            )
        self.cache.mark(self.api.api_url, window, trusted=True, verdict="ok")
        return answer

    # -- releases and files ----------------------------------------------------------
    def take(self, window: Window, answer: ApiAnswer) -> None:
        assessment = check_answer(answer, window, near_limit=False)
        self.tally.warnings.extend(w for w in assessment.warnings if "outside the window" in w)
        outside = set(assessment.outside)
        jobs: list[DownloadJob] = []
        for release in answer.releases:
            key = release.content_id or f"{release.reg_date}|{release.subject}"
            if key in self.seen:
                continue
            self.seen.add(key)
            self.tally.releases += 1
            self.tally.warnings.extend(release.warnings)
            jobs.extend(self._jobs(release, skip=release.content_id in outside))
        _notify(self.progress, ProgressEvent("downloads", total=len(jobs)))
        for result in self.downloader.run(jobs):
            release, name, url = result.job.tag  # type: ignore[misc]
            entry = self._entry(release, name, url, result.job.dest)
            if result.status == "skipped":
                self.tally.skipped += 1
                known = self.known.get(result.job.dest.resolve())
                if known is None or known.status != "downloaded":
                    self._record(
                        entry(
                            sha256=result.sha256,
                            bytes=result.bytes,
                            status="downloaded",
                            reason="found complete on disk",
                        )
                    )
            elif result.status == "downloaded":
                self.tally.downloaded += 1
                dest = self._server_named(result.job.dest, name, result.disposition_name)
                if dest != result.job.dest:
                    entry = self._entry(release, result.disposition_name or "", url, dest)
                self._record(
                    entry(
                        sha256=result.sha256,
                        bytes=result.bytes,
                        content_type=result.content_type,
                        status="downloaded",
                    )
                )
            else:
                self.tally.failed += 1
                self.tally.warnings.append(f"{redact_url(url)}: download failed: {result.reason}")
                self._record(entry(status="failed", reason=result.reason, path=None))
            _notify(self.progress, ProgressEvent("downloads", advance=1, message=name))

    @staticmethod
    def _server_named(dest: Path, listed_name: str, disposition_name: str | None) -> Path:
        """Rename a file the API listed without a name to the server's name for it."""
        if listed_name or not disposition_name:
            return dest
        prefix = dest.name.split("_", 1)[0]
        target = dest.with_name(f"{prefix}_{safe_filename(disposition_name)}")
        if target.exists():
            return dest
        os.replace(dest, target)
        return target

    def _jobs(self, release: Release, *, skip: bool) -> Iterable[DownloadJob]:
        used: set[str] = set()
        folder = self.out_dir / (release.date or "undated")
        prefix = safe_filename(release.content_id, max_bytes=40, fallback="post")
        for attachment in release.attachments:
            entry = self._entry(release, attachment.name, attachment.url, None)
            if skip:
                self._record(
                    entry(status="skipped", reason="release dated outside the requested window")
                )
                continue
            try:
                url = validate_attachment_url(
                    attachment.url,
                    api_url=self.api.api_url,
                    allow_hosts=self.allow_hosts,
                    path_prefixes=self.path_prefixes,
                    resolver=self.resolver,
                )
            except UnsafeUrlError as exc:
                self.tally.refused += 1
                self.tally.warnings.append(f"release {release.content_id}: {exc}")
                self._record(entry(status="refused", reason=str(exc)))
                continue
            earlier = self.by_url.get(redact_url(url))
            if earlier is not None and earlier.is_file():
                used.add(earlier.name)
                yield DownloadJob(url, earlier, tag=(release, attachment.name, url))
                continue
            name = safe_filename(attachment.name or name_from_url(url))
            candidate, n = f"{prefix}_{name}", 1
            while candidate in used:
                n += 1
                stem, dot, ext = name.rpartition(".")
                candidate = f"{prefix}_{stem or ext}-{n}{dot}{ext if stem else ''}"
            used.add(candidate)
            yield DownloadJob(url, folder / candidate, tag=(release, attachment.name, url))

    def _entry(self, release: Release, name: str, url: str, dest: Path | None):
        def build(**changes: object) -> ManifestEntry:
            base: dict[str, object] = {
                "date": release.date,
                "content_id": release.content_id,
                "subject": release.subject,
                "name": name,
                "url": redact_url(url.replace("&amp;", "&")),
                "path": dest.relative_to(self.out_dir).as_posix() if dest else None,
                "sha256": None,
                "bytes": 0,
                "content_type": None,
                "status": "",
                "reason": None,
            }
            base.update(changes)
            return ManifestEntry(**base)  # type: ignore[arg-type]

        return build

    def _record(self, entry: ManifestEntry) -> None:
        if not entry.path:  # refused or skipped: one line per URL, not one per run
            mark = (entry.content_id, entry.url, entry.status)
            if mark in self.pathless:
                return
            self.pathless.add(mark)
        self.writer.write(entry)
        if entry.path:
            self.known[(self.out_dir / entry.path).resolve()] = entry


def fetch_range(
    start: date,
    end: date,
    *,
    key: str,
    out_dir: Path,
    state: Path | None = None,
    api_url: str = DEFAULT_API_URL,
    client: httpx.Client | None = None,
    window_days: int = DEFAULT_WINDOW_DAYS,
    daily_limit: int = DEFAULT_DAILY_LIMIT,
    reset_hour: int = 0,
    allow_hosts: Iterable[str] = (),
    path_prefixes: Iterable[str] = DEFAULT_DOWNLOAD_PATHS,
    progress: Progress | None = None,
    connect_timeout: float = 10.0,
    read_timeout: float = 60.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    jobs: int = 4,
    retries: int = 3,
    backoff: float = 0.5,
    resolver: Resolver | None = system_resolver,
    clock: Callable[[], datetime] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> FetchReport:
    """Fetch ``start..end`` window by window into ``out_dir``; never raises for API trouble.

    Raises :class:`hwpscan.errors.UsageError` for bad arguments. An :class:`ApiError`
    (quota, refusal, HTML page, network after retries) stops the run and is returned in
    :attr:`FetchReport.error`, with everything fetched before it kept.
    """
    check_range(start, end)
    windows = split_windows(start, end, window_days)
    state = state or state_dir()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    removed = remove_stale_temp_files(out_dir)
    own_client = client is None
    http = client or httpx.Client(
        timeout=httpx.Timeout(read_timeout, connect=connect_timeout), follow_redirects=False
    )
    ledger = open_ledger(state, daily_limit=daily_limit, reset_hour=reset_hour, clock=clock)
    writer = ManifestWriter(out_dir)
    run = _Run(
        api=ApiClient(api_url, key, http=http),
        key=key,
        cache=open_cache(state),
        ledger=ledger,
        downloader=Downloader(
            http,
            max_bytes=max_bytes,
            retries=retries,
            backoff=backoff,
            jobs=jobs,
            sleep=sleep,
            secrets=(key,),
        ),
        writer=writer,
        out_dir=out_dir,
        allow_hosts=tuple(allow_hosts),
        path_prefixes=tuple(path_prefixes),
        resolver=resolver,
        progress=progress,
        api_retries=retries,
        backoff=backoff,
        sleep=sleep,
    )
    today = korea_today(clock() if clock else None)
    warning = year_warning(start, end, today)
    if warning:
        run.tally.warnings.append(warning)
    if removed:
        run.tally.warnings.append(f"removed {removed} partial file(s) left by an interrupted run")
    error: ApiError | None = None
    _notify(progress, ProgressEvent("calls", total=len(windows)))
    try:
        for window in windows:
            try:
                answer = run.answer_for(window)
            except ApiError as exc:
                error = exc
                break
            run.take(window, answer)
            _notify(progress, ProgressEvent("calls", advance=1, message=str(window)))
    finally:
        writer.close()
        if own_client:
            http.close()
    t = run.tally
    return FetchReport(
        start=start,
        end=end,
        windows=windows,
        calls_made=t.calls_made,
        calls_cached=t.calls_cached,
        releases=t.releases,
        files_downloaded=t.downloaded,
        files_skipped=t.skipped,
        files_failed=t.failed,
        files_refused=t.refused,
        warnings=tuple(dict.fromkeys(t.warnings)),
        out_dir=out_dir,
        manifest_path=writer.path,
        error=error,
    )
