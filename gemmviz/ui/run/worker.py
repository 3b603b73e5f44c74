"""The engine in a worker thread: a QObject that ui/run/controller.py moves to its QThread. No widget access
from here; results and progress go out by signals, cancel is a thread-safe flag checked between launches."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, Signal, Slot

from gemmviz.core.measure.bench import BenchSettings, Cancelled, Engine, Job, environment


class EngineWorker(QObject):
    progress = Signal(int, int, str, float)  # done, total, label, seconds left (or -1)
    result = Signal(object)
    finished = Signal(object)
    environmentReady = Signal(object)
    warmedUp = Signal()  # compilers and calibrations done: the first run starts without them
    ceilingsReady = Signal(object)  # the measured dict, or an error message (str)

    def __init__(self, backends: dict):
        super().__init__()
        self.backends = backends
        self.cancel = threading.Event()

    @Slot()
    def probe(self) -> None:
        """Availability and device info, gathered here so the UI thread never waits on the driver."""
        try:
            env = environment(self.backends)
        except Exception as exc:  # a broken driver must not take the app down
            from gemmviz.backends.cuda_probe import QUERY_FAILED
            from gemmviz.core.messages import msg, render

            why = msg(QUERY_FAILED, detail=str(exc))
            cuda = {"available": False, "reason": render(why, "en"), "reason_message": why}
            env = {"backends": {"cuda": cuda}}
        self.environmentReady.emit(env)
        for backend in self.backends.values():
            # optional: the CPU backend compiles its loop. It takes the cancel flag and returns (raising
            # Cancelled) within a poll of it, so closing the window never waits for a compiler.
            warm_up = getattr(backend, "warm_up", None)
            if warm_up is not None:
                try:
                    warm_up(cancel=self.cancel)
                except Cancelled:
                    return  # the window is closing (or a run was cancelled): not warm
                except Exception:  # the first run then warms up itself and reports the error
                    pass
        self.warmedUp.emit()

    @Slot()
    def measure_ceilings(self) -> None:
        """Measure this GPU's roofline ceilings (a few seconds of GPU work) and cache them."""
        try:
            from gemmviz.backends.ceilings import measure_ceilings, save_ceilings

            data = measure_ceilings()
            save_ceilings(data)
        except Exception as exc:  # no GPU, out of memory, a failed launch: say so, keep the app alive
            self.ceilingsReady.emit(f"{type(exc).__name__}: {exc}")
            return
        self.ceilingsReady.emit(data)

    @Slot(object, object)
    def run_jobs(self, jobs: list[Job], settings: BenchSettings) -> None:
        # The controller clears `cancel` before it queues the run: clearing it here would lose a cancel (or a
        # window close) that came while this request waited in the queue.
        weights = [j.problem.flops for j in jobs]
        total_weight = sum(weights) or 1
        t0 = time.monotonic()

        def on_progress(done: int, total: int, label: str) -> None:
            done_weight = sum(weights[:done])
            elapsed = time.monotonic() - t0
            left = elapsed * (total_weight - done_weight) / done_weight if done_weight else -1.0
            self.progress.emit(done, total, label, left)

        results = []
        try:
            results = Engine(self.backends, settings).run(
                jobs, on_result=self.result.emit, on_progress=on_progress, cancel=self.cancel
            )
        finally:
            self.finished.emit(results)
