"""``hwpscan emulator``: serve the local press-release API emulator until Ctrl-C."""

from __future__ import annotations

import ipaddress
import signal
import threading
from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer

from hwpscan.cli.app import app, console, err_console, fail
from hwpscan.errors import CatalogueError
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator import (
    BadDateMode,
    Disposition,
    Oversize,
    Quirks,
    QuotaMode,
    WrongYearMode,
)
from hwpscan.rehearsal.emulator.catalogue_loader import Post

_API = "API quirks"
_FILES = "Attachment quirks"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses.

    >>> [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "example.org")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def changed_quirks(quirks: Quirks) -> list[str]:
    """``name=value`` for each switch that differs from the defaults.

    >>> changed_quirks(Quirks(fail_first=2, quota_mode=QuotaMode.SILENT))
    ['quota_mode=silent', 'fail_first=2']
    """
    default = Quirks()
    out = []
    for f in fields(Quirks):
        value = getattr(quirks, f.name)
        if value != getattr(default, f.name):
            out.append(f"{f.name}={getattr(value, 'value', value)}")
    return out


def _span(posts: tuple[Post, ...]) -> str:
    if not posts:
        return "no releases"
    return f"{len(posts)} releases, {posts[0].day} .. {posts[-1].day}"


class _StopSignals:
    """SIGTERM and SIGINT set an event instead of killing the process mid-banner.

    Installed before the server prints its banner, so a process manager that sends
    SIGTERM the moment it reads "Use: --api-url" still gets a clean stop. A signal the
    parent set to be ignored stays ignored.
    """

    def __init__(self) -> None:
        self.stop = threading.Event()
        self._previous: dict[int, object] = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is threading.main_thread():
            for number in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(number) is not signal.SIG_IGN:
                    self._previous[number] = signal.signal(number, self._on_signal)
        return self

    def _on_signal(self, signum: int, frame: object) -> None:
        self.stop.set()

    def wait(self) -> None:
        """Block until a stop signal (or Ctrl-C raised some other way) comes."""
        try:
            while not self.stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass

    def __exit__(self, *exc: object) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)  # type: ignore[arg-type]


@app.command("emulator", rich_help_panel="Testing")
def emulator_command(
    *,
    host: Annotated[
        str, typer.Option(help="Address to listen on (loopback only unless --allow-remote).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8765,
    data: Annotated[
        Path | None,
        typer.Option(
            help="Serve this folder (catalogue.json + files) instead of the bundled catalogue."
        ),
    ] = None,
    write_data: Annotated[
        Path | None,
        typer.Option(help="Write the catalogue being served as a data folder, then exit."),
    ] = None,
    allow_remote: Annotated[bool, typer.Option(help="Allow a non-loopback --host.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log requests to stderr (authKey redacted).")
    ] = False,
    envelope_key: Annotated[
        str,
        typer.Option(help="Top-level JSON key (the real API misspells it).", rich_help_panel=_API),
    ] = "reponse",
    body_key: Annotated[
        str,
        typer.Option(
            help="Body field name (contentKor; documented as contentsKor).", rich_help_panel=_API
        ),
    ] = "contentKor",
    single_result: Annotated[
        bool,
        typer.Option(
            "--single-result",
            help="A lone item sent as an object, not a list.",
            rich_help_panel=_API,
        ),
    ] = False,
    string_counts: Annotated[
        bool, typer.Option("--string-counts", help="resultCnt as a string.", rich_help_panel=_API)
    ] = False,
    daily_limit: Annotated[
        int,
        typer.Option(
            min=0, help="Calls per key per Korea day (0: unlimited).", rich_help_panel=_API
        ),
    ] = 30,
    quota_mode: Annotated[
        QuotaMode,
        typer.Option(help="Past the limit: code 033, or silent zero items.", rich_help_panel=_API),
    ] = QuotaMode.CODE,
    max_days: Annotated[
        int,
        typer.Option(
            min=0,
            help="Longest window in days, inclusive (0: unlimited); longer gets 030.",
            rich_help_panel=_API,
        ),
    ] = 31,
    bad_dates: Annotated[
        BadDateMode,
        typer.Option(
            help="A non YYYY-MM-DD date: zero items or an HTML page.", rich_help_panel=_API
        ),
    ] = BadDateMode.EMPTY,
    wrong_year: Annotated[
        WrongYearMode,
        typer.Option(
            help="A year the catalogue lacks: nothing, re-dated data, or out-of-window items.",
            rich_help_panel=_API,
        ),
    ] = WrongYearMode.SHIFTED,
    damaged_text: Annotated[
        bool,
        typer.Option(
            "--damaged-text/--clean-text",
            help="Entities and backslash-less escapes (nn, u203B) in text.",
            rich_help_panel=_API,
        ),
    ] = True,
    check_key: Annotated[
        bool, typer.Option(help="Refuse a missing or malformed authKey.", rich_help_panel=_API)
    ] = True,
    auth_code: Annotated[
        str, typer.Option(help="Result code for a bad key.", rich_help_panel=_API)
    ] = "010",
    no_data_code: Annotated[
        bool,
        typer.Option(
            "--no-data-code", help="Answer an empty window with code 900.", rich_help_panel=_API
        ),
    ] = False,
    escaped_amp: Annotated[
        bool,
        typer.Option("--escaped-amp", help="&amp; inside attachment URLs.", rich_help_panel=_FILES),
    ] = False,
    unsafe_urls: Annotated[
        bool,
        typer.Option(
            "--unsafe-urls",
            help="Add URLs on another host and with userinfo.",
            rich_help_panel=_FILES,
        ),
    ] = False,
    messy_lists: Annotated[
        bool,
        typer.Option(
            "--messy-lists", help="|| segments and more names than URLs.", rich_help_panel=_FILES
        ),
    ] = False,
    disposition: Annotated[
        Disposition,
        typer.Option(help="Content-Disposition file-name encoding.", rich_help_panel=_FILES),
    ] = Disposition.RFC5987,
    download_delay: Annotated[
        float,
        typer.Option(min=0, help="Seconds before each download answers.", rich_help_panel=_FILES),
    ] = 0.0,
    fail_first: Annotated[
        int,
        typer.Option(
            min=0, help="HTTP 500 answers per URL before it succeeds.", rich_help_panel=_FILES
        ),
    ] = 0,
    oversize: Annotated[
        Oversize,
        typer.Option(
            help="A lying Content-Length, or a body streamed past any cap.", rich_help_panel=_FILES
        ),
    ] = Oversize.OFF,
    oversize_bytes: Annotated[
        int,
        typer.Option(
            min=1, help="Size announced or streamed by --oversize.", rich_help_panel=_FILES
        ),
    ] = 1 << 30,
    html_attachments: Annotated[
        bool,
        typer.Option(
            "--html-attachments",
            help="An HTML error page instead of every file.",
            rich_help_panel=_FILES,
        ),
    ] = False,
) -> None:
    """Run the local press-release API emulator (for [bold]--api-url[/]) until Ctrl-C."""
    if not is_loopback(host) and not allow_remote:
        raise fail(
            f"refusing to listen on non-loopback host {host!r} without --allow-remote",
            ExitCode.USAGE,
        )
    quirks = Quirks(
        envelope_key=envelope_key, body_key=body_key, single_result=single_result,
        string_counts=string_counts, daily_limit=daily_limit or None, quota_mode=quota_mode,
        max_days=max_days or None,
        bad_dates=bad_dates, wrong_year=wrong_year, damaged_text=damaged_text,
        check_key=check_key, auth_code=auth_code, no_data_code=no_data_code,
        escaped_amp=escaped_amp, unsafe_urls=unsafe_urls, messy_lists=messy_lists,
        disposition=disposition, download_delay=download_delay, fail_first=fail_first,
        oversize=oversize, oversize_bytes=oversize_bytes, html_attachments=html_attachments,
    )  # fmt: skip
    # the catalogue and the server load here, not when the CLI builds its help
    from hwpscan.rehearsal.emulator import (
        bundled_posts,
        load_data_dir,
        serve_in_thread,
        write_data_dir,
    )

    try:
        posts = load_data_dir(data) if data is not None else bundled_posts()
    except CatalogueError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None
    if write_data is not None:
        target = write_data_dir(posts, write_data)
        console.print(f"Wrote {_span(posts)} to {target}")
        return
    log = (lambda line: err_console.print(line, markup=False, highlight=False)) if verbose else None
    with _StopSignals() as stopping:
        try:
            emu = serve_in_thread(host=host, port=port, quirks=quirks, catalogue=posts, log=log)
        except OSError as exc:
            raise fail(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}", ExitCode.USAGE
            ) from None
        with emu:
            console.print(
                f"hwpscan emulator: {_span(posts)} at {emu.url}", markup=False, soft_wrap=True
            )
            console.print(f"Use: --api-url {emu.api_url}", markup=False, soft_wrap=True)
            console.print(f"Stats: {emu.url}/_emulator/stats", markup=False, soft_wrap=True)
            changed = changed_quirks(quirks)
            console.print(
                "Quirks changed: " + (", ".join(changed) if changed else "none (defaults)"),
                markup=False,
                soft_wrap=True,
            )
            console.print("Press Ctrl-C to stop.", markup=False, soft_wrap=True)
            stopping.wait()
    stats = emu.stats()
    err_console.print(
        f"Stopped after {stats.calls_total} API calls and {stats.downloads_total} downloads.",
        markup=False,
    )
