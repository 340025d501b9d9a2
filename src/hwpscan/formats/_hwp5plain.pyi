# A plain HWP 5 document counted in one call (_hwp5plain.c); hwp5.read_ole is the reference.

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

_Part = list[tuple[str, int, int, str]] | tuple[int, int]

def read_segments(
    data: bytes,
    max_stream_bytes: int,
    max_document_bytes: int,
    max_docinfo_names: int,
    segment: type[tuple[str, int, int, str]],
    table: dict[int, str],
    /,
) -> tuple[int, int, int, int, _Part, _Part, _Part] | None: ...
