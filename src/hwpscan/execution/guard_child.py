"""The child behind :class:`hwpscan.execution.guard_process.Guard`.

``python -m hwpscan.execution.guard_child PARENT MEMORY_MB KERNEL_SIGNAL MODULE:FUNCTION [SETUP]``

(*PARENT*: the pid it watches; *KERNEL_SIGNAL*: ``1`` when the kernel may kill it at
the death of the thread that started it, see
:func:`~hwpscan.execution.child_limits.watch_parent`.)

Loads its task (``function``, or ``function(SETUP)`` when a setup text is given) and
says it is ready; then reads framed pickles of item lists on stdin and answers each
item with the task's value, in order, on the real stdout. Anything a library prints
goes to stderr instead, so it cannot corrupt the answers. Ends when stdin closes, or
when its parent is gone.
"""

from __future__ import annotations

import importlib
import os
import pickle
import signal
import sys
from typing import IO

from hwpscan.execution.child_limits import enter_child
from hwpscan.execution.guard_process import FRAME, READY, read_frame


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5):
        print(
            "usage: python -m hwpscan.execution.guard_child"
            " PARENT_PID MEMORY_MB KERNEL_SIGNAL MODULE:FUNCTION [SETUP]",
            file=sys.stderr,
        )
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    enter_child(int(argv[0]), int(argv[1]) or None, kernel_signal=argv[2] == "1")
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints land on stderr, not in the answers
    sys.stdout = sys.stderr
    module, _, name = argv[3].partition(":")
    task = getattr(importlib.import_module(module), name)
    if len(argv) == 5:
        task = task(argv[4])
    _send(answers, READY)
    requests = sys.stdin.buffer
    while (batch := read_frame(requests)) is not None:
        if not isinstance(batch, list):
            return 2
        for item in batch:
            _send(answers, task(item))
    return 0


def _send(answers: IO[bytes], answer: object) -> None:
    data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    answers.write(FRAME.pack(len(data)) + data)
    answers.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
