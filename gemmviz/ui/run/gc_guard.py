"""Cyclic garbage is collected on the UI thread only.

Python's collector runs in whichever thread happens to allocate when a threshold is crossed. When that is
the engine's worker thread (importing numba, say) and the garbage holds Qt wrappers of UI objects, the
wrapper's destructor runs there: PySide then waits on a lock the UI thread holds while the UI thread waits
for the interpreter lock, and the window freezes for good (seen here as a test hanging in 1 of 3 runs, both
threads stopped on a plain Python line, 2026-11-30). pyqtgraph's GarbageCollector is the known cure: automatic
collection off, generations collected on a UI-thread timer with the usual thresholds. `UiThreadCollector` is
that class (Erik Janssens' recipe) without its import of the whole pyqtgraph package, which the window's first
frame does not wait for."""

from __future__ import annotations

import gc

_collector = None
INTERVAL_S = 0.5


class UiThreadCollector:
    """Automatic collection off; every `interval_s` on the UI thread's timer, each generation whose count passed
    its threshold is collected (pyqtgraph.util.garbage_collector.GarbageCollector's rule)."""

    def __init__(self, interval_s: float) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.timeout.connect(self.check)
        self.threshold = gc.get_threshold()
        gc.disable()
        self.timer.start(int(interval_s * 1000))

    def check(self) -> None:
        l0, l1, l2 = gc.get_count()
        if l0 > self.threshold[0]:
            gc.collect(0)
            if l1 > self.threshold[1]:
                gc.collect(1)
                if l2 > self.threshold[2]:
                    gc.collect(2)


def collect_on_ui_thread():
    """Call once from the UI thread, after the QApplication exists and before a worker thread starts."""
    global _collector
    if _collector is None:
        _collector = UiThreadCollector(INTERVAL_S)
    return _collector


def active() -> bool:
    return _collector is not None and not gc.isenabled() and _collector.timer.isActive()
