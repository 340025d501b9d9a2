# The native compound file layout (_cfb.c); cfb_fast.CfbStreams' constructor is the reference.

MAX_ENTRIES: int
MAX_TREE_DEPTH: int

def layout(
    data: bytes, /
) -> (
    tuple[dict[str, tuple[str, int, list[tuple[int, int]], bool]], list[tuple[int, int]], list[str]]
    | None
): ...
