"""docs/pipelines.md's examples run and print what they say: extract, the stream guard,
the SSE app (served through Starlette's test client), the LangChain agent (its model a
fake that calls the tool) and the LlamaIndex pipeline."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "pipelines.md").read_text(encoding="utf-8")


def _blocks(title: str) -> list[str]:
    start = DOC.index(f"\n## {title}\n")
    end = DOC.find("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", DOC[start : end if end != -1 else None], re.S)


def _run(block: str, namespace: dict[str, Any]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/pipelines.md", "exec"), namespace)
    promised = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert out.getvalue().splitlines() == promised


class _ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> _ToolCallingFake:
        return self


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples read the bundled fixtures/


def test_the_extract_and_stream_examples() -> None:
    for title in ("Extract: a file's text in one call",):
        for block in _blocks(title):
            _run(block, {})
    first, app_block = _blocks("Guarding a stream")
    _run(first, {})
    namespace: dict[str, Any] = {}
    _run(app_block, namespace)
    with TestClient(namespace["app"]) as client:
        body = client.get("/events").text
    data = [line[6:] for line in body.splitlines() if line.startswith("data: ")]
    assert data == ["금융감독원 보도자료 ", "\U000f02b1 불법사금융", " 끝"]


def test_the_langchain_example() -> None:
    (block,) = _blocks("A LangChain agent")
    path = "fixtures/2025-07-21/보도자료_불법사금융_소비자경보.hwp"
    call = {"name": "read_attachment", "args": {"path": path}, "id": "c1"}
    answers = [AIMessage(content="읽습니다", tool_calls=[call]), AIMessage(content="요약")]
    model = _ToolCallingFake(messages=iter(answers), disable_streaming=True)
    namespace: dict[str, Any] = {"model": model}
    _run(block, namespace)
    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    asyncio.run(namespace["stream_to_ui"]("요약해 줘", send))
    assert any(b"on_tool_end" in s for s in sent)
    assert all(json.loads(s)["event"] for s in sent)


def test_the_llamaindex_example() -> None:
    (block,) = _blocks("A LlamaIndex ingestion pipeline")
    namespace: dict[str, Any] = {}
    _run(block, namespace)
    assert len(namespace["nodes"]) >= 3
