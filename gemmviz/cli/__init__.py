"""Command line: `gemmviz` (the window) and its headless commands, one module per command group."""

from gemmviz.cli.main import main

__all__ = ["main"]
