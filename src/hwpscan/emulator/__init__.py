"""A local emulator of the 금융감독원 press-release API, for tests, demos and rehearsal.

It serves a dated catalogue of releases and their attachments with the real API's shape
(the misspelled ``reponse`` envelope, EUC-KR bytes under ``text/html;charset=euc-kr``,
``|``-joined attachment lists) and its quirks, each switchable in :class:`Quirks`.

    >>> from hwpscan.emulator import Quirks, serve_in_thread
    >>> with serve_in_thread(quirks=Quirks(daily_limit=5), catalogue=[]) as emu:
    ...     emu.api_url.endswith("/fss/kr/openApi/api/bodoInfo.jsp")
    True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hwpscan.emulator.app import EmulatorApp, atch_file_id
    from hwpscan.emulator.catalogue_loader import (
        Attachment,
        Post,
        bundled_posts,
        from_releases,
        load_data_dir,
        write_data_dir,
    )
    from hwpscan.emulator.quirks import (
        BadDateMode,
        Disposition,
        Oversize,
        Quirks,
        QuotaMode,
        WrongYearMode,
    )
    from hwpscan.emulator.server import RunningEmulator, make_server, serve_in_thread
    from hwpscan.emulator.state import Stats

#: Public names and the module defining each. They load on first use, so the CLI can
#: build ``hwpscan emulator --help`` (option types from ``quirks``) without the server.
_LAZY = {
    "EmulatorApp": "hwpscan.emulator.app",
    "atch_file_id": "hwpscan.emulator.app",
    "Attachment": "hwpscan.emulator.catalogue_loader",
    "Post": "hwpscan.emulator.catalogue_loader",
    "bundled_posts": "hwpscan.emulator.catalogue_loader",
    "from_releases": "hwpscan.emulator.catalogue_loader",
    "load_data_dir": "hwpscan.emulator.catalogue_loader",
    "write_data_dir": "hwpscan.emulator.catalogue_loader",
    "BadDateMode": "hwpscan.emulator.quirks",
    "Disposition": "hwpscan.emulator.quirks",
    "Oversize": "hwpscan.emulator.quirks",
    "Quirks": "hwpscan.emulator.quirks",
    "QuotaMode": "hwpscan.emulator.quirks",
    "WrongYearMode": "hwpscan.emulator.quirks",
    "RunningEmulator": "hwpscan.emulator.server",
    "make_server": "hwpscan.emulator.server",
    "serve_in_thread": "hwpscan.emulator.server",
    "Stats": "hwpscan.emulator.state",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hwpscan.emulator' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Attachment",
    "BadDateMode",
    "Disposition",
    "EmulatorApp",
    "Oversize",
    "Post",
    "Quirks",
    "QuotaMode",
    "RunningEmulator",
    "Stats",
    "WrongYearMode",
    "atch_file_id",
    "bundled_posts",
    "from_releases",
    "load_data_dir",
    "make_server",
    "serve_in_thread",
    "write_data_dir",
]
