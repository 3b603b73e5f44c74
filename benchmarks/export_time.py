"""Chart export at 3840x2160, in process: the median of 5 exports of each chart kind of the recorded H200
session (target: at most 1 s), with the median CPU time of this process beside it (on a shared machine the wall
time includes waiting for a core; the CPU time does not). Run: QT_QPA_PLATFORM=offscreen python
benchmarks/export_time.py"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from gemmviz.core.hardware.roofline import load_ceilings
from gemmviz.core.paths import asset_path
from gemmviz.core.session.results import Session
from gemmviz.ui.charts import kinds as chart_kinds
from gemmviz.ui.export.exporters import NothingToExport, export_chart
from gemmviz.ui.theme import theme_for

RUNS = 5


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    session = Session.load(asset_path("sessions", "h200-2026-12-01.json"))
    ceilings = load_ceilings(session.environment["backends"]["cuda"]["name"])
    print(f"{platform.node()} {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in [k.name for k in chart_kinds.kinds()]:  # every registered kind
            seconds, cpu = [], []
            for i in range(RUNS):
                start, start_cpu = time.perf_counter(), time.process_time()
                try:
                    export_chart(
                        kind, session.results, Path(tmp) / f"{kind}-{i}.png", 3840, 2160, theme_for(True), ceilings
                    )
                except NothingToExport as exc:  # a kind this session cannot draw (it says why)
                    print(f"{kind:10s} skipped: {exc}")
                    break
                seconds.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            if not seconds:
                continue
            median = statistics.median(seconds)
            worst = max(worst, median)
            print(
                f"{kind:10s} 3840x2160 PNG: median {median:.3f} s of {RUNS} (min {min(seconds):.3f}, "
                f"max {max(seconds):.3f}); CPU median {statistics.median(cpu):.3f} s"
            )
    del app
    print(f"slowest median {worst:.3f} s: {'within' if worst <= 1.0 else 'OVER'} the 1 s target")
    return 0 if worst <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
