"""An extractor module whose import never finishes (a blocking network call at import)."""

import os
import time

if os.environ.get("HWPSCAN_TEST_IMPORT_HANG"):
    while True:
        time.sleep(60)


def extract(path: str) -> str:
    return ""
