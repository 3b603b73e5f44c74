"""The run lifecycle: a QObject on the UI thread that owns the worker thread and says what it is doing.

States: IDLE -> RUNNING (jobs) -> [CANCELLING] -> IDLE, and IDLE -> CEILINGS -> IDLE. Requests go to the
worker by queued signals; its answers come back as this object's signals, on the UI thread. All device work
(probing, runs, ceilings) happens in the worker, which owns the CUDA context.
"""

from __future__ import annotations

import enum
from collections import deque

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from gemmviz.core.measure.bench import BenchSettings, Job
from gemmviz.ui.run.gc_guard import collect_on_ui_thread
from gemmviz.ui.run.worker import EngineWorker
from gemmviz.ui.worker import WorkerThread, detached_running, leave

__all__ = ["CLOSE_WAIT_MS", "RunController", "RunState", "detached_running", "leave"]

CLOSE_WAIT_MS = 2000  # closing the window waits this long for the worker, then leaves it behind (ui/worker.py)


class RunState(enum.Enum):
    IDLE = "idle"
    RUNNING = "running"
    CANCELLING = "cancelling"
    CEILINGS = "measuring ceilings"


class RunController(QObject):
    stateChanged = Signal(object)  # RunState
    progress = Signal(int, int, str, float)  # done, total, label, seconds left (or -1)
    result = Signal(object)  # one Result, as soon as it is measured
    finished = Signal(object, bool)  # every Result of the run, cancelled?
    environmentReady = Signal(object)  # the probed environment (dict)
    warmedUp = Signal()  # after environmentReady: the backends compiled and calibrated what they need
    ceilingsReady = Signal(object)  # the measured ceilings (dict), or why not (str)

    _runRequested = Signal(object, object)
    _probeRequested = Signal()
    _ceilingsRequested = Signal()

    def __init__(self, backends: dict, parent: QObject | None = None):
        super().__init__(parent)
        self._state = RunState.IDLE
        self._shut_down = False
        self.warm = False
        # The worker's answers are handed on one per event-loop turn: a burst of fast results (each one redraws
        # the table, writes the recovery file, repaints the progress bar) would otherwise be handled in one
        # go and freeze the window for the whole burst. Progress reports waiting in a row are merged.
        self._inbox: deque[tuple[str, tuple]] = deque()
        self._pacer = QTimer(self)
        self._pacer.setInterval(0)
        self._pacer.timeout.connect(self._hand_on_one)
        collect_on_ui_thread()  # before the worker exists: garbage with Qt wrappers must never die there
        self.worker = EngineWorker(backends)
        self.runner = WorkerThread(self.worker, "gemmviz-engine", self.worker.cancel)
        self._runRequested.connect(self.worker.run_jobs)
        self._probeRequested.connect(self.worker.probe)
        self._ceilingsRequested.connect(self.worker.measure_ceilings)
        self.worker.progress.connect(self._on_progress)
        self.worker.result.connect(self._on_result)
        self.worker.finished.connect(self._on_finished)
        self.worker.environmentReady.connect(self.environmentReady)
        self.worker.warmedUp.connect(self._on_warmed_up)
        self.worker.ceilingsReady.connect(self._on_ceilings)
        self.runner.start()

    @property
    def worker_thread(self) -> QThread:
        return self.runner.thread

    @property
    def state(self) -> RunState:
        return self._state

    @property
    def busy(self) -> bool:
        return self._state is not RunState.IDLE

    def _set_state(self, state: RunState) -> None:
        if state is not self._state:
            self._state = state
            self.stateChanged.emit(state)

    def probe(self) -> None:
        """Ask the worker for availability and device info (answered by environmentReady)."""
        self._probeRequested.emit()

    def start(self, jobs: list[Job], settings: BenchSettings) -> bool:
        if self.busy or not jobs or self._shut_down:
            return False
        self.worker.cancel.clear()
        self._set_state(RunState.RUNNING)
        self._runRequested.emit(jobs, settings)
        return True

    def cancel(self) -> bool:
        """Cancel the run at the next launch boundary; True if a run was going."""
        if self._state is not RunState.RUNNING:
            return False
        self.runner.cancel()
        self._set_state(RunState.CANCELLING)
        return True

    def measure_ceilings(self) -> bool:
        if self.busy or self._shut_down:
            return False
        self._set_state(RunState.CEILINGS)
        self._ceilingsRequested.emit()
        return True

    def _queue(self, kind: str, args: tuple) -> None:
        if self._shut_down:
            return  # the window is gone or going: nobody to tell
        if kind == "progress" and self._inbox and self._inbox[-1][0] == "progress":
            self._inbox[-1] = (kind, args)  # only the latest progress is worth showing
        else:
            self._inbox.append((kind, args))
        if not self._pacer.isActive():
            self._pacer.start()

    @Slot(int, int, str, float)
    def _on_progress(self, done: int, total: int, label: str, seconds_left: float) -> None:
        self._queue("progress", (done, total, label, seconds_left))

    @Slot(object)
    def _on_result(self, result) -> None:
        self._queue("result", (result,))

    @Slot(object)
    def _on_finished(self, results: list) -> None:
        # Read now: the cancel flag is cleared when the next run starts.
        self._queue("finished", (results, self.worker.cancel.is_set()))

    def _hand_on_one(self) -> None:
        if self._shut_down or not self._inbox:
            self._pacer.stop()
            return
        kind, args = self._inbox.popleft()
        if not self._inbox:
            self._pacer.stop()
        if kind == "progress":
            self.progress.emit(*args)
        elif kind == "result":
            self.result.emit(*args)
        else:  # the run is over once every result before it has been handed on
            self._set_state(RunState.IDLE)
            self.finished.emit(*args)

    @Slot()
    def _on_warmed_up(self) -> None:
        self.warm = True
        self.warmedUp.emit()

    @Slot(object)
    def _on_ceilings(self, data) -> None:
        if self._shut_down:
            return
        self._set_state(RunState.IDLE)
        self.ceilingsReady.emit(data)

    def shutdown(self, timeout_ms: int = CLOSE_WAIT_MS) -> bool:
        """Cancel whatever runs, stop the thread and wait for it at most `timeout_ms`; True if it ended in time.
        A worker that does not end in time is detached (see `leave`), never destroyed while running."""
        self._shut_down = True
        self._pacer.stop()
        self._inbox.clear()
        stopped = self.runner.shutdown(timeout_ms)
        self._set_state(RunState.IDLE)
        return stopped
