"""The Hancom PUA table: well-formed, cited, and applied without guessing."""

from __future__ import annotations

import json
import unicodedata
from importlib import resources

import pytest

from hwpscan.forensics.pua import PuaInfo, _load, apply_pua_map, pua_info, pua_name
from hwpscan.forensics.surrogates import PUA_RE


def known_pua() -> list[PuaInfo]:
    return sorted(_load()[0].values(), key=lambda info: info.codepoint)


def raw_table() -> dict[str, object]:
    data = resources.files("hwpscan.forensics").joinpath("pua_data.json").read_text("utf-8")
    return json.loads(data)


def test_table_is_sorted_unique_and_private_use() -> None:
    entries = raw_table()["entries"]
    assert isinstance(entries, list)
    cps = [int(e["codepoint"][2:], 16) for e in entries]
    assert cps == sorted(set(cps))
    for cp in cps:
        assert PUA_RE.fullmatch(chr(cp)), f"U+{cp:X} is not a private-use code point"


def test_every_entry_is_named_and_cited_with_a_known_source() -> None:
    sources = _load()[1]
    assert all(sources.values())
    for info in known_pua():
        assert info.name.startswith("HANCOM ")
        assert info.sources, info.label
        assert set(info.sources) <= sources.keys(), info.label


def test_replacements_are_standard_assigned_characters() -> None:
    for info in known_pua():
        if info.replacement is None:
            continue
        for ch in info.replacement:
            assert not PUA_RE.match(ch)
            assert unicodedata.category(ch) not in ("Co", "Cs", "Cn"), info.label


@pytest.mark.parametrize(
    ("cp", "replacement"),
    [(0xF02B1, "①"), (0xF0854, "『"), (0xF0855, "』"), (0xF0850, None), (0xF0853, None)],
)
def test_the_incident_code_points_are_known(cp: int, replacement: str | None) -> None:
    info = pua_info(cp)
    assert info is not None
    assert info.replacement == replacement
    assert "hwp5-notes" in info.sources


def test_names_for_scan_tables() -> None:
    assert pua_name(0xF02B1) == "HANCOM SQUARED DIGIT ONE"
    assert pua_name(0xF0FFF) is None
    assert pua_name(ord("A")) is None


def test_apply_pua_map_replaces_known_and_keeps_and_counts_the_rest() -> None:
    text = chr(0xF02B1) + " 첫째 " + chr(0xF02B1) + chr(0xF0852) + chr(0xE000) + chr(0x10FFFD)
    mapped, counts = apply_pua_map(text)
    assert mapped == "① 첫째 ①" + chr(0xF0852) + chr(0xE000) + chr(0x10FFFD)
    assert counts == {"U+F02B1": 2, "U+F0852": 1, "U+E000": 1, "U+10FFFD": 1}


def test_apply_pua_map_returns_clean_text_untouched() -> None:
    text = "보도자료 『제목』"
    mapped, counts = apply_pua_map(text)
    assert mapped is text and not counts


def test_every_replacement_that_is_not_what_hancom_draws_says_why() -> None:
    # a legend shows renders_as beside the replacement: where they differ, or where no
    # replacement is established, the note is what explains it
    unexplained = [
        info.label
        for info in known_pua()
        if info.replacement != info.renders_as and not (info.note or "").strip()
    ]
    assert unexplained == []
    boxed = pua_info(0xF02B1)
    assert boxed is not None and boxed.renders_as is not None
    assert "box" in boxed.renders_as and boxed.replacement == "①"
    assert boxed.note is not None and "circled" in boxed.note
