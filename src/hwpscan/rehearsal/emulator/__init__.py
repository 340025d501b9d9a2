"""A local emulator of the 금융감독원 press-release API, for tests, demos and rehearsal.

It serves a dated catalogue of releases and their attachments with the real API's shape
(the misspelled ``reponse`` envelope, EUC-KR bytes under ``text/html;charset=euc-kr``,
``|``-joined attachment lists) and its quirks, each switchable in :class:`Quirks`.

    >>> from hwpscan.rehearsal.emulator import Quirks, serve_in_thread
    >>> with serve_in_thread(quirks=Quirks(daily_limit=5), catalogue=[]) as emu:
    ...     emu.api_url.endswith("/fss/kr/openApi/api/bodoInfo.jsp")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names

if TYPE_CHECKING:
    from hwpscan.rehearsal.emulator.catalogue_loader import (
        Attachment,
        Post,
        bundled_posts,
        from_releases,
        load_data_dir,
        write_data_dir,
    )
    from hwpscan.rehearsal.emulator.quirks import (
        BadDateMode,
        Disposition,
        Oversize,
        Quirks,
        QuotaMode,
        WrongYearMode,
    )
    from hwpscan.rehearsal.emulator.replies import EmulatorApp, atch_file_id
    from hwpscan.rehearsal.emulator.server import RunningEmulator, make_server, serve_in_thread
    from hwpscan.rehearsal.emulator.state import Stats

#: Public names and the module defining each. They load on first use, so the CLI can
#: build ``hwpscan emulator --help`` (option types from ``quirks``) without the server.
_LAZY = {
    "EmulatorApp": "hwpscan.rehearsal.emulator.replies",
    "atch_file_id": "hwpscan.rehearsal.emulator.replies",
    "Attachment": "hwpscan.rehearsal.emulator.catalogue_loader",
    "Post": "hwpscan.rehearsal.emulator.catalogue_loader",
    "bundled_posts": "hwpscan.rehearsal.emulator.catalogue_loader",
    "from_releases": "hwpscan.rehearsal.emulator.catalogue_loader",
    "load_data_dir": "hwpscan.rehearsal.emulator.catalogue_loader",
    "write_data_dir": "hwpscan.rehearsal.emulator.catalogue_loader",
    "BadDateMode": "hwpscan.rehearsal.emulator.quirks",
    "Disposition": "hwpscan.rehearsal.emulator.quirks",
    "Oversize": "hwpscan.rehearsal.emulator.quirks",
    "Quirks": "hwpscan.rehearsal.emulator.quirks",
    "QuotaMode": "hwpscan.rehearsal.emulator.quirks",
    "WrongYearMode": "hwpscan.rehearsal.emulator.quirks",
    "RunningEmulator": "hwpscan.rehearsal.emulator.server",
    "make_server": "hwpscan.rehearsal.emulator.server",
    "serve_in_thread": "hwpscan.rehearsal.emulator.server",
    "Stats": "hwpscan.rehearsal.emulator.state",
}


__getattr__ = lazy_names(__name__, _LAZY)

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
