"""Sub-commands beyond info/bench: model, and the Qt ones (app, export, animate) imported lazily."""

from __future__ import annotations

import sys


def add_commands(sub) -> None:
    return None


def run_app(args) -> int:
    try:
        from gemmviz.ui.app import run
    except ImportError as exc:
        print(f"gemmviz: error: the desktop app needs PySide6 and pyqtgraph ({exc})", file=sys.stderr)
        return 1
    return run(projector=args.projector)
