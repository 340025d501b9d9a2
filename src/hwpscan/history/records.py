"""What the run store keeps and hands back: run arguments, run summaries, run
descriptions, runs with results, run ids."""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any, Literal

from hwpscan.models import FileResult, Status

__all__ = [
    "NOT_ASKED",
    "RUN_KINDS",
    "FetchFigures",
    "OptionValue",
    "Run",
    "RunArgs",
    "RunInfo",
    "RunSummary",
    "arg_text",
    "file_name",
    "new_run_id",
]

RUN_KINDS = ("scan", "fetch", "verify")


def file_name(path: str) -> str:
    """The file name of a stored path (either separator).

    >>> file_name("a/2025-07-21/보도.hwp"), file_name("c:\\\\x\\\\y.pdf")
    ('보도.hwp', 'y.pdf')
    """
    return path[max(path.rfind("/"), path.rfind("\\")) + 1 :]


class _NotAsked(enum.Enum):
    NOT_ASKED = "not asked"


#: A common argument a command does not have: left out of the stored arguments (where
#: ``None`` is stored as ``null``: the command has it, and it was not given).
NOT_ASKED = _NotAsked.NOT_ASKED

#: One argument as the run store keeps it.
OptionValue = str | int | float | bool | list[str] | None
_Common = str | None | Literal[_NotAsked.NOT_ASKED]


def arg_text(value: PurePath | str | None) -> str | None:
    """A path argument as the run store keeps it (its text; ``None`` stays ``None``).

    >>> arg_text(PurePath("a/b")), arg_text(None)
    ('a/b', None)
    """
    return None if value is None else os.fsdecode(value)


@dataclass(frozen=True, slots=True)
class RunArgs:
    """What was asked of a run, as the run store keeps it (``history`` shows it): the
    arguments several commands share (:data:`NOT_ASKED` by a command without one), and
    the command's own by name (``options``), as one flat JSON object (:meth:`to_json`).

    >>> RunArgs(start="2025-07-21", end=None, options={"jobs": 2}).to_json()
    {'start': '2025-07-21', 'end': None, 'jobs': 2}
    """

    start: _Common = NOT_ASKED
    end: _Common = NOT_ASKED
    api_url: _Common = NOT_ASKED
    out: _Common = NOT_ASKED
    options: Mapping[str, OptionValue] = field(default_factory=dict)

    def to_json(self) -> dict[str, OptionValue]:
        common = {"start": self.start, "end": self.end, "api_url": self.api_url, "out": self.out}
        return {**{k: v for k, v in common.items() if v is not NOT_ASKED}, **self.options}


@dataclass(frozen=True, slots=True)
class FetchFigures:
    """What a fetch did: API calls, releases, files, date range, why it stopped."""

    calls_made: int = 0
    calls_cached: int = 0
    releases: int = 0
    files_downloaded: int = 0
    files_skipped: int = 0
    files_failed: int = 0
    files_refused: int = 0
    range: str = ""
    error: str | None = None


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a run did (its fetch's figures, matrix rows, why it stopped early, what
    ``verify`` found), stored as one flat JSON object without the parts that are None.

    >>> fetched = FetchFigures(calls_made=2, range="2025-07-21..2025-07-22")
    >>> RunSummary(fetch=fetched, matrix_rows=4).to_json()["matrix_rows"]
    4
    >>> RunSummary().to_json()
    {}
    """

    fetch: FetchFigures | None = None
    matrix_rows: int | None = None
    stopped: str | None = None
    verify: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**asdict(self.fetch)} if self.fetch is not None else {}
        out.update(self.verify or {})
        rest = {"matrix_rows": self.matrix_rows, "stopped": self.stopped}
        return out | {k: v for k, v in rest.items() if v is not None}


@dataclass(frozen=True, slots=True)
class RunInfo:
    """One run as ``history`` lists it: what ran, when, and what it found."""

    id: str
    kind: str
    started: str
    finished: str | None
    args: dict[str, Any]
    version: str
    counts: dict[str, int] = field(default_factory=dict)  # status -> files
    #: the stored :meth:`RunSummary.to_json` (runs of older versions: what they stored)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def files(self) -> int:
        """Files the run recorded, whatever their status."""
        return sum(self.counts.values())

    @property
    def contaminated(self) -> int:
        """Files with lone surrogates or leaked pairs."""
        return self.counts.get(Status.CONTAMINATED.value, 0)

    @property
    def clean(self) -> int:
        """Files read and found clean."""
        return self.counts.get(Status.CLEAN.value, 0)

    @property
    def unreadable(self) -> int:
        """Files not read (encrypted, corrupt, unsupported or an error).

        >>> RunInfo("r", "scan", "t", None, {}, "0", {"clean": 2, "corrupt": 1}).unreadable
        1
        """
        return self.files - self.contaminated - self.clean


@dataclass(frozen=True, slots=True)
class Run:
    """A stored run with its per-file results, in the order they were recorded."""

    info: RunInfo
    results: tuple[FileResult, ...]

    @property
    def id(self) -> str:
        return self.info.id


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, readable run id: UTC time plus four random hex digits.

    >>> rid = new_run_id(datetime(2025, 11, 30, 3, 15, tzinfo=UTC))
    >>> rid[:16], len(rid)
    ('20251130-031500-', 20)
    """
    now = now or datetime.now(UTC)
    # secrets.token_hex(2) is this, without importing secrets (and hmac) on every scan
    return f"{now.astimezone(UTC):%Y%m%d-%H%M%S}-{os.urandom(2).hex()}"
