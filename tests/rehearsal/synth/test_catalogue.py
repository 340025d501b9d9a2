"""The emulator's bundled catalogue replays the incident, checked with the real scanner."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, timedelta

import pytest

from hwpscan.rehearsal.synth import catalogue
from hwpscan.rehearsal.synth.catalogue import (
    Attachment,
    Release,
    expected_contaminated_dates,
    incident_catalogue,
    korean_date,
)
from hwpscan.scanning.one_file import scan_bytes

RELEASES = incident_catalogue()


@pytest.fixture(scope="module")
def scanned() -> list[tuple[Release, Attachment, str]]:
    """Every attachment with the status our scanner gives it."""
    out = []
    for release in RELEASES:
        for att in release.attachments:
            result = scan_bytes(att.data, path=att.name, date=release.date)
            out.append((release, att, result.status.value))
    return out


def _dates(first: str, last: str) -> list[str]:
    d, end = date.fromisoformat(first), date.fromisoformat(last)
    out = []
    while d <= end:
        out.append(d.isoformat())
        d += timedelta(days=1)
    return out


def test_range_order_and_weekends() -> None:
    dates = [r.date for r in RELEASES]
    assert dates == sorted(dates)
    assert dates[0] == "2025-07-21" and dates[-1] == "2025-08-11"
    present = set(dates)
    weekdays = {
        d for d in _dates("2025-07-21", "2025-08-11") if date.fromisoformat(d).weekday() < 5
    }
    assert weekdays <= present, "every weekday has releases"
    assert {"2025-07-26", "2025-07-27", "2025-08-09", "2025-08-10"} <= present
    assert not {"2025-08-02", "2025-08-03"} & present


def test_release_fields_have_the_api_shapes() -> None:
    ids = [r.content_id for r in RELEASES]
    assert len(set(ids)) == len(ids) and all(isinstance(i, int) for i in ids)
    for r in RELEASES:
        assert re.fullmatch(rf"{r.date} \d\d:\d\d:\d\d", r.reg_time)
        assert r.subject and r.attachments
        names = [a.name for a in r.attachments]
        assert len(set(names)) == len(names)
        assert all(a.name.endswith("." + a.kind) for a in r.attachments)


def test_bodies_carry_tags_entities_and_backslashless_escapes() -> None:
    for r in RELEASES:
        html = r.body_html
        assert html.startswith("<p>") and "</p>nn<p>" in html
        assert "u203B" in html and "u2018" in html and "u2019" in html and "rn<p>" in html
        assert "&nbsp;" in html and "&lt;붙임&gt;" in html
        assert "\\" not in html and "\n" not in html
        assert korean_date(r.date) in html


def test_scanner_finds_exactly_the_incidents_contaminated_dates(
    scanned: list[tuple[Release, Attachment, str]],
) -> None:
    by_date: dict[str, set[str]] = defaultdict(set)
    for release, att, status in scanned:
        if att.kind == "hwp":
            by_date[release.date].add(status)
    contaminated = {d for d, statuses in by_date.items() if "contaminated" in statuses}
    assert contaminated == expected_contaminated_dates()
    for clean_day in ("2025-07-23", "2025-07-26", "2025-07-27", "2025-07-28"):
        assert by_date[clean_day] == {"clean"}, clean_day


def test_hwpx_and_pdf_are_always_clean_hwp_matches_ground_truth(
    scanned: list[tuple[Release, Attachment, str]],
) -> None:
    for release, att, status in scanned:
        if att.kind == "hwp":
            assert status == ("contaminated" if att.contaminated else "clean"), att.name
        else:
            assert status == "clean", (release.date, att.name)
            assert not att.contaminated


def test_an_8_5_hwp_is_the_smallest_attachment() -> None:
    smallest = min((len(a.data), r.date, a.kind) for r in RELEASES for a in r.attachments)
    assert smallest[1:] == ("2025-08-05", "hwp")
    sizes = sorted(len(a.data) for r in RELEASES for a in r.attachments)
    assert sizes[0] < sizes[1], "strictly the smallest"


def test_july_has_28_hwp_and_hwpx_attachments_as_in_the_write_up() -> None:
    july = [a for r in RELEASES if r.date < "2025-08-01" for a in r.attachments]
    assert sum(a.kind in ("hwp", "hwpx") for a in july) == 28


def test_catalogue_is_deterministic_and_callers_cannot_corrupt_the_cache() -> None:
    first = incident_catalogue()
    first.clear()  # a caller mutating its list must not empty the next caller's
    catalogue._catalogue.cache_clear()
    rebuilt = incident_catalogue()
    assert rebuilt == RELEASES
    assert [a.data for r in rebuilt for a in r.attachments] == [
        a.data for r in RELEASES for a in r.attachments
    ]


def test_expected_dates_are_stated_not_derived() -> None:
    dates = expected_contaminated_dates()
    assert len(dates) == 13
    assert "2025-07-23" not in dates and "2025-08-04" not in dates
    assert {f"2025-08-{d:02d}" for d in range(5, 12)} <= dates
