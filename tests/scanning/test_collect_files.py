"""Listing the files of folders: the one-pass listing answers as ``os.walk`` and
``os.path.realpath`` do, over trees with symlinks, hidden folders, sidecars, folders that
cannot be read and files reached twice."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hwpscan.manifest import ManifestEntry, ManifestWriter
from hwpscan.rehearsal.synth.hwp5_writer import build_hwp5
from hwpscan.scanning.inputs import (
    SIDECAR_NAMES,
    collect_dated,
    collect_files,
    collect_listed,
    resolve_dates,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def reference(inputs: list[Path]) -> list[Path]:
    """The listing as it was first written: os.walk, and a realpath per file."""
    out: list[Path] = []
    seen: set[str] = set()

    def add(path: Path) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)

    for item in inputs:
        if item.is_dir():
            for root, dirs, files in os.walk(item):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    skipped = name.startswith(".") or name in SIDECAR_NAMES
                    if not (skipped or name.endswith((".part", ".tmp"))):
                        add(Path(root) / name)
        else:
            add(item)
    return out


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    top = tmp_path / "top"
    data = build_hwp5(["문단"])
    for rel in ("b/2.hwp", "a/1.hwp", "a/z/3.hwp", ".hidden/4.hwp", "c/.5.hwp", "c/6.part",
                "c/manifest.jsonl", "c/B.hwp", "c/a.hwp", "d d/한글.hwp"):  # fmt: skip
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / rel).write_bytes(data)
    (top / "c" / "same.hwp").symlink_to(top / "a" / "1.hwp")  # reached twice
    (top / "c" / "gone.hwp").symlink_to(top / "nowhere.hwp")  # a broken link is a file
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "7.hwp").write_bytes(data)
    (top / "c" / "dirlink").symlink_to(outside, target_is_directory=True)  # not entered
    (top / "c" / "self.hwp").symlink_to(top / "c" / "self.hwp")  # a loop
    (top / "e").mkdir()
    os.mkfifo(top / "e" / "pipe.hwp")
    return top


def test_the_listing_answers_as_os_walk_and_realpath(tree: Path) -> None:
    for inputs in (
        [tree],
        [tree / "c", tree],  # a folder inside another given first
        [tree / "a" / "1.hwp", tree, tree / "missing.hwp"],
        [Path(os.path.relpath(tree)), tree / "c" / "same.hwp"],
        [Path(f"{tree}/"), FIXTURES],
    ):
        assert collect_files(inputs) == reference(inputs), inputs
    names = [p.name for p in collect_files([tree])]
    assert "7.hwp" not in names and "gone.hwp" in names and "same.hwp" not in names


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any folder")
def test_a_folder_that_cannot_be_read_is_skipped_as_os_walk_skips_it(tree: Path) -> None:
    locked = tree / "b"
    locked.chmod(0)
    try:
        assert collect_files([tree]) == reference([tree])
        assert not any("2.hwp" in str(p) for p in collect_files([tree]))
    finally:
        locked.chmod(0o755)


def test_listing_and_dating_in_one_pass_answers_as_the_two_apart(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dates from folders, stems and a fetch manifest (one reached through a link too),
    with paths given relative to the current folder."""
    data = build_hwp5(["문단"])
    fetched = tree / "fetched"
    fetched.mkdir()
    (fetched / "x.hwp").write_bytes(data)
    with ManifestWriter(fetched) as manifest:
        manifest.write(
            ManifestEntry(
                "2025-07-23", "1", "s", "x.hwp", "u", "x.hwp", None, 0, None, "downloaded"
            )
        )
    dated = ("2025-07-21/a.hwp", "2025-07-21/b_2025-08-01.hwp", "2025-07-22/c.hwp")
    for rel in (*dated, "c/2025-08-01.hwp", "2025-07-24.hwp"):  # the last one at the top
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    (tree / "2025-07-22" / "linked.hwp").symlink_to(fetched / "x.hwp")
    monkeypatch.chdir(tree)
    for inputs in ([Path(".")], [tree], [Path("2025-07-22"), Path("fetched/x.hwp"), Path(".")]):
        files, dates = collect_dated(inputs)
        assert files == collect_files(inputs)
        assert dates == resolve_dates(files), inputs
        # the texts the pool takes are the str() of those paths (no "./" in front)
        texts, by_text = collect_listed(inputs)
        assert texts == [str(p) for p in files], inputs
        assert by_text == {str(p): d for p, d in dates.items()}, inputs
    files, dates = collect_dated([Path(".")])
    by_path = {p.as_posix(): dates.get(p) for p in files}
    assert by_path["2025-07-21/a.hwp"] == "2025-07-21"
    assert by_path["2025-07-21/b_2025-08-01.hwp"] == "2025-07-21"  # a whole name only
    assert by_path["c/2025-08-01.hwp"] == "2025-08-01"
    assert by_path["2025-07-22/c.hwp"] == "2025-07-22"
    assert by_path["2025-07-22/linked.hwp"] == "2025-07-23"  # its real file is in the manifest


def test_dates_of_a_walked_tree_are_those_of_each_path_read_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk dates each file from its folder and name as listed; the answer is
    :func:`date_from_path` of its whole path, for names that look like dates and not."""
    from hwpscan.scanning.inputs import date_from_path

    names = ["2025-07-21", "2025-13-40", "2024-02-29", "2025-02-29", "a", "x.hwp",
             "2025-08-01.hwp", "2025-08-01.", "2025-08-01.tar.gz", "２０２５-０７-２１",
             "2025-07-21 ", "2025-07-2"]  # fmt: skip
    folders = ("", *names[:4], "2025-07-21/b", "a/2024-02-29", "２０２５-０７-２１/c")
    for folder in folders:
        (tmp_path / "top" / folder).mkdir(parents=True, exist_ok=True)
    for folder in folders:
        for name in names:
            if not (path := tmp_path / "top" / folder / name).is_dir():
                path.write_bytes(b"x")
    top = tmp_path / "top"
    (tmp_path / "2025-09-09").symlink_to(top / "a", target_is_directory=True)  # not entered
    (tmp_path / "outside.hwp").write_bytes(b"x")
    (top / "a" / "2025-09-10.hwp").symlink_to(tmp_path / "outside.hwp")  # a linked file
    (top / "2025-07-21" / "2025-09-11").symlink_to(top / "a")  # a linked folder: skipped
    monkeypatch.chdir(top / "2025-07-21")
    for inputs in (
        [top],
        [Path("."), Path("..")],  # relative, the current folder and its parent
        [Path("../a"), Path("b"), tmp_path / "2025-09-09"],  # a folder reached by a link
    ):
        files, dates = collect_dated(inputs)
        assert len(files) > 10, inputs
        assert dates == {p: d for p in files if (d := date_from_path(p)) is not None}, inputs
        assert dates == resolve_dates(files), inputs
    assert "2025-09-10" in collect_dated([top])[1].values()
