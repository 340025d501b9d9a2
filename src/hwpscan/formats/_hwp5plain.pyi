# A plain HWP 5 document counted in one call (_hwp5plain.c), an ordinary one read in one
# call (read_segments); hwp5.read_ole is the reference.

from hwpscan.models import Segment

MAX_RECORDS: int
MAX_PARAGRAPHS: int
MAX_SEGMENTS: int
MAX_ENTRIES: int
MAX_TREE_DEPTH: int

def read(
    data: bytes, max_stream_bytes: int, max_document_bytes: int, max_docinfo_names: int, /
) -> (
    tuple[int, int, int, int, tuple[int, int], tuple[int, int] | None, tuple[int, int] | None]
    | None
): ...

_Part = list[Segment] | tuple[int, int]

def read_segments(
    data: bytes,
    max_stream_bytes: int,
    max_document_bytes: int,
    max_docinfo_names: int,
    segment: type[Segment],
    table: dict[int, str],
    /,
) -> tuple[int, int, int, int, _Part, _Part | None, _Part | None] | None: ...
