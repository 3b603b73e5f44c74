"""`gemmviz --lesson NAME`: time from process start to the first slide painted, and the longest the event loop
went without a turn in the seconds after it (a key pressed then waits that long).

    python benchmarks/lesson_start.py [--runs 3] [--watch 6] -- --lesson seed001 --projector

Each run is a fresh `python -c` process that wraps LessonView.paintEvent (to note the first paint) and runs
`gemmviz.cli.main` with the arguments after `--`; a 10 ms timer records gaps over 100 ms until `--watch`
seconds after start, then the app quits. Settings go to a throw-away GEMMVIZ_CONFIG_DIR. Run it with the
platform the figure is for (QT_QPA_PLATFORM=offscreen, or a DISPLAY). A benchmark, not a test: figures
depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import sys, time
t0, watch = float(sys.argv[1]), float(sys.argv[2])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from gemmviz.ui import window
from gemmviz.ui.lesson import mode as lesson

paints, stalls, last = [], [], [None]
paint = lesson.LessonView.paintEvent
def painted(self, event):
    paint(self, event)
    paints.append(time.monotonic() - t0)
lesson.LessonView.paintEvent = painted

def beat():
    now = time.monotonic() - t0
    if last[0] is not None and now - last[0] > 0.1:
        stalls.append((last[0], now - last[0]))
    last[0] = now

def report():
    after = [s for at, s in stalls if paints and at >= paints[0] - 0.01]
    print(f"first-slide {paints[0] if paints else -1:.3f} stall-after {max(after, default=0.0):.3f}", flush=True)
    QApplication.instance().quit()

build = window.MainWindow.__init__
def watched(self, *args, **kwargs):
    beats = QTimer(QApplication.instance())
    beats.timeout.connect(beat)
    beats.start(10)
    QTimer.singleShot(int(watch * 1000), report)
    build(self, *args, **kwargs)
window.MainWindow.__init__ = watched
from gemmviz.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--watch", type=float, default=6.0)
    parser.add_argument("app_args", nargs="*", default=["--lesson", "seed001", "--projector"])
    args = parser.parse_args()
    firsts, stalls = [], []
    with tempfile.TemporaryDirectory() as config:
        env = dict(os.environ, GEMMVIZ_CONFIG_DIR=config)
        for _ in range(args.runs):
            t0 = time.monotonic()
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(t0), str(args.watch), *args.app_args],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            line = next((x for x in out.stdout.splitlines() if x.startswith("first-slide ")), None)
            if line is None:
                sys.exit(f"no slide painted:\n{out.stdout}\n{out.stderr}")
            _, first, _, stall = line.split()
            firsts.append(float(first))
            stalls.append(float(stall))
    print(
        f"gemmviz {' '.join(args.app_args)}: first slide after {statistics.median(firsts):.2f} s (median of "
        f"{args.runs}; max {max(firsts):.2f}), longest stall after it {statistics.median(stalls) * 1000:.0f} ms "
        f"(max {max(stalls) * 1000:.0f})"
    )


if __name__ == "__main__":
    main()
