"""The fetch: windows -> cached or paid calls -> attachments -> manifest. A call is counted
*before* it is made, its answer cached *before* it is parsed, and a window's attachments
downloaded before the next call: a stopped run keeps all it paid for, a rerun pays none again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from hwpscan.api.attachments import AttachmentStore, is_html
from hwpscan.api.cache import ResponseCache
from hwpscan.api.client import (
    HOLIDAY_WEEKDAYS,
    ApiAnswer,
    ApiClient,
    Assessment,
    CheckedAnswer,
    RawAnswer,
    check_answer,
    parse_answer,
)
from hwpscan.api.dates import Window, check_range, quota_day, split_windows, year_warning
from hwpscan.api.download import Downloader, remove_stale_temp_files
from hwpscan.api.plan import open_cache, open_ledger, usable_cached
from hwpscan.api.progress import Progress, ProgressEvent, notify
from hwpscan.api.quota import QuotaLedger
from hwpscan.api.settings import FetchHooks, FetchSettings
from hwpscan.api.urls import check_api_url, validate_attachment_url
from hwpscan.errors import (
    ApiError,
    ApiNetworkError,
    ApiRefusedError,
    ApiResponseError,
    DailyLimitError,
    HwpscanError,
    UsageError,
)
from hwpscan.manifest import ManifestEntry, ManifestWriter
from hwpscan.models import ExitCode
from hwpscan.redaction import key_hash, redact_text

if TYPE_CHECKING:  # loaded by fetch_range with the first fetch
    import httpx

__all__ = ["FetchReport", "fetch_for_scan", "fetch_range", "stop_message"]

#: Calls left today at or under which an empty answer is suspicious.
NEAR_LIMIT = 2


@dataclass(frozen=True)
class FetchReport:
    """What a fetch did: ``error`` is the :class:`ApiError` that stopped it, if any;
    ``entries`` the manifest entries of every attachment listed in this run."""

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
        """The files this fetch listed on disk when all are HTML (error pages), else 0."""
        kept = [e for e in self.entries if e.status == "downloaded" and e.path]
        return len(kept) if kept and all(is_html(e.content_type) for e in kept) else 0

    @property
    def complete(self) -> bool:
        """No stop, no failed download, no refused URL, and not only HTML pages."""
        return self.ok and not (self.files_failed or self.files_refused or self.html_only)

    @property
    def exit_code(self) -> ExitCode:
        """``API`` (3) when the run stopped or left files behind; else ``OK``."""
        return ExitCode.OK if self.complete else ExitCode.API


class WindowCaller:
    """Gets each window's answer: from the cache, or by one counted, cached call."""

    def __init__(
        self,
        http: httpx.Client,
        key: str,
        settings: FetchSettings,
        progress: Progress | None,
        hooks: FetchHooks,
    ) -> None:
        self.progress = progress  # told of each retry before its wait
        self.api, self._key = ApiClient(settings.api_url, key, http=http), key
        self.ledger: QuotaLedger = open_ledger(settings, hooks.clock)
        self.cache: ResponseCache = open_cache(settings.state_folder())
        self.limits = settings.limits
        # each retry of a call is a paid call: at most --api-retries of them
        retries = min(settings.retry.retries, self.limits.api_retries)
        self.retry = replace(settings.retry, retries=retries)
        self._sleep = hooks.sleep
        self.fresh = settings.fresh  # ask the API even when a good answer is cached
        self.calls_made = 0
        self.calls_cached = 0
        self._key_sha256 = key_hash(key)
        #: Windows answered from the cache that another key paid for: the current key
        #: was not checked for them (see :meth:`key_warnings`).
        self.other_key_windows: list[Window] = []
        self.warnings: list[str] = []
        self._empty_weekdays = 0  # weekdays in a row answered with no release

    def answer(self, window: Window) -> CheckedAnswer:
        """The window's answer with its assessment, or an :class:`ApiError` that stops the
        run; under the window's lock, so runs sharing the state folder never pay twice."""
        with self.cache.lock(self.api.api_url, window):
            sha, url = self._key_sha256, self.api.api_url
            cached = None if self.fresh else usable_cached(self.cache, url, window, key_sha256=sha)
            if cached is not None:
                self.calls_cached += 1
                if cached.other_key:
                    self.other_key_windows.append(window)
                return cached
            return self._paid(window)

    def _paid(self, window: Window) -> CheckedAnswer:
        """The window's answer by a counted call, retried on network trouble."""

        def retrying(exc: ApiNetworkError, when: str) -> None:
            what = str(exc).replace(f" for {window}", "")  # the window is named once
            self.warnings.append(f"window {window}: {what}; retried")
            message = f"API call for {window}: {what}; {when}"
            notify(self.progress, ProgressEvent("retry", message=message))

        def gave_up(exc: ApiNetworkError, attempts: int) -> NoReturn:
            message = f"{exc} (after {attempts} attempts)"
            raise ApiNetworkError(message, retryable=False) from exc

        return self.retry.run(
            lambda _: self._call(window),
            catch=ApiNetworkError,
            retryable=lambda exc: exc.retryable,
            give_up=gave_up,
            on_retry=retrying,
            sleep=self._sleep,
        )

    def _call(self, window: Window) -> CheckedAnswer:
        """One counted call: raw bytes to the cache before anything is taken from them;
        an answer over the budgets is refused before it is cached or parsed."""
        raw = self._send(window)
        self.limits.check_body(raw.body, window)
        try:  # the error an answer amounts to is raised once it is cached
            answer = parse_answer(raw.body)
        except HwpscanError as exc:
            parsed: ApiAnswer | HwpscanError = exc
        else:  # over the release or attachment budget: raised before it is cached
            counts = [len(r.attachments) for r in answer.releases]
            self.limits.check_counts(len(answer.releases), counts, window)
            parsed = answer
        url = self.api.api_url
        self.cache.put(url, window, raw, key_sha256=self._key_sha256)
        if raw.status_code >= 500:
            self.cache.mark(url, window, trusted=False, verdict=f"http {raw.status_code}")
            raise ApiNetworkError(
                f"the API answered HTTP {raw.status_code} for {window}", retryable=True
            )
        if isinstance(parsed, HwpscanError):
            self.cache.mark(url, window, trusted=False, verdict=type(parsed).__name__)
            if isinstance(parsed, DailyLimitError):  # the ledger is told the day is used up
                self.ledger.mark_exhausted(self._key)
                status = self.ledger.status(self._key)
                said = f"{parsed}; the ledger now says {status.describe()}"
                raise DailyLimitError(said) from parsed
            if raw.status_code != 200 and isinstance(parsed, ApiResponseError):
                said = f"the API answered HTTP {raw.status_code}: {parsed}"
                raise ApiResponseError(said) from parsed
            raise parsed
        checked = self._assess(parsed, window)
        if checked.assessment.unconfirmed_empty:  # a holiday? used, not trusted
            self.cache.mark(url, window, trusted=False, verdict="empty-weekdays")
        else:
            self.cache.mark(url, window, trusted=True, verdict="ok")
        return checked

    def key_warnings(self) -> list[str]:
        """What to say when answers came from a cache another key paid for: nothing
        asked the API with the current key, so a wrong key would go unnoticed."""
        windows = self.other_key_windows
        if not windows or self.calls_made:  # a live call checked the current key
            return []
        days = sum(w.days for w in windows)
        return [
            f"answers for {days} date(s) ({len(windows)} window(s)) came from the cache made "
            "with another API key; the current key was not checked"
        ]

    def _send(self, window: Window) -> RawAnswer:
        """The call, counted in the ledger before it is made (refunded if never sent)."""
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
        return raw

    def _assess(self, answer: ApiAnswer, window: Window) -> CheckedAnswer:
        """The answer with its assessment; an empty one that looks like a silent refusal is
        :class:`ApiRefusedError`, its cached copy marked to be asked again."""
        status = self.ledger.status(self._key)
        verdict = check_answer(answer, window, near_limit=status.remaining <= NEAR_LIMIT)
        verdict = self._count_empty_weekdays(answer, window, verdict)
        if verdict.suspicious_empty:
            self.cache.mark(self.api.api_url, window, trusted=False, verdict="suspicious-empty")
            raise ApiRefusedError(
                f"{verdict.empty_warning}. {status.describe()}. Nothing was taken from this "
                "answer; run again later and the window will be asked again",
                code=None,
            )
        if verdict.unconfirmed_empty and verdict.empty_warning:
            self.warnings.append(verdict.empty_warning)
        return CheckedAnswer(answer, verdict)

    def _count_empty_weekdays(
        self, answer: ApiAnswer, window: Window, verdict: Assessment
    ) -> Assessment:
        """Weekdays answered with nothing add up across windows: past a holiday's worth
        in a row, an unconfirmed empty answer becomes a suspicious one."""
        unconfirmed = verdict.unconfirmed_empty
        if answer.releases:
            self._empty_weekdays = 0
        elif unconfirmed:
            self._empty_weekdays += window.weekdays()
        if not unconfirmed or self._empty_weekdays <= HOLIDAY_WEEKDAYS:
            return verdict
        return replace(
            verdict,
            suspicious_empty=True,
            empty_warning=f"window {window}: {self._empty_weekdays} weekdays in a row without "
            "a release, more than a holiday explains: possibly a silent quota refusal",
        )


def fetch_range(
    start: date,
    end: date,
    settings: FetchSettings,
    *,
    key: str,
    client: httpx.Client | None = None,
    progress: Progress | None = None,
    hooks: FetchHooks | None = None,
) -> FetchReport:
    """Fetch ``start..end`` window by window as ``settings`` say: :class:`UsageError` for
    bad arguments; an :class:`ApiError` stops the run and is returned in the report, all
    fetched before it kept. ``client`` is not closed; ``hooks`` replace DNS, clock, sleep."""
    hooks = hooks or FetchHooks()
    check_range(start, end)
    check_api_url(settings.api_url)
    windows = split_windows(start, end, settings.window_days)
    out_dir = settings.out_folder()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file by that name, or no permission
        raise UsageError(f"cannot use {out_dir} as the output folder: {exc.strerror}") from exc
    warnings: list[str] = []  # said before the first call
    if warning := year_warning(start, end, quota_day(hooks.clock() if hooks.clock else None)):
        warnings.append(warning)
    if removed := remove_stale_temp_files(out_dir):
        warnings.append(f"removed {removed} partial file(s) left by an interrupted run")
    http = client
    if http is None:  # httpx loads with the first fetch: --help and planning never load it
        import httpx

        timeout = httpx.Timeout(settings.read_timeout, connect=settings.connect_timeout)
        http = httpx.Client(timeout=timeout)
    caller = WindowCaller(http, key, settings, progress, hooks)
    downloader = Downloader(http, settings, secrets=(key,), sleep=hooks.sleep)
    check_url = partial(
        validate_attachment_url,
        api_url=settings.api_url,
        allow_hosts=settings.allow_hosts,
        path_prefixes=settings.path_prefixes,
        resolver=hooks.resolver,
    )
    notify(progress, ProgressEvent("calls", total=len(windows)))
    with ManifestWriter(out_dir) as writer:
        store = AttachmentStore(
            out_dir,
            writer=writer,
            downloader=downloader,
            check_url=check_url,
            progress=progress,
            revalidate=settings.fresh,
            max_files=settings.limits.max_files,
        )
        error: ApiError | None = None  # what stopped the run
        listed = 0  # releases the answers listed
        try:
            for window in windows:  # each window's answer, then its attachments
                try:
                    got = caller.answer(window)
                except ApiError as exc:
                    error = exc
                    break
                # (an empty answer's warning is the caller's: it depends on how it was taken)
                store.tally.warnings.extend(got.answer.warnings + got.assessment.outside_warnings)
                releases = got.answer.releases
                listed += len(releases)
                if settings.only_dates is not None:
                    releases = tuple(r for r in releases if r.date in settings.only_dates)
                store.add(releases, outside=got.assessment.outside)
                notify(progress, ProgressEvent("calls", advance=1, message=str(window)))
                if store.budget_error is not None:  # files or bytes: stop asking for more
                    error = store.budget_error
                    break
        finally:
            if client is None:
                http.close()
    files = store.tally
    every_warning = warnings + caller.warnings + files.warnings + caller.key_warnings()
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
        warnings=tuple(dict.fromkeys(redact_text(w, [key]) for w in every_warning)),
        out_dir=out_dir,
        manifest_path=writer.path,
        error=error,
        entries=tuple(files.entries),
        releases_listed=listed,
    )


def stop_message(report: FetchReport) -> str | None:
    """Why a fetch did not complete, in one sentence; ``None`` when it did."""
    if report.error is not None:
        return f"{report.error} (kept everything fetched before the stop in {report.out_dir})"
    if report.html_only and not (report.files_failed or report.files_refused):
        return (
            f"all {report.html_only} attachment(s) are HTML pages, not files: the server "
            "answered with error pages instead of the documents (kept and marked in the "
            "manifest; try again later)"
        )
    if not report.complete:
        return (
            f"{report.files_failed} file(s) failed and {report.files_refused} URL(s) were refused; "
            "see the warnings and the manifest"
        )
    return None


def fetch_for_scan(
    start: date | str,
    end: date | str,
    settings: FetchSettings | None = None,
    *,
    key: str | None = None,
    progress: Progress | None = None,
    hooks: FetchHooks | None = None,
) -> tuple[Path, FetchReport]:
    """Fetch a range (cache first) for a scan: the folder to scan and the report. The
    dates may be strings; the key is ``key``, else the environment's or the config file's."""
    # the dates, the key and the settings: loaded by a fetch, not by importing the package
    from hwpscan.api.dates import parse_range  # zoneinfo: for a fetch only
    from hwpscan.api.keys import ENV_VAR, check_key, resolve_key  # for a fetch only

    settings = settings or FetchSettings()
    if isinstance(start, str) or isinstance(end, str):
        start, end = parse_range(str(start), str(end))
    state = settings.state_folder()
    key = key or resolve_key(state)
    if not key:
        raise UsageError(
            f'no API key: set {ENV_VAR} or put api_key = "..." in {state / "config.toml"}'
        )

    report = fetch_range(start, end, settings, key=check_key(key), progress=progress, hooks=hooks)
    return report.out_dir, report
