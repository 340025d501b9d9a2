"""Downloads over httpx.MockTransport: names, retries, caps, atomicity, resume."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pytest

from hwpscan.api import FetchSettings, RetryPolicy
from hwpscan.api.download import (
    STALE_AFTER,
    Downloader,
    DownloadJob,
    filename_from_disposition,
    remove_stale_temp_files,
    safe_filename,
    temp_prefix,
)
from hwpscan.atomic import TEMP_PREFIX
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

URL = "https://www.fss.or.kr/fss/cmmn/file/fileDown.do?atchFileId=ab&fileSn=1"
HWP = build_hwp5(["금융감독원 보도자료 본문"])

NAMES = [
    ("보도자료(7.21).hwp", "보도자료(7.21).hwp"),
    ("../../../../etc/cron.d/x", "x"),
    ("..\\..\\Windows\\system32\\a.dll", "a.dll"),
    ("/abs/path.hwp", "path.hwp"),
    ("..", "attachment"),
    ("...", "attachment"),
    ("", "attachment"),
    ("a\x00b\nc.pdf", "a_b_c.pdf"),
    ("NUL", "_NUL"),
    ("CON.txt", "_CON.txt"),
    ("a<b>:c?.pdf", "a_b__c_.pdf"),
    ("C:\\Windows\\보도자료.hwp", "보도자료.hwp"),
    (".hidden.hwp", "hidden.hwp"),
]


@pytest.mark.parametrize(("raw", "safe"), NAMES)
def test_safe_filename(raw: str, safe: str) -> None:
    assert safe_filename(raw) == safe


def test_long_korean_names_are_capped_on_a_character_boundary() -> None:
    name = safe_filename("금융감독원 " * 40 + ".hwpx")
    assert len(name.encode("utf-8")) <= 150
    assert name.endswith(".hwpx")
    name.encode("utf-8").decode("utf-8")  # whole characters only


@pytest.mark.parametrize(
    "header",
    [
        b"attachment; filename*=UTF-8''%EB%B3%B4%EB%8F%84%EC%9E%90%EB%A3%8C.hwp",
        b'attachment; filename="__.hwp"; '
        b"filename*=UTF-8''%EB%B3%B4%EB%8F%84%EC%9E%90%EB%A3%8C.hwp",
        'attachment; filename="보도자료.hwp"'.encode("euc-kr"),
        'attachment; filename="보도자료.hwp"'.encode(),
        b"attachment; filename=%EB%B3%B4%EB%8F%84%EC%9E%90%EB%A3%8C.hwp",
    ],
)
def test_content_disposition_encodings(header: bytes) -> None:
    assert filename_from_disposition(header) == "보도자료.hwp"


def test_content_disposition_without_a_name() -> None:
    assert filename_from_disposition(b"inline") is None


def _downloader(handler, **kw) -> Downloader:
    """``kw``: ``retries`` and :class:`FetchSettings` fields."""
    if "retries" in kw:
        kw["retry"] = RetryPolicy(retries=kw.pop("retries"))
    return Downloader(
        httpx.Client(transport=httpx.MockTransport(handler)),
        FetchSettings(**kw),
        sleep=lambda s: None,
    )


def test_download_writes_atomically_and_records_sha(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            content=HWP,
            headers=[
                (b"content-type", b"application/octet-stream"),
                (b"content-disposition", 'attachment; filename="보도.hwp"'.encode("euc-kr")),
            ],
        )

    dest = tmp_path / "d" / "1_보도.hwp"
    result = _downloader(handler).download(DownloadJob(URL, dest))
    assert result.status == "downloaded"
    assert dest.read_bytes() == HWP

    assert result.sha256 == hashlib.sha256(HWP).hexdigest() and result.bytes == len(HWP)
    assert result.disposition_name == "보도.hwp"
    assert not list(dest.parent.glob(TEMP_PREFIX + "*"))


def test_500_then_200_is_retried(tmp_path: Path) -> None:
    answers = iter([httpx.Response(500), httpx.Response(503), httpx.Response(200, content=HWP)])
    result = _downloader(lambda r: next(answers)).download(DownloadJob(URL, tmp_path / "a.hwp"))
    assert result.status == "downloaded" and result.attempts == 3


def test_timeouts_are_retried_then_fail_without_a_partial_file(tmp_path: Path) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.ReadTimeout("timed out", request=request)

    dest = tmp_path / "a.hwp"
    result = _downloader(handler, retries=2).download(DownloadJob(URL, dest))
    assert result.status == "failed" and "ReadTimeout" in (result.reason or "")
    assert len(calls) == 3
    assert not dest.exists() and not list(tmp_path.iterdir())


def test_404_is_not_retried(tmp_path: Path) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(404)

    result = _downloader(handler).download(DownloadJob(URL, tmp_path / "a.hwp"))
    assert result.status == "failed" and result.reason == "HTTP 404" and len(calls) == 1


def test_announced_size_over_the_cap_is_refused(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x" * 10, headers={"content-length": str(10**12)})

    result = _downloader(handler, max_bytes=1000).download(DownloadJob(URL, tmp_path / "a.hwp"))
    assert result.status == "failed" and "cap" in (result.reason or "")


def test_streamed_size_over_the_cap_stops_and_leaves_nothing(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter([b"x" * 4096] * 10))  # no content-length

    dest = tmp_path / "a.hwp"
    result = _downloader(handler, max_bytes=5000).download(DownloadJob(URL, dest))
    assert result.status == "failed" and "size cap" in (result.reason or "")
    assert list(tmp_path.iterdir()) == []


def test_complete_files_are_skipped_on_rerun(tmp_path: Path) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, content=HWP)

    job = DownloadJob(URL, tmp_path / "a.hwp")
    downloader = _downloader(handler)
    assert downloader.download(job).status == "downloaded"
    again = downloader.download(job)
    assert again.status == "skipped" and again.bytes == len(HWP)
    assert len(calls) == 1


def test_run_is_concurrent_over_one_client_and_yields_every_job(tmp_path: Path) -> None:
    jobs = [DownloadJob(f"{URL[:-1]}{n}", tmp_path / f"{n}.hwp") for n in range(12)]
    results = list(
        _downloader(lambda r: httpx.Response(200, content=r.url.query), downloads=4).run(jobs)
    )
    assert sorted(r.job.dest.name for r in results) == sorted(j.dest.name for j in jobs)
    assert all(r.status == "downloaded" for r in results)


def test_stale_temp_files_are_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = "from hwpscan.api.download import temp_prefix; print(temp_prefix())"
    dead = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    (tmp_path / "2025-07-21").mkdir()
    (tmp_path / "2025-07-21" / f"{dead.stdout.strip()}abc").write_bytes(b"partial")  # owner is gone
    (tmp_path / "2025-07-21" / "keep.hwp").write_bytes(b"whole")
    assert remove_stale_temp_files(tmp_path) == 1
    assert [p.name for p in (tmp_path / "2025-07-21").iterdir()] == ["keep.hwp"]


def test_temp_files_of_a_live_run_are_kept(tmp_path: Path) -> None:
    import os
    import time

    mine = tmp_path / f"{temp_prefix()}abc"  # this process: a live run
    mine.write_bytes(b"partial")
    unknown = tmp_path / f"{TEMP_PREFIX}xyz"  # an older name: no owner to ask
    unknown.write_bytes(b"partial")
    assert remove_stale_temp_files(tmp_path) == 0
    assert mine.exists() and unknown.exists()
    old = time.time() - STALE_AFTER - 60
    os.utime(unknown, (old, old))  # untouched for long: abandoned
    assert remove_stale_temp_files(tmp_path) == 1
    assert mine.exists() and not unknown.exists()


# Review findings: names that crashed, or that Windows or a terminal would misread.
HOSTILE_NAMES = [
    (chr(0xD800) + "bad.hwp", "_bad.hwp"),
    ("a." + chr(0xD800), "a._"),
    (chr(0xDC00), "_"),
    ("con.tar.gz", "_con.tar.gz"),
    ("nul .txt", "_nul .txt"),
    ("CONIN$", "_CONIN$"),
    ("COM\u00b9.txt", "_COM\u00b9.txt"),
    ("lpt0.hwp", "_lpt0.hwp"),
    ("\u202egpj.exe", "gpj.exe"),
    ("보도\u200b자료\u200d.hwp", "보도자료.hwp"),
    ("\ufeff.hwp", "hwp"),
    ("\u200b", "attachment"),
    ("a\u2215..\u2215b.hwp", "a_.._b.hwp"),
    ("a\uff0fb.hwp", "a_b.hwp"),
    ("console.hwp", "console.hwp"),
]


@pytest.mark.parametrize(("raw", "safe"), HOSTILE_NAMES)
def test_safe_filename_on_hostile_names(raw: str, safe: str) -> None:
    out = safe_filename(raw)
    assert out == safe
    out.encode("utf-8")  # always writable
