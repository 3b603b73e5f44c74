"""Access views and other drawings written to files, in the registered chart format their path's suffix names
(PNG, SVG, any image format: exporters.chart_writer), as a chart is: laid out at the 1080p-equivalent size,
painted through the format's writer, with a footer naming the GPU and date."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses.canvas import AccessCanvas
from gemmviz.ui.accesses.views import KINDS, default_panels, footer
from gemmviz.ui.theme import PROJECTOR_LIGHT, Theme


class DrawingCanvas(QWidget):
    """A drawing, `draw(painter, rect)`, as a widget the chart formats' writers export through its `paint_export`
    (ui/export/exporters.paint_charts): PNG, SVG and every other registered chart format, one exporter."""

    def __init__(self, draw, parent=None):
        super().__init__(parent)
        self.draw = draw

    def paint_export(self, painter: QPainter) -> None:
        self.draw(painter, QRectF(0, 0, self.width(), self.height()))


def export_drawing(draw, path: str | os.PathLike, width: int, height: int, theme: Theme, text: str) -> Path:
    """Write `draw(painter, rect)` at width x height (the 1080p layout, scaled: 4K is 1080p doubled) with `text` as
    the footer, in the registered chart format its path's suffix names (exporters.chart_writer), as a chart."""
    from gemmviz.ui.export.exporters import chart_writer, check_size

    check_size(width, height)
    target, writer = chart_writer(path)
    canvas = DrawingCanvas(draw)
    try:
        writer.write(canvas, target, width, height, theme, text)
    finally:
        canvas.deleteLater()
    return target


def export_access_view(
    kind: str,
    path: str | os.PathLike,
    width: int = 1920,
    height: int = 1080,
    theme: Theme = PROJECTOR_LIGHT,
    records: acc.AccessFile | None = None,
    warp: int = 0,
    nth: int | None = None,
) -> Path:
    """Write the coalescing or bank view of `warp`'s requests (its `nth` in issue order; None: its costliest, see
    default_panels) in the registered chart format its path's suffix names (PNG, SVG), as export_chart writes a
    chart: the canvas laid out at the 1080p-equivalent size, painted through the format's writer."""
    from gemmviz.ui.export.exporters import ExportError, chart_writer, check_size

    if kind not in KINDS:
        raise ExportError(f"unknown view {kind!r}; choose {' or '.join(KINDS)}")
    check_size(width, height)
    target, writer = chart_writer(path)
    records = records or acc.shipped_file()
    if records is None:
        raise ExportError("no access records: record some with gemmviz profile --accesses")
    canvas = AccessCanvas()
    canvas.kind, canvas.panels, canvas.theme = kind, default_panels(kind, records, warp, nth), theme
    try:
        writer.write(canvas, target, width, height, theme, footer(records))
    finally:
        canvas.hide()
        canvas.deleteLater()
    return target
