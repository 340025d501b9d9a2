"""The incident's parser: ``chr()`` per UTF-16 code unit, so a pair becomes two lone
surrogates. ``python -m hwpscan.examples.broken_extractor FILE``."""

from __future__ import annotations

import struct

from hwpscan.examples._hwp5 import main, units_to_text


def decode(payload: bytes) -> str:
    """Each 16-bit unit is made a character of its own: the defect."""
    units = struct.unpack(f"<{len(payload) // 2}H", payload[: len(payload) // 2 * 2])
    return units_to_text("".join(chr(u) for u in units))


if __name__ == "__main__":
    raise SystemExit(main(decode))
