"""Cyclic garbage is collected on the UI thread only (see gemmviz/ui/run/gc_guard.py): once the engine's worker
thread exists, automatic collection is off and a UI-thread timer collects instead."""

import gc
import threading
import weakref

import pytest

pytest.importorskip("PySide6")

from gemmviz.backends.cpu import CpuBackend
from gemmviz.ui.run import gc_guard
from gemmviz.ui.run.controller import RunController


class _Cycle:
    def __init__(self):
        self.me = self


def test_a_worker_thread_never_collects_and_the_ui_timer_does(qtbot):
    controller = RunController({"cpu": CpuBackend()})
    started: list[str] = []

    def watch(phase, _info):
        if phase == "start":
            started.append(threading.current_thread().name)

    gc.callbacks.append(watch)
    try:
        assert gc_guard.active() and not gc.isenabled()
        assert gc_guard._collector.timer.interval() == gc_guard.INTERVAL_S * 1000

        def make_garbage():
            for _ in range(20 * gc.get_threshold()[0]):  # would start many collections in this thread
                _Cycle()

        worker = threading.Thread(target=make_garbage, name="garbage-maker")
        worker.start()
        worker.join()
        assert started == []  # nothing collected while the worker made its garbage
        # what the UI thread's timer calls: past generation 0's threshold, it collects (here, on this thread)
        c = _Cycle()
        probe = weakref.ref(c)
        del c
        keep = [[] for _ in range(gc.get_threshold()[0] + 10)]
        gc_guard._collector.check()
        assert probe() is None and keep and set(started) == {threading.main_thread().name}
    finally:
        gc.callbacks.remove(watch)
        controller.shutdown()
