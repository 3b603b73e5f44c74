"""Screenshots of every tab of the real window on an X display, as a teacher would see it.

    Xvfb :99 -screen 0 1280x720x24 & DISPLAY=:99 python3 tools/screens.py OUTDIR [--projector]

The window opens maximised (no GPU here: it replays the recorded H200 session), each tab is shown in turn and
the whole screen is captured with ImageMagick's `import -window root`, as OUTDIR/tab-NAME-WxH[-projector].png
(the names docs/ uses); then the Tiling tab with each animated kernel (tab-tiling-VARIANT-…) and each of
the Hardware tab's views (tab-hardware-viewK-…). Settings go to a throw-away file; the run waits for each tab's redraws to finish.
The first tab is also saved as OUTDIR/app-WxH[-projector].png, and OUTDIR/screens.txt names the date, the
commit and every file the run wrote, so a screenshot older than the window's last change is known.

All of docs/' window screenshots, in one command (it starts Xvfb itself, for each screen docs/ uses):

    python3 tools/screens.py --all docs
"""

import datetime
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gemmviz.backends import default_backends
from gemmviz.ui.window import MainWindow

# (screen, projector) of every screenshot docs/ links to
ALL = (("1280x720", False), ("1280x720", True), ("1920x1080", True))


def run_all(out: Path, display: str = ":99") -> None:
    """Each screen of ALL on its own Xvfb, one run of this script for it; screens.txt lists them all."""
    written: list[str] = []
    for screen, projector in ALL:
        xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{screen}x24"], stderr=subprocess.DEVNULL)
        try:
            time.sleep(1.0)  # Xvfb has no readiness signal; the first X client retries anyway
            env = dict(os.environ, DISPLAY=display)
            args = [sys.executable, __file__, str(out)] + (["--projector"] if projector else [])
            subprocess.run(args, env=env, check=True)
            written += (out / "screens.txt").read_text().splitlines()[3:]
        finally:
            xvfb.terminate()
            xvfb.wait()
    write_manifest(out, written)


def write_manifest(out: Path, names: list[str]) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = [f"made by tools/screens.py on {when}", f"commit {commit or 'unknown'}", "files:"]
    (out / "screens.txt").write_text("\n".join(head + names) + "\n")


if sys.argv[1:2] == ["--all"]:
    run_all(Path(sys.argv[2]))
    sys.exit(0)

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
written: list[str] = []


def shoot(name: str) -> None:
    subprocess.run(["import", "-window", "root", str(out / name)], check=True)
    written.append(name)


for i in range(w.tabs.count()):
    w.tabs.setCurrentIndex(i)
    settle()
    name = w.tabs.tabText(i).replace("&", "").lower().split()[0]
    shoot(f"tab-{name}{suffix}.png")
    if i == 0:
        shoot(f"app{suffix}.png")
# the Tiling tab with each animated kernel, and the Hardware tab's other views
w.tabs.setCurrentWidget(w.tiling)
combo = w.tiling.variant_combo
for k in range(combo.count()):
    combo.setCurrentIndex(k)
    settle()
    name = combo.itemData(k)
    shoot(f"tab-tiling-{name}{suffix}.png")
w.tabs.setCurrentWidget(w.hardware_tab)
views = w.hardware_tab.view_combo
for k in range(views.count()):
    views.setCurrentIndex(k)
    settle()
    shoot(f"tab-hardware-view{k}{suffix}.png")
w.recovery.ask = False
w.close()
write_manifest(out, written)
