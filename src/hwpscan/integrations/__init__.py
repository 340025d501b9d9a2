"""Thin adapters of :func:`hwpscan.extract` and the guards for pipeline frameworks.

Each lives in its own module and imports its framework only there; the names load on
first use, so ``import hwpscan.integrations`` needs none of them installed:

- :class:`HwpscanLoader` and :class:`GuardMiddleware` (``pip install hwpscan[langchain]``):
  a LangChain document loader, and a LangChain v1 agent middleware that mends tool
  results and model input and turns a tool's exception into an error message;
- :class:`HwpscanReader` (``pip install hwpscan[llamaindex]``): a LlamaIndex reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwpscan.lazy import lazy_names

if TYPE_CHECKING:
    from hwpscan.integrations.langchain_adapters import GuardMiddleware, HwpscanLoader
    from hwpscan.integrations.llamaindex_reader import HwpscanReader

__all__ = ["GuardMiddleware", "HwpscanLoader", "HwpscanReader"]

__getattr__ = lazy_names(
    __name__,
    {
        "GuardMiddleware": "hwpscan.integrations.langchain_adapters",
        "HwpscanLoader": "hwpscan.integrations.langchain_adapters",
        "HwpscanReader": "hwpscan.integrations.llamaindex_reader",
    },
)
