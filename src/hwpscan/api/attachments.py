"""From releases to files: :class:`AttachmentStore` checks each attachment URL, picks a
safe name (``<date>/<contentId>_<name>``), downloads, and writes its manifest line the
moment its fate is known. Earlier runs' files are found again by URL.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from hwpscan.api.claims import Claim, ReleaseClaims
from hwpscan.api.clean import one_line
from hwpscan.api.client import Release
from hwpscan.api.download import (
    Downloader,
    DownloadJob,
    DownloadResult,
    name_from_url,
    safe_filename,
)
from hwpscan.api.progress import Progress, ProgressEvent, notify
from hwpscan.errors import RunBudgetError, UnsafeUrlError
from hwpscan.manifest import ManifestEntry, ManifestWriter
from hwpscan.redaction import redact_text, redact_url


@dataclass
class FileTally:
    """Running counts of one fetch's releases and files, and the manifest entries it listed."""

    releases: int = 0
    downloaded: int = 0
    skipped: int = 0
    failed: int = 0
    refused: int = 0
    warnings: list[str] = field(default_factory=list)
    entries: list[ManifestEntry] = field(default_factory=list)


def unique_name(prefix: str, name: str, used: set[str]) -> str:
    """``prefix_name``, numbered when a release lists the same name twice.

    >>> used = set()
    >>> [unique_name("7", "a.hwp", used) for _ in range(3)]
    ['7_a.hwp', '7_a-2.hwp', '7_a-3.hwp']
    """
    candidate, n = f"{prefix}_{name}", 1
    stem, dot, ext = name.rpartition(".")
    while candidate in used:
        n += 1
        candidate = f"{prefix}_{stem}-{n}{dot}{ext}" if stem else f"{prefix}_{name}-{n}"
    used.add(candidate)
    return candidate


class AttachmentStore:
    """Downloads releases' attachments into ``out_dir`` and records them in the manifest."""

    def __init__(
        self,
        out_dir: Path,
        *,
        writer: ManifestWriter,
        downloader: Downloader,
        check_url: Callable[[str], str],
        progress: Progress | None = None,
        revalidate: bool = False,
        max_files: int | None = None,
    ) -> None:
        self.out_dir = out_dir
        self.revalidate = revalidate  # ask the server again for files already on disk
        #: Attachments this run may fetch (``None``: no limit); past it the rest are
        #: recorded as skipped and :attr:`budget_error` says why the run should stop.
        self.max_files = max_files
        self.planned = 0
        self.budget_error: RunBudgetError | None = None
        self.writer = writer
        self.downloader = downloader
        self.check_url = check_url  # the checked URL, or UnsafeUrlError
        self.progress = progress
        self.tally = FileTally()
        if progress is not None:
            downloader.on_retry = self._on_retry
        self._seen: set[str] = set()
        self._claims = ReleaseClaims(out_dir)
        self._logged: set[tuple[str, str, str]] = set()
        self._recorded: set[str] = set()
        #: Which URL's file each path holds (the last manifest line for the path wins).
        self._owners: dict[str, str] = {}
        #: Where an earlier run put each URL's file (its name may have come from the server).
        self._by_url: dict[str, Path] = {}
        self._etags: dict[str, str] = {}
        self._learn(writer.refresh())
        #: Jobs (by id) of new URLs whose file name an earlier file already had.
        self._taken_over: set[int] = set()
        #: Every file this run's jobs write: a server's name never renames onto one.
        self._dests: set[Path] = set()
        self._rename_lock = threading.Lock()

    def _learn(self, entries: Iterable[ManifestEntry]) -> None:
        """Take in manifest lines: an earlier run's, or another run's sharing the folder."""
        for e in entries:
            if not e.path:
                self._logged.add((e.content_id, e.url, e.status))
                continue
            if e.status != "downloaded":
                continue
            self._recorded.add(e.path)
            old = self._owners.get(e.path)
            if old is not None and old != e.url and self._by_url.get(old) == self.out_dir / e.path:
                del self._by_url[old]
            self._owners[e.path] = e.url
            self._by_url[e.url] = self.out_dir / e.path
            if e.etag:
                self._etags[e.url] = e.etag

    def add(self, releases: Iterable[Release], *, outside: Collection[str] = ()) -> None:
        """Fetch the attachments of new releases (``outside`` ids: recorded, not fetched),
        each claimed first: one another run holds is left to it, then its lines read."""
        fresh: list[tuple[str, Release]] = []
        for release in releases:
            ident = release.content_id or f"{release.reg_date}|{release.subject}"
            if ident in self._seen:  # windows can overlap at their edges
                continue
            self._seen.add(ident)
            self.tally.releases += 1
            self.tally.warnings.extend(release.warnings)
            fresh.append((ident, release))
        start = len(self.tally.entries)
        pending, batches = fresh, 0
        while pending:
            tried = [(i, r, self._claims.take(i, wait=False)) for i, r in pending]
            held = [(release, claim) for _, release, claim in tried if claim is not None]
            others = [(ident, release) for ident, release, claim in tried if claim is None]
            if not held:  # all another run's: wait for the first, holding none of ours
                ident, release = others.pop(0)
                held.append((release, cast(Claim, self._claims.take(ident, wait=True))))
            try:
                self._learn(self.writer.refresh())
                self._fetch([release for release, _ in held], outside)
            finally:
                for _, claim in held:
                    claim.release()
            pending, batches = others, batches + 1
        if batches > 1:  # claims took the releases out of order: listing order again
            rank = {release.content_id: n for n, (_, release) in enumerate(fresh)}
            entries = self.tally.entries
            entries[start:] = sorted(entries[start:], key=lambda e: rank.get(e.content_id, 0))

    def _fetch(self, releases: list[Release], outside: Collection[str]) -> None:
        """Download the attachments of claimed releases and settle each one."""
        jobs = [job for r in releases for job in self._jobs(r, skip=r.content_id in outside)]
        jobs = self._within_budget(jobs)
        self._dests.update(job.dest for job in jobs)
        notify(self.progress, ProgressEvent("downloads", total=len(jobs)))
        # Each result is settled (one entry, its manifest line written) as it completes;
        # the entries are then put back in listing order, so what a fetch reports (and
        # what ``scan --from/--to`` scans and prints) does not depend on download timing.
        entries = self.tally.entries
        start = len(entries)
        order = {id(job): index for index, job in enumerate(jobs)}
        places = []
        for result in self.downloader.run(jobs):
            self._settle(result)
            places.append(order[id(result.job)])
        settled = sorted(zip(places, entries[start:], strict=True), key=lambda p: p[0])
        entries[start:] = [entry for _, entry in settled]
        if self.downloader.over_budget.is_set() and self.budget_error is None:
            self.budget_error = RunBudgetError(self.downloader.budget_reason())

    def _within_budget(self, jobs: list[DownloadJob]) -> list[DownloadJob]:
        """The jobs the per-run file budget still allows; the rest are recorded skipped."""
        if self.max_files is None or self.planned + len(jobs) <= self.max_files:
            self.planned += len(jobs)
            return jobs
        room = max(0, self.max_files - self.planned)
        self.planned += room
        reason = (
            f"over the per-run budget of {self.max_files:,} attachments (--max-files): "
            "not downloaded"
        )
        for job in jobs[room:]:
            release, name = cast(tuple[Release, str], job.tag)
            self._record(_entry(release, name, job.url, "skipped", reason))
        self.tally.warnings.append(f"{len(jobs) - room:,} attachment(s) {reason}")
        self.budget_error = RunBudgetError(f"{len(jobs) - room:,} attachment(s) {reason}")
        return jobs[:room]

    def _jobs(self, release: Release, *, skip: bool) -> Iterator[DownloadJob]:
        """The downloads of one release's attachments (refused and skipped ones recorded).
        A file is known by its URL, not its name; a new URL for a name already on disk (a
        re-issued attachment) downloads into it, the earlier copy kept in ``.superseded/``.
        """
        used: set[str] = set()
        folder = self.out_dir / (release.date or "undated")
        prefix = safe_filename(
            redact_text(release.content_id, self.downloader.secrets), max_bytes=40, fallback="post"
        )
        checked: list[tuple[str, str]] = []  # (name, checked URL)
        for attachment in release.attachments:
            if skip:
                reason = "release dated outside the requested window"
                self._record(_entry(release, attachment.name, attachment.url, "skipped", reason))
                continue
            try:
                checked.append((attachment.name, self.check_url(attachment.url)))
            except UnsafeUrlError as exc:
                self.tally.refused += 1
                self.tally.warnings.append(f"{self._label(release, attachment.name, None)}: {exc}")
                self._record(_entry(release, attachment.name, attachment.url, "refused", str(exc)))
        known = {url: self._by_url.get(redact_url(url)) for _, url in checked}
        known = {url: p if p is not None and p.is_file() else None for url, p in known.items()}
        used.update(path.name for path in known.values() if path is not None)
        for name, url in checked:
            tag = (release, name)
            earlier = known[url]
            if earlier is not None:
                etag = self._etags.get(redact_url(url)) if self.revalidate else None
                yield DownloadJob(url, earlier, tag, self.revalidate, etag)
                continue
            safe = safe_filename(redact_text(name or name_from_url(url), self.downloader.secrets))
            dest = folder / unique_name(prefix, safe, used)
            job = DownloadJob(url, dest, tag, revalidate=dest.exists())
            if job.revalidate:  # another URL's file, or one no manifest line names
                self._taken_over.add(id(job))
            yield job

    def _settle(self, result: DownloadResult) -> None:
        release, name = cast(tuple[Release, str], result.job.tag)
        url, dest = result.job.url, result.job.dest
        if result.status == "failed":
            self.tally.failed += 1
            self.tally.warnings.append(
                f"{self._label(release, name, dest)}: download failed: {result.reason}"
            )
            self._record(_entry(release, name, url, "failed", result.reason))
        else:
            reason: str | None = result.reason  # how it was known, or what changed
            if result.status == "skipped":
                self.tally.skipped += 1
                reason = reason or "found complete on disk"
            else:
                if id(result.job) in self._taken_over:
                    reason = "a new download URL for a file name already on disk (re-issued?)"
                    if result.superseded is not None:
                        reason += f"; the earlier file is kept at {result.superseded}"
                self.tally.downloaded += 1
                if is_html(result.content_type):
                    reason = "the server sent an HTML page, not a file (an error page?)"
                    self.tally.warnings.append(f"{self._label(release, name, dest)}: {reason}")
                server_name = redact_text(result.disposition_name or "", self.downloader.secrets)
                if not name and server_name:
                    dest, name = self._rename(dest, server_name), server_name
            entry = replace(
                _entry(release, name, url, "downloaded", reason),
                path=dest.relative_to(self.out_dir).as_posix(),
                sha256=result.sha256,
                bytes=result.bytes,
                content_type=result.content_type,
                etag=result.etag or self._etags.get(redact_url(url)),
            )
            new_owner = self._owners.get(entry.path or "") != entry.url
            if result.status == "downloaded" or entry.path not in self._recorded or new_owner:
                self._record(entry)
            else:  # confirmed on disk, its line already written by an earlier run
                self.tally.entries.append(entry)
        notify(self.progress, ProgressEvent("downloads", advance=1, message=dest.name))

    def _rename(self, dest: Path, server_name: str) -> Path:
        """Give a file the API listed without a name the server's name (same folder, same
        prefix), unless that name is on disk or another download of this run's."""
        target = dest.with_name(f"{dest.name.split('_', 1)[0]}_{safe_filename(server_name)}")
        with self._rename_lock:
            if target in self._dests or target.exists():
                return dest
            try:
                os.replace(dest, target)
            except FileNotFoundError:  # a run sharing the folder renamed the same download
                target = target if target.is_file() else dest
            self._dests.add(target)
        return target

    def _label(self, release: Release, name: str, dest: Path | None) -> str:
        return attachment_label(
            release, name or (dest.name if dest else ""), self.downloader.secrets
        )

    def _on_retry(self, job: DownloadJob, message: str) -> None:
        release, name = cast(tuple[Release, str], job.tag)
        text = f"download of {self._label(release, name, job.dest)}: {message}"
        notify(self.progress, ProgressEvent("retry", message=text))

    def _record(self, entry: ManifestEntry) -> None:
        # the key out of every text, however the answer smuggled it in
        texts = ("content_id", "subject", "name", "url", "path", "content_type", "reason", "etag")
        scrubbed: dict[str, Any] = {
            f: redact_text(value, self.downloader.secrets)
            for f in texts
            if (value := getattr(entry, f))
        }
        entry = replace(entry, **scrubbed)
        self.tally.entries.append(entry)
        if entry.path is None:  # refused, skipped or failed: one line per URL, not per run
            mark = (entry.content_id, entry.url, entry.status)
            if mark in self._logged:
                return
            self._logged.add(mark)
        else:
            self._recorded.add(entry.path)
            if entry.status == "downloaded":
                self._owners[entry.path] = entry.url
        self.writer.write(entry)


def attachment_label(release: Release, name: str, secrets: Iterable[str] = ()) -> str:
    """``date "subject" name``: an attachment as a person knows it (not by its URL).

    >>> from hwpscan.api.client import Release
    >>> r = Release("7", "  <b>보도자료</b> 제목 ", "2025-07-21 10:00", "2025-07-21", (), "")
    >>> attachment_label(r, "a.hwp")
    '2025-07-21 "보도자료 제목" a.hwp'
    """
    subject = one_line(release.subject, 60) or "(no subject)"
    return redact_text(f'{release.date or "undated"} "{subject}" {name or "(no name)"}', secrets)


def _entry(release: Release, name: str, url: str, status: str, reason: str | None) -> ManifestEntry:
    """An attachment's manifest line without a file (yet): no secret in the URL."""
    url, subject = redact_url(url.replace("&amp;", "&")), one_line(release.subject, 200)
    return ManifestEntry(
        release.date, release.content_id, subject, name, url, None, None, 0, None, status, reason
    )


def is_html(content_type: str | None) -> bool:
    """True for an HTML content type.

    >>> is_html("text/html;charset=euc-kr"), is_html("application/octet-stream"), is_html(None)
    (True, False, False)
    """
    return (content_type or "").split(";", 1)[0].strip().lower() in (
        "text/html",
        "application/xhtml+xml",
    )
