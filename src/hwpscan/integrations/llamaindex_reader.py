"""LlamaIndex: a reader over :func:`hwpscan.extract` (``pip install hwpscan[llamaindex]``).

:class:`HwpscanReader` reads HWP 5, HWPX and PDF files into documents whose text
always encodes as UTF-8, with the receipt in their metadata. It works alone
(``load_data(path)``) and as a ``file_extractor`` of ``SimpleDirectoryReader``. The
receipt is kept out of the text that is embedded or shown to the model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document

from hwpscan.forensics.guard import PuaMode
from hwpscan.usecases.extract import OrphanChoice, extract

__all__ = ["HwpscanReader"]

#: Metadata kept for the record, not for the embedding or the prompt.
_HIDDEN = ["receipt"]


class HwpscanReader(BaseReader):
    """Read a file into one document (``split="file"``) or one per section.

    The metadata holds ``source``, ``format`` and ``receipt``, plus ``section`` when
    split, and whatever ``extra_info`` the caller passes (``SimpleDirectoryReader``'s
    file metadata). A protected or unreadable file raises the typed error of
    :mod:`hwpscan.errors`.
    """

    def __init__(
        self,
        *,
        split: Literal["file", "section"] = "file",
        pua: PuaMode = "keep",
        orphans: OrphanChoice = "box",
    ) -> None:
        if split not in ("file", "section"):
            raise ValueError(f"split must be file or section, not {split!r}")
        self.split = split
        self.pua: PuaMode = pua
        self.orphans: OrphanChoice = orphans

    def load_data(
        self,
        file: str | os.PathLike[str],
        extra_info: dict[str, Any] | None = None,
        **_: Any,
    ) -> list[Document]:
        done = extract(Path(file), pua=self.pua, orphans=self.orphans)
        meta: dict[str, Any] = {
            **(extra_info or {}),
            "source": os.fspath(file),
            "format": done.receipt.format,
            "receipt": done.receipt.as_dict(),
        }
        if self.split == "file":
            return [self._document(done.text, meta)]
        return [self._document(p.text, {**meta, "section": p.stream}) for p in done.sections()]

    @staticmethod
    def _document(text: str, meta: dict[str, Any]) -> Document:
        return Document(
            text=text,
            metadata=meta,
            excluded_embed_metadata_keys=list(_HIDDEN),
            excluded_llm_metadata_keys=list(_HIDDEN),
        )
