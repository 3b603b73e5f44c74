"""Screenshots of the Compare tab with the two shipped GPU sessions (the H200 replay and the H100 recording), as
docs/guide/app.md links them: OUTDIR/tab-compare-two-gpus-WxH[-projector].png at 1280×720 and 1920×1080, normal
and projector type, grabbed from the window (offscreen; no X display needed).

    PYTHONPATH=$PWD QT_QPA_PLATFORM=offscreen python3 tools/compare_shots.py docs

Settings go to a throw-away file; each shot waits for the window's queued work (no fixed timer)."""

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.paths import asset_path
from gemmviz.ui.window import MainWindow

SHOTS = (((1280, 720), False), ((1280, 720), True), ((1920, 1080), False), ((1920, 1080), True))
SECOND_GPU = "h100-2026-12-07.json"


def settle(app: QApplication, window: MainWindow, condition=lambda: True, limit: int = 200000) -> None:
    for _ in range(limit):
        app.processEvents()
        if condition() and not window.projector_pending.isActive():
            break
    app.processEvents()


def main(out: Path) -> list[Path]:
    app = QApplication.instance() or QApplication([])
    folder = tempfile.mkdtemp(prefix="gemmviz-shots-")
    settings = QSettings(str(Path(folder) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(backends={"cpu": CpuBackend()}, settings=settings, load_recorded_without_gpu=True)
    window.show()
    settle(app, window, lambda: bool(window.workspace.sessions))  # the H200 replay
    window.workspace.open(asset_path("sessions", SECOND_GPU))
    window.workspace.set_hidden([])  # every series: the pairs whose configurations differ too
    settle(app, window, lambda: window.tabs_built)
    window.tabs.setCurrentWidget(window.compare)
    written = []
    for (w, h), projector in SHOTS:
        window.set_projector(projector)
        window.resize(w, h)
        settle(app, window)
        path = out / f"tab-compare-two-gpus-{w}x{h}{'-projector' if projector else ''}.png"
        window.grab().save(str(path))
        written.append(path)
    window.set_projector(False)
    window.close()
    return written


if __name__ == "__main__":
    for p in main(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(p)
