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

import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path

import httpx

from hwpscan.errors import (
    ApiError,
    ApiNetworkError,
    ApiRefusedError,
    ApiResponseError,
    DailyLimitError,
    HwpscanError,
    UsageError,
)
from hwpscan.fetch.cache import ResponseCache
from hwpscan.fetch.client import (
    DEFAULT_API_URL,
    HOLIDAY_WEEKDAYS,
    ApiAnswer,
    ApiClient,
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
from hwpscan.fetch.download import DEFAULT_MAX_BYTES, Downloader, remove_stale_temp_files
from hwpscan.fetch.files import AttachmentStore, UrlPolicy, is_html
from hwpscan.fetch.limits import FetchLimits
from hwpscan.fetch.plan import open_cache, open_ledger, usable_cached
from hwpscan.fetch.progress import Progress, ProgressEvent, notify
from hwpscan.fetch.quota import DEFAULT_DAILY_LIMIT, QuotaLedger
from hwpscan.fetch.urls import DEFAULT_DOWNLOAD_PATHS, Resolver, check_api_url, system_resolver
from hwpscan.home import state_dir
from hwpscan.manifest import ManifestEntry, ManifestWriter
from hwpscan.models import ExitCode
from hwpscan.redaction import redact_text

__all__ = ["FetchReport", "ProgressEvent", "fetch_range"]

#: Calls left today at or under which an empty answer is suspicious.
NEAR_LIMIT = 2


@dataclass(frozen=True)
class FetchReport:
    """What a fetch did. ``error`` is the :class:`ApiError` that stopped it, if any.

    ``entries`` are the manifest entries of every attachment the API listed for this
    range in this run (downloaded, found on disk, failed, refused or skipped): what a
    scan of *this* fetch should look at, unlike the whole folder, which keeps earlier
    runs' files. :attr:`paths` are the files among them.
    """

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
    entries: tuple[ManifestEntry, ...] = ()
    #: Releases the answers listed, before ``only_dates`` chose among them.
    releases_listed: int = 0

    @property
    def paths(self) -> tuple[Path, ...]:
        """The attachments this fetch listed that are on disk, each once, in fetch order."""
        found = (self.out_dir / e.path for e in self.entries if e.status == "downloaded" and e.path)
        return tuple(dict.fromkeys(found))

    @property
    def ok(self) -> bool:
        """True when nothing stopped the run (files may still have failed)."""
        return self.error is None

    @property
    def html_only(self) -> int:
        """How many files this fetch listed on disk when every one of them is an HTML
        page (the server's error pages instead of attachments); else 0."""
        kept = [e for e in self.entries if e.status == "downloaded" and e.path]
        if kept and all(is_html(e.content_type) for e in kept):
            return len(kept)
        return 0

    @property
    def complete(self) -> bool:
        """No stop, no failed download, no refused attachment URL, and not only HTML
        pages where files were expected."""
        return (
            self.error is None
            and not self.files_failed
            and not self.files_refused
            and not self.html_only
        )

    @property
    def exit_code(self) -> ExitCode:
        """``API`` (3) when the API, its limits or the network stopped the run or left
        files behind (failed after retries, URLs refused); else ``OK``."""
        return ExitCode.OK if self.complete else ExitCode.API


@dataclass(frozen=True, slots=True)
class Retry:
    """How often and how patiently to try again after a timeout or a 5xx."""

    retries: int = 3
    backoff: float = 0.5
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1, 2, ...)."""
        return float(self.backoff * 2 ** (attempt - 1))

    def wait(self, attempt: int) -> None:
        self.sleep(self.delay(attempt))


class WindowCaller:
    """Gets each window's answer: from the cache, or by one counted, cached call."""

    def __init__(
        self,
        api: ApiClient,
        key: str,
        *,
        cache: ResponseCache,
        ledger: QuotaLedger,
        retry: Retry,
        fresh: bool = False,
        limits: FetchLimits | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.progress = progress  # told of each retry before its wait
        self.api, self._key, self.cache, self.ledger, self.retry = api, key, cache, ledger, retry
        self.fresh = fresh  # ask the API even when a good answer is cached
        self.limits = limits or FetchLimits()
        self.calls_made = 0
        self.calls_cached = 0
        self.warnings: list[str] = []
        self._empty_weekdays = 0  # weekdays in a row answered with no release

    def answer(self, window: Window) -> ApiAnswer:
        """The window's answer, or an :class:`ApiError` that should stop the run.

        The window's lock is held from the cache check to the cached answer, so a run
        sharing the state folder waits, then finds the answer instead of paying again.
        """
        with self.cache.lock(self.api.api_url, window):
            return self._answer(window)

    def _answer(self, window: Window) -> ApiAnswer:
        cached = None if self.fresh else usable_cached(self.cache, self.api.api_url, window)
        if cached is not None:
            self.calls_cached += 1
            return cached
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._call(window)
            except ApiNetworkError as exc:
                paid_retries = min(self.retry.retries, self.limits.api_retries)
                if not exc.retryable or attempt > paid_retries:
                    message = f"{exc} (after {attempt} attempts)"
                    raise ApiNetworkError(message, retryable=False) from exc
                self.warnings.append(f"window {window}: {exc}; retrying")
                notify(
                    self.progress,
                    ProgressEvent(
                        "retry",
                        message=f"API call for {window}: {exc}; retrying in "
                        f"{self.retry.delay(attempt):g} s "
                        f"(attempt {attempt + 1} of {paid_retries + 1})",
                    ),
                )
                self.retry.wait(attempt)

    def _call(self, window: Window) -> ApiAnswer:
        self.ledger.reserve(self._key)  # raises QuotaExceededError before any request
        try:
            raw = self.api.get(window)
        except ApiNetworkError as exc:
            if exc.sent:
                self.calls_made += 1
            else:  # connection refused: the API never saw it
                self.ledger.refund(self._key)
            raise
        self.calls_made += 1
        url = self.api.api_url
        # Budgets first: an answer over them is refused before it is cached or parsed
        # into objects (its raw size is already capped by the client).
        self.limits.check_body(raw.body, window)
        parsed: ApiAnswer | HwpscanError
        try:
            parsed = parse_answer(raw.body)
        except HwpscanError as exc:
            parsed = exc
        if isinstance(parsed, ApiAnswer):
            counts = [len(r.attachments) for r in parsed.releases]
            self.limits.check_counts(len(parsed.releases), counts, window)
        self.cache.put(
            url, window, raw.body, status_code=raw.status_code, content_type=raw.content_type
        )
        if raw.status_code >= 500:
            self.cache.mark(url, window, trusted=False, verdict=f"http {raw.status_code}")
            raise ApiNetworkError(
                f"the API answered HTTP {raw.status_code} for {window}", retryable=True
            )
        try:
            if isinstance(parsed, HwpscanError):
                raise parsed
            answer = parsed
        except HwpscanError as exc:
            self.cache.mark(url, window, trusted=False, verdict=type(exc).__name__)
            if isinstance(exc, DailyLimitError):
                self.ledger.mark_exhausted(self._key)
                status = self.ledger.status(self._key)
                raise DailyLimitError(f"{exc}; the ledger now says {status.describe()}") from exc
            if raw.status_code != 200 and isinstance(exc, ApiResponseError):
                raise ApiResponseError(f"the API answered HTTP {raw.status_code}: {exc}") from exc
            raise
        status = self.ledger.status(self._key)
        verdict = check_answer(answer, window, near_limit=status.remaining <= NEAR_LIMIT)
        unconfirmed = verdict.unconfirmed_empty
        if answer.releases:
            self._empty_weekdays = 0
        elif unconfirmed:
            self._empty_weekdays += window.weekdays()
        if unconfirmed and self._empty_weekdays > HOLIDAY_WEEKDAYS:
            verdict = replace(
                verdict,
                suspicious_empty=True,
                empty_warning=f"window {window}: {self._empty_weekdays} weekdays in a row without "
                "a release, more than a holiday explains: possibly a silent quota refusal",
            )
        if verdict.suspicious_empty:
            self.cache.mark(url, window, trusted=False, verdict="suspicious-empty")
            raise ApiRefusedError(
                f"{verdict.empty_warning}. {status.describe()}. Nothing was taken from this "
                "answer; run again later and the window will be asked again",
                code=None,
            )
        if verdict.unconfirmed_empty and verdict.empty_warning:  # a holiday? used, not trusted
            self.cache.mark(url, window, trusted=False, verdict="empty-weekdays")
            self.warnings.append(verdict.empty_warning)
            return answer
        self.cache.mark(url, window, trusted=True, verdict="ok")
        return answer


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
    download_deadline: float | None = None,
    jobs: int = 4,
    retries: int = 3,
    backoff: float = 0.5,
    resolver: Resolver | None = system_resolver,
    clock: Callable[[], datetime] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    fresh: bool = False,
    only_dates: Collection[str] | None = None,
    limits: FetchLimits | None = None,
) -> FetchReport:
    """Fetch ``start..end`` window by window into ``out_dir``; never raises for API trouble.

    Raises :class:`hwpscan.errors.UsageError` for bad arguments. An :class:`ApiError`
    (quota, refusal, HTML page, network after retries) stops the run and is returned in
    :attr:`FetchReport.error`, with everything fetched before it kept. ``client`` is
    used for the API and the downloads (and not closed); by default one is made with
    the given timeouts. ``state`` defaults to :func:`hwpscan.home.state_dir`.
    ``download_deadline`` is the seconds one attachment may take in all (default:
    :func:`hwpscan.fetch.download.default_deadline` of ``max_bytes``). ``limits`` are
    the answer and run budgets (:class:`hwpscan.fetch.limits.FetchLimits`).

    ``fresh`` (what ``verify`` uses) asks the API again for every window, cached or
    not, and asks the server again for every attachment already on disk (conditionally
    when it gave an ETag), replacing a file whose content changed. ``only_dates`` limits
    the downloads to releases dated on those days (``YYYY-MM-DD``).
    """
    limits = limits or FetchLimits()
    check_range(start, end)
    check_api_url(api_url)
    windows = split_windows(start, end, window_days)
    state = state or state_dir()
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file by that name, or no permission
        raise UsageError(f"cannot use {out_dir} as the output folder: {exc.strerror}") from exc
    warnings: list[str] = []
    if warning := year_warning(start, end, korea_today(clock() if clock else None)):
        warnings.append(warning)
    if removed := remove_stale_temp_files(out_dir):
        warnings.append(f"removed {removed} partial file(s) left by an interrupted run")
    http = client or httpx.Client(timeout=httpx.Timeout(read_timeout, connect=connect_timeout))
    retry = Retry(retries, backoff, sleep)
    caller = WindowCaller(
        ApiClient(api_url, key, http=http),
        key,
        cache=open_cache(state),
        ledger=open_ledger(state, daily_limit=daily_limit, reset_hour=reset_hour, clock=clock),
        retry=retry,
        fresh=fresh,
        limits=limits,
        progress=progress,
    )
    downloader = Downloader(
        http,
        max_bytes=max_bytes,
        retries=retries,
        backoff=backoff,
        jobs=jobs,
        sleep=sleep,
        secrets=(key,),
        deadline=download_deadline,
        max_total_bytes=limits.max_download_bytes,
    )
    policy = UrlPolicy(api_url, tuple(allow_hosts), tuple(path_prefixes), resolver)
    error: ApiError | None = None
    listed = 0
    notify(progress, ProgressEvent("calls", total=len(windows)))
    with ManifestWriter(out_dir) as writer:
        store = AttachmentStore(
            out_dir,
            writer=writer,
            downloader=downloader,
            policy=policy,
            progress=progress,
            revalidate=fresh,
            max_files=limits.max_files,
        )
        try:
            for window in windows:
                try:
                    answer = caller.answer(window)
                except ApiError as exc:
                    error = exc
                    break
                verdict = check_answer(answer, window, near_limit=False)
                store.tally.warnings.extend(answer.warnings + verdict.outside_warnings)
                releases = answer.releases
                listed += len(releases)
                if only_dates is not None:
                    releases = tuple(r for r in releases if r.date in only_dates)
                store.add(releases, outside=frozenset(verdict.outside))
                notify(progress, ProgressEvent("calls", advance=1, message=str(window)))
                if store.budget_error is not None:  # files or bytes: stop asking for more
                    error = store.budget_error
                    break
        finally:
            if client is None:
                http.close()
    files = store.tally
    return FetchReport(
        start=start,
        end=end,
        windows=windows,
        calls_made=caller.calls_made,
        calls_cached=caller.calls_cached,
        releases=files.releases,
        files_downloaded=files.downloaded,
        files_skipped=files.skipped,
        files_failed=files.failed,
        files_refused=files.refused,
        warnings=tuple(
            dict.fromkeys(
                redact_text(w, [key]) for w in warnings + caller.warnings + files.warnings
            )
        ),
        out_dir=out_dir,
        manifest_path=writer.path,
        error=error,
        entries=tuple(files.entries),
        releases_listed=listed,
    )
