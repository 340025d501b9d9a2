"""A command-line extractor that starts a helper process and never finishes.

Writes the helper's pid to the file named by its second argument, so a test can check
that a timeout killed the helper too.
"""

import subprocess
import sys
import time


def main() -> None:
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(sys.argv[2], "w") as handle:
        handle.write(str(helper.pid))
    time.sleep(600)


if __name__ == "__main__":
    main()
