"""Running the window (`gemmviz`, `gemmviz --projector`) and the offscreen Qt the export commands render with.

Qt is imported only inside these functions: the parser and the headless commands never load it."""

from __future__ import annotations

import argparse
import os
import sys

from gemmviz.cli.common import EXIT_FAILED, CommandError


def ensure_gui_platform() -> None:
    """Render without a screen when there is none (CI, ssh): Qt's offscreen platform."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def qt_app():
    """The QApplication the export commands draw with (created once, offscreen without a display)."""
    ensure_gui_platform()
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        raise CommandError(f"rendering needs PySide6 and pyqtgraph ({exc})") from None
    return QApplication.instance() or QApplication(sys.argv[:1])


def run_app(args: argparse.Namespace) -> int:
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("QT_QPA_PLATFORM")
    ):
        print(
            "gemmviz: error: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset). "
            "Without a screen use the headless commands: gemmviz info | bench | model | export | animate.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    try:
        from gemmviz.ui.app import run
    except ImportError as exc:
        raise CommandError(f"the desktop app needs PySide6 and pyqtgraph ({exc})") from None
    return run(projector=args.projector)
