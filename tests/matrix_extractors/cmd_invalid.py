"""A command-line extractor whose output holds bytes that are not UTF-8."""

import sys

from hwpscan.matrix.parsers import strict_text


def main() -> None:
    text = strict_text(sys.argv[1])
    half = len(text) // 2
    sys.stdout.buffer.write(text[:half].encode() + b"\xff\xfe\x80" + text[half:].encode())


if __name__ == "__main__":
    main()
