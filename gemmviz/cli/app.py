"""Running the window (`gemmviz`, `gemmviz --projector`) and the offscreen Qt the export commands render with.

Qt is imported only inside these functions: the parser and the headless commands never load it."""

from __future__ import annotations

import argparse
import os
import sys

from gemmviz.cli.common import EXIT_FAILED, CommandError, UsageError


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
    from gemmviz.ui.fonts import install_cjk_fallback

    app = QApplication.instance() or QApplication(sys.argv[:1])
    install_cjk_fallback(app)  # the Chinese slides render without a system CJK font
    return app


def run_app(args: argparse.Namespace) -> int:
    lesson = None
    if getattr(args, "lesson", None) is not None and not args.lesson.strip():
        raise UsageError("--lesson: an empty name; give a shipped lesson's name (gemmviz lesson --list) or a .toml")
    if getattr(args, "lesson", None):
        from gemmviz.core.lesson.lessons import LessonError, find_lesson, lesson_session

        try:  # a bad lesson file is refused here, with its line, before a window opens
            lesson = find_lesson(args.lesson, getattr(args, "lang", None))
            lesson_session(lesson)
        except LessonError as exc:
            raise UsageError(str(exc)) from None
    from gemmviz.core.startup import window_problem

    problem = window_problem()  # before any QApplication: Qt's xcb plugin would abort the process instead
    if problem is not None:
        print(f"gemmviz: error: {problem}", file=sys.stderr)
        return EXIT_FAILED
    try:
        from gemmviz.ui.app import run
    except ImportError as exc:
        raise CommandError(f"the desktop app needs PySide6 and pyqtgraph ({exc})") from None
    presenter = bool(getattr(args, "presenter", False))
    files = list(getattr(args, "open", None) or [])
    return run(
        projector=args.projector, lesson=lesson, lang=getattr(args, "lang", None), presenter=presenter, files=files
    )
