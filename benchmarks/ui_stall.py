"""Longest stall of the UI thread while the app runs a CPU sweep and redraws its charts: median over N runs.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/ui_stall.py [runs]

The real window (CPU backend only, a throw-away settings file, the app's garbage-collector policy) runs a
sweep of 2 CPU variants x 6 sizes through the Sweep path. A 10 ms timer on the UI thread records the gap
between its beats; the longest gap of a run is how long the window was frozen at worst. Timing depends on
the machine and its load, which is why this is a benchmark with a recorded figure and not a unit test.
"""

import gc
import statistics
import sys
import tempfile
import time

from PySide6.QtCore import QElapsedTimer, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.ui.app import keep_gc_quiet
from gemmviz.ui.window import MainWindow

SIZES = "32,64,96,128,160,192"
VARIANTS = ["cpu-naive", "cpu-blas"]


def pump(app: QApplication, until) -> None:
    while not until():
        app.processEvents()
        time.sleep(0.002)


def one_run(app: QApplication) -> tuple[int, int]:
    """(longest gap in ms, number of beats) during one sweep."""
    settings = QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat)
    window = MainWindow({"cpu": CpuBackend()}, settings=settings, load_recorded_without_gpu=False)
    keep_gc_quiet(window)
    window.show()
    # Probed and warmed up (the worker compiles the CPU loop right after probing, while the window is idle).
    pump(app, lambda: bool(window.workspace.environment) and window.controller.warm)
    window.run_panel.set_selected_variants(VARIANTS)
    window.run_panel.sweep_edit.setText(SIZES)
    window.run_panel.repeats_spin.setValue(3)
    clock, gaps = QElapsedTimer(), []
    clock.start()
    last = [clock.elapsed()]

    def beat() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(beat)
    gc.collect()  # start from what a fresh app has, not the garbage of the run before
    timer.start(10)
    window.run_sweep()
    pump(app, lambda: not window.running and not window.charts_tab.refresh_pending)
    timer.stop()
    window.close()
    window.deleteLater()
    app.processEvents()
    return max(gaps), len(gaps)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    app = QApplication(sys.argv[:1])
    stalls = []
    for i in range(runs):
        stall, beats = one_run(app)
        stalls.append(stall)
        print(f"run {i + 1}: longest UI stall {stall} ms over {beats} beats")
    print(
        f"longest UI stall during a CPU sweep, median of {runs} runs: {statistics.median(stalls):.0f} ms "
        f"(min {min(stalls)}, max {max(stalls)})"
    )


if __name__ == "__main__":
    main()
