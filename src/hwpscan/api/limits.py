"""Budgets on what one answer and one run may make us do, beyond the byte caps: a 60 MB
answer of ``{}`` items parses into gigabytes; each retry of a stalled call is paid. An
answer over a budget is refused *before it is cached*, so a later run asks again.

>>> limits = FetchLimits(max_items=2)
>>> limits.check_body(b'{"reponse": {"result": [' + b"{}," * 300 + b'{}]}}', "w")
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
hwpscan.errors.ApiResponseError: the API's answer for w holds more than 257 JSON values ...
>>> limits.check_body(b'{"result": [{"subject": "' + b"{[," * 900 + b'"}]}', "w")
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hwpscan.api.defaults import (
    API_RETRIES,
    MAX_ATTACHMENTS_PER_RELEASE,
    MAX_ATTACHMENTS_PER_RUN,
    MAX_DOWNLOAD_BYTES,
    MAX_ITEMS,
)
from hwpscan.errors import ApiResponseError

#: JSON values one release may take in the answer (it has about a dozen fields).
VALUES_PER_ITEM = 128


_STRING_RE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """The per-answer and per-run budgets of a fetch."""

    max_items: int = MAX_ITEMS
    max_attachments: int = MAX_ATTACHMENTS_PER_RELEASE
    max_files: int = MAX_ATTACHMENTS_PER_RUN
    max_download_bytes: int = MAX_DOWNLOAD_BYTES
    api_retries: int = API_RETRIES

    @property
    def max_values(self) -> int:
        return self.max_items * VALUES_PER_ITEM + 1

    def check_body(self, body: bytes, window: object) -> None:
        """Refuse an answer with more JSON values than the item budget allows, counted on
        the raw bytes (``{``, ``[`` and ``,`` outside strings) before anything is parsed."""
        if body.count(b",") + body.count(b"{") + body.count(b"[") <= self.max_values:
            return  # cheap: even counting inside strings, it is within the budget
        bare = _STRING_RE.sub(b'""', body)
        if bare.count(b",") + bare.count(b"{") + bare.count(b"[") > self.max_values:
            raise ApiResponseError(
                f"the API's answer for {window} holds more than {self.max_values:,} JSON "
                f"values (at most {self.max_items:,} releases of up to {VALUES_PER_ITEM} "
                "fields each are expected): refused, not cached; raise --max-items if it "
                "is real"
            )

    def check_counts(self, releases: int, attachments: list[int], window: object) -> None:
        """Refuse too many releases, or one listing too many attachments (count per release)."""
        if releases > self.max_items:
            raise ApiResponseError(
                f"the API's answer for {window} lists {releases:,} releases, more than "
                f"{self.max_items:,}: refused, not cached; raise --max-items if it is real"
            )
        worst = max(attachments, default=0)
        if worst > self.max_attachments:
            raise ApiResponseError(
                f"the API's answer for {window} has a release listing {worst:,} "
                f"attachments, more than {self.max_attachments:,}: refused, not cached; "
                "raise --max-attachments if it is real"
            )
