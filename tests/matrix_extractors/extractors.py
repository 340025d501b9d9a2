"""Python extractors (path -> str) that fail the way real ones do."""

from __future__ import annotations

import os
import struct
import time
import zlib

import olefile

from hwpscan.forensics.surrogates import PUA_RE
from hwpscan.matrix.parsers import strict_text


class PanicException(BaseException):
    """What PyO3 raises for a Rust panic: a BaseException, not an Exception."""


def drop_pua(path: str) -> str:
    """Silently loses every private-use character."""
    return PUA_RE.sub("", strict_text(path))


def question_marks(path: str) -> str:
    """Replaces every private-use character by '?' (a lossy encoder's habit)."""
    return PUA_RE.sub("?", strict_text(path))


def high_half_only(path: str) -> str:
    """Keeps only the high surrogate of each PUA-A character (a broken UTF-16 step)."""
    return "".join(
        chr(0xD800 + ((ord(c) - 0x10000) >> 10)) if ord(c) > 0xFFFF else c
        for c in strict_text(path)
    )


def empty(path: str) -> str:
    """Returns an empty string for every file."""
    return ""


def hang(path: str) -> str:
    """Never returns."""
    while True:
        time.sleep(60)


def panic(path: str) -> str:
    """Dies the way a Rust extension does."""
    raise PanicException("called `Option::unwrap()` on a `None` value")


def system_exit(path: str) -> str:
    """Calls sys.exit from inside a library."""
    raise SystemExit(3)


def refuse(path: str) -> str:
    """Raises an ordinary exception."""
    raise ValueError(f"unsupported record in {os.path.basename(path)}")


def returns_bytes(path: str) -> bytes:
    """Returns bytes instead of str."""
    return b"not text"


def hard_exit(path: str) -> str:
    """Leaves without unwinding (what a native abort looks like from Python)."""
    os._exit(134)


def naive_para_text(path: str) -> str:
    """The defective pipeline parser: every PARA_TEXT unit becomes a code point,
    controls and their binary parameters included."""
    with olefile.OleFileIO(path) as ole:
        header = ole.openstream("FileHeader").read()
        compressed = struct.unpack_from("<I", header, 36)[0] & 1
        names = sorted(
            ("/".join(e) for e in ole.listdir() if e[0] == "BodyText"),
            key=lambda n: int(n.rsplit("Section", 1)[1]),
        )
        parts = []
        for name in names:
            data = ole.openstream(name).read()
            if compressed:
                data = zlib.decompress(data, -15)
            parts.extend(_para_texts(data))
    return "\n".join(parts)


def _para_texts(data: bytes) -> list[str]:
    out, pos = [], 0
    while pos + 4 <= len(data):
        head = struct.unpack_from("<I", data, pos)[0]
        tag, size = head & 0x3FF, head >> 20
        pos += 4
        if size == 0xFFF:
            size = struct.unpack_from("<I", data, pos)[0]
            pos += 4
        if tag == 67:  # PARA_TEXT
            payload = data[pos : pos + size]
            out.append("".join(chr(u) for u in struct.unpack(f"<{len(payload) // 2}H", payload)))
        pos += size
    return out


def picky(path: str) -> str:
    """Hangs on PDF files, panics on HWPX files, reads the rest correctly."""
    if path.endswith(".pdf"):
        hang(path)
    if path.endswith(".hwpx"):
        panic(path)
    return strict_text(path)


_calls = [0]  # files this process has seen: state that outlives one call


def stateful(path: str) -> str:
    """Correct on the first file a process sees; appends a marker to every later one."""
    _calls[0] += 1
    seen = _calls[0]
    return strict_text(path) + ("" if seen == 1 else f" 이전{seen - 1}")


def sanitized(path: str) -> str:
    """Correct, then drops the lone surrogates left (what a guard at the chokepoint does)."""
    from hwpscan.forensics.surrogates import SURROGATE_RE

    return SURROGATE_RE.sub("", strict_text(path))


def markdown(path: str) -> str:
    """Keeps every character, as Markdown: a heading, pipes around table cells (tabs),
    bold paragraphs, and the word 보도자료 as a hyperlink to the source."""
    return _as_markdown(strict_text(path))


def markdown_drop_pua(path: str) -> str:
    """Markdown like :func:`markdown`, and every private-use character silently lost."""
    return _as_markdown(PUA_RE.sub("", strict_text(path)))


def _as_markdown(text: str) -> str:
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if i == 0:
            out.append("# " + line)
        elif "\t" in line:
            out.append("| " + " | ".join(line.split("\t")) + " |")
            out.append("|---|---|")
        else:
            out.append(f"**{line}**")
    link = "[보도자료](https://www.fss.or.kr/fss/bbs/B0000188/list.do)"
    return "\n\n".join(out).replace("보도자료", link, 1)


def reflow(path: str) -> str:
    """Keeps every character; only the layout changes (lines re-wrapped every 7 chars)."""
    text = strict_text(path).replace("\n", " ")
    return "\n".join(text[i : i + 7] for i in range(0, len(text), 7))


def slow(path: str) -> str:
    """Correct, after a pause (to catch a run in the middle)."""
    time.sleep(0.4)
    return strict_text(path)


def lazy_missing(path: str) -> str:
    """Imports a dependency that is not installed only when first called."""
    import hwp_magic_not_installed  # type: ignore[import-not-found]  # noqa: F401

    return strict_text(path)


def numbered(path: str) -> str:
    """Keeps every character and numbers the paragraphs (auto-numbering shown as text)."""
    lines = strict_text(path).split("\n")
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1))


def pipes(path: str) -> str:
    """Keeps every character; each paragraph becomes a Markdown table row, one cell per word."""
    return "\n".join(
        "| " + line.replace(" ", " | ") + " |" for line in strict_text(path).split("\n")
    )


def environment(path: str) -> str:
    """The names of the variables in the extractor's environment, one a line."""
    return "\n".join(sorted(os.environ))
