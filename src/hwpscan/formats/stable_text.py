"""Library messages made the same from run to run, before they become a row's words.

Some libraries put a Python object's memory address in an exception or log message:
pypdf writes an indirect reference as ``IndirectObject(15, 0, 140352...)``, the last
number the ``id()`` of its reader; a default ``repr`` says ``<... object at 0x7f...>``.
Two scans of one file would then give two rows, and ``hwpscan diff`` would report a
change that is not there. :func:`stable` drops such addresses and keeps the rest.

>>> stable("Invalid destination IndirectObject(15, 0, 140352876543216) in /Dests")
'Invalid destination IndirectObject(15, 0) in /Dests'
>>> stable("cannot use <pypdf.generic.NullObject object at 0x7f3a2b1c9e10>")
'cannot use <pypdf.generic.NullObject object>'
>>> stable("CRC 0x1b2c3d4e of entry 0x10 at byte 1,024")
'CRC 0x1b2c3d4e of entry 0x10 at byte 1,024'
"""

from __future__ import annotations

import re

__all__ = ["stable"]

_INDIRECT_RE = re.compile(r"(IndirectObject\(\d+, \d+), \d+\)")
_AT_ADDRESS_RE = re.compile(r" at 0x[0-9a-fA-F]+(?=>)")


def stable(text: str) -> str:
    """*text* without the memory addresses libraries write into it (see above)."""
    if "IndirectObject(" in text:
        text = _INDIRECT_RE.sub(r"\1)", text)
    if " at 0x" in text:
        text = _AT_ADDRESS_RE.sub("", text)
    return text
