"""A real LlamaIndex IngestionPipeline over our fixture files, read by HwpscanReader."""

from __future__ import annotations

from pathlib import Path

from llama_index.core import SimpleDirectoryReader
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import MetadataMode

import hwpscan
from hwpscan.integrations import HwpscanReader

ROOT = Path(__file__).resolve().parents[2]


def test_an_ingestion_pipeline_over_the_fixtures() -> None:
    folder = ROOT / "fixtures" / "2025-07-21"  # contaminated HWP 5 files and a PDF
    reader = HwpscanReader()
    extractors = {".hwp": reader, ".hwpx": reader, ".pdf": reader}
    docs = SimpleDirectoryReader(str(folder), file_extractor=extractors).load_data()
    assert len(docs) == 3
    pipeline = IngestionPipeline(transformations=[SentenceSplitter(chunk_size=256)])
    nodes = pipeline.run(documents=docs)
    assert len(nodes) >= len(docs)
    for node in nodes:
        node.get_content(metadata_mode=MetadataMode.ALL).encode("utf-8")
        assert "receipt" not in node.get_content(metadata_mode=MetadataMode.EMBED)
        assert node.metadata["receipt"]["format"] == node.metadata["format"]
    joined = sum(d.metadata["receipt"]["done"]["pairs_joined"] for d in docs)
    assert joined == 18 + 16  # the two HWP 5 files' split pairs, all joined
    for doc in docs:
        assert doc.text == hwpscan.extract(doc.metadata["source"]).text
        assert doc.metadata["file_name"]  # SimpleDirectoryReader's own metadata kept


def test_the_reader_splits_by_section() -> None:
    path = ROOT / "fixtures" / "2025-07-28" / "보도자료_상반기_업무계획.hwp"
    docs = HwpscanReader(split="section", pua="map").load_data(path)
    assert [d.metadata["section"] for d in docs] == [f"BodyText/Section{i}" for i in range(4)]
    assert "\n".join(d.text for d in docs) == hwpscan.extract(path, pua="map").text
