"""guard_stream: every item encodes, a pair cut between string items is joined, objects
are mended as copies, and clean items pass through as the same objects."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessageChunk, ToolMessage

import hwpscan
from hwpscan.forensics.guard import sanitize

HIGH, LOW = chr(0xDB80), chr(0xDEB1)
BULLET = chr(0xF02B1)


def test_a_pair_split_across_items_is_joined() -> None:
    items = ["금융감독원 " + HIGH, LOW + " 보도자료"]
    assert list(hwpscan.guard_stream(items)) == ["금융감독원 ", BULLET + " 보도자료"]
    # an item that is the high half alone sends nothing until its partner comes
    assert list(hwpscan.guard_stream(["a", HIGH, LOW + "b"])) == ["a", BULLET + "b"]


def test_a_held_half_without_partner_goes_by_the_policy() -> None:
    assert list(hwpscan.guard_stream(["끝" + HIGH])) == ["끝", "\u25a1"]
    assert list(hwpscan.guard_stream(["끝" + HIGH], orphans="drop")) == ["끝"]
    # before an item that is not a string, the held half is sent as a lone half
    out = list(hwpscan.guard_stream(["a" + HIGH, {"k": 1}, "b"], orphans="replace"))
    assert out == ["a", "\ufffd", {"k": 1}, "b"]
    with pytest.raises(ValueError, match="orphans must be"):
        hwpscan.guard_stream([], orphans="keep")  # type: ignore[arg-type]


def test_clean_items_are_the_same_objects() -> None:
    items: list[Any] = ["가나다", {"data": ["x", 1]}, (1, "y"), None, 3.5, b"\xed"]
    for before, after in zip(items, hwpscan.guard_stream(items), strict=True):
        assert after is before
    message = ToolMessage(content="깨끗함", tool_call_id="1")
    assert next(iter(hwpscan.guard_stream([message]))) is message


def test_containers_models_and_dataclasses_are_mended_as_copies() -> None:
    @dataclass(frozen=True, slots=True)
    class Delta:
        text: str
        meta: dict[str, str]

    bad = "x" + chr(0xDC00)
    delta = Delta(bad, {bad: "v"})
    chunk = AIMessageChunk(content=[{"type": "text", "text": bad}], id="m1")
    event = {"event": "on_chat_model_stream", "data": {"chunk": chunk, "d": delta}}
    [out] = list(hwpscan.guard_stream([event], orphans="escape"))
    assert out["data"]["chunk"].content == [{"type": "text", "text": "x\\udc00"}]
    assert out["data"]["chunk"].id == "m1"
    assert out["data"]["d"] == Delta("x\\udc00", {"x\\udc00": "v"})
    assert chunk.content[0]["text"] == bad and delta.text == bad  # originals untouched
    error = RuntimeError("failed " + HIGH)
    [mended] = list(hwpscan.guard_stream([{"error": error}]))
    assert str(mended["error"]) == "failed \u25a1" and isinstance(mended["error"], RuntimeError)


def test_an_async_stream_is_guarded_the_same_way() -> None:
    async def deltas() -> AsyncIterator[str]:
        for item in ("a" + HIGH, LOW, "끝" + HIGH):
            yield item

    async def collect() -> list[str]:
        return [item async for item in hwpscan.guard_stream(deltas())]

    assert asyncio.run(collect()) == ["a", BULLET, "끝", "\u25a1"]


_TEXT = st.text(alphabet=st.sampled_from(["가", "a", " ", HIGH, LOW, chr(0xDC00), BULLET]))


@given(st.lists(_TEXT, max_size=8))
def test_any_cut_of_a_text_gives_what_guarding_the_whole_gives(pieces: list[str]) -> None:
    out = list(hwpscan.guard_stream(pieces))
    for item in out:
        item.encode("utf-8")
    assert "".join(out) == sanitize("".join(pieces), orphans="box")
    json.dumps(out, ensure_ascii=False).encode("utf-8")
