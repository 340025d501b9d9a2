"""A command-line extractor that gives up with a message and exit status 2."""

import sys


def main() -> None:
    sys.stderr.write("Traceback (most recent call last):\nRuntimeError: cannot parse section 0\n")
    sys.exit(2)


if __name__ == "__main__":
    main()
