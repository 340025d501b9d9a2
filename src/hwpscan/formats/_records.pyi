# The native record walks (_records.c); their Python twins are the reference.
from typing import Literal

from hwpscan.models import Segment

def scan_free(
    data: bytes, end: int, counted: bool, /
) -> tuple[list[tuple[int, int, int]], int, list[int], int, int]: ...
def docinfo_spans(
    data: bytes, cap: int, /
) -> tuple[list[tuple[int, int, int, int]], int | None] | None: ...
def docinfo_plain(data: bytes, cap: int, /) -> tuple[int, int] | None: ...
def plain_counts(raw: bytes, sizes: list[int], /) -> tuple[int, int] | Literal[False] | None: ...
def paragraph_runs(
    big: str,
    hits: list[tuple[int, int, int]],
    sizes: list[int],
    stream: str,
    out: list[Segment],
    warnings: list[str],
    limit: int,
    segment: type[Segment],
    table: dict[int, str],
    /,
) -> int | None: ...
def codeunit_view(raw: bytes, /) -> str: ...
def join_payloads(
    data: bytes, hits: list[tuple[int, int, int]], /
) -> tuple[bytes, list[int], int] | None: ...
