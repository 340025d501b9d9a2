"""An extractor module that takes the interpreter down while being imported."""

import os

if os.environ.get("HWPSCAN_TEST_IMPORT_DIE"):
    os.write(2, b"fatal: libhwp.so: cannot open shared object file\n")
    os._exit(127)


def extract(path: str) -> str:
    return ""
