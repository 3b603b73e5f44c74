"""How long a lesson step switch takes: from the key press to the new step painted, offscreen.

    QT_QPA_PLATFORM=offscreen python benchmarks/lesson_switch.py [--size 1920x1080] [--projector]

Two figures per lesson, median and max over its steps (the first step excluded: it is shown on opening):
- cold: the step's view is built on the key press (prefetch off), the worst case;
- prefetched: as in class, the next step's view was built while the previous one was on screen.
Target (issue 12): median ≤ 100 ms.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
from gemmviz.core.parsing import parse_pixels
from gemmviz.ui.lesson.mode import LessonView


def settle(app: QApplication, seconds: float = 0.0) -> None:
    end = time.perf_counter() + seconds
    while True:
        app.processEvents()
        if time.perf_counter() >= end:
            return
        time.sleep(0.005)


def switch_ms(app, view: LessonView) -> float:
    start = time.perf_counter()
    QTest.keyClick(view, Qt.Key.Key_Right)
    view.repaint()  # paint now, as the next frame would
    app.processEvents()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--projector", action="store_true")
    args = parser.parse_args()
    w, h = parse_pixels(args.size)
    app = QApplication.instance() or QApplication([])
    print(
        f"# {platform.node()} {platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}, "
        f"{w}x{h}{' projector' if args.projector else ''}"
    )
    print("lesson    steps  cold median/max ms  prefetched median/max ms")
    for name, lesson in shipped_lessons().items():
        source = lesson_session(lesson)
        results = {}
        for mode in ("cold", "prefetched"):
            view = LessonView(lesson, source, args.projector)
            view.resize(w, h)
            view.show()
            settle(app, 0.2)
            times = []
            for _ in range(len(lesson.steps) - 1):
                if mode == "cold":
                    view.prefetch.stop()
                else:
                    settle(app, 0.1)  # the teacher talks; the prefetch timer fires
                times.append(switch_ms(app, view))
                if mode == "cold":
                    view.prefetch.stop()
            results[mode] = (statistics.median(times), max(times))
            view.close()
            view.deleteLater()
            settle(app)
        (cm, cx), (pm, px) = results["cold"], results["prefetched"]
        print(f"{name:<9} {len(lesson.steps):>5}  {cm:8.1f} / {cx:6.1f}       {pm:8.1f} / {px:6.1f}")


if __name__ == "__main__":
    main()
