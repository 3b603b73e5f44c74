"""Screenshot of the real app window on an X display (e.g. Xvfb) after a CPU sweep.

    Xvfb :99 -screen 0 1600x1000x24 & DISPLAY=:99 python3 tools/screenshot_app.py OUT.png [--tiling OUT2.png]
    DISPLAY=:99 python3 tools/screenshot_app.py OUT.png --startup     (the window as it opens, nothing run)

Uses a throw-away settings file, runs a CPU sweep through the normal Sweep button path, waits for the
results, then takes the picture with ImageMagick's `import -window root` (what is really on the display).
"""

import subprocess
import sys
import tempfile
import time

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gemmviz.backends import default_backends
from gemmviz.ui.app import keep_gc_quiet
from gemmviz.ui.window import MainWindow

out = sys.argv[1]
tiling_out = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--tiling" else None
app = QApplication(sys.argv[:1])
settings = QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat)
w = MainWindow(default_backends(), settings=settings)
keep_gc_quiet(w)
w.setGeometry(0, 0, 1600, 1000)
w.show()


def pump(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


pump(2.0)
if "--startup" in sys.argv:
    subprocess.run(["import", "-window", "root", out], check=True)
    print(f"wrote {out}: startup, {len(w.shown_results())} results shown")
    w.close()
    sys.exit(0)
w.run_panel.set_selected_variants(["cpu-naive", "cpu-blas"])
w.run_panel.sweep_edit.setText("64,128,192,256,384,512")
w.run_panel.repeats_spin.setValue(5)
w.run_sweep()
while w.running or w.charts_tab.refresh_pending:
    pump(0.1)
pump(1.0)
subprocess.run(["import", "-window", "root", out], check=True)
print(f"wrote {out}: {len(w.workspace.live)} live results, {len(w.shown_results())} shown")
if tiling_out:
    w.tiling.set_problem(w.tiling.problem.__class__(256, 256, 256), tile=16)
    w.tiling.block_y.setValue(3)
    w.tiling.block_x.setValue(5)
    w.tiling.thread_y.setValue(4)
    w.tiling.thread_x.setValue(9)
    w.tabs.setCurrentWidget(w.tiling)
    w.tiling.go(6)
    pump(1.0)
    subprocess.run(["import", "-window", "root", tiling_out], check=True)
    print(f"wrote {tiling_out}")
w.close()
