"""File ▸ Export chart: which chart, at which pixel size, PNG or SVG."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QLabel

from gemmviz.core.problem import ProblemError

PRESETS = ["1920x1080", "3840x2160", "1280x720", "2560x1440"]


class ExportDialog(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.setWindowTitle("Export chart")
        self.chart = QComboBox()
        self.chart.addItems(["time", "gflops", "speedup", "roofline", "dashboard"])
        self.size = QComboBox()
        self.size.setEditable(True)
        self.size.addItems(PRESETS)
        self.message = QLabel()
        self.message.setStyleSheet("color: #B00020;")
        form = QFormLayout(self)
        form.addRow("chart", self.chart)
        form.addRow("size (pixels)", self.size)
        form.addRow(QLabel("Fonts and lines scale with the size: 4K looks like 1080p, only sharper.\n"
                           "The current theme (projector, dark) is used."))  # fmt: skip
        form.addRow(self.message)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _save(self) -> None:
        from gemmviz.cli_extra import parse_pixels

        try:
            width, height = parse_pixels(self.size.currentText())
        except ProblemError as exc:
            self.message.setText(str(exc))
            return
        kind = self.chart.currentText()
        path, _ = QFileDialog.getSaveFileName(
            self, "Export chart", f"{kind}.png", "PNG image (*.png);;SVG drawing (*.svg)"
        )
        if path and self.window.export_chart(kind, path, width, height):
            self.accept()
