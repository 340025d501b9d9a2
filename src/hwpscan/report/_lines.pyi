# The JSON of locations in C (_lines.c); export._locations is its reference.
from collections.abc import Sequence

from hwpscan.models import Location

def locations(found: Sequence[Location], /) -> str | None: ...
