"""Layout checks shared by the UI tests: every text a view shows lies inside the view, and no two overlap.

Text is collected from three places, each in the coordinates of the top-level widget checked:
- Qt widgets that show text (labels, buttons, group boxes, combo boxes, tab bars, spin boxes);
- pyqtgraph plots: axis tick labels (from the axis's own draw specs), axis labels, titles, legend entries and
  text items in the scene;
- views drawn with QPainter report their texts themselves (a list of (text, QRectF) the render fills in).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QGraphicsTextItem,
    QGroupBox,
    QLabel,
    QTabBar,
    QWidget,
)

Text = tuple[str, QRectF]


def _visible(w: QWidget) -> bool:
    return w.isVisibleTo(w.window()) and w.width() > 0 and w.height() > 0


def _to_top(w: QWidget, rect: QRect, top: QWidget) -> QRectF:
    return QRectF(rect.translated(w.mapTo(top, QPoint(0, 0))))


def widget_texts(top: QWidget) -> list[Text]:
    """Texts of the widgets under `top` that are shown, with the rectangle the text really needs."""
    found: list[Text] = []
    for w in top.findChildren(QWidget):
        if not _visible(w):
            continue
        if isinstance(w, QLabel) and w.text():
            rect = w.contentsRect()
            if w.wordWrap() or w.textFormat() == Qt.TextFormat.RichText or "<" in w.text():
                need = rect  # wrapped or rich text: the label's own box (its size hint decides the height)
                if w.heightForWidth(w.width()) > rect.height() + 2:
                    need = QRect(rect.x(), rect.y(), rect.width(), w.heightForWidth(w.width()))
            else:
                need = w.fontMetrics().boundingRect(rect, int(w.alignment()), w.text())
            found.append((w.text(), _to_top(w, need, top)))
            if not QRectF(w.rect()).adjusted(-1, -1, 1, 1).contains(QRectF(need)):
                found.append((f"(clipped) {w.text()}", QRectF(-1e6, -1e6, 1, 1)))  # reported as outside
        elif isinstance(w, (QAbstractButton, QComboBox, QAbstractSpinBox)):
            text = w.currentText() if isinstance(w, QComboBox) else getattr(w, "text", lambda: "")()
            if text:
                found.append((text, _to_top(w, w.rect(), top)))
        elif isinstance(w, QGroupBox) and w.title():
            found.append((w.title(), _to_top(w, QRect(0, 0, w.width(), w.fontMetrics().height()), top)))
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                found.append((w.tabText(i), _to_top(w, w.tabRect(i), top)))
    return found


def plot_texts(plot_widget, top: QWidget) -> list[Text]:
    """Texts drawn by a pyqtgraph PlotWidget (or GraphicsLayoutWidget), mapped into `top`'s coordinates."""
    import pyqtgraph as pg

    found: list[Text] = []
    view = plot_widget
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        for item in view.scene().items():
            if not item.isVisible() or item.opacity() == 0:
                continue
            if isinstance(item, pg.AxisItem) and item.isVisible():
                if item.style.get("showValues", True):
                    painter.setFont(item.style.get("tickFont") or item.font())
                    specs = item.generateDrawSpecs(painter)
                    if specs is not None:
                        for rect, _flags, text in specs[2]:
                            found.append((text, item.mapRectToScene(QRectF(rect))))
            elif isinstance(item, QGraphicsTextItem) and item.toPlainText().strip():
                # titles, axis labels, legend entries, text items: all draw through a QGraphicsTextItem
                found.append((item.toPlainText(), item.mapRectToScene(item.boundingRect())))
    finally:
        painter.end()
    offset = view.mapTo(top, QPoint(0, 0))
    out = []
    for text, scene_rect in found:
        poly = view.mapFromScene(scene_rect)
        out.append((text, QRectF(poly.boundingRect().translated(offset))))
    return out


def problems(texts: list[Text], bounds: QRectF, slack: float = 1.0) -> list[str]:
    """What is wrong: texts outside `bounds`, and pairs of texts that overlap (more than `slack` px)."""
    bad = []
    inner = bounds.adjusted(-slack, -slack, slack, slack)
    for text, rect in texts:
        if not inner.contains(rect):
            bad.append(f"outside: {text!r} at {rect.getRect()} (view {bounds.getRect()})")
    for i, (t1, r1) in enumerate(texts):
        for t2, r2 in texts[i + 1 :]:
            common = r1.intersected(r2)
            if common.width() > slack and common.height() > slack:
                bad.append(f"overlap: {t1!r} {r1.getRect()} and {t2!r} {r2.getRect()}")
    return bad
