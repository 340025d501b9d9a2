# The ZIP package reader of the HWPX path (_zip.c); zipfile is the reference.

def central(
    data: bytes, max_entries: int, max_declared: int, /
) -> list[tuple[str, int, int, int, int, int, int]] | None: ...
def inflate(
    data: bytes, data_at: int, compress_size: int, file_size: int, method: int, crc: int, /
) -> bytes | None: ...
