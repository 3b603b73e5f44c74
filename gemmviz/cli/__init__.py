"""Command line: `gemmviz` (the window) and its headless commands, one module per command group."""

from gemmviz.core.interrupt import quiet_exit

with quiet_exit():  # Ctrl+C or SIGTERM while gemmviz imports itself: one line and 130/143, no traceback
    from gemmviz.cli.main import main

__all__ = ["main"]
