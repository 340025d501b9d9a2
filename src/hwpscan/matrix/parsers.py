"""The extractors the parser matrix can run, and how the command line names them.

Built-ins ``codeunit`` (the defective one-code-point-per-unit parser), ``strict`` (pairs
merged: the reference view) and ``pyhwp`` (with the ``pyhwp`` extra); ``module:function``
for a Python function; commands, ``NAME='tool {path}'`` once per file or
``NAME='tool {paths}'`` per batch (:func:`split_batch_output`). docs/matrix.md says what each
does, pyhwp's placeholders and failures included.

>>> [s.name for s in parse_parser_options("codeunit,strict", ["mine=cat {path}"])]
['codeunit', 'strict', 'mine']
>>> parse_parser_options("nosuch", [])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
hwpscan.errors.UsageError: unknown parser 'nosuch': use codeunit, strict, pyhwp, ...
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hwpscan.errors import FormatError, UsageError
from hwpscan.forensics.checkjson import Decoded, decode_utf8
from hwpscan.forensics.surrogates import join_segments, merge_pairs
from hwpscan.formats import read_document

PATH_FIELD = "{path}"
PATHS_FIELD = "{paths}"
#: Starts each file's header line in a batch command's output (see split_batch_output).
RS = b"\x1e"
_TARGET_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_NAME_RE = re.compile(r"^[\w.+-]+$")


@dataclass(frozen=True, slots=True)
class ParserSpec:
    """One extractor: a ``module:function`` target or a command template.

    ``requires`` names the top-level module that must be importable (checked without
    importing it); when it is missing the extractor is reported ``not-installed``.
    """

    name: str
    kind: Literal["callable", "command"]
    target: str = ""  # module:function for callables
    argv: tuple[str, ...] = ()  # the command template, for commands
    requires: str | None = None
    extra: str | None = None  # the pip extra that provides it, for the message
    batch: bool = False  # a command taking {paths}: many files per process

    def missing(self) -> str | None:
        """Why this extractor cannot run here, or None when it can (as far as we can
        tell without running it).

        >>> BUILTINS["strict"].missing() is None
        True
        >>> ParserSpec("x", "callable", "zz_none:f", requires="zz_none").missing()
        "Python module 'zz_none' is not installed"
        """
        if self.requires is None:
            return None
        try:
            found = importlib.util.find_spec(self.requires) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            return None
        hint = f" (pip install 'hwpscan[{self.extra}]')" if self.extra else ""
        return f"Python module {self.requires!r} is not installed{hint}"

    def command(self, path: Path) -> list[str]:
        """The command line for *path*.

        >>> ParserSpec("t", "command", argv=("tool", "--in={path}")).command(Path("a b.hwp"))
        ['tool', '--in=a b.hwp']
        """
        return [arg.replace(PATH_FIELD, str(path)) for arg in self.argv]

    def batch_command(self, paths: Sequence[Path]) -> list[str]:
        """The command line for many files (the ``{paths}`` argument becomes them all).

        >>> spec = ParserSpec("t", "command", argv=("tool", "-q", "{paths}"), batch=True)
        >>> spec.batch_command([Path("a.hwp"), Path("b c.hwp")])
        ['tool', '-q', 'a.hwp', 'b c.hwp']
        """
        many = [str(p) for p in paths]
        return [x for arg in self.argv for x in (many if arg == PATHS_FIELD else [arg])]


_HERE = __name__
BUILTINS: dict[str, ParserSpec] = {
    "codeunit": ParserSpec("codeunit", "callable", f"{_HERE}:codeunit_text"),
    "strict": ParserSpec("strict", "callable", f"{_HERE}:strict_text"),
    "pyhwp": ParserSpec("pyhwp", "callable", f"{_HERE}:pyhwp_text", requires="hwp5", extra="pyhwp"),
}
#: What runs when only ``--parser-cmd`` is given.
DEFAULT_PARSERS = ("codeunit", "strict")
REFERENCE = BUILTINS["strict"]

_UNKNOWN_HINT = "use codeunit, strict, pyhwp, module:function, or --parser-cmd NAME='tool {path}'"


def parse_parser_options(parser: str | None, parser_cmd: Sequence[str] = ()) -> list[ParserSpec]:
    """Turn ``--parser NAME[,NAME...]`` and ``--parser-cmd NAME='tool {path}'`` into specs.

    Raises :class:`~hwpscan.errors.UsageError` with a message for the user on any
    malformed value. Without ``--parser``, the built-ins ``codeunit`` and ``strict`` run
    beside the commands.

    >>> parse_parser_options(None, ["x=tool"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: --parser-cmd 'x=tool': the command must contain {path} where ...
    >>> [s.target for s in parse_parser_options("pkg.mod:extract", [])]
    ['pkg.mod:extract']
    """
    names = list(DEFAULT_PARSERS) if parser is None else [n.strip() for n in parser.split(",")]
    specs: list[ParserSpec] = []
    for name in names:
        if not name:
            raise UsageError(f"--parser {parser!r}: empty name in the list")
        if name in BUILTINS:
            specs.append(BUILTINS[name])
        elif ":" in name:
            if not _TARGET_RE.match(name):
                raise UsageError(
                    f"--parser {name!r}: a Python extractor is written module:function "
                    "(e.g. mypkg.extract:to_text)"
                )
            specs.append(ParserSpec(name, "callable", name))
        else:
            raise UsageError(f"unknown parser {name!r}: {_UNKNOWN_HINT}")
    specs.extend(_command_spec(value) for value in parser_cmd)
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise UsageError(f"parser {spec.name!r} is named twice")
        seen.add(spec.name)
    return specs


def _command_spec(value: str) -> ParserSpec:
    name, sep, template = value.partition("=")
    name = name.strip()
    if not sep or not name or not template.strip():
        raise UsageError(f"--parser-cmd {value!r}: write NAME='tool {{path}}'")
    if not _NAME_RE.match(name) or name in BUILTINS:
        raise UsageError(
            f"--parser-cmd {value!r}: the name must be letters, digits, '.', '_', '+' or '-' "
            "and not a built-in's"
        )
    try:
        argv = tuple(shlex.split(template))
    except ValueError as exc:
        raise UsageError(f"--parser-cmd {value!r}: {exc}") from exc
    batch = PATHS_FIELD in argv
    if any(PATHS_FIELD in arg for arg in argv) and not batch:
        raise UsageError(f"--parser-cmd {value!r}: {PATHS_FIELD} must be an argument of its own")
    single = any(PATH_FIELD in arg for arg in argv)
    if batch and (single or argv.count(PATHS_FIELD) > 1):
        raise UsageError(f"--parser-cmd {value!r}: give {PATHS_FIELD} once, without {PATH_FIELD}")
    if not single and not batch:
        raise UsageError(
            f"--parser-cmd {value!r}: the command must contain {PATH_FIELD} "
            f"where the file's path goes (or {PATHS_FIELD} for many files at once)"
        )
    return ParserSpec(name, "command", argv=argv, batch=batch)


# --- Decoding a command's output ------------------------------------------------------


def decode_output(data: bytes) -> Decoded:
    """UTF-8 with ``surrogatepass``: lone surrogates survive; other undecodable bytes are
    skipped and counted.

    >>> decode_output("가".encode() + chr(0xDB80).encode("utf-8", "surrogatepass"))
    Decoded(text='가\\udb80', invalid=0)
    >>> decode_output(b"a\\xff\\xfeb\\xc3")
    Decoded(text='ab', invalid=3)
    """
    return decode_utf8(data, "skip")


def split_batch_output(data: bytes, paths: Sequence[Path]) -> list[bytes | str | None]:
    r"""Cut a batch command's output into one part per path: the text's bytes, a ``str``
    failure message, or None when the file has no header. Each file, in the order given,
    is a header line, RS (0x1E) and the path as given, then its text; a file the tool
    could not read has RS path US (0x1F) message as its header (docs/matrix.md).

    >>> out = b"\x1ea.hwp\n\xea\xb0\x80\n\x1eb.hwp\x1fValueError: bad\n"
    >>> split_batch_output(out, [Path("a.hwp"), Path("b.hwp"), Path("c.hwp")])
    [b'\xea\xb0\x80\n', 'ValueError: bad', None]
    """
    found: list[tuple[int, int, int, bytes | None]] = []  # (index, header, body, message)
    pos = 0
    for i, path in enumerate(paths):
        header = re.escape(RS + os.fsencode(path)) + rb"(?:\x1f([^\n]*))?(?:\n|\Z)"
        match = re.compile(header).search(data, pos)
        if match:
            found.append((i, match.start(), match.end(), match[1]))
            pos = match.end()
    parts: list[bytes | str | None] = [None] * len(paths)
    for n, (i, _, body, message) in enumerate(found):
        if message is not None:
            why = message.decode("utf-8", "backslashreplace").strip()
            parts[i] = why or "the tool reported a failure"
        else:
            parts[i] = data[body : found[n + 1][1] if n + 1 < len(found) else len(data)]
    return parts


# --- Built-in extractors (run inside the worker process) -----------------------------


def codeunit_text(path: str) -> str:
    """The body as the defective pipeline parser saw it: one code point per code unit."""
    doc = read_document(Path(path).read_bytes())
    if doc.status is not None:
        raise FormatError(f"{doc.status.value}: {doc.reason}")
    return join_segments(doc.body)


def strict_text(path: str) -> str:
    """The reference view: the body with surrogate pairs merged (orphans kept)."""
    return merge_pairs(codeunit_text(path))


def pyhwp_text(path: str) -> str:
    """pyhwp's plain-text conversion (the ``hwp5txt`` machinery), as UTF-8 text."""
    import io
    from contextlib import closing

    from hwp5.hwp5txt import TextTransform  # the optional extra: imported only here
    from hwp5.xmlmodel import Hwp5File

    try:
        transform = TextTransform().transform_hwp5_to_text  # pyhwp 0.1b15 (PyPI)
    except TypeError:  # later pyhwp takes the XSLT factory from a registry
        from hwp5.cli import init_xslt, update_settings_from_environ
        from hwp5.interfaces import IXSLTFactory
        from zope.interface.registry import Components

        settings: dict[str, object] = {}
        registry = Components()
        update_settings_from_environ(settings)
        init_xslt(registry, **settings)
        transform = TextTransform(registry.getUtility(IXSLTFactory)).transform_hwp5_to_text
    dest = io.BytesIO()
    with closing(Hwp5File(path)) as hwp5file:
        transform(hwp5file, dest)
    return dest.getvalue().decode("utf-8", "surrogatepass")
