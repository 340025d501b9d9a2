# The one native module (_readers.c): whole-document readers; the Python readers are the
# reference (hwpscan.formats.fast_readers loads it).

from hwpscan.models import Segment

_Part = list[Segment] | tuple[int, int]

def read_hwp5(
    data: bytes,
    max_stream_bytes: int,
    max_document_bytes: int,
    max_docinfo_names: int,
    segment: type[Segment],
    table: dict[int, str],
    body_only: bool,
    /,
) -> tuple[int, int, int, int, _Part, _Part | None, _Part | None] | None: ...
def hwpx_package(
    data: bytes,
    max_entries: int,
    max_uncompressed: int,
    small_cap: int,
    part_cap: int,
    max_depth: int,
    max_paragraphs: int,
    /,
) -> tuple[int, list[str]] | None: ...
