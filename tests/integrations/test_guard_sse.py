"""An SSE stream served for real (uvicorn on 127.0.0.1, sse-starlette), read by httpx:
unguarded, the leaked halves cut the stream after its 200 headers; wrapped in
:func:`hwpscan.guard_stream`, every event arrives and the split pair is joined."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import uvicorn
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route

import hwpscan

HIGH, LOW = chr(0xDB80), chr(0xDEB1)  # U+F02B1, a Hancom bullet, as two halves
#: The deltas of a tool result, cut by the tokenizer between the bullet's two halves.
DELTAS = ["금융감독원 ", "보도자료 " + HIGH, LOW + " 불법사금융", " 소비자경보", "끝"]


async def _deltas() -> AsyncIterator[str]:
    for delta in DELTAS:
        yield delta


async def unguarded(request: Request) -> EventSourceResponse:
    return EventSourceResponse(_deltas())


async def guarded(request: Request) -> EventSourceResponse:
    return EventSourceResponse(hwpscan.guard_stream(_deltas()))


APP = Starlette(routes=[Route("/unguarded", unguarded), Route("/guarded", guarded)])


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    config = uvicorn.Config(APP, host="127.0.0.1", port=0, log_level="critical", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def _read(url: str) -> tuple[int, list[str], str | None]:
    """The status, the data of every event that arrived, and how the stream ended."""
    events: list[str] = []
    ended: str | None = None
    with httpx.Client(timeout=10) as client, client.stream("GET", url) as response:
        status = response.status_code
        try:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    events.append(line[len("data: ") :])  # noqa: PERF401 - kept as read
        except httpx.HTTPError as exc:  # the server dropped the connection mid-body
            ended = type(exc).__name__
    return status, events, ended


def test_unguarded_the_stream_is_cut_after_the_headers(base_url: str) -> None:
    status, events, ended = _read(base_url + "/unguarded")
    assert status == 200
    assert events == ["금융감독원 "]  # the event holding the half never went out, nor any after
    assert ended is not None  # the body ended without its last chunk


def test_guarded_every_event_arrives_and_the_pair_is_joined(base_url: str) -> None:
    status, events, ended = _read(base_url + "/guarded")
    assert status == 200 and ended is None
    assert events == ["금융감독원 ", "보도자료 ", chr(0xF02B1) + " 불법사금융", " 소비자경보", "끝"]
    assert "".join(events) == "금융감독원 보도자료 \U000f02b1 불법사금융 소비자경보끝"
