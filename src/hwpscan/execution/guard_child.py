"""The child behind :class:`hwpscan.execution.guard_process.Guard`.

``python -m hwpscan.execution.guard_child PARENT_PID MEMORY_MB MODULE:FUNCTION``

Reads framed pickles of item lists on stdin and answers each item with the function's
value, in order, on the real stdout; anything a library prints goes to stderr instead,
so it cannot corrupt the answers. Ends when stdin closes, or when its parent is gone.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys

from hwpscan.execution.child_limits import enter_child
from hwpscan.execution.guard_process import FRAME, read_frame


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(
            "usage: python -m hwpscan.execution.guard_child PARENT_PID MEMORY_MB MODULE:FUNCTION",
            file=sys.stderr,
        )
        return 2
    enter_child(int(argv[0]), int(argv[1]) or None)
    module, _, name = argv[2].partition(":")
    task = getattr(importlib.import_module(module), name)
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints land on stderr, not in the answers
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    while (batch := read_frame(requests)) is not None:
        if not isinstance(batch, list):
            return 2
        for item in batch:
            data = pickle.dumps(task(item), protocol=pickle.HIGHEST_PROTOCOL)
            answers.write(FRAME.pack(len(data)) + data)
            answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
