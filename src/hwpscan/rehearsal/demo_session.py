"""The demo use case: the whole job against the bundled API emulator, nothing real touched.

:func:`demo_api` runs the emulator on a free loopback port with a throwaway key, state
and (unless given) download folder; the caller fetches :data:`DEMO_RANGE` with
:meth:`DemoApi.fetch_settings` and scans what came. The process environment is left alone.

>>> with demo_api(DemoSettings()) as api:
...     settings = api.fetch_settings()
...     settings.api_url == api.api_url, settings.state == api.state, api.key.startswith("DEMO")
(True, True, True)
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from hwpscan.api.settings import FetchSettings
from hwpscan.history.records import RunArgs, arg_text
from hwpscan.rehearsal.emulator.server import RunningEmulator, serve_in_thread
from hwpscan.rehearsal.emulator.state import Stats

#: The incident's range in the bundled catalogue.
DEMO_RANGE = (date(2025, 7, 21), date(2025, 8, 11))


@dataclass(frozen=True, slots=True)
class DemoSettings:
    """``out`` keeps the downloads (None: a temporary folder, removed afterwards);
    ``downloads`` is the download concurrency; ``jobs`` the scan's worker processes;
    ``report_dir`` also writes the report bundle."""

    out: Path | None = None
    downloads: int = 4
    jobs: int = 0
    report_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class DemoApi:
    """A running emulator with its throwaway key and state, and where files go."""

    api_url: str
    url: str
    key: str
    state: Path
    folder: Path
    settings: DemoSettings
    _emulator: RunningEmulator

    def fetch_settings(self) -> FetchSettings:
        """The fetch of :data:`DEMO_RANGE` from this emulator, into :attr:`folder`."""
        return FetchSettings(
            api_url=self.api_url,
            out_dir=self.folder,
            state=self.state,
            downloads=self.settings.downloads,
        )

    def stats(self) -> Stats:
        """What the emulator counted so far (API calls and downloads)."""
        return self._emulator.stats()


@contextmanager
def demo_api(settings: DemoSettings) -> Iterator[DemoApi]:
    """The emulator running for the block, its throwaway state removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="hwpscan-demo-") as tmp:
        folder = settings.out or Path(tmp) / "downloads"
        with serve_in_thread() as emulator:
            key = "DEMO" + secrets.token_hex(14)
            state = Path(tmp) / "home"
            yield DemoApi(emulator.api_url, emulator.url, key, state, folder, settings, emulator)


def demo_record_args(settings: DemoSettings) -> RunArgs:
    """What the run store keeps of a demo run (it is marked as one)."""
    first, last = DEMO_RANGE
    out = arg_text(settings.out)
    return RunArgs(start=first.isoformat(), end=last.isoformat(), out=out, options={"demo": True})
