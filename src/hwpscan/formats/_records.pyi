# The native record walks (_records.c); their Python twins are the reference.

def scan_free(
    data: bytes, end: int, counted: bool, /
) -> tuple[list[tuple[int, int, int]], int, list[int], int, int]: ...
def docinfo_spans(
    data: bytes, cap: int, /
) -> tuple[list[tuple[int, int, int, int]], int | None] | None: ...
