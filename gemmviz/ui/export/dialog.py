"""File ▸ Export chart (which chart kind, at which pixel size, in which format) and File ▸ Export animation, from what
the window shows."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QLabel

from gemmviz.core import export_formats
from gemmviz.core.charts.kinds import HARDWARE_KINDS, ChartView
from gemmviz.core.parsing import parse_pixels
from gemmviz.core.problem import ProblemError
from gemmviz.ui.charts import kinds as chart_kinds
from gemmviz.ui.export.exporters import ExportError, export_chart, workspace_footer
from gemmviz.ui.text import tr

PRESETS = ["1920x1080", "3840x2160", "1280x720", "2560x1440"]


def export_chart_of(window, kind: str, path: str, width: int, height: int) -> bool:
    """Export one of the window's charts as it is shown (results, sources, theme, speedup view)."""
    from gemmviz.core.hardware.roofline import load_ceilings

    ws = window.workspace
    shown = window.roofline_tab.drawn_results() if kind == "roofline" else ws.shown()
    view = window.charts_tab.chart_view()
    picked = window.hardware_tab.current() if kind in HARDWARE_KINDS else None
    if picked is not None and getattr(picked, HARDWARE_KINDS[kind][0], None):
        # a chart of one result: the one the Hardware tab shows (not the speedup chart's size), and its session
        shown = [picked]
        view = ChartView(view.baseline, picked.problem.key, view.source, view.source_of)
    gpu = ws.roofline_gpu(ws.shown())
    ceilings = load_ceilings(gpu) if gpu else None
    footer = workspace_footer(ws, shown, window.lang)
    try:
        export_chart(kind, shown, path, width, height, window.theme, ceilings, view, footer)
    except (ExportError, ProblemError, OSError) as exc:
        window.show_error(tr("Cannot export"), str(exc))
        return False
    window.statusBar().showMessage(tr("Exported the {kind} chart to {path}").format(kind=kind, path=path), 5000)
    return True


def export_animation_of(window, path: str, width: int = 1280, height: int = 720):
    """Export the animation tab's schedule in the registered format the path names (GIF, MP4, one PNG of the frame
    shown, or a folder of PNG frames for a path without a format's suffix), in a worker with a progress dialog
    and Cancel (ui/export/animation.py); the export under way, or None where it was refused at once."""
    from gemmviz.ui.export.animation import start_animation_export

    return start_animation_export(window, path, width, height)


def export_animation_dialog(window) -> None:
    path, _ = QFileDialog.getSaveFileName(
        window, tr("Export animation"), "tiling.gif", export_formats.file_filter(export_formats.ANIMATION, tr)
    )
    if path:
        export_animation_of(window, path)


def kind_on_screen(window) -> str | None:
    """The chart kind the window shows now: the Charts tab's "show" choice (GFLOP/s where it shows all four),
    the roofline on the Roofline tab; None elsewhere."""
    tab = window.tabs.currentWidget()
    if tab is window.roofline_tab:
        return "roofline"
    if tab is window.charts_tab:
        from gemmviz.ui.charts.tab import ALL

        shown = window.charts_tab.show_combo.currentData()
        return "gflops" if shown == ALL else shown
    return None


class ExportDialog(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.setWindowTitle(tr("Export chart"))
        self.chart = QComboBox()
        for kind in chart_kinds.kinds():
            self.chart.addItem(tr(kind.label), kind.name)
            self.chart.setItemData(self.chart.count() - 1, tr(kind.description), Qt.ItemDataRole.ToolTipRole)
        shown = kind_on_screen(window)  # the chart the user is looking at, not always "time"
        if shown is not None and self.chart.findData(shown) >= 0:
            self.chart.setCurrentIndex(self.chart.findData(shown))
        self.size_combo = QComboBox()
        self.size_combo.setEditable(True)
        self.size_combo.addItems(PRESETS)
        self.message = QLabel()
        self.message.setStyleSheet("color: #B00020;")
        form = QFormLayout(self)
        form.addRow(tr("chart"), self.chart)
        form.addRow(tr("size (pixels)"), self.size_combo)
        form.addRow(
            QLabel(
                tr(
                    "Fonts and lines scale with the size: 4K is the 1080p layout, twice as sharp.\n"
                    "The current theme (projector, dark) is used; a footer says where the numbers come from."
                )
            )
        )
        form.addRow(self.message)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _save(self) -> None:
        try:
            width, height = parse_pixels(self.size_combo.currentText())
        except ProblemError as exc:
            self.message.setText(str(exc))
            return
        kind = self.chart.currentData()
        first = export_formats.formats(export_formats.CHART)[0].suffix
        path, _ = QFileDialog.getSaveFileName(
            self, tr("Export chart"), f"{kind}{first}", export_formats.file_filter(export_formats.CHART, tr)
        )
        if path and export_chart_of(self.window, kind, path, width, height):
            self.accept()
