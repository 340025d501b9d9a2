"""The deployed tool (``--tool-cmd 'CMD {date}'``): run for one date without a shell, in its
own process group, with a scrubbed environment; its output checked as ``check-json`` does,
and scrubbed of secrets (:func:`scrub_tool_text`) before it is shown or stored.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hwpscan.errors import UsageError
from hwpscan.execution.process_groups import run_captured
from hwpscan.forensics.checkjson import check_json_text, decode_input, iter_strings
from hwpscan.forensics.pua import pua_info
from hwpscan.forensics.surrogates import escape_snippet, merge_pairs
from hwpscan.redaction import (
    API_KEY_ENV,
    redact_auth,
    redact_credentials,
    redact_params,
    redact_text,
    scrubbed_environment,
)
from hwpscan.verify.evidence import Evidence

if TYPE_CHECKING:
    from hwpscan.forensics.checkjson import JsonCheck
    from hwpscan.models import FileResult

DATE_FIELD = "{date}"
_LISTED = 5  # missing code points named per attachment
_STDERR_TAIL = 300


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What ``--tool-cmd`` gave for one date: the check, or why there is none."""

    date: str
    command: str  # shown (the template with the date filled in)
    failure: str | None = None  # it failed, hung or printed no JSON
    check: JsonCheck | None = None
    #: Every distinct character of the output's strings (decoded), to tell whether the
    #: attachments' restored characters reached it (:func:`dropped_evidence`).
    characters: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.failure is None and self.check is not None and self.check.ok

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": self.command, "ok": self.ok, "failure": self.failure}
        if (c := self.check) is not None:
            out |= {"documents": c.documents, "strings": c.strings, "bad": len(c.bad)}
            out["skipped"] = len(c.skipped)
        return out


def parse_tool_cmd(template: str) -> tuple[str, ...]:
    """The argv template of ``--tool-cmd``; it must hold ``{date}``.

    >>> parse_tool_cmd("tool")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hwpscan.errors.UsageError: --tool-cmd 'tool': the command must contain {date} ...
    """
    try:
        argv = tuple(shlex.split(template))
    except ValueError as exc:
        raise UsageError(f"--tool-cmd {template!r}: {exc}") from exc
    if not argv:
        raise UsageError("--tool-cmd is empty: give a command such as 'mytool {date}'")
    if not any(DATE_FIELD in arg for arg in argv):
        raise UsageError(
            f"--tool-cmd {template!r}: the command must contain {DATE_FIELD} where the "
            "date (YYYY-MM-DD) goes"
        )
    return argv


#: The tool's environment: ours without anything that looks secret, but for the names
#: passed through (``--tool-env``).
tool_environment = scrubbed_environment


def scrub_tool_text(text: str) -> str:
    """What the deployed tool printed, or its command line, safe to show and store: the
    API key (in any spelling), cloud credentials, secret-named parameters, bearer tokens
    and ``Authorization`` headers redacted.

    >>> scrub_tool_text("curl -H 'Authorization: Bearer eyJ0.x' 'http://h/t?token=t0'")
    "curl -H 'Authorization: Bearer REDACTED' 'http://h/t?token=REDACTED'"
    """
    key = os.environ.get(API_KEY_ENV)
    text = redact_credentials(redact_auth(redact_params(text)))
    return redact_text(text, [key]) if key else text


def run_tool(
    argv: Sequence[str], day: str, *, timeout: float, env: Mapping[str, str] | None = None
) -> ToolOutcome:
    """Run the tool command for *day* and check what it printed as ``check-json`` does
    (*env* ``None``: :func:`tool_environment`); what the command does is never raised."""
    args = [a.replace(DATE_FIELD, day) for a in argv]
    shown = scrub_tool_text(escape_snippet(shlex.join(args)))
    try:
        done = run_captured(args, timeout=timeout, env=tool_environment() if env is None else env)
    except OSError as exc:
        return ToolOutcome(day, shown, f"cannot run the tool command: {exc.strerror or exc}")
    if done.returncode is None:
        return ToolOutcome(day, shown, f"the tool command did not finish within {timeout:g} s")
    if done.returncode != 0:
        code = done.returncode
        what = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        lines = [
            s for s in done.stderr.decode("utf-8", "backslashreplace").splitlines() if s.strip()
        ]
        tail = escape_snippet(lines[-1].strip()) if lines else ""  # the last line of stderr
        if len(tail) > _STDERR_TAIL:
            tail = "..." + tail[-_STDERR_TAIL:]
        tail = scrub_tool_text(tail)
        return ToolOutcome(day, shown, f"the tool command {what}" + (f": {tail}" if tail else ""))
    text = decode_input(done.stdout)
    check = check_json_text(text)
    if check.empty:
        skipped = len(check.skipped)
        return ToolOutcome(
            day, shown, f"the tool command printed no JSON ({skipped} line(s) skipped)", check
        )
    characters = frozenset(ch for string in iter_strings(text) for ch in merge_pairs(string))
    return ToolOutcome(day, shown, None, check, characters)


def tool_evidence(tool: ToolOutcome) -> list[Evidence]:
    """Why the tool's output fails: its failure, or each bad string with its JSON path."""
    if tool.failure is not None:
        return [Evidence(None, "tool", tool.failure)]
    assert tool.check is not None
    out = []
    for b in tool.check.bad:
        path = b.path + (" (key)" if b.kind == "key" else "")
        snippet = scrub_tool_text(b.snippet)
        out.append(Evidence(None, "tool", b.message, b.position, snippet, path, b.line))
    return out


def _reached(cp: str, characters: frozenset[str]) -> bool:
    """Whether code point *cp* (``U+F02B1``) is in the output as itself, or as the
    display equivalent the PUA table gives it (what ``repair --pua map`` writes)."""
    char = chr(int(cp.removeprefix("U+"), 16))
    if char in characters:
        return True
    info = pua_info(ord(char))
    return bool(info is not None and info.replacement and info.replacement in characters)


def dropped_evidence(tool: ToolOutcome, contaminated: Sequence[FileResult]) -> list[Evidence]:
    """The contaminated attachments whose restored characters (the private-use code points
    their pairs stand for) the tool's output lacks, as themselves or display equivalents:
    output valid only because they were deleted proves no fix. Nothing when it failed."""
    if tool.failure is not None or tool.check is None or tool.check.empty:
        return []
    out = []
    for r in contaminated:
        pua = sorted(r.body.pua.items())
        if not (missing := [(cp, n) for cp, n in pua if not _reached(cp, tool.characters)]):
            continue
        named = ", ".join(f"{cp} ×{n}" for cp, n in missing[:_LISTED])
        if (more := len(missing) - _LISTED) > 0:
            named += f" and {more} more"
        problem = (
            f"characters dropped: {len(missing)} of the {len(r.body.pua)} restored characters "
            f"of this attachment are not in the tool output ({named}); expected each as itself "
            "or as its display equivalent"
        )
        out.append(Evidence(r.path, "tool", problem))
    return out
