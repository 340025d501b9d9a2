"""A command-line extractor that dies of a segmentation fault."""

import os
import signal


def main() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


if __name__ == "__main__":
    main()
