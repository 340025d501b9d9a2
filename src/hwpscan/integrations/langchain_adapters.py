"""LangChain: a document loader over :func:`hwpscan.extract`, and an agent middleware
that guards the agent's two chokepoints (``pip install hwpscan[langchain]``).

:class:`HwpscanLoader` gives one ``Document`` per file (or per section, or per
paragraph) whose text always encodes as UTF-8, with the source, the format and the
receipt in its metadata.

:class:`GuardMiddleware` mends what enters the agent's state: every tool result (pairs
joined, lone halves boxed), the messages handed to the model and the model's answer. A
tool that raises becomes an error ``ToolMessage`` naming the tool and the error, which
the model and the UI see; the run goes on. The events a UI streams from
``astream_events`` still carry each tool's own raw output: wrap that stream in
:func:`hwpscan.guard_stream` too. Both chokepoints are needed.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, Literal

from langchain.agents.middleware import AgentMiddleware
from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langgraph.errors import GraphBubbleUp

from hwpscan.forensics.guard import OrphanPolicy, PuaMode
from hwpscan.forensics.stream_guard import sanitize_item
from hwpscan.usecases.extract import OrphanChoice, extract

__all__ = ["GuardMiddleware", "HwpscanLoader"]

Split = Literal["file", "section", "paragraph"]


class HwpscanLoader(BaseLoader):
    """Load HWP 5, HWPX and PDF files as LangChain documents, losslessly.

    *split* is ``file`` (one document per file), ``section`` or ``paragraph``; *pua*
    and *orphans* are :func:`hwpscan.extract`'s. The metadata holds ``source``,
    ``format`` and ``receipt`` (:meth:`hwpscan.usecases.extract.Receipt.as_dict`), and
    ``section`` (and ``paragraph``) when split. A protected or unreadable file raises
    the typed error of :mod:`hwpscan.errors`.
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        split: Split = "file",
        pua: PuaMode = "keep",
        orphans: OrphanChoice = "box",
    ) -> None:
        if isinstance(file_path, (str, os.PathLike)):
            self.paths: list[str | os.PathLike[str]] = [file_path]
        else:
            self.paths = list(file_path)
        if split not in ("file", "section", "paragraph"):
            raise ValueError(f"split must be file, section or paragraph, not {split!r}")
        self.split = split
        self.pua: PuaMode = pua
        self.orphans: OrphanChoice = orphans

    def lazy_load(self) -> Iterator[Document]:
        for path in self.paths:
            done = extract(path, pua=self.pua, orphans=self.orphans)
            meta: dict[str, Any] = {
                "source": os.fspath(path),
                "format": done.receipt.format,
                "receipt": done.receipt.as_dict(),
            }
            if self.split == "file":
                yield Document(page_content=done.text, metadata=meta)
                continue
            parts = done.sections() if self.split == "section" else done.paragraphs()
            for part in parts:
                where: dict[str, Any] = {"section": part.stream}
                if part.paragraph is not None:
                    where["paragraph"] = part.paragraph
                yield Document(page_content=part.text, metadata={**meta, **where})


class GuardMiddleware(AgentMiddleware):
    """Mend tool results and model input before they enter the agent's state, and turn a
    tool's exception into an error ``ToolMessage`` (``catch_tool_errors``)."""

    def __init__(self, *, orphans: OrphanPolicy = "box", catch_tool_errors: bool = True) -> None:
        super().__init__()
        self.orphans: OrphanPolicy = orphans
        self.catch_tool_errors = catch_tool_errors

    def _mend(self, value: Any) -> Any:
        return sanitize_item(value, orphans=self.orphans)

    def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """The run's input messages, mended in the state (same ids: they replace)."""
        messages = state.get("messages", []) if isinstance(state, dict) else []
        changed = [new for m in messages if (new := self._mend(m)) is not m]
        return {"messages": changed} if changed else None

    async def abefore_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_agent(state, runtime)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._mend(handler(self._mended_request(request)))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._mend(await handler(self._mended_request(request)))

    def _mended_request(self, request: Any) -> Any:
        messages = self._mend(request.messages)
        system = self._mend(request.system_message)
        if messages is request.messages and system is request.system_message:
            return request
        return request.override(messages=messages, system_message=system)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            result = handler(request)
        except GraphBubbleUp:  # interrupts and the graph's own signals are not errors
            raise
        except Exception as exc:
            if not self.catch_tool_errors:
                raise
            result = _error_message(request, exc)
        return self._mend(result)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            result = await handler(request)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            if not self.catch_tool_errors:
                raise
            result = _error_message(request, exc)
        return self._mend(result)


def _error_message(request: Any, exc: Exception) -> ToolMessage:
    """The ``ToolMessage`` the model and the UI see instead of a tool's exception."""
    call = request.tool_call
    name = call.get("name", "tool")
    return ToolMessage(
        content=f"Error: tool {name!r} failed: {type(exc).__name__}: {exc}",
        tool_call_id=call.get("id") or "",
        name=name,
        status="error",
    )
