"""Screenshots of every tab of the real window on an X display, as a teacher would see it.

    Xvfb :99 -screen 0 1280x720x24 & DISPLAY=:99 python3 tools/screens.py OUTDIR [--projector]

The window opens maximised (no GPU here: it replays the recorded H200 session), each tab is shown in turn and
the whole screen is captured with ImageMagick's `import -window root`, as OUTDIR/tab-NAME-WxH[-projector].png
(the names docs/ uses); then the Tiling tab with each animated kernel (tab-tiling-VARIANT-…) and each of
the Hardware tab's views (tab-hardware-viewK-…). Settings go to a throw-away file; the run waits for each tab's redraws to finish.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gemmviz.backends import default_backends
from gemmviz.ui.window import MainWindow

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
projector = "--projector" in sys.argv
app = QApplication(sys.argv[:1])
settings = QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat)
w = MainWindow(default_backends(), settings=settings)
w.showMaximized()
if projector:
    w.set_projector(True)
w.setGeometry(app.primaryScreen().availableGeometry())  # no window manager on Xvfb to maximise it


def pump(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def settle() -> None:
    """Until the staged redraws and a trace prepared in steps are done, then a little more for the X server."""
    end = time.monotonic() + 30
    while time.monotonic() < end and (
        w.charts_tab.refresh_pending
        or w.hardware_tab.trace_chart.preparing
        or w.projector_pending.isActive()
        or not w.workspace.sessions
    ):
        pump(0.05)
    pump(1.0)


settle()
screen = app.primaryScreen().geometry()
suffix = f"-{screen.width()}x{screen.height()}" + ("-projector" if projector else "")
for i in range(w.tabs.count()):
    w.tabs.setCurrentIndex(i)
    settle()
    name = w.tabs.tabText(i).replace("&", "").lower().split()[0]
    subprocess.run(["import", "-window", "root", str(out / f"tab-{name}{suffix}.png")], check=True)
# the Tiling tab with each animated kernel, and the Hardware tab's other views
w.tabs.setCurrentWidget(w.tiling)
combo = w.tiling.variant_combo
for k in range(combo.count()):
    combo.setCurrentIndex(k)
    settle()
    name = combo.itemData(k)
    subprocess.run(["import", "-window", "root", str(out / f"tab-tiling-{name}{suffix}.png")], check=True)
w.tabs.setCurrentWidget(w.hardware_tab)
views = w.hardware_tab.view_combo
for k in range(views.count()):
    views.setCurrentIndex(k)
    settle()
    subprocess.run(["import", "-window", "root", str(out / f"tab-hardware-view{k}{suffix}.png")], check=True)
w.recovery.ask = False
w.close()
