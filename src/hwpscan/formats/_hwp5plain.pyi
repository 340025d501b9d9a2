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
