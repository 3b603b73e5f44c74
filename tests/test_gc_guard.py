"""Cyclic garbage is collected on the UI thread only (see gemmviz/ui/gc_guard.py): once the engine's worker
thread exists, automatic collection is off and a UI-thread timer collects instead."""

import gc
import threading
import weakref

import pytest

pytest.importorskip("PySide6")

from gemmviz.backends.cpu import CpuBackend  # noqa: E402
from gemmviz.ui import gc_guard  # noqa: E402
from gemmviz.ui.run_controller import RunController  # noqa: E402


class _Cycle:
    def __init__(self):
        self.me = self

    def __del__(self):
        _Cycle.collected_in = threading.current_thread()


def test_cycles_are_collected_by_the_ui_thread_timer(qtbot):
    controller = RunController({"cpu": CpuBackend()})
    try:
        assert gc_guard.active() and not gc.isenabled()
        c = _Cycle()
        probe = weakref.ref(c)
        del c  # unreachable now, and still in generation 0: no collection ran since it was made
        keep = [[] for _ in range(gc.get_threshold()[0] + 10)]  # past generation 0's threshold
        qtbot.waitUntil(lambda: probe() is None, timeout=3000)
        assert _Cycle.collected_in is threading.main_thread() and keep
    finally:
        controller.shutdown()
