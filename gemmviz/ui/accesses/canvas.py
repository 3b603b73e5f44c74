"""One access view as a widget: everything it paints comes from views.draw_view, on screen and, through the chart
formats' writers (its paint_export), in an export."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from gemmviz.ui.accesses.panels import screen_font_px
from gemmviz.ui.accesses.views import draw_view
from gemmviz.ui.theme import PROJECTOR_LIGHT


class AccessCanvas(QWidget):
    """Paints one view; everything it draws comes from draw_view, on screen and, through the chart formats'
    writers, in an export."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.kind, self.panels, self.theme = "coalescing", [], PROJECTOR_LIGHT
        self.setMinimumSize(320, 180)  # the window fits 1280x720 in projector mode, Chinese too

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        px, floor = screen_font_px(self.theme, self.window().height())
        draw_view(p, QRectF(self.rect()), self.kind, self.panels, self.theme, px, floor)
        p.end()

    def paint_export(self, painter: QPainter) -> None:
        """The view through an export's painter (ui/export/exporters.paint_charts, which the chart formats'
        writers draw with), at the size the export laid the canvas out at: vectors into an SVG."""
        draw_view(painter, QRectF(0, 0, self.width(), self.height()), self.kind, self.panels, self.theme)
