"""Ctrl+P (projector mode on/off) in the real window with the recorded session loaded: from the key press to
the window repainted and the event loop free again, and 20 presses in a row.

    QT_QPA_PLATFORM=offscreen python benchmarks/projector_toggle.py [--size 1920x1080] [--show "all four"]
        [--tab Charts] [--presses 20] [--lesson seed000 --step 4]

With --lesson, the presses go to that lesson's step (1-based) as a teacher gives it: the time is until the
lesson shown has taken the new type and the loop is free again.

Each single press is a QKeyEvent posted to the window, then the event loop runs until nothing is pending (a
0 ms timer fires after every queued event and staged redraw); the time includes one forced repaint. The
burst posts all presses at once, as a held key or a mashed one delivers them, and waits the same way. Also
prints the Charts tab's "show" choice after the presses (it must be the one chosen before). A benchmark, not a
test: figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from PySide6.QtCore import QEvent, QSettings, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.parsing import parse_pixels
from gemmviz.ui.app import keep_gc_quiet
from gemmviz.ui.window import MainWindow


def idle(app: QApplication, window: MainWindow) -> None:
    """Run the event loop until the window has nothing left to do (no staged redraw, no posted event)."""
    while True:
        app.processEvents()
        pending = getattr(window, "projector_pending", None)  # a QTimer since the presses are coalesced
        if not window.charts_tab.refresh_pending and not (pending is not None and pending.isActive()):
            app.processEvents()
            return
        time.sleep(0.001)


def press(app: QApplication, window: MainWindow, times: int) -> float:
    start = time.perf_counter()
    for _ in range(times):
        app.postEvent(
            window.focusWidget() or window,
            QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier),
        )
        app.postEvent(
            window.focusWidget() or window,
            QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier),
        )
    idle(app, window)
    window.repaint()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--show", default="all four")
    parser.add_argument("--tab", default="Charts")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lesson", help="press Ctrl+P during this lesson (e.g. seed000)")
    parser.add_argument("--step", type=int, default=1, help="the lesson's step, 1-based")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    settings = QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat)
    window = MainWindow({"cpu": CpuBackend()}, settings=settings)
    keep_gc_quiet(window)
    window.resize(*parse_pixels(args.size))
    window.show()
    while not window.workspace.sessions:  # the probe, then the recorded session (no GPU here)
        app.processEvents()
        time.sleep(0.005)
    idle(app, window)
    window.charts_tab.show_combo.setCurrentText(args.show)
    for i in range(window.tabs.count()):
        if window.tabs.tabText(i).replace("&", "") == args.tab:
            window.tabs.setCurrentIndex(i)
    idle(app, window)
    if args.lesson:
        from gemmviz.core.lesson.lessons import shipped_lessons

        window.start_lesson(shipped_lessons()[args.lesson])
        window.lesson_view.go(args.step - 1)
        idle(app, window)
    window.activateWindow()
    window.setFocus()
    singles = [press(app, window, 1) for _ in range(2 * args.runs)]
    on, off = singles[0::2], singles[1::2]
    burst = press(app, window, args.presses)
    where = f"lesson {args.lesson} step {args.step}" if args.lesson else f"tab {args.tab}, show {args.show!r}"
    print(
        f"{args.size}, {where}: Ctrl+P on median {statistics.median(on):.0f} ms "
        f"(max {max(on):.0f}), off median {statistics.median(off):.0f} ms (max {max(off):.0f}); "
        f"{args.presses} presses at once: {burst:.0f} ms; projector now "
        f"{window.projector_action.isChecked()}, show now {window.charts_tab.show_combo.currentText()!r}"
    )
    window.recovery.ask = False
    window.close()


if __name__ == "__main__":
    main()
