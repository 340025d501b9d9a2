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
def hwpx_section(data: bytes, max_depth: int, max_paragraphs: int, /) -> list[str] | None: ...
