"""Instructions per file of the scan core, counted by valgrind: an A/B that noise cannot move.

    python benchmarks/instructions.py [--corpus benchmarks/out/corpus] [--files 200]
        [--against OTHER_PYTHON] [--hwpx]

On a shared two-core machine the same loop's time varies by a third from one minute to
the next, so a change worth a few percent cannot be seen in seconds. The number of
instructions a loop executes does not vary: this counts them with valgrind's callgrind
(``apt-get install valgrind``) for ``scan_file`` and the JSON line of each file, over
*--files* clean and as many contaminated HWP 5 files of the benchmark corpus (made by
``scan_throughput.py``, built here when missing), each file once after a warm-up of 20.
The count of the same run over no file is taken off, so start-up and imports do not
count. ``--against`` names another interpreter with another hwpscan installed (a
worktree's venv at an earlier commit, say): both are counted over the same files, and
the ratio printed.

Valgrind runs OpenSSL's SHA-256 without the CPU's SHA extensions, so hashing counts far
more under it than it costs on the machine; the ``sha256`` row gives its share, to be
kept apart when reading the totals. ``--hwpx`` counts the HWPX packages of the side
corpus instead (``corpus-side/hwpx`` next to *--corpus*, built when missing): *--files*
of them, and unhwp's ``extract_text`` over the same files when it is installed. Counts
are not times: a cache miss costs more than
an instruction. They tell which of two versions does less work, and by how much.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WARM_UP = 20

#: The loop each count runs: argv is (paths file, how many, what to do per file).
LOOP = """
import sys
paths = open(sys.argv[1], encoding="utf-8").read().split("\\n")
n, what = int(sys.argv[2]), sys.argv[3]
if what == "scan":
    from dataclasses import replace

    from hwpscan.rowcodec import encode_row
    from hwpscan.scanning.one_file import scan_file

    for i, p in enumerate(paths[: n + 20]):
        encode_row(replace(scan_file(p), index=i))
elif what == "unhwp":
    import unhwp

    for p in paths[: n + 20]:
        unhwp.extract_text(p)
else:
    import hashlib

    for p in paths[: n + 20]:
        with open(p, "rb") as f:
            hashlib.sha256(f.read()).hexdigest()
"""
_COLLECTED = re.compile(r"Collected : (\d+)")


def count(python: str, paths: Path, n: int, what: str) -> int:
    """Instructions valgrind counts for the loop over the first ``n + 20`` paths."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            python,
            "-c",
            LOOP,
            str(paths),
            str(n),
            what,
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"valgrind gave no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_file(python: str, paths: Path, n: int, what: str = "scan") -> float:
    return (count(python, paths, n, what) - count(python, paths, 0, what)) / n


def by_status(corpus: Path, n: int) -> dict[str, list[str]]:
    """The first *n* (plus the warm-up) clean and contaminated HWP 5 files, in name order."""
    from hwpscan.scanning.one_file import scan_file

    found: dict[str, list[str]] = {"clean": [], "contaminated": []}
    for path in sorted(corpus.rglob("*.hwp")):
        kind = scan_file(path).status.value
        if kind in found and len(found[kind]) < n + WARM_UP:
            found[kind].append(str(path))
        if all(len(v) >= n + WARM_UP for v in found.values()):
            break
    return found


def hwpx_counts(corpus: Path, n: int, pythons: list[str]) -> None:
    """Instructions per HWPX package of the side corpus: scan_file (each interpreter) and
    unhwp's extract_text (this one's, when installed)."""
    side = corpus.parent / "corpus-side"
    if not any(side.glob("hwpx/*.hwpx")):
        sys.path.insert(0, str(HERE))
        from scan_throughput import build_side_corpus

        build_side_corpus(side, 1000)
    paths = [str(p) for p in sorted(side.glob("hwpx/*.hwpx"))[: n + WARM_UP]]
    print(f"instructions per HWPX package ({n} packages, valgrind callgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "hwpx.txt"
        listed.write_text("\n".join(paths), encoding="utf-8")
        counts = [per_file(p, listed, n) for p in pythons]
        ratio = f"   this / other {counts[0] / counts[1]:.3f}" if len(counts) > 1 else ""
        print(f"{'scan_file':14s}" + "".join(f"{c:22,.0f}" for c in counts) + ratio)
        probe = subprocess.run([sys.executable, "-c", "import unhwp"], check=False)
        if probe.returncode == 0:
            print(f"{'unhwp':14s}{per_file(sys.executable, listed, n, 'unhwp'):22,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=HERE / "out" / "corpus")
    parser.add_argument("--files", type=int, default=200, help="files of each kind")
    parser.add_argument("--against", help="another interpreter to count the same files with")
    parser.add_argument("--hwpx", action="store_true", help="count the side corpus's HWPX files")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    pythons = [sys.executable] + ([args.against] if args.against else [])
    if args.hwpx:
        hwpx_counts(args.corpus, args.files, pythons)
        return
    if not any(args.corpus.rglob("*.hwp")):
        sys.path.insert(0, str(HERE))
        from scan_throughput import build_corpus

        build_corpus(args.corpus, 5000)
    kinds = by_status(args.corpus, args.files)
    print(f"instructions per HWP 5 file ({args.files} of each kind, valgrind callgrind)")
    print(f"{'':14s}{'this':>22s}" + (f"{'--against':>22s}" if args.against else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for kind, paths in kinds.items():
            if len(paths) < args.files + WARM_UP:
                print(f"{kind:14s} too few files ({len(paths)})")
                continue
            listed = Path(tmp) / f"{kind}.txt"
            listed.write_text("\n".join(paths), encoding="utf-8")
            counts = [per_file(p, listed, args.files) for p in pythons]
            ratio = f"   this / other {counts[0] / counts[1]:.3f}" if len(counts) > 1 else ""
            print(f"{kind:14s}" + "".join(f"{c:22,.0f}" for c in counts) + ratio)
        listed = Path(tmp) / "clean.txt"
        hashed = per_file(sys.executable, listed, args.files, "sha256")
        print(f"{'sha256':14s}{hashed:22,.0f}   (read and hash only, clean files)")


if __name__ == "__main__":
    main()
