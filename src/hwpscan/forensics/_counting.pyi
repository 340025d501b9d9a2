# The native counting (_counting.c); surrogates._notable_counts and _locations are
# its reference.
from collections.abc import Callable, Sequence

from hwpscan.models import Location, Segment

def count_notable(text: str, /) -> tuple[int, int, dict[str, int], bool]: ...
def locate(
    segments: Sequence[Segment],
    texts: list[str],
    starts: list[int],
    blob: str,
    halves: bool,
    pua: bool,
    limit: int,
    helpers: tuple[
        dict[str, tuple[str, str, str]],
        Callable[[str], tuple[str, str, str]],
        Callable[[str], str],
        Callable[[Sequence[Segment], int], int],
        type[Location],
    ],
    /,
) -> tuple[Location, ...] | None: ...
def find_in_ranges(text: str, ranges: tuple[tuple[int, int], ...], /) -> int: ...
