"""One worker-thread helper for every piece of work the window hands off: runs (ui/run/controller.py), exercise
checks (ui/exercise/tab.py) and animation exports (ui/export/animation.py).

A `WorkerThread` owns a QThread, the QObject that works in it and the cooperative cancel flag that object reads
between steps (ScopeFoundry / PyMoDAQ's lifecycle: prepared on the window's thread, no widget access in the
worker, results by signal, an explicit end). It has one rule for every caller:

- `start()` starts the thread (and, for one-shot work, the worker's `run` slot);
- `cancel()` sets the flag: every worker checks it between launches, frames or child-process polls, so the work
  stops well within 0.5 s (a kernel launch, a frame, a 50 ms poll);
- `join(timeout_ms)` ends the thread's event loop and waits for it (None: as long as it takes);
- `shutdown(timeout_ms)` is cancel then join; a thread that does not end in time (stuck in a long native call)
  is detached, never destroyed while it runs (Qt aborts the process then), and `leave` ends the process
  with `os._exit` instead of tearing the interpreter down under it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread

# Workers that did not stop in time: their QThread objects are kept here so that nothing destroys a running
# QThread; `leave` then exits with os._exit.
_detached: list[tuple[QThread, QObject]] = []


def detached_running() -> bool:
    return any(thread.isRunning() for thread, _worker in _detached)


def _compiling() -> bool:
    """The CPU loop's compile thread (a daemon the warm-up stopped waiting for: backends/cpu.py) is still inside
    numba, where tearing the interpreter down under it is not safe."""
    cpu = sys.modules.get("gemmviz.backends.cpu")  # never imported here just to ask
    return cpu is not None and cpu.warming()


def leave(code: int) -> int:
    """The app's exit: returns `code`, or, if a detached worker (or the CPU loop's compiler) still runs, ends the
    process now with it (everything worth keeping was saved before the window closed)."""
    if detached_running() or _compiling():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


class WorkerThread:
    """A worker QObject in its own QThread, with its cancel flag. `run`: the worker's slot for one-shot work,
    called when the thread starts; leave it out for a long-lived worker driven by queued signals."""

    def __init__(
        self, worker: QObject, name: str, cancel: threading.Event | None = None, run: Callable | None = None
    ) -> None:
        self.worker = worker
        self.cancel_flag = cancel if cancel is not None else threading.Event()
        self.thread = QThread()  # no parent: joined here, never destroyed with a widget while it runs
        self.thread.setObjectName(name)
        worker.moveToThread(self.thread)
        if run is not None:
            self.thread.started.connect(run)
        self.detached = False

    @property
    def running(self) -> bool:
        return self.thread.isRunning()

    def start(self) -> None:
        self.thread.start()

    def cancel(self) -> None:
        """Ask the worker to stop at its next check of the flag."""
        self.cancel_flag.set()

    def join(self, timeout_ms: int | None = None) -> bool:
        """End the thread's event loop and wait for it (at most `timeout_ms`; None: until it ends). True if it ended."""
        self.thread.quit()
        return self.thread.wait() if timeout_ms is None else self.thread.wait(timeout_ms)

    def shutdown(self, timeout_ms: int | None = None) -> bool:
        """Cancel and join; a thread still running after `timeout_ms` is detached (see `leave`). True if it ended."""
        self.cancel()
        stopped = self.join(timeout_ms)
        if not stopped and not self.detached:
            self.detached = True
            self.thread.setParent(None)
            _detached.append((self.thread, self.worker))
        return stopped
