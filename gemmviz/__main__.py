import sys

from gemmviz.cli import main

sys.exit(main())
