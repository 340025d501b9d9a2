"""Properties of the pipeline guard: output always encodes, nothing good is lost."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwpscan.forensics.guard import (
    OrphanPolicy,
    check_utf8,
    find_surrogates,
    next_surrogate,
    repair_text,
    sanitize,
    sanitize_surrogates,
)
from hwpscan.forensics.surrogates import SURROGATE_RE, utf8_error

POLICIES = ["drop", "replace", "escape"]

#: Text as defective parsers produce it: ordinary characters, Hangul, PUA, and surrogate
#: halves (which may or may not end up next to a partner).
surrogate = st.integers(0xD800, 0xDFFF).map(chr)
messy_text = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from("가나다 \n"),
        surrogate,
        st.integers(0x10000, 0x10FFFF).map(
            lambda cp: chr(cp).encode("utf-16-le").decode("utf-16-le", "surrogatepass")
        ),
    ),
    max_size=40,
).map("".join)
bmp_clean = st.text(
    alphabet=st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"]), max_size=60
)
policy = st.sampled_from(POLICIES)


def codeunit_view(text: str) -> str:
    """What a parser that emits UTF-16 code units one by one makes of ``text``."""
    data = text.encode("utf-16-le")
    return "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))


@given(messy_text, policy)
def test_output_always_encodes_as_utf8(text: str, orphans: str) -> None:
    sanitize_surrogates(text, orphans).encode("utf-8")  # raises if a surrogate is left


@given(messy_text, policy)
def test_idempotent(text: str, orphans: str) -> None:
    once = sanitize_surrogates(text, orphans)
    assert sanitize_surrogates(once, orphans) is once


@given(bmp_clean, policy)
def test_clean_bmp_text_is_returned_as_the_same_object(text: str, orphans: str) -> None:
    assert sanitize_surrogates(text, orphans) is text
    assert sanitize(text, orphans=orphans) is text


@pytest.mark.parametrize("value", [None, 42, 1.5, b"a\xed\xa0\x80", ["a" + chr(0xDC00)], True])
@pytest.mark.parametrize("orphans", ["drop", "replace", "escape"])
def test_non_strings_pass_through_unchanged(value: object, orphans: OrphanPolicy) -> None:
    # the incident's guard wrapped any field; a non-str came back as the same object
    assert sanitize_surrogates(value, orphans) is value


def test_bad_policy_is_refused_even_for_non_strings() -> None:
    with pytest.raises(ValueError, match="orphans must be one of"):
        sanitize_surrogates(None, "keep")  # type: ignore[call-overload]


@given(st.text(max_size=60))
def test_every_valid_pair_is_restored_to_its_character(text: str) -> None:
    # a valid str holds no surrogate; its codeunit view splits every astral char in two
    assert sanitize_surrogates(codeunit_view(text)) == text


@given(bmp_clean, surrogate, bmp_clean)
def test_orphans_follow_the_policy(left: str, half: str, right: str) -> None:
    # a lone half between clean texts (no partner can sit next to it)
    text = left + half + right
    assert sanitize_surrogates(text, "drop") == left + right
    assert sanitize_surrogates(text, "replace") == left + "\ufffd" + right
    assert sanitize_surrogates(text, "escape") == left + f"\\u{ord(half):04x}" + right


@given(messy_text)
@pytest.mark.slow
def test_find_surrogates_accounts_for_every_surrogate(text: str) -> None:
    hits = find_surrogates(text)
    expected = [i for i, ch in enumerate(text) if 0xD800 <= ord(ch) <= 0xDFFF]
    assert [h.position for h in hits] == expected
    for hit in hits:
        assert hit.unit == ord(text[hit.position])
    pairs = sum(h.kind == "pair-high" for h in hits)
    assert pairs == sum(h.kind == "pair-low" for h in hits)
    orphans = sum(h.kind == "orphan" for h in hits)
    result = repair_text(text)
    assert (result.restored_pairs, result.removed_orphans) == (pairs, orphans)
    assert len(result.text) == len(text) - 2 * pairs - orphans + pairs


@given(messy_text, st.integers(0, 70))
@pytest.mark.slow
def test_next_surrogate_agrees_with_the_regex(text: str, start: int) -> None:
    found = SURROGATE_RE.search(text, start)
    assert next_surrogate(text, start) == (found.start() if found else -1)


@pytest.mark.parametrize("at", [0, 1023, 1024, 3071, 3072, 7168, 70_000, 199_999])
def test_next_surrogate_finds_a_half_on_either_side_of_every_window_edge(at: int) -> None:
    # windows of 1024, 2048, 4096... characters: the edges fall at 1024, 3072, 7168...
    text = "가" * at + chr(0xDEB1) + "나" * (200_000 - at - 1)
    assert next_surrogate(text) == at and next_surrogate(text, at + 1) == -1
    assert sanitize_surrogates(text) == "가" * at + "나" * (200_000 - at - 1)
    for start in (0, at // 2, at):
        assert next_surrogate(text, start) == at


def test_many_sparse_defects_across_windows_are_all_mended() -> None:
    pair = chr(0xDB80) + chr(0xDEB1)
    text = (("본문 " * 400) + pair + chr(0xDC00)) * 300  # apart: never the dense path
    assert sanitize_surrogates(text) == (("본문 " * 400) + chr(0xF02B1)) * 300
    result = repair_text(text)
    assert (result.restored_pairs, result.removed_orphans) == (300, 300)


@given(messy_text)
@pytest.mark.slow
def test_check_utf8_matches_the_encoder_exactly(text: str) -> None:
    check = check_utf8(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        assert (check.ok, check.message, check.start, check.end) == (
            False,
            str(exc),
            exc.start,
            exc.end,
        )
        assert check.message == utf8_error(text)
    else:
        assert check == check_utf8("") and check.ok and check.message is None


def reference_repair(text: str, orphans: str) -> tuple[str, int, int]:
    """A plain character-by-character repair to hold the fast one against."""
    out: list[str] = []
    pairs = lone = i = 0
    while i < len(text):
        unit = ord(text[i])
        nxt = ord(text[i + 1]) if i + 1 < len(text) else 0
        if 0xD800 <= unit <= 0xDBFF and 0xDC00 <= nxt <= 0xDFFF:
            out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (nxt - 0xDC00)))
            pairs += 1
            i += 2
            continue
        if 0xD800 <= unit <= 0xDFFF:
            out.append({"drop": "", "replace": "\ufffd", "escape": f"\\u{unit:04x}"}[orphans])
            lone += 1
        else:
            out.append(text[i])
        i += 1
    return "".join(out), pairs, lone


#: Surrogate-heavy text, long enough to cross from the sparse into the dense path.
dense_text = st.lists(
    st.one_of(surrogate, surrogate, st.sampled_from(["가", "a", chr(0xF02B1), "\n"])),
    min_size=0,
    max_size=300,
).map("".join)


@settings(max_examples=300)
@given(st.one_of(messy_text, dense_text), policy)
@pytest.mark.slow
def test_sparse_and_dense_paths_match_a_plain_reference(text: str, orphans: str) -> None:
    expected, pairs, lone = reference_repair(text, orphans)
    assert sanitize_surrogates(text, orphans) == expected
    result = repair_text(text, orphans=orphans)
    assert (result.text, result.restored_pairs, result.removed_orphans) == (expected, pairs, lone)


def test_dense_defects_after_a_sparse_start() -> None:
    bullet = chr(0xDB80) + chr(0xDEB1)
    text = "머리말" * 5000 + chr(0xDC00) + "".join(f"{bullet}항목 {n}\n" for n in range(500))
    result = repair_text(text, orphans="replace")
    assert result.restored_pairs == 500 and result.removed_orphans == 1
    assert result.text == reference_repair(text, "replace")[0]


def test_unknown_policy_is_refused_even_on_clean_text() -> None:
    with pytest.raises(ValueError, match="orphans must be one of drop, replace, escape"):
        sanitize_surrogates("clean", "keep")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        sanitize({"a": 1}, orphans="ignore")  # type: ignore[arg-type]


# -- sanitize over nested values ---------------------------------------------------------

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), messy_text)
nested = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(messy_text, inner, max_size=4),
    ),
    max_leaves=20,
)


def strings_in(obj: object) -> list[str]:
    found: list[str] = []
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


@settings(max_examples=200)
@given(nested, policy)
@pytest.mark.slow
def test_sanitize_leaves_no_bad_string_in_values_or_keys(obj: object, orphans: str) -> None:
    out = sanitize(obj, orphans=orphans)
    for text in strings_in(out):
        text.encode("utf-8")
    json.dumps(out, ensure_ascii=False, default=str).encode("utf-8")
    assert sanitize(out, orphans=orphans) is out


def test_sanitize_keeps_types_shape_and_untouched_objects() -> None:
    bad = "x" + chr(0xDB80) + chr(0xDEB1)
    fixed = "x" + chr(0xF02B1)
    Point = collections.namedtuple("Point", "label value")
    marker = object()
    dd: collections.defaultdict[str, list[str]] = collections.defaultdict(list, {bad: [bad]})
    obj = {
        bad: [bad, (1, bad), Point(bad, 2.5)],
        "clean": ["a", {"b": None}],
        "other": marker,
        "bytes": b"\xed\xa0\x80",
        "dd": dd,
    }
    out = sanitize(obj)
    assert out[fixed][0] == fixed
    assert out[fixed][1] == (1, fixed)
    assert out[fixed][2] == Point(fixed, 2.5) and isinstance(out[fixed][2], Point)
    assert out["clean"] is obj["clean"]  # nothing to mend: the same object
    assert out["other"] is marker and out["bytes"] is obj["bytes"]
    assert isinstance(out["dd"], collections.defaultdict) and out["dd"][fixed] == [fixed]
    assert out["dd"]["new"] == []  # the default factory survived
    assert bad in obj and obj[bad][0] == bad  # the input was not mutated


def test_keys_that_would_collide_keep_their_orphans_visible_so_no_value_is_lost() -> None:
    obj = {"k" + chr(0xDC00): 1, "k" + chr(0xDC01): 2}
    assert sanitize(obj) == {"k\\udc00": 1, "k\\udc01": 2}
    assert sanitize(obj, orphans="escape") == {"k\\udc00": 1, "k\\udc01": 2}
    mixed = {"a" + chr(0xDC00): 1, "a": 2, "b" + chr(0xDC00): 3}
    assert sanitize(mixed) == {"a\\udc00": 1, "a": 2, "b": 3}  # only colliding keys escape


def test_sanitize_preserves_shared_references() -> None:
    shared = ["a" + chr(0xDC00)]
    out = sanitize({"x": shared, "y": shared})
    assert out["x"] is out["y"] == ["a"]


def test_sanitize_refuses_a_cycle_instead_of_looping() -> None:
    loop: list[object] = ["a"]
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        sanitize(loop)


@pytest.mark.slow
def test_sanitize_handles_100k_deep_nesting_without_recursion() -> None:
    depth = 100_000
    bad = "deep" + chr(0xDB80) + chr(0xDEB1) + chr(0xDC00)
    obj: object = [bad]
    for level in range(depth):
        obj = [obj] if level % 2 else {"k" + chr(0xDC01): obj}
    out = sanitize(obj, orphans="replace")
    levels = 0
    node = out
    while not isinstance(node, str):
        if isinstance(node, dict):
            ((key, node),) = node.items()
            assert key == "k\ufffd"
        else:
            (node,) = node
        levels += 1
    assert levels == depth + 1
    assert node == "deep" + chr(0xF02B1) + "\ufffd"


# -- repair_text with the PUA map ---------------------------------------------------------


def test_repair_text_maps_known_pua_and_counts_unknown() -> None:
    codeunits = codeunit_view(
        chr(0xF0854) + "보도자료" + chr(0xF0855) + chr(0xF0850) + chr(0xF0FFF)
    )
    result = repair_text(codeunits + chr(0xDC00), orphans="replace", pua_map=True)
    assert result.text == "『보도자료』" + chr(0xF0850) + chr(0xF0FFF) + "\ufffd"
    assert result.restored_pairs == 4 and result.removed_orphans == 1
    assert result.pua_replaced == {"U+F0854": 1, "U+F0855": 1}
    assert result.pua_kept == {"U+F0850": 1, "U+F0FFF": 1}


def test_repair_text_without_pua_map_keeps_pua() -> None:
    result = repair_text(codeunit_view(chr(0xF02B1)) + "항목")
    assert result.text == chr(0xF02B1) + "항목"
    assert result.pua_replaced == {} and result.pua_kept == {"U+F02B1": 1}  # kept, and listed


# -- proving the chokepoints with check-json (the README's own code runs in test_readme) ----


def test_what_the_guard_lets_through_checks_clean_and_the_unguarded_stream_does_not(
    tmp_path: Path,
) -> None:
    from hwpscan.forensics.checkjson import check_json_bytes

    leaked = chr(0xDB80) + chr(0xDEB1) + " 불법 대부 광고 주의" + chr(0xDC00)
    guarded = json.dumps(sanitize({"output": leaked}, orphans="replace"), ensure_ascii=False)
    captured = tmp_path / "run.sse"
    captured.write_bytes(f"event: tool_result\ndata: {guarded}\n\n".encode())
    report = check_json_bytes(captured.read_bytes())
    assert report.ok and report.documents == 1 and report.strings == 2
    # unguarded, escaped by json.dumps: a reader merges the escaped pair, the orphan stays
    escaped = json.dumps({"output": leaked}).encode("ascii")
    # unguarded, written raw by a surrogatepass wrapper: both halves and the orphan stay
    raw = json.dumps({"output": leaked}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    orphan_at = len(leaked) - 2  # once the pair is one character
    for payload, expected in ((escaped, (orphan_at, 1, 0)), (raw, (0, 3, 1))):
        captured.write_bytes(b"data: " + payload + b"\n\n")
        (bad,) = check_json_bytes(captured.read_bytes()).bad
        assert bad.path == "$.output"
        assert (bad.position, bad.surrogates, bad.pairs) == expected
