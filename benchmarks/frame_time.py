"""Frame render time of the tiling animation at 1920x1080 for 4096^3, TILE 16: median and 99th percentile,
idle and while a CPU sweep runs in a worker thread (as in the app).

    QT_QPA_PLATFORM=offscreen python3 benchmarks/frame_time.py [frames]
"""

import statistics
import sys
import threading
import time

from PySide6.QtGui import QGuiApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.measure.bench import BenchSettings, Engine, plan_jobs
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.tiling.render import Background, FrameState, render_image

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 600
app = QGuiApplication(sys.argv[:1])
schedule = block_schedule("gpu-tiled", Problem(4096, 4096, 4096), 16, (100, 120))
background = Background()


def measure() -> list[float]:
    out = []
    for i in range(frames):
        state = FrameState(schedule, i % len(schedule.steps), (i % 15) / 15, (5, 9))
        t0 = time.perf_counter()
        render_image(state, 1920, 1080, background=background)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def report(name: str, ms: list[float]) -> None:
    ms = sorted(ms)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    print(f"{name:<28} median {statistics.median(ms):6.2f} ms   p99 {p99:6.2f} ms   ({len(ms)} frames)")


measure()  # warm the background cache and fonts
report("idle", measure())
stop = threading.Event()
jobs = plan_jobs(["cpu-naive", "cpu-blas"], [Problem(n, n, n) for n in (128, 192, 256, 320, 384)] * 20)
worker = threading.Thread(target=lambda: Engine({"cpu": CpuBackend()}, BenchSettings(repeats=3)).run(jobs, cancel=stop))
worker.start()
report("during a CPU sweep (worker)", measure())
stop.set()
worker.join()
