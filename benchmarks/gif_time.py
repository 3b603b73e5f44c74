"""Time and size of an animated GIF of one block's whole K loop: 1024^3, gpu-tiled, TILE 16, thread (0, 0),
1280x720, with the in-between frames of every load (issue 12: under 10 s and under 10 MB).

    QT_QPA_PLATFORM=offscreen python3 benchmarks/gif_time.py [OUT.gif]
"""

import os
import sys
import tempfile
import time

from PySide6.QtGui import QGuiApplication

from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.export.exporters import export_gif

app = QGuiApplication(sys.argv[:1])
schedule = block_schedule("gpu-tiled", Problem(1024, 1024, 1024), 16, (0, 0))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "k-loop.gif")
t0 = time.perf_counter()
frames = export_gif(schedule, out, thread=(0, 0), width=1280, height=720)
seconds = time.perf_counter() - t0
size = os.path.getsize(out)
print(f"{len(schedule.steps)} steps, {frames} frames, 1280x720: {seconds:.2f} s, {size / 1e6:.2f} MB  ({out})")
