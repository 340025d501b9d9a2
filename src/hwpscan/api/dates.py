"""Dates, ranges and call windows, in Korea time. Only ``YYYY-MM-DD`` is accepted: the
API answers ``YYYYMMDD`` with zero items, so a loose parser hides a typo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hwpscan.api.defaults import DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS
from hwpscan.errors import UsageError

#: The API's clock: days, quota days and "the current year" are counted here.
KST = ZoneInfo("Asia/Seoul")

#: The longest range a fetch or plan takes: a century (about 1,740 calls of 21 days).
MAX_RANGE_DAYS = 36_525

_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True, slots=True, order=True)
class Window:
    """One API call's range, both ends inclusive."""

    start: date
    end: date

    @property
    def days(self) -> int:
        """Number of days covered, both ends counted."""
        return (self.end - self.start).days + 1

    def __str__(self) -> str:
        return f"{self.start.isoformat()}..{self.end.isoformat()}"

    def weekdays(self) -> int:
        """How many Mondays to Fridays the window holds.

        >>> Window(date(2025, 7, 21), date(2025, 8, 10)).weekdays()   # three whole weeks
        15
        >>> Window(date(2025, 7, 26), date(2025, 7, 28)).weekdays()   # Sat, Sun, Mon
        1
        """
        weeks, rest = divmod(self.days, 7)
        first = self.start.weekday()
        return weeks * 5 + sum(1 for i in range(rest) if (first + i) % 7 < 5)


def parse_date(text: str, *, what: str = "date") -> date:
    """Parse a strict ``YYYY-MM-DD`` date, or raise :class:`UsageError` saying why.

    >>> parse_date("2025-07-21")
    datetime.date(2025, 7, 21)
    >>> parse_date("20250721")
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: date '20250721' is not in the form YYYY-MM-DD (e.g. 2025-07-21)
    >>> parse_date("2025-02-30", what="--to")
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: --to '2025-02-30' is not a real date: day is out of range for month
    """
    raw = text.strip() if isinstance(text, str) else text
    if not isinstance(raw, str) or not _DATE_RE.fullmatch(raw):
        raise UsageError(f"{what} {text!r} is not in the form YYYY-MM-DD (e.g. 2025-07-21)")
    try:
        return date.fromisoformat(raw)
    except ValueError as exc:
        raise UsageError(f"{what} {text!r} is not a real date: {exc}") from exc


def parse_range(start: str, end: str) -> tuple[date, date]:
    """Parse ``--from`` and ``--to``; the range must not run backwards."""
    first, last = parse_date(start, what="--from"), parse_date(end, what="--to")
    check_range(first, last)
    return first, last


def check_range(start: date, end: date) -> None:
    """Raise :class:`UsageError` when ``start`` is after ``end`` or the range is absurdly long.

    >>> check_range(date(1, 1, 1), date(9999, 12, 31))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: the range 0001-01-01..9999-12-31 is 3652059 days; at most ...
    """
    if start > end:
        raise UsageError(f"--from {with_weekday(start)} is after --to {with_weekday(end)}")
    days = (end - start).days + 1
    if days > MAX_RANGE_DAYS:
        raise UsageError(
            f"the range {start.isoformat()}..{end.isoformat()} is {days} days; "
            f"at most {MAX_RANGE_DAYS} (a century)"
        )


def check_window_days(window_days: int) -> int:
    """Refuse a window the API cannot answer, before any call is made."""
    if window_days < 1:
        raise UsageError(f"the window must be at least 1 day, not {window_days}")
    if window_days > MAX_WINDOW_DAYS:
        raise UsageError(
            f"--window-days {window_days} is more than the API's {MAX_WINDOW_DAYS} days per "
            "call: a longer window is answered with an error code and still costs a call "
            "(nothing was sent)"
        )
    return window_days


def split_windows(
    start: date, end: date, window_days: int = DEFAULT_WINDOW_DAYS
) -> tuple[Window, ...]:
    """Cut an inclusive range into consecutive windows of at most ``window_days`` days.

    >>> [w.days for w in split_windows(date(2025, 1, 1), date(2025, 3, 1), 21)]
    [21, 21, 18]
    >>> split_windows(date(2025, 1, 1), date(2025, 1, 1), 0)
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: the window must be at least 1 day, not 0
    """
    check_window_days(window_days)
    check_range(start, end)
    out: list[Window] = []
    cursor = start
    while True:  # never steps past ``end``, so never past date.max
        last = cursor + timedelta(days=min(window_days - 1, (end - cursor).days))
        out.append(Window(cursor, last))
        if last == end:
            return tuple(out)
        cursor = last + timedelta(days=1)


def with_weekday(day: date) -> str:
    """ISO date with its English weekday abbreviation.

    >>> with_weekday(date(2025, 8, 9))
    '2025-08-09 (Sat)'
    """
    return f"{day.isoformat()} ({day.strftime('%a')})"


def quota_day(now: datetime | None = None, *, reset_hour: int = 0) -> date:
    """The Korea-time day the API's counter is on; it turns at ``reset_hour`` o'clock
    (by default midnight: today's date in Korea time).

    >>> quota_day(datetime(2025, 7, 20, 16, 0, tzinfo=ZoneInfo("UTC")))
    datetime.date(2025, 7, 21)
    """
    return ((now or datetime.now(tz=KST)).astimezone(KST) - timedelta(hours=reset_hour)).date()


def next_reset(now: datetime | None = None, *, reset_hour: int = 0) -> datetime:
    """When the quota day after the current one begins (Korea time)."""
    day = quota_day(now, reset_hour=reset_hour) + timedelta(days=1)
    return datetime.combine(day, time(hour=reset_hour), tzinfo=KST)


def year_warning(start: date, end: date, today: date | None = None) -> str | None:
    """A warning when the whole range lies in a year other than the current one: the API
    was seen to answer a wrong year with that year's data, so a typo must be loud.

    >>> print(year_warning(date(2024, 7, 21), date(2024, 8, 11), date(2025, 8, 1)))
    ... # doctest: +NORMALIZE_WHITESPACE
    the whole range 2024-07-21..2024-08-11 is in 2024,
    not the current year 2025 (Korea time): check the year
    """
    current = (today or quota_day()).year
    if start.year == end.year != current:
        return (
            f"the whole range {start.isoformat()}..{end.isoformat()} is in {start.year}, "
            f"not the current year {current} (Korea time): check the year"
        )
    return None
