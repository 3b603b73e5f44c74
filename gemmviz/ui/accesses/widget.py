"""The access views' panel: the coalescing or the bank view of recorded accesses (the shipped H200 records unless
set_records gives others), the warp and request to look at, and Export."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QSpinBox, QVBoxLayout, QWidget

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses.canvas import AccessCanvas
from gemmviz.ui.accesses.export import export_access_view
from gemmviz.ui.accesses.views import default_panels, footer
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme


class AccessViews(QWidget):
    """A self-contained panel: the coalescing or the bank view of recorded accesses (the shipped H200 records
    unless set_records gives others), a warp to look at, and Export (PNG/SVG)."""

    def __init__(self, parent=None, records: acc.AccessFile | None = None, theme: Theme | None = None):
        super().__init__(parent)
        self.records = records if records is not None else acc.shipped_file()
        self.canvas = AccessCanvas(self)
        if theme is not None:
            self.canvas.theme = theme
        self.kind = QComboBox(self)
        self.kind.addItem(self.tr("Coalescing (global loads)"), "coalescing")
        self.kind.addItem(self.tr("Bank conflicts (shared stores)"), "banks")
        self.warp = QComboBox(self)
        for w in range(8):
            self.warp.addItem(self.tr("warp {0}").format(w), w)
        self.request = QSpinBox(self)
        self.request.setRange(0, 100_000)
        self.request.setSpecialValueText(self.tr("costliest request"))
        self.request.setPrefix(self.tr("request "))
        self.request.setToolTip(
            self.tr("0: the costliest request of each kernel; 1, 2, …: the warp's requests in order")
        )
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.source = QLabel(self)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.source.setWordWrap(True)  # where the records come from: wraps, never widening the window
        self.source.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind.setMinimumContentsLength(28)  # the whole item: the source line is under the view now
        row = QHBoxLayout()
        for widget in (self.kind, self.warp, self.request, self.export_button):
            row.addWidget(widget)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.source)  # under the view, as the block replay's: a line, not three beside the controls
        self.kind.currentIndexChanged.connect(self.refresh)
        self.warp.currentIndexChanged.connect(self.refresh)
        self.request.valueChanged.connect(self.refresh)
        self.export_button.clicked.connect(self._export)
        self.refresh()

    def set_records(self, records: acc.AccessFile | None) -> None:
        self.records = records
        self.refresh()

    def set_theme(self, theme: Theme) -> None:
        self.canvas.theme = theme
        self.canvas.update()

    def refresh(self) -> None:
        kind = self.kind.currentData()
        self.canvas.kind = kind
        nth = self.request.value() - 1 if self.request.value() else None
        self.canvas.panels = (
            default_panels(kind, self.records, self.warp.currentData() or 0, nth) if self.records else []
        )
        # named as the access records' own: the window's banner names the replayed session, of another date
        words = self.tr("access records: {0}").format(footer(self.records)) if self.records else None
        self.source.setText(words or self.tr("no access records"))
        self.canvas.update()

    def _export(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        from gemmviz.core import export_formats

        path, _ = QFileDialog.getSaveFileName(
            self,
            self.tr("Export view"),
            f"{self.canvas.kind}.png",
            export_formats.file_filter(export_formats.CHART, tr),
        )
        if not path:
            return
        try:
            nth = self.request.value() - 1 if self.request.value() else None
            export_access_view(
                self.canvas.kind,
                path,
                theme=self.canvas.theme,
                records=self.records,
                warp=self.warp.currentData() or 0,
                nth=nth,
            )
        except Exception as exc:  # an unwritable file, a refused size: said, never raised into Qt
            QMessageBox.warning(self, self.tr("Export failed"), str(exc))
