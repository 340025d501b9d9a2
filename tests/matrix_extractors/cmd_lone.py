"""A command-line extractor that writes lone surrogates (via surrogatepass): each
character outside the BMP keeps only its high half."""

import sys

from hwpscan.matrix.parsers import strict_text


def main() -> None:
    text = "".join(
        chr(0xD800 + ((ord(c) - 0x10000) >> 10)) if ord(c) > 0xFFFF else c
        for c in strict_text(sys.argv[1])
    )
    sys.stdout.buffer.write(text.encode("utf-8", "surrogatepass"))


if __name__ == "__main__":
    main()
