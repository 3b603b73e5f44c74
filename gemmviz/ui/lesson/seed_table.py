"""The seed's table on a slide: one row per series, one column per size, each cell the median time and how many
times faster than the baseline. Drawn by one function for the window (TableView) and the slide export, and
sized from its rectangle alone, so both show the same table; every text drawn is returned for the tests."""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from gemmviz.core.charts.style import series_styles
from gemmviz.core.lesson.lessons import StepTable
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme

Text = tuple[str, QRectF]


def _font(px: float, bold: bool = False) -> QFont:
    return pixel_font(px, bold, minimum=8, nearest=True)  # as the slide's words around it (lesson.render.font)


CENTER = Qt.AlignmentFlag.AlignCenter
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


def _width(text: str, f: QFont) -> float:
    return QFontMetricsF(f).horizontalAdvance(text)


def _line(texts, f: QFont) -> float:
    """The height of one line of these texts: a CJK fallback font's line is taller than the Latin font's
    (the zh table's "毫秒" over "倍" ran into each other)."""
    metrics = QFontMetricsF(f)
    box = QRectF(0, 0, 1e6, 1e6)
    return max([metrics.height()] + [metrics.boundingRect(box, int(CENTER), t).height() for t in texts if t])


ROW_LINES = 2.35  # a row's height in its cells' lines: time and × with room around them


def _geometry(table: StepTable, rect: QRectF) -> tuple[float, float, float, float, float]:
    """Font px, label column width, size column width, row height, header height: the largest type (up to a
    ninth of the height) at which the table and its caption fit the rectangle."""
    rows = len(table.rows)
    px = min(rect.height() / (2.9 * rows + 3.2), rect.height() / 9)
    while True:
        regular, bold = _font(px), _font(px, True)
        cells = [c for _, row in table.rows for c in row]
        line = max(_line([c.time for c in cells], regular), _line([c.ratio for c in cells], bold))
        swatch = 0.9 * px
        label_w = swatch * 1.6 + max(_width(name, regular) for name, _ in table.rows) + px
        col_w = px * 1.2 + max(
            [_width(f"{n}³", bold) for n in table.sizes]
            + [_width(c.time, regular) for c in cells]
            + [_width(c.ratio, bold) for c in cells]
        )
        row_h, header_h = ROW_LINES * line, 1.5 * line
        fits_w = label_w + len(table.sizes) * col_w <= rect.width()
        fits_h = header_h + rows * row_h + 1.6 * QFontMetricsF(_font(0.75 * px)).height() <= rect.height()
        if (fits_w and fits_h) or px <= 9:
            return px, label_w, col_w, row_h, header_h
        px *= 0.93


POLYGON_SIDES = {"p": 5, "h": 6}  # the style table's markers past the first four


def draw_marker(painter: QPainter, r: QRectF, marker: str, colour: QColor) -> None:
    """A row's swatch in its series' colour and marker (as the charts draw it), so two rows of one kernel
    (measured, published) keep its colour and still differ."""
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    c, h = r.center(), r.width() / 2
    if marker == "o":
        painter.drawEllipse(c, h, h)
    elif marker == "s":
        painter.drawRect(r.adjusted(h * 0.1, h * 0.1, -h * 0.1, -h * 0.1))
    elif marker in POLYGON_SIDES:  # pentagon, hexagon: a regular polygon, a corner up
        n = POLYGON_SIDES[marker]
        angles = (math.pi * (2 * i / n - 0.5) for i in range(n))
        painter.drawPolygon(QPolygonF([QPointF(c.x() + h * math.cos(a), c.y() + h * math.sin(a)) for a in angles]))
    else:
        pts = (
            [QPointF(c.x(), r.top()), QPointF(r.right(), c.y()), QPointF(c.x(), r.bottom()), QPointF(r.left(), c.y())]
            if marker == "d"
            else [QPointF(c.x(), r.top()), QPointF(r.right(), r.bottom()), QPointF(r.left(), r.bottom())]
        )
        painter.drawPolygon(QPolygonF(pts))
    painter.restore()


def draw_table(painter: QPainter, rect: QRectF, table: StepTable, theme: Theme) -> list[Text]:
    texts: list[Text] = []
    if not table.rows or not table.sizes:
        return texts
    px, label_w, col_w, row_h, header_h = _geometry(table, rect)
    # spare width goes to the size columns (up to 1.6x each), and the table is centred
    col_w = min(col_w * 1.6, max(col_w, (rect.width() - label_w) / len(table.sizes)))
    width = label_w + len(table.sizes) * col_w
    x0 = rect.left() + (rect.width() - width) / 2
    fg = QColor(theme.foreground)
    dim = QColor(fg)
    dim.setAlpha(150)
    band = QColor(fg)
    band.setAlpha(18)
    regular, bold, small = _font(px), _font(px, True), _font(0.75 * px)

    def text(r: QRectF, flags, s: str, f: QFont, colour: QColor) -> None:
        if not s:
            return
        painter.setFont(f)
        painter.setPen(QPen(colour))
        painter.drawText(r, int(flags), s)
        texts.append((s, painter.boundingRect(r, int(flags), s)))

    y = rect.top()
    for i, n in enumerate(table.sizes):
        text(QRectF(x0 + label_w + i * col_w, y, col_w, header_h), CENTER, f"{n}³", bold, fg)
    y += header_h
    painter.setPen(QPen(dim, max(1.0, px / 14)))
    painter.drawLine(int(x0), int(y), int(x0 + width), int(y))
    line = row_h / ROW_LINES  # the cells' line, as _geometry measured it
    styles = series_styles(name for name, _cells in table.rows)  # no two rows share a colour
    for j, (name, cells) in enumerate(table.rows):
        if j % 2 == 0:
            painter.fillRect(QRectF(x0, y, width, row_h), band)
        swatch = 0.9 * px
        draw_marker(
            painter,
            QRectF(x0 + 0.3 * px, y + (row_h - swatch) / 2, swatch, swatch),
            styles[name].marker,
            QColor(theme.color(styles[name].colour)),
        )
        text(QRectF(x0 + swatch * 1.6, y, label_w - swatch * 1.6, row_h), LEFT, name, regular, fg)
        for i, cell in enumerate(cells):
            left = x0 + label_w + i * col_w
            top = y + (row_h - 2 * line) / 2
            text(QRectF(left, top, col_w, line), CENTER, cell.time, regular, dim if cell.time == "—" else fg)
            text(QRectF(left, top + line, col_w, line), CENTER, cell.ratio, bold, fg)
        y += row_h
    caption = (
        tr("Median time per product; × = the time over the size before (each doubling of N is 8× the work)")
        if table.growth
        else tr("Median time per product; × = times faster than the {baseline} at the same size").format(
            baseline=tr(table.baseline_label)
        )
    )
    if table.one_run:
        caption += tr("; * one timed run, not a median")
    caption = re.sub(r"(?<=[\u3400-\u9fff]) +(?=[\u3400-\u9fff])", "", caption)  # "CPU 循环 的": no space between hanzi
    cap = QRectF(x0, y + 0.3 * line, max(width, 1.0), QFontMetricsF(small).height() * 1.2)
    metrics = QFontMetricsF(small)
    if metrics.horizontalAdvance(caption) > rect.width():
        caption = metrics.elidedText(caption, Qt.TextElideMode.ElideRight, rect.width())
        cap = QRectF(rect.left(), cap.top(), rect.width(), cap.height())
    text(cap, CENTER, caption, small, dim)
    return texts


class TableView(QWidget):
    """A step's table in the window: the same drawing as the slide export."""

    def __init__(self, table: StepTable, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.table, self.theme = table, theme
        self.texts: list[Text] = []

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(self.theme.background))
        self.texts = draw_table(painter, QRectF(self.rect()), self.table, self.theme)
        painter.end()
