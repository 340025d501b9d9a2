"""``python -m hwpscan.rehearsal.synth DIR``: (re)generate the fixture corpus into DIR."""

from __future__ import annotations

import sys
from pathlib import Path

from hwpscan.rehearsal.synth.corpus_items import write_corpus


def main(argv: list[str] | None = None) -> int:
    """Write the corpus and its ``expected.jsonl``; print a one-line summary."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in {"-h", "--help"}:
        print("usage: python -m hwpscan.rehearsal.synth DIR", file=sys.stderr)
        return 2
    fixtures = write_corpus(Path(args[0]))
    total = sum(len(f.data) for f in fixtures)
    print(f"wrote {len(fixtures)} fixtures ({total:,} bytes) and expected.jsonl to {args[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
