"""A real LangChain v1 agent (``create_agent``, a fake chat model that calls tools)
streamed with ``astream_events``, every event encoded as a UI would: the incident
reproduced without the guards, and fixed with both (the middleware and the stream
guard); the loader over real files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

import hwpscan
from hwpscan.integrations import GuardMiddleware, HwpscanLoader
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5

HIGH, LOW = chr(0xDB80), chr(0xDEB1)  # U+F02B1 as a defective HWP parser leaves it
ROOT = Path(__file__).resolve().parents[2]


@tool
def fetch_attachment(date: str) -> str:
    """The body text of the press release attachment of a date."""
    return f"금융감독원 {HIGH}{LOW} 보도자료 {date}"


@tool
def broken_download(date: str) -> str:
    """A download that fails with the leaked half in its message."""
    raise RuntimeError(f"attachment {date} failed near {HIGH}")


class ToolCallingFake(GenericFakeChatModel):
    """The fake chat model of langchain_core, with tools bound as a real model binds them."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self


def _agent(tool_name: str, middleware: list[Any]) -> Any:
    call = {"name": tool_name, "args": {"date": "2025-08-05"}, "id": "call_1"}
    answers = [AIMessage(content="조회합니다", tool_calls=[call]), AIMessage(content="답변 완료")]
    # the fake streams text only (tool calls would be lost): it answers whole
    model = ToolCallingFake(messages=iter(answers), disable_streaming=True)
    return create_agent(model, tools=[fetch_attachment, broken_download], middleware=middleware)


def _ui_bytes(event: Any) -> bytes:
    """What a UI sends for an event: JSON without ASCII escapes, as UTF-8."""
    return json.dumps(event, ensure_ascii=False, default=_plain).encode("utf-8")


def _plain(obj: Any) -> Any:
    return obj.model_dump() if hasattr(obj, "model_dump") else str(obj)


def _stream(tool_name: str, *, middleware: bool, guard: bool) -> dict[str, Any]:
    """Run the agent; count the events, those a UI cannot send, and how the run ended."""

    async def run() -> dict[str, Any]:
        agent = _agent(tool_name, [GuardMiddleware()] if middleware else [])
        question = {"messages": [HumanMessage("8월 5일 보도자료 첨부 요약")]}
        events: Any = agent.astream_events(question, version="v2")
        if guard:
            events = hwpscan.guard_stream(events)
        seen: list[str] = []
        failed: list[str] = []
        final: Any = None
        try:
            async for event in events:
                seen.append(event["event"])
                try:
                    _ui_bytes(event)
                except UnicodeEncodeError:
                    failed.append(event["event"])
                if event["event"] == "on_chain_end" and event.get("parent_ids") == []:
                    final = event["data"]["output"]
        except Exception as exc:
            return {"events": seen, "failed": failed, "raised": exc, "final": final}
        return {"events": seen, "failed": failed, "raised": None, "final": final}

    return asyncio.run(run())


def test_the_incident_reproduced_without_guards_and_fixed_with_both() -> None:
    bare = _stream("fetch_attachment", middleware=False, guard=False)
    assert bare["raised"] is None and "on_tool_end" in bare["failed"]
    assert len(bare["failed"]) >= 4  # the tool result poisons every later state event
    half = _stream("fetch_attachment", middleware=True, guard=False)
    assert half["failed"] == ["on_tool_end"]  # the tool's own event: the middleware is too late
    both = _stream("fetch_attachment", middleware=True, guard=True)
    assert both["failed"] == [] and len(both["events"]) == len(half["events"])
    tool_result = [m for m in both["final"]["messages"] if isinstance(m, ToolMessage)]
    assert tool_result[0].content == "금융감독원 \U000f02b1 보도자료 2025-08-05"
    print(
        f"\nevents failing to encode: unguarded {len(bare['failed'])}/{len(bare['events'])}, "
        f"middleware only {len(half['failed'])}/{len(half['events'])}, "
        f"both {len(both['failed'])}/{len(both['events'])}"
    )


def test_a_tool_that_raises_becomes_an_error_message_and_the_run_goes_on() -> None:
    bare = _stream("broken_download", middleware=False, guard=False)
    assert isinstance(bare["raised"], RuntimeError)  # the whole run ended
    both = _stream("broken_download", middleware=True, guard=True)
    assert both["raised"] is None and both["failed"] == []
    assert "on_tool_error" in both["events"]  # the UI is told
    messages = both["final"]["messages"]
    error = next(m for m in messages if isinstance(m, ToolMessage))
    assert error.status == "error" and "broken_download" in error.content
    assert "RuntimeError" in error.content and "\u25a1" in error.content  # the half boxed
    assert messages[-1].content == "답변 완료"  # the model answered after the error


def test_the_middleware_mends_the_input_in_the_state() -> None:
    async def run() -> Any:
        agent = _agent("fetch_attachment", [GuardMiddleware(orphans="replace")])
        question = {"messages": [HumanMessage("질문 " + HIGH)]}
        return await agent.ainvoke(question)

    state = asyncio.run(run())
    assert state["messages"][0].content == "질문 \ufffd"
    for message in state["messages"]:
        _ui_bytes(message)


def test_the_loader_gives_documents_with_the_receipt(tmp_path: Path) -> None:
    path = tmp_path / "a.hwp"
    path.write_bytes(build_hwp5([f"과제 {HIGH}{LOW}", "둘째"], sections=2))
    fixture = next((ROOT / "fixtures" / "2025-07-22").glob("*.hwpx"))
    docs = HwpscanLoader([path, fixture]).load()
    assert [d.metadata["format"] for d in docs] == ["hwp5", "hwpx"]
    assert docs[0].page_content == hwpscan.extract(path).text
    assert docs[0].metadata["receipt"]["done"]["pairs_joined"] == 1
    assert docs[0].metadata["source"] == str(path)
    sections = list(HwpscanLoader(path, split="section").lazy_load())
    assert [d.metadata["section"] for d in sections] == ["BodyText/Section0", "BodyText/Section1"]
    paragraphs = HwpscanLoader(path, split="paragraph").load()
    assert [d.metadata["paragraph"] for d in paragraphs] == [0, 0]
    for doc in docs + sections + paragraphs:
        doc.page_content.encode("utf-8")
