"""Screenshots of the Exercise tab showing a check the CPU emulator made (a failing tiled kernel with a printf:
tests/data/exercise_tab/tiled_printf.check.json), in projector type, in one language, on an X display:

    Xvfb :61 -screen 0 1280x720x24 & DISPLAY=:61 python3 tools/screens_exercise.py docs en

writes OUTDIR/exercise-emulated-WxH-projector-LANG.png (the window maximised: the verdicts), then the column
scrolled to the cause and the code with its cited lines (...-code.png) and to the findings and the kernel's printf
output (...-findings.png)."""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gemmviz.backends import default_backends
from gemmviz.ui import i18n
from gemmviz.ui.window import MainWindow

RECORD = Path(__file__).resolve().parent.parent / "tests" / "data" / "exercise_tab" / "tiled_printf.check.json"

out, lang = Path(sys.argv[1]), sys.argv[2]
app = QApplication(sys.argv[:1])
i18n.install(app, lang)
w = MainWindow(default_backends(), settings=QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat))
w.showMaximized()
w.set_projector(True)
w.setGeometry(app.primaryScreen().availableGeometry())


def pump(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


end = time.monotonic() + 30
while time.monotonic() < end and (w.projector_pending.isActive() or not w.workspace.sessions):
    pump(0.05)
assert w.open_exercise_check(RECORD)
pump(1.5)
screen = app.primaryScreen().geometry()
name = f"exercise-emulated-{screen.width()}x{screen.height()}-projector-{lang}"
subprocess.run(["import", "-window", "root", str(out / f"{name}.png")], check=True)
tab = w.exercise_tab
area = tab.source_view.parentWidget().parentWidget().parentWidget()  # the right column's scroll area
for part, widget in (("code", tab.cause), ("findings", tab.findings)):  # the column scrolled to each part
    area.verticalScrollBar().setValue(widget.y() - 4)
    pump(1.0)
    subprocess.run(["import", "-window", "root", str(out / f"{name}-{part}.png")], check=True)
w.recovery.ask = False
w.close()
