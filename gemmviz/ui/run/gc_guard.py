"""Cyclic garbage is collected on the UI thread only.

Python's collector runs in whichever thread happens to allocate when a threshold is crossed. When that is
the engine's worker thread (importing numba, say) and the garbage holds Qt wrappers of UI objects, the
wrapper's destructor runs there: PySide then waits on a lock the UI thread holds while the UI thread waits
for the interpreter lock, and the window freezes for good (seen here as a test hanging in 1 of 3 runs, both
threads stopped on a plain Python line, 2026-11-30). pyqtgraph's GarbageCollector is the known cure: automatic
collection off, generations collected on a UI-thread timer with the usual thresholds."""

from __future__ import annotations

import gc

_collector = None
INTERVAL_S = 0.5


def collect_on_ui_thread():
    """Call once from the UI thread, after the QApplication exists and before a worker thread starts."""
    global _collector
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _collector = GarbageCollector(interval=INTERVAL_S)
    return _collector


def active() -> bool:
    return _collector is not None and not gc.isenabled() and _collector.timer.isActive()
