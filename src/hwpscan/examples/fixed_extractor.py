"""The fix: PARA_TEXT decoded as UTF-16, so a pair is the one character it encodes.
``python -m hwpscan.examples.fixed_extractor FILE``."""

from __future__ import annotations

from hwpscan.examples import broken_extractor
from hwpscan.examples._hwp5 import main


def decode(payload: bytes) -> str:
    """Controls are taken out unit by unit (their parameters are not text), then the
    rest is decoded as UTF-16LE; a truly lone half (the document's own) is kept."""
    text = broken_extractor.decode(payload)
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


if __name__ == "__main__":
    raise SystemExit(main(decode))
