"""A command-line extractor that fails the way its first argument says.

``panic``: a PyO3-style PanicException (a BaseException); ``refuse``: a ValueError;
``nomodule``: a dependency that is not installed; ``rust``: a Rust binary's panic.
"""

import os
import sys


class PanicException(BaseException):
    """What PyO3 raises for a Rust panic: a BaseException, not an Exception."""


def main() -> None:
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "panic":
        raise PanicException("called `Option::unwrap()` on a `None` value")
    if kind == "refuse":
        raise ValueError(f"unsupported record in {os.path.basename(path)}")
    if kind == "nomodule":
        import hwp_magic_not_installed  # noqa: F401
    if kind == "rust":
        sys.stderr.write(
            "thread 'main' panicked at src/reader.rs:42:9:\n"
            "called `Option::unwrap()` on a `None` value\n"
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
        )
        sys.exit(101)


if __name__ == "__main__":
    main()
