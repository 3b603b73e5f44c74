"""The one worker-thread helper (ui/worker.py) that runs, exercise checks and animation exports share: start,
cancel within half a second, join, and a shutdown that detaches a worker stuck past its limit."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, Signal, Slot

from gemmviz.ui import worker as worker_module
from gemmviz.ui.worker import WorkerThread, detached_running


class Looping(QObject):
    """Works in steps until cancelled, as a run (between launches) or an export (between frames) does."""

    step = Signal(int)
    ended = Signal(str)

    def __init__(self, cancel: threading.Event, gate: threading.Event | None = None):
        super().__init__()
        self.cancel, self.gate = cancel, gate
        self.steps = 0

    @Slot()
    def run(self) -> None:
        if self.gate is not None:  # a native call that answers nothing until the gate opens
            self.gate.wait()
        while not self.cancel.is_set():
            self.steps += 1
            self.cancel.wait(0.005)  # one step's work; the flag is read between steps
        self.ended.emit("cancelled")


def test_start_cancel_join(qtbot):
    cancel = threading.Event()
    w = Looping(cancel)
    runner = WorkerThread(w, "test-worker", cancel, w.run)
    assert runner.cancel_flag is cancel and not runner.running
    runner.start()
    qtbot.waitUntil(lambda: w.steps > 3)  # it works
    assert runner.running
    # the cancel is answered within half a second; waited on with waitUntil (a deadline kept in Python), not
    # waitSignal's nested event loop, which hung once for good at the end of a full run in CI
    ended: list[str] = []
    w.ended.connect(ended.append, Qt.ConnectionType.DirectConnection)
    runner.cancel()
    qtbot.waitUntil(lambda: ended == ["cancelled"], timeout=500)
    assert runner.join(500) and not runner.running and runner.thread.isFinished()


def test_shutdown_is_cancel_then_join(qtbot):
    cancel = threading.Event()
    w = Looping(cancel)
    runner = WorkerThread(w, "test-worker", cancel, w.run)
    runner.start()
    qtbot.waitUntil(lambda: w.steps > 0)
    assert runner.shutdown(5000) and cancel.is_set() and not runner.running and not runner.detached


def test_a_long_lived_worker_is_driven_by_queued_signals(qtbot):
    """The run controller's kind: no `run` slot; requests reach the worker's thread by queued signals."""

    class Echo(QObject):
        answer = Signal(object)

        @Slot(object)
        def ask(self, _x) -> None:
            self.answer.emit(threading.get_ident())

    class Asker(QObject):
        ask = Signal(object)

    echo, asker = Echo(), Asker()
    runner = WorkerThread(echo, "test-echo")
    asker.ask.connect(echo.ask)
    runner.start()
    answers: list[int] = []
    echo.answer.connect(answers.append, Qt.ConnectionType.DirectConnection)
    asker.ask.emit(1)
    qtbot.waitUntil(lambda: len(answers) == 1, timeout=30_000)
    assert answers[0] != threading.get_ident()  # answered in the worker's thread
    assert runner.shutdown(5000)


def test_a_worker_stuck_past_the_limit_is_detached_not_destroyed(qtbot, monkeypatch):
    monkeypatch.setattr(worker_module, "_detached", [])
    cancel, gate = threading.Event(), threading.Event()
    w = Looping(cancel, gate)
    runner = WorkerThread(w, "test-stuck", cancel, w.run)
    runner.start()
    qtbot.waitUntil(lambda: runner.running)
    assert not runner.shutdown(50)  # it cannot see the cancel while the "native call" holds it
    assert runner.detached and detached_running() and worker_module._detached == [(runner.thread, w)]
    gate.set()  # the call returns; the worker sees the cancel and the thread ends
    assert runner.join(5000) and not detached_running()
