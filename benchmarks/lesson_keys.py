"""2,000 mashed step keys in a lesson: how long until the lesson answers again, and the longest the event
loop went without a turn while they were handled.

    QT_QPA_PLATFORM=offscreen python benchmarks/lesson_keys.py [keys] [--one-view-per-key]

The keys (→, ←, Space, PgUp, PgDn at random, as a student on the clicker would) are queued at once, as the
window system delivers a burst, on seed000 at 1920×1080. `--one-view-per-key` builds each step's view on
its own key press, as before issue 21, for comparison. A benchmark, not a test: the figures depend on the
machine and its load.
"""

from __future__ import annotations

import random
import sys
import time

from PySide6.QtCore import QElapsedTimer, QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from gemmviz.core.lesson.lessons import find_lesson, lesson_session
from gemmviz.ui.lesson.mode import LessonView

KEYS = [Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Space, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown]


def main() -> None:
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), "2000"))
    app = QApplication(sys.argv[:1])
    lesson = find_lesson("seed000")
    view = LessonView(lesson, lesson_session(lesson))
    if "--one-view-per-key" in sys.argv:
        view.deck.moved.connect(lambda _index: view._show_view())  # each key's view built right away
    view.resize(1920, 1080)
    view.show()
    app.processEvents()
    rng = random.Random(0)
    clock, gaps, last = QElapsedTimer(), [], [0]

    def beat() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(beat)
    clock.start()
    timer.start(5)
    start = time.perf_counter()
    for _ in range(count):
        key = rng.choice(KEYS)
        app.postEvent(view, QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier))
    app.processEvents()  # the queued keys
    while view.settle.isActive():  # then the view of the step they ended on
        app.processEvents()
    view.repaint()
    took = time.perf_counter() - start
    timer.stop()
    print(
        f"{count:,} keys: step {view.index + 1} shown with its view after {took:.2f} s; "
        f"views built: {sum(v is not None for v in view.views.values())}; longest without a turn of the "
        f"event loop: {max(gaps or [int(took * 1000)])} ms"
    )
    view.close()


if __name__ == "__main__":
    main()
