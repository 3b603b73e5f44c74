"""The longest stall of the UI thread when the Hardware tab is switched to a result with a large block trace
(default: a million blocks, the loader's limit), and how long until it is drawn.

    QT_QPA_PLATFORM=offscreen python3 benchmarks/trace_stall.py [blocks]

A generated session holds a small traced result and a large one (132 SMs, 8 blocks resident per SM, blocks
of about 1 µs). The window opens it on the Hardware tab at the small one; a 5 ms timer then records the gaps
between its beats while the tab switches to the large one, until that is drawn and painted, and again while
the time slider is dragged across the run. Timing depends on the machine and its load: a benchmark.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SMS, SLOTS = 132, 8


def traced_result(blocks: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    slot = np.arange(blocks) % (SMS * SLOTS)
    duration = rng.integers(900, 1100, blocks)
    ends = np.zeros(SMS * SLOTS, np.int64)
    starts = np.empty(blocks, np.int64)
    for i in range(blocks):  # each slot runs its blocks back to back
        starts[i] = ends[slot[i]]
        ends[slot[i]] += duration[i]
    trace = np.stack([np.arange(blocks), slot % SMS, starts, starts + duration], axis=1).tolist()
    return {
        "variant": "gpu-tiled",
        "params": {"tile": 16},
        "m": 4096,
        "n": 4096,
        "k": 4096 + blocks % 7,
        "backend": "cuda",
        "precision": "fp32",
        "valid": True,
        "status": "ok",
        "samples_ms": [1.0, 1.1],
        "timing": "kernel",
        "block_trace": trace,
    }


def main() -> None:
    import json

    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.ui.window import MainWindow

    blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    folder = Path(tempfile.mkdtemp())
    path = folder / "traced.json"
    small = {**traced_result(2000, 1), "k": 1024}
    path.write_text(
        json.dumps(
            {
                "schema": "gemmviz.session",
                "schema_version": 3,
                "kind": "measured",
                "environment": {"backends": {"cuda": {"available": True, "name": "NVIDIA H200", "sms": SMS}}},
                "results": [small, traced_result(blocks)],
            }
        )
    )
    app = QApplication(sys.argv[:1])
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow({"cpu": CpuBackend()}, settings=settings, load_recorded_without_gpu=False)
    window.resize(1920, 1080)
    window.show()
    while not window.workspace.environment:
        app.processEvents()
        time.sleep(0.01)
    t = time.perf_counter()
    assert window.files.open_session(path)
    print(f"session of {blocks:,} + 2,000 traced blocks opened in {time.perf_counter() - t:.1f} s")
    tab = window.hardware_tab
    window.tabs.setCurrentWidget(tab)
    app.processEvents()
    chart = tab.trace_chart
    big = next(i for i, r in enumerate(tab.candidates) if len(r.block_trace) == blocks)
    clock, gaps = QElapsedTimer(), []
    last = [0]

    def beat() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(beat)

    def measure(action, done) -> tuple[int, float]:
        gaps.clear()
        clock.start()
        last[0] = 0
        timer.start(5)
        start = time.perf_counter()
        action()
        while not done():
            app.processEvents()
        app.processEvents()  # its paint
        took = time.perf_counter() - start
        timer.stop()
        return max(gaps or [clock.elapsed()]), took

    stall, took = measure(lambda: tab.result_combo.setCurrentIndex(big), lambda: chart.blocks == blocks)
    print(f"select the {blocks:,}-block trace: drawn after {took:.2f} s, longest UI stall {stall} ms")
    positions = iter(range(0, 1001, 50))

    def drag() -> bool:
        value = next(positions, None)
        if value is None:
            return True
        tab.slider.setValue(value)
        return False

    stall, took = measure(lambda: None, drag)
    print(f"drag the time slider across it (21 positions): {took:.2f} s, longest UI stall {stall} ms")
    window.close()


if __name__ == "__main__":
    main()
