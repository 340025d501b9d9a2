"""Every default of a fetch, stated once, for the settings and the command line's options
alike: this module imports nothing, so declaring the options loads none of the fetcher.

>>> from hwpscan.api import FetchLimits, FetchSettings
>>> s = FetchSettings()
>>> (s.api_url, s.window_days, s.max_bytes, s.retry.retries) == (
...     DEFAULT_API_URL, DEFAULT_WINDOW_DAYS, DEFAULT_MAX_BYTES, DEFAULT_RETRIES)
True
>>> FetchLimits().max_download_bytes == MAX_DOWNLOAD_BYTES
True
"""

from __future__ import annotations

#: The real endpoint (금융감독원 보도자료 API).
DEFAULT_API_URL = "https://www.fss.or.kr/fss/kr/openApi/api/bodoInfo.jsp"

#: The default and the longest call window: the API answers 21 days, but 42 with an error
#: code (a paid call spent on nothing), so longer windows are refused up front.
DEFAULT_WINDOW_DAYS = 21
MAX_WINDOW_DAYS = 21

#: API calls a key may make per day (the API's documented limit).
DEFAULT_DAILY_LIMIT = 30
#: The Korea-time hour the daily quota resets.
DEFAULT_RESET_HOUR = 0

#: Seconds to connect, and seconds between bytes of an answer or a download.
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 60.0
#: Bytes one attachment may take (``--max-mb`` changes it).
DEFAULT_MAX_BYTES = 100_000_000
#: Attachments downloaded at the same time.
DEFAULT_DOWNLOADS = 4
#: Retries after a timeout or a 5xx, and the first wait in seconds (doubled each time).
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.5

#: Releases one answer may list (a 21-day window has on the order of a hundred).
MAX_ITEMS = 2_000
#: Attachments one release may list (real ones have one to a few).
MAX_ATTACHMENTS_PER_RELEASE = 50
#: Attachments one run may download, and bytes in all (a year is a few thousand files).
MAX_ATTACHMENTS_PER_RUN = 10_000
MAX_DOWNLOAD_BYTES = 5_000_000_000
#: Paid calls one window may retry after a timeout or a 5xx (each retry is a call).
API_RETRIES = 2
