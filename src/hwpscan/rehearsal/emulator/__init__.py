"""A local emulator of the 금융감독원 press-release API, for tests, demos and rehearsal.

It serves dated releases and their attachments in the real API's shape (``reponse``
envelope, EUC-KR bytes, ``|``-joined lists) with its quirks, switched in :class:`Quirks`.

    >>> from hwpscan.rehearsal.emulator import Quirks, serve_in_thread
    >>> with serve_in_thread(quirks=Quirks(daily_limit=5), catalogue=[]) as emu:
    ...     emu.api_url.endswith("/fss/kr/openApi/api/bodoInfo.jsp")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names

if TYPE_CHECKING:  # the names below, as re-exports
    from hwpscan.rehearsal.emulator.catalogue_loader import Attachment as Attachment
    from hwpscan.rehearsal.emulator.catalogue_loader import Post as Post
    from hwpscan.rehearsal.emulator.catalogue_loader import bundled_posts as bundled_posts
    from hwpscan.rehearsal.emulator.catalogue_loader import from_releases as from_releases
    from hwpscan.rehearsal.emulator.catalogue_loader import load_data_dir as load_data_dir
    from hwpscan.rehearsal.emulator.catalogue_loader import write_data_dir as write_data_dir
    from hwpscan.rehearsal.emulator.quirks import BadDateMode as BadDateMode
    from hwpscan.rehearsal.emulator.quirks import Disposition as Disposition
    from hwpscan.rehearsal.emulator.quirks import Oversize as Oversize
    from hwpscan.rehearsal.emulator.quirks import Quirks as Quirks
    from hwpscan.rehearsal.emulator.quirks import QuotaMode as QuotaMode
    from hwpscan.rehearsal.emulator.quirks import WrongYearMode as WrongYearMode
    from hwpscan.rehearsal.emulator.replies import EmulatorApp as EmulatorApp
    from hwpscan.rehearsal.emulator.replies import atch_file_id as atch_file_id
    from hwpscan.rehearsal.emulator.server import RunningEmulator as RunningEmulator
    from hwpscan.rehearsal.emulator.server import serve_in_thread as serve_in_thread
    from hwpscan.rehearsal.emulator.state import Stats as Stats

#: Each module and the public names it defines. They load on first use, so the CLI can
#: build ``hwpscan emulator --help`` (option types from ``quirks``) without the server.
_MODULES = {
    "catalogue_loader": "Attachment Post bundled_posts from_releases load_data_dir write_data_dir",
    "quirks": "BadDateMode Disposition Oversize Quirks QuotaMode WrongYearMode",
    "replies": "EmulatorApp atch_file_id",
    "server": "RunningEmulator serve_in_thread",
    "state": "Stats",
}
_LAZY = {name: f"{__name__}.{mod}" for mod, names in _MODULES.items() for name in names.split()}
__getattr__ = lazy_names(__name__, _LAZY)
