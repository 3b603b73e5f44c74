"""File ▸ Export chart (which chart, at which pixel size, PNG or SVG) and File ▸ Export animation, from what
the window shows."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QLabel

from gemmviz.core.parsing import parse_pixels
from gemmviz.core.problem import ProblemError
from gemmviz.core.views import CHART_KINDS
from gemmviz.ui.text import QT_TRANSLATE_NOOP, origin_words, tr

PRESETS = ["1920x1080", "3840x2160", "1280x720", "2560x1440"]
# core/views.py's CHART_KINDS as the dialog names them (the kind itself, as `gemmviz export` spells it, is the data)
KIND_NAMES = {
    "time": QT_TRANSLATE_NOOP("", "time"),
    "gflops": QT_TRANSLATE_NOOP("", "GFLOP/s"),
    "speedup": QT_TRANSLATE_NOOP("", "speedup"),
    "roofline": QT_TRANSLATE_NOOP("", "roofline"),
    "dashboard": QT_TRANSLATE_NOOP("", "dashboard"),
    "traffic": QT_TRANSLATE_NOOP("", "traffic"),
    "sm-trace": QT_TRANSLATE_NOOP("", "sm-trace"),
}
# core/views.py's CHART_KINDS descriptions, for the catalogue (the dialog shows them through tr())
KIND_TEXTS = (
    QT_TRANSLATE_NOOP("", "median time vs size (log-log)"),
    QT_TRANSLATE_NOOP("", "GFLOP/s vs size (log-log)"),
    QT_TRANSLATE_NOOP("", "speedup bars vs a baseline at one size"),
    QT_TRANSLATE_NOOP("", "GFLOP/s vs arithmetic intensity under the GPU's ceilings"),
    QT_TRANSLATE_NOOP("", "time, GFLOP/s, speedup and roofline on one 2x2 page"),
    QT_TRANSLATE_NOOP("", "the model's traffic beside the hardware counters, per memory level (a profiled result)"),
    QT_TRANSLATE_NOOP("", "thread blocks on the SMs over time, in waves (a traced result)"),
)


def export_chart_of(window, kind: str, path: str, width: int, height: int) -> bool:
    """Export one of the window's charts as it is shown (results, sources, theme, speedup view)."""
    from gemmviz.core.roofline import load_ceilings
    from gemmviz.ui.export.exporters import ExportError, export_chart, workspace_footer

    ws = window.workspace
    shown = window.roofline_tab.chart.results if kind == "roofline" else ws.shown()
    gpu = ws.roofline_gpu(ws.shown())
    try:
        export_chart(kind, shown, path, width, height, window.theme, load_ceilings(gpu) if gpu else None,
                     window.charts_tab.speedup_view(), ws.source_of, footer=origin_words(workspace_footer(ws, shown)))  # fmt: skip
    except (ExportError, ProblemError, OSError) as exc:
        window.show_error(tr("Cannot export"), str(exc))
        return False
    window.statusBar().showMessage(tr("Exported the {kind} chart to {path}").format(kind=kind, path=path), 5000)
    return True


def export_animation_of(window, path: str, width: int = 1280, height: int = 720) -> bool:
    """Export the animation tab's schedule as GIF, MP4 or a folder of PNG frames, by the path's suffix."""
    from gemmviz.ui.export.exporters import ExportError, export_frames, export_gif, export_mp4

    tiling = window.tiling
    if tiling.schedule is None:
        window.show_error(
            tr("Cannot export"), tr("There is no animation to export: choose a valid size and tile first.")
        )
        return False
    thread = (tiling.thread_y.value(), tiling.thread_x.value())
    speed = tiling.speed_spin.value()
    try:
        if path.lower().endswith(".gif"):
            n = export_gif(tiling.schedule, path, thread, width, height, speed, window.theme)
        elif path.lower().endswith(".mp4"):
            n = export_mp4(tiling.schedule, path, thread, width, height, speed, window.theme)
        else:
            n = export_frames(tiling.schedule, path, thread, width, height, window.theme)
    except (ExportError, ProblemError, OSError) as exc:
        window.show_error(tr("Cannot export the animation"), str(exc))
        return False
    window.statusBar().showMessage(tr("Exported {n} frames to {path}").format(n=n, path=path), 5000)
    return True


def export_animation_dialog(window) -> None:
    path, _ = QFileDialog.getSaveFileName(
        window, tr("Export animation"), "tiling.gif",
        tr("Animated GIF (*.gif);;MP4 video (*.mp4);;PNG frames (folder) (*)"),
    )  # fmt: skip
    if path:
        export_animation_of(window, path)


class ExportDialog(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.setWindowTitle(tr("Export chart"))
        self.chart = QComboBox()
        for kind, what in CHART_KINDS.items():
            self.chart.addItem(tr(KIND_NAMES.get(kind, kind)), kind)
            self.chart.setItemData(self.chart.count() - 1, tr(what), Qt.ItemDataRole.ToolTipRole)
        self.size = QComboBox()
        self.size.setEditable(True)
        self.size.addItems(PRESETS)
        self.message = QLabel()
        self.message.setStyleSheet("color: #B00020;")
        form = QFormLayout(self)
        form.addRow(tr("chart"), self.chart)
        form.addRow(tr("size (pixels)"), self.size)
        form.addRow(QLabel(tr("Fonts and lines scale with the size: 4K is the 1080p layout, twice as sharp.\n"
                              "The current theme (projector, dark) is used; a footer says where the numbers come from.")))  # fmt: skip
        form.addRow(self.message)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _save(self) -> None:
        try:
            width, height = parse_pixels(self.size.currentText())
        except ProblemError as exc:
            self.message.setText(str(exc))
            return
        kind = self.chart.currentData()
        path, _ = QFileDialog.getSaveFileName(
            self, tr("Export chart"), f"{kind}.png", tr("PNG image (*.png);;SVG drawing (*.svg)")
        )
        if path and export_chart_of(self.window, kind, path, width, height):
            self.accept()
