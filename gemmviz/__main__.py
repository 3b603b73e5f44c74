"""`python -m gemmviz`: the same as the `gemmviz` command."""

import sys

from gemmviz.cli import main

if __name__ == "__main__":  # importing the module (e.g. walking the package) must not start the app
    sys.exit(main())
