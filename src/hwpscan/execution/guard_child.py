"""The guard process behind :class:`hwpscan.execution.dask_tasks.Guard`.

Reads framed pickles of work-item lists on stdin and answers each item with its row, in
order, on the real stdout; anything a library prints goes to stderr instead, so it
cannot corrupt the answers. Ends when stdin closes, or when its parent is gone. Run as
``python -m hwpscan.execution.guard_child PARENT_PID MEMORY_MB``.
"""

from __future__ import annotations

import os
import pickle
import sys

from hwpscan.execution.child_limits import enter_child
from hwpscan.execution.dask_tasks import _HEADER, scan_guarded
from hwpscan.sources import WorkItem


def main(argv: list[str]) -> None:
    """``python -m hwpscan.execution.guard_child PARENT_PID MEMORY_MB``."""
    parent, memory_mb = (int(arg) for arg in argv[:2]) if len(argv) >= 2 else (os.getppid(), 0)
    enter_child(parent, memory_mb or None)
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints land on stderr, not in the answers
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    while True:
        header = requests.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(header)
        body = requests.read(size)
        if len(body) < size:
            return
        batch = pickle.loads(body)
        if not isinstance(batch, list):
            return
        for item in batch:
            if not isinstance(item, WorkItem):
                return
            data = pickle.dumps(scan_guarded(item), protocol=pickle.HIGHEST_PROTOCOL)
            answers.write(_HEADER.pack(len(data)) + data)
            answers.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
