"""Parser-matrix throughput with a command plug-in: files/s, one-file and batch forms.

    python benchmarks/matrix_throughput.py [--files 300] [--jobs 2] [--dir DIR] [--forms batch]

Generates (once, reused afterwards) *--files* press-release-like HWP 5 files, then runs
the matrix over them with one command extractor, a small Python script that prints our
strict view of each file (``matrix_extract.py`` below, written next to the corpus):

- ``{path}``: one process per file (the plain ``--parser-cmd NAME='tool {path}'``);
- ``{paths}``: one process for many files, output framed per file (the batch form),
  when the installed hwpscan knows it;
- ``module``: the same function as a ``module:function`` plug-in, in its long-lived
  worker (``--forms one-file,batch,module``).

Only the command runs (no built-in rows; the reference view still runs, in its
long-lived worker).
Prints files/s per form.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

SCRIPT = """\
import sys
from hwpscan.matrix.parsers import strict_text

paths = sys.argv[1:]
if len(paths) == 1:
    sys.stdout.buffer.write(strict_text(paths[0]).encode("utf-8", "surrogatepass"))
else:  # the batch form: each file's text after a RS + path header line
    for p in paths:
        sys.stdout.buffer.write(b"\\x1e" + p.encode("utf-8", "surrogateescape") + b"\\n")
        sys.stdout.buffer.write(strict_text(p).encode("utf-8", "surrogatepass"))
"""


def build(folder: Path, count: int) -> list[Path]:
    from hwpscan.rehearsal.synth.hwp5_writer import Table, build_hwp5
    from hwpscan.rehearsal.synth.press import STORIES, render

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"release-{i:04d}.hwp"
        if not path.exists():
            story = STORIES[i % len(STORIES)]
            paras = [render(p, pua=i % 3 == 0) for p in (*story.lead, *story.body)]
            table = Table([[render(c, pua=i % 3 == 0) for c in row] for row in story.table])
            path.write_bytes(build_hwp5([*paras, table]))
        paths.append(path)
    (folder / "matrix_extract.py").write_text(SCRIPT, encoding="utf-8")
    return paths


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=Path("benchmarks/out/matrix"))
    ap.add_argument("--forms", default="one-file,batch", help="forms to time (also: module)")
    args = ap.parse_args()
    from hwpscan.errors import UsageError
    from hwpscan.matrix import parse_parser_options, run_matrix

    paths = build(args.dir, args.files)
    script = args.dir / "matrix_extract.py"
    forms = {"one-file": "{path}", "batch": "{paths}", "module": ""}
    for label, field in forms.items():
        if label not in args.forms.split(","):
            continue
        try:
            if label == "module":  # the same work as a module:function plug-in
                specs = parse_parser_options("hwpscan.matrix.parsers:strict_text", [])
            else:
                given = [f"tool={sys.executable} {script} {field}"]
                specs = [s for s in parse_parser_options(None, given) if s.kind == "command"]
        except UsageError as exc:  # an older hwpscan, without the batch form
            print(f"{label:9s} not supported here: {exc}")
            continue
        started = time.perf_counter()
        rows = list(run_matrix(paths, specs, timeout=60, jobs=args.jobs))
        took = time.perf_counter() - started
        ok = sum(r.status == "ok" and not r.guilty for r in rows)
        print(
            f"{label:9s} {len(paths)} files, jobs={args.jobs}: {took:6.1f} s, "
            f"{len(paths) / took:7.1f} files/s ({ok} rows ok and not guilty)"
        )


if __name__ == "__main__":
    main()
