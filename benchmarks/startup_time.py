"""Time from process start to a shown, painted main window (the 'time to window' a user feels), and to what
comes after it.

    python3 benchmarks/startup_time.py [runs] [--no-bytecode]

Each run is a fresh `python -m gemmviz` process with GEMMVIZ_STARTUP_PROBE=1, which makes the app print the
monotonic time of each step (ui/app.py's startup_probe), then quit:

- window-shown: the first frame is on screen (menus, control panel, tabs; the chart tabs' stand-ins);
- charts-built: pyqtgraph loaded and the chart tabs made, the turn after the first frame;
- probed: the worker has said what the machine has (GPU or not);
- session-shown: the window painted after its answer (without a GPU: with the recorded session it replays).

Each run is paired with a bare PySide6 window's (a fresh process that imports QtWidgets, makes a QApplication and
an empty QMainWindow of the same title and first size, shows it and quits once its first frame is painted: the floor any
Qt window pays here), in turn, so both see the same load. Prints the bare window's min and median and the ratio of
the app's first frame to it (the medians' ratio and the min's), then the median and max of each step over the runs, then what each part before the first frame spends (cli-imported,
ui-imported, app-ready, window-built: the median over the runs of each one's time after the step before it). Python's bytecode cache decides much of the import time:
a pip install has it (.pyc files are written at install), a checkout run with PYTHONDONTWRITEBYTECODE=1 has
none of gemmviz's own. By default the runs use whatever cache there is; `--no-bytecode` runs them with
`-B` and PYTHONDONTWRITEBYTECODE=1 and without gemmviz's own cache (moved aside for the runs, then back), as
a first start of a fresh checkout.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

STEPS = ("window-shown", "charts-built", "probed", "session-shown")
# before the first frame, in order: what each part of the start-up spends (the difference to the step before)
PARTS = (
    ("cli-imported", "interpreter, site and the CLI's modules (cli/main.py entered)"),
    ("ui-imported", "Qt and the window's modules (ui/app.run's imports)"),
    ("app-ready", "QApplication, fonts, translator, settings"),
    ("window-built", "MainWindow()"),
    ("window-shown", "show and the first paint"),
)
PACKAGE = Path(__file__).resolve().parent.parent / "gemmviz"
# the floor: a bare PySide6 window, shown and painted once (the time printed when its first paint has gone out)
BARE_WINDOW = """
import time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

class Window(QMainWindow):
    painted = False

    def paintEvent(self, event):
        super().paintEvent(event)
        if not self.painted:
            self.painted = True
            QTimer.singleShot(0, shown)

def shown():
    print("window-shown", f"{time.monotonic():.6f}", flush=True)
    app.quit()

app = QApplication([])
window = Window()
window.setWindowTitle("gemmviz")
area = app.primaryScreen().availableGeometry()
window.resize(min(1500, area.width()), min(900, area.height()))  # the app's first size (ui/status.py fit_screen)
window.show()
app.exec()
"""


@contextmanager
def without_own_bytecode():
    """gemmviz's __pycache__ folders moved aside (restored after): its modules compiled from source each run."""
    aside = Path(tempfile.mkdtemp(prefix="gemmviz-pycache-"))
    moved = []
    try:
        for i, cache in enumerate(sorted(PACKAGE.rglob("__pycache__"))):
            target = aside / str(i)
            shutil.move(cache, target)
            moved.append((cache, target))
        yield
    finally:
        for cache, target in moved:
            if not cache.exists():
                shutil.move(target, cache)
        shutil.rmtree(aside, ignore_errors=True)


def one_run(no_bytecode: bool, bare: bool = False) -> dict[str, float]:
    """One fresh process: the app's (`python -m gemmviz`), or with `bare` the bare PySide6 window's."""
    env = dict(os.environ, GEMMVIZ_STARTUP_PROBE="1")
    command = [sys.executable, "-c", BARE_WINDOW] if bare else [sys.executable, "-m", "gemmviz"]
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        command.insert(1, "-B")
    t0 = time.monotonic()
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    times = {}
    for line in out.stdout.splitlines():
        step, _, value = line.partition(" ")
        if step in STEPS or step in dict(PARTS):
            times[step] = float(value) - t0
    if "window-shown" not in times:
        sys.exit(f"the app did not report a shown window:\n{out.stdout}\n{out.stderr}")
    return times


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    no_bytecode = "--no-bytecode" in sys.argv
    runs = int(args[0]) if args else 5
    cache = without_own_bytecode() if no_bytecode else contextmanager(lambda: (yield))()
    with cache:
        samples, bare = [], []
        for _ in range(runs):  # in turn: each pair under the same load
            bare.append(one_run(no_bytecode, bare=True)["window-shown"])
            samples.append(one_run(no_bytecode))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    mode = (
        "without bytecode cache (-B, gemmviz's __pycache__ aside)"
        if no_bytecode
        else "with the bytecode cache there is"
    )
    print(f"{runs} fresh processes, {mode}; load average (1 min) after: {load:.2f}")
    shown = [s["window-shown"] for s in samples]
    print(
        f"{'bare PySide6 window':>21}: min {min(bare):.2f} s, median {statistics.median(bare):.2f} s "
        f"({', '.join(f'{v:.2f}' for v in bare)})"
    )
    print(
        f"{'gemmviz first frame':>21}: min {min(shown):.2f} s, median {statistics.median(shown):.2f} s; "
        f"ratio to the bare window: {statistics.median(shown) / statistics.median(bare):.2f} (medians), "
        f"{min(shown) / min(bare):.2f} (mins)"
    )
    for step in STEPS:
        values = [s[step] for s in samples if step in s]
        if not values:
            continue
        label = "time to shown window" if step == "window-shown" else step
        print(
            f"{label:>21}: median {statistics.median(values):.2f} s, max {max(values):.2f} s "
            f"({', '.join(f'{v:.2f}' for v in values)})"
        )
    print("before the first frame (median of each part's time after the part before):")
    previous = None
    for step, what in PARTS:
        spans = [
            s[step] - (s[previous] if previous else 0.0)
            for s in samples
            if step in s and (not previous or previous in s)
        ]
        if spans:
            print(f"  {statistics.median(spans):5.2f} s  {what}")
        previous = step


if __name__ == "__main__":
    main()
