"""What every command's ``--help`` ends with, and how its options are named there.

:func:`epilog` gives the "Examples", "Environment" and "Exit codes" sections of a
command; :func:`metavar` a readable placeholder for an option's value (``N``, ``PATH``,
``YYYY-MM-DD``) instead of the Python type the framework would print; :func:`unwrap`
joins the hard line breaks of a docstring so the terminal wraps the text, not the
source file; :func:`clean_error` takes the validation library's phrasing out of an
error message.

Pure functions over strings: :mod:`hwpscan.cli.app` applies them to each command.

>>> metavar("--from", int, is_flag=False)
'YYYY-MM-DD'
>>> clean_error("Value error, 'xml' is not one of 'table', 'jsonl'.")
"'xml' is not one of 'table', 'jsonl'."
"""

from __future__ import annotations

import enum
import inspect
import re
from pathlib import Path
from typing import Any, get_args, get_origin

from rich.markup import escape

__all__ = ["COMMANDS", "SECTIONS", "clean_error", "epilog", "metavar", "unwrap"]

#: The section titles every command's help carries (checked by the tests).
SECTIONS = ("Examples", "Environment", "Exit codes")

_ENV = {
    "HWPSCAN_API_KEY": "the API key (else the config file, else a prompt)",
    "HWPSCAN_HOME": "state: answer cache, quota ledger, run history",
    "HWPSCAN_API_URL": "the listing endpoint, as --api-url",
    "COLUMNS": "table width; NO_COLOR=1 turns colour off",
}
#: Which variables matter to each kind of command.
_ENV_FETCH = ("HWPSCAN_API_KEY", "HWPSCAN_HOME", "HWPSCAN_API_URL", "COLUMNS")
_ENV_LOCAL = ("HWPSCAN_HOME", "COLUMNS")

_USAGE = "2  bad arguments, dates or paths"
_API = "3  the API or its limits stopped the fetch (what came is kept)"

#: Per command: two examples (command, what it does), environment variables, exit codes.
COMMANDS: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...]]] = {
    "hwpscan": (
        (
            ("hwpscan demo", "the whole job on a local emulator, nothing to set up"),
            ("hwpscan scan press/", "scan the attachments in a folder"),
        ),
        _ENV_FETCH,
        (
            "0  done, nothing failed",
            "1  findings a command was told to fail on",
            _USAGE,
            _API,
        ),
    ),
    "scan": (
        (
            ("hwpscan scan press/", "scan a folder; verdict, date x format table, problems"),
            (
                "hwpscan scan press/ -f jsonl -o results.jsonl --fail-on contaminated",
                "one JSON line per file for tools; exit 1 on contamination",
            ),
        ),
        _ENV_FETCH,
        (
            "0  scanned (findings do not fail the run without --fail-on)",
            "1  a file matched --fail-on (or an extractor disagreed)",
            _USAGE,
            "3  with --from/--to: the API or its limits stopped the fetch",
        ),
    ),
    "repair": (
        (
            ("hwpscan repair press/ --out repaired/", "UTF-8 text with pairs restored"),
            (
                "hwpscan repair a.hwp --out out/ --orphans replace --pua-map",
                "orphans as U+FFFD, Hancom PUA as standard characters",
            ),
        ),
        _ENV_LOCAL,
        ("0  every file written or reported", _USAGE),
    ),
    "text": (
        (
            ("hwpscan text a.hwp > a.txt", "the text as UTF-8, lossless, lone halves as U+25A1"),
            ("hwpscan text a.hwp --pua map --receipt -", "display equivalents; receipt on stderr"),
        ),
        ("COLUMNS",),
        ("0  every file printed or reported", "1  a file matched --fail-on", _USAGE),
    ),
    "check-json": (
        (
            ("hwpscan check-json capture.jsonl", "check captured tool results"),
            ("curl -sN URL | hwpscan check-json -", "check an SSE stream from stdin"),
        ),
        ("COLUMNS",),
        (
            "0  no bad string",
            "1  at least one string would fail UTF-8 encoding",
            "2  the input cannot be read or holds no JSON document",
        ),
    ),
    "emulator": (
        (
            ("hwpscan emulator", "serve the bundled 2025 catalogue on 127.0.0.1:8765"),
            (
                "hwpscan emulator --port 0 --fail-first 2 --daily-limit 5",
                "any free port, flaky downloads, a small quota",
            ),
        ),
        ("HWPSCAN_HOME",),
        ("0  stopped with Ctrl-C", "2  bad options, or a non-loopback --host"),
    ),
    "plan": (
        (
            ("hwpscan plan --from 2025-07-21 --to 2025-08-11", "calls needed, cached, quota"),
            (
                "hwpscan plan --from 2025-07-01 --to 2025-07-31 --window-days 7",
                "the same with week-long windows",
            ),
        ),
        _ENV_FETCH,
        ("0  plan shown (no network)", _USAGE),
    ),
    "fetch": (
        (
            (
                "hwpscan fetch --from 2025-07-21 --to 2025-07-25 --out press/",
                "releases and attachments, cache first",
            ),
            (
                "HWPSCAN_API_KEY=... hwpscan fetch --from 2025-07-21 --to 2025-07-21",
                "one day, the key from the environment",
            ),
        ),
        _ENV_FETCH,
        ("0  every attachment fetched or cached", _USAGE, _API),
    ),
    "demo": (
        (
            ("hwpscan demo", "the whole job on a local emulator; recorded as a demo run"),
            ("hwpscan demo --out demo/ --report demo-report/", "keep the files and a report"),
        ),
        _ENV_LOCAL,
        ("0  the demo ran", _USAGE, "3  the emulated fetch failed"),
    ),
    "verify": (
        (
            (
                "hwpscan verify -d 2025-07-21 -d 2025-07-30 --expect fixed "
                "--parser-cmd ours='python -m our_pipeline.extract {path}'",
                "after a deploy: the deployed extractor gives whole text on the broken days",
            ),
            (
                "hwpscan verify -d 2025-07-21 --expect clean",
                "after the publisher re-issued the files: the raw files are clean",
            ),
        ),
        _ENV_FETCH,
        (
            "0  every date PASS",
            "1  a date FAILED (evidence shown)",
            _USAGE,
            "3  the API or its quota stopped before every date was listed",
            "4  no date failed, but some proved nothing (INCONCLUSIVE)",
        ),
    ),
    "report": (
        (
            ("hwpscan report", "report.html and friends for the latest run"),
            ("hwpscan report latest~1 --out old-report/", "the run before it, elsewhere"),
        ),
        _ENV_LOCAL,
        ("0  report written", "2  no such run, or a fetch run (it holds no scan results)"),
    ),
    "manifest": (
        (
            ("hwpscan manifest press/", "one line per attachment: its current status"),
            (
                "hwpscan manifest press/ --format jsonl",
                "the same as JSON Lines, superseded lines left out",
            ),
        ),
        _ENV_LOCAL,
        ("0  shown", "2  no manifest.jsonl in the folder"),
    ),
    "history": (
        (
            ("hwpscan history", "the last 20 runs, newest first"),
            ("hwpscan history -n 5", "the last five"),
        ),
        _ENV_LOCAL,
        ("0  listed", "2  the run store cannot be read"),
    ),
    "diff": (
        (
            ("hwpscan diff latest~1", "what changed between the last two runs"),
            ("hwpscan diff 8f3a latest", "a run by the end of its id against the latest"),
        ),
        _ENV_LOCAL,
        ("0  compared", "2  no such run"),
    ),
}

#: Placeholders by option name, where the type alone says too little.
_BY_NAME = {
    "--from": "YYYY-MM-DD",
    "--to": "YYYY-MM-DD",
    "--date": "YYYY-MM-DD",
    "--api-url": "URL",
    "--allow-host": "HOST",
    "--download-path": "PREFIX",
    "--host": "HOST",
    "--port": "PORT",
    "--fail-on": "STATUS",
    "--parser": "NAMES",
    "--parser-cmd": "NAME=CMD",
    "--max-mb": "MB",
    "--after": "RUN",
    "--limit": "N",
}


def metavar(name: str, annotation: Any, *, is_flag: bool, choices: tuple[Any, ...] = ()) -> str:
    """A readable placeholder for an option's value ('' for a flag, which takes none).

    >>> from pathlib import Path
    >>> metavar("--out", Path | None, is_flag=False), metavar("--jobs", int, is_flag=False)
    ('PATH', 'N')
    >>> metavar("--verbose", bool, is_flag=True), metavar("--x", list[str], is_flag=False)
    ('', 'TEXT')
    """
    if is_flag:
        return ""
    if name in _BY_NAME:
        return _BY_NAME[name]
    if choices:
        return "|".join(str(getattr(c, "value", c)) for c in choices)
    base = _base(annotation)
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return "|".join(str(m.value) for m in base)
    if base is Path:
        return "PATH"
    if base is int:
        return "N"
    if base is float:
        return "SECONDS" if "timeout" in name or "delay" in name else "NUMBER"
    return "TEXT"


def _base(annotation: Any) -> Any:
    """``list[Path]`` and ``Path | None`` are both about a Path."""
    while get_origin(annotation) is not None:
        args = [a for a in get_args(annotation) if a is not type(None)]
        if not args:
            break
        annotation = args[0]
    return annotation


def unwrap(text: str) -> str:
    """Join the source's line breaks inside each paragraph; keep the paragraphs.

    >>> unwrap('''First line
    ...     goes on.
    ...
    ...     Second paragraph.''')
    'First line goes on.\\n\\nSecond paragraph.'
    """
    paragraphs = inspect.cleandoc(text).split("\n\n")
    out = []
    for para in paragraphs:
        if para.startswith("\b"):  # the framework's "keep as is" mark
            out.append(para)
        else:
            out.append(" ".join(line.strip() for line in para.splitlines()))
    return "\n\n".join(out)


def epilog(command: str) -> str:
    """The Examples, Environment and Exit codes sections (rich markup) of *command*."""
    examples, env, codes = COMMANDS[command]
    width = max(len(cmd) for cmd, _ in examples)
    lines = ["[bold]Examples[/]"]
    for cmd, what in examples:
        lines.append(f"  {escape(cmd)}" + ("\n" if width > 56 else "  "))
        lines[-1] += f"{'    ' if width > 56 else ' ' * (width - len(cmd))}[dim]{escape(what)}[/]"
    lines.append("\n[bold]Environment[/]")
    key_width = max(len(k) for k in env)
    lines += [f"  {k:<{key_width}}  {escape(_ENV[k])}" for k in env]
    lines.append("\n[bold]Exit codes[/]")
    lines += [f"  {escape(code)}" for code in codes]
    return "\n".join(lines)


#: The validation library's phrases and ours (regexes compiled on the first error, by
#: ``re``'s own cache: a run without one compiles none).
_FRAMEWORK_PHRASES = (
    (r"\bValue error, ", ""),
    (r"Input should be a valid integer, unable to parse string as an integer", ""),
    (r"Input should be a valid number, unable to parse string as a number", ""),
    (r"Input should be greater than or equal to ", "must be at least "),
    (r"Input should be less than or equal to ", "must be at most "),
    (r"Input should be greater than ", "must be more than "),
    (r"Input should be less than ", "must be less than "),
    (r"Input should be ", "must be "),
)


def clean_error(message: str) -> str:
    """*message* without the validation library's prefixes and phrasing.

    >>> clean_error("Input should be greater than or equal to 1")
    'must be at least 1'
    >>> clean_error("Input should be a valid integer, unable to parse string as an integer")
    'not a whole number'
    """
    if "valid integer" in message:
        return "not a whole number"
    if "valid number" in message:
        return "not a number"
    for pattern, replacement in _FRAMEWORK_PHRASES:
        message = re.sub(pattern, replacement, message)
    return message
