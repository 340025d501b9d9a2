"""``hwpscan emulator``: serve the local press-release API emulator until Ctrl-C."""

from __future__ import annotations

import ipaddress
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hwpscan.cli.app import app, console, epilog, err_console, fail
from hwpscan.cli.params import options_from_dataclasses
from hwpscan.errors import CatalogueError
from hwpscan.models import ExitCode
from hwpscan.rehearsal.emulator import Quirks

if TYPE_CHECKING:
    from hwpscan.rehearsal.emulator.catalogue_loader import Post


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

    >>> from hwpscan.rehearsal.emulator import QuotaMode
    >>> changed_quirks(Quirks(fail_first=2, quota_mode=QuotaMode.SILENT))
    ['quota_mode=silent', 'fail_first=2']
    """
    default = Quirks()
    return [
        f"{f.name}={getattr(value, 'value', value)}"
        for f in fields(Quirks)
        if (value := getattr(quirks, f.name)) != getattr(default, f.name)
    ]


def _span(posts: tuple[Post, ...]) -> str:
    if not posts:
        return "no releases"
    return f"{len(posts)} releases, {posts[0].day} .. {posts[-1].day}"


@contextmanager
def _stop_signals() -> Iterator[threading.Event]:
    """SIGTERM and SIGINT set the event, from before the banner is printed: a process
    manager that stops the emulator once it reads "Use: --api-url" gets a clean stop
    (exit 0). A signal the parent ignores stays ignored."""
    stop = threading.Event()
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(number) is not signal.SIG_IGN:
                previous[number] = signal.signal(number, lambda *_: stop.set())
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@dataclass(frozen=True)
class ServeOptions:
    """Where and how ``hwpscan emulator`` serves (the quirks are :class:`Quirks`)."""

    host: Annotated[
        str, typer.Option(help="Address to listen on (loopback only unless --allow-remote).")
    ] = "127.0.0.1"
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8765
    data: Annotated[
        Path | None,
        typer.Option(
            help="Serve this folder (catalogue.json + files) instead of the bundled catalogue."
        ),
    ] = None
    write_data: Annotated[
        Path | None,
        typer.Option(help="Write the catalogue being served as a data folder, then exit."),
    ] = None
    allow_remote: Annotated[bool, typer.Option(help="Allow a non-loopback --host.")] = False
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log requests to stderr (authKey redacted).")
    ] = False


@app.command(
    "emulator",
    rich_help_panel="Testing",
    epilog=epilog(
        [
            ("hwpscan emulator", "serve the bundled 2025 catalogue on 127.0.0.1:8765"),
            (
                "hwpscan emulator --port 0 --fail-first 2 --daily-limit 5",
                "any free port, flaky downloads, a small quota",
            ),
        ],
        ["HWPSCAN_HOME"],
        ["0  stopped with Ctrl-C", "2  bad options, or a non-loopback --host"],
    ),
)
@options_from_dataclasses
def emulator_command(*, serve: ServeOptions, quirks: Quirks) -> None:
    """Run the local press-release API emulator (for [bold]--api-url[/]) until Ctrl-C."""
    if not is_loopback(serve.host) and not serve.allow_remote:
        raise fail(
            f"refusing to listen on non-loopback host {serve.host!r} without --allow-remote",
            ExitCode.USAGE,
        )
    posts = _catalogue(serve.data)
    if serve.write_data is not None:
        from hwpscan.rehearsal.emulator import write_data_dir

        target = write_data_dir(posts, serve.write_data)
        console.print(f"Wrote {_span(posts)} to {target}")
        return
    _serve_until_stopped(serve, quirks, posts)


def _catalogue(data: Path | None) -> tuple[Post, ...]:
    """The releases to serve: the folder *data*, or the bundled catalogue."""
    from hwpscan.rehearsal.emulator import bundled_posts, load_data_dir

    try:
        return load_data_dir(data) if data is not None else bundled_posts()
    except CatalogueError as exc:
        raise fail(str(exc), ExitCode.USAGE) from None


def _serve_until_stopped(serve: ServeOptions, quirks: Quirks, posts: tuple[Post, ...]) -> None:
    """Serve *posts* on ``serve.host:serve.port`` until SIGINT or SIGTERM, then say so."""
    from hwpscan.rehearsal.emulator import serve_in_thread

    log = partial(err_console.print, markup=False, highlight=False) if serve.verbose else None
    with _stop_signals() as stopping:
        try:
            emu = serve_in_thread(
                host=serve.host, port=serve.port, quirks=quirks, catalogue=posts, log=log
            )
        except OSError as exc:
            raise fail(
                f"cannot listen on {serve.host}:{serve.port}: {exc.strerror or exc}",
                ExitCode.USAGE,
            ) from None
        with emu:
            changed = ", ".join(changed_quirks(quirks)) or "none (defaults)"
            for line in (  # what a user, or a process manager reading stdout, needs
                f"hwpscan emulator: {_span(posts)} at {emu.url}",
                f"Use: --api-url {emu.api_url}",
                f"Stats: {emu.url}/_emulator/stats",
                f"Quirks changed: {changed}",
                "Press Ctrl-C to stop.",
            ):
                console.print(line, markup=False, soft_wrap=True)
            try:
                while not stopping.wait(0.5):
                    pass
            except KeyboardInterrupt:
                pass
    stats = emu.stats()
    err_console.print(
        f"Stopped after {stats.calls_total} API calls and {stats.downloads_total} downloads.",
        markup=False,
    )
