"""A batch extractor (``{paths}``): many files per process, output framed per file.

Each file's text follows a header line RS + path + LF; a PDF gets RS + path + US +
message + LF (it refuses PDFs); a file whose name starts with ``hang`` hangs the whole
batch. Appends the number of paths it was given to the log file named by ``--log``.
"""

import sys
import time

from hwpscan.matrix.parsers import strict_text


def main() -> None:
    args = sys.argv[1:]
    log = args[args.index("--log") + 1]
    paths = [a for i, a in enumerate(args) if a != "--log" and (i == 0 or args[i - 1] != "--log")]
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"{len(paths)}\n")
    out = sys.stdout.buffer
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if name.startswith("hang"):
            time.sleep(600)
        if path.endswith(".pdf"):
            out.write(b"\x1e" + path.encode() + b"\x1fValueError: no PDF support\n")
            continue
        out.write(b"\x1e" + path.encode() + b"\n")
        out.write(strict_text(path).encode("utf-8", "surrogatepass") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
