"""What a projector shows badly, measured as the window paints (issue 20, item 6): every text below a size,
every text cut ("…" or beyond its view) and every two texts drawn over each other.

Texts come from three places: Qt widgets (their font and the room they give their text), pyqtgraph scenes
(axis ticks, titles, legends, text items) and every QPainter.drawText made while a custom-painted view paints,
caught as it is drawn, with the painter's font and transform, so a view need not report its own texts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QFontInfo, QFontMetricsF, QPainter, QPixmap, QRegion, QTextDocumentFragment
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QGraphicsTextItem,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTabBar,
    QTableView,
    QTableWidget,
    QTextEdit,
    QWidget,
)

ELLIPSIS = "…"


@dataclass
class Drawn:
    text: str
    px: float
    rect: QRectF  # in the widget's own coordinates
    where: str
    split: str = ""  # a word wider than the box it is wrapped in: Qt breaks it mid-word ("multiplicatio / n")


@dataclass
class Report:
    small: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    overlap: list[str] = field(default_factory=list)
    seen: int = 0  # how many texts were caught: a check that caught none checked nothing

    def all(self) -> list[str]:
        return self.small + self.cut + self.overlap


def _px(font, dpi: float, scale: float = 1.0) -> float:
    px = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * dpi / 72
    return px * scale


def _painted_widgets(top: QWidget) -> list[QWidget]:
    """Visible widgets of gemmviz's own whose paintEvent draws text (the animation, access views, traces…)."""
    out = []
    for w in [top, *top.findChildren(QWidget)]:
        if not (w.isVisibleTo(top.window()) and w.width() > 0 and w.height() > 0):
            continue
        cls = type(w)
        if cls.__module__.startswith("gemmviz.") and "paintEvent" in cls.__dict__:
            out.append(w)
    return out


def painted_texts(widget: QWidget) -> list[Drawn]:
    """Every text `widget` draws with QPainter.drawText, in its own coordinates (its children are not painted:
    each is checked on its own). A cached static part (the animation's Background pixmap) is dropped first, so
    its texts are drawn again."""
    for name, value in list(vars(widget).items()):
        if type(value).__name__ == "Background":
            setattr(widget, name, type(value)())
    return spied(lambda: paint_alone(widget), type(widget).__name__, widget)


def paint_alone(widget: QWidget) -> None:
    """Run `widget`'s own paintEvent, as its grab() would, without painting its children. A grab of the lesson
    view or the window painted every view inside it again, each of which is checked on its own; and the
    pyqtgraph axes that repainted their cached pictures then left their tick labels, in the picture's
    coordinates, among the window's own texts (their sizes and places are checked from the scene)."""
    pixmap = QPixmap(widget.size())
    widget.render(pixmap, QPoint(), QRegion(), QWidget.RenderFlag.DrawWindowBackground)


def spied(draw, where: str, widget: QWidget | None = None) -> list[Drawn]:
    """Every text drawn with QPainter.drawText while `draw()` runs, in the coordinates of the device drawn on;
    with `widget`, texts painted on another widget (a child painting itself) are left out."""
    seen: list[Drawn] = []
    original = QPainter.drawText

    def spy(painter, *args):
        text = next((a for a in args if isinstance(a, str)), "")
        device = painter.device()
        if widget is not None and isinstance(device, QWidget) and device is not widget:
            return original(painter, *args)  # a child widget painting itself: checked on its own
        if text.strip():
            seen.append(_drawn(painter, args, text, where))
        return original(painter, *args)

    QPainter.drawText = spy
    try:
        draw()
    finally:
        QPainter.drawText = original
    return seen


def _drawn(painter: QPainter, args, text: str, where: str) -> Drawn:
    font = painter.font()
    fm = QFontMetricsF(font)
    t = painter.worldTransform()
    scale = math.hypot(t.m21(), t.m22())
    first = args[0]
    if isinstance(first, QRectF) or type(first).__name__ == "QRect":
        box = QRectF(first)
        flags = next((a for a in args[1:] if isinstance(a, int) or hasattr(a, "value")), 0)
        flags = int(flags.value) if hasattr(flags, "value") else int(flags)
        need = painter.boundingRect(box, flags, text)
        if flags & int(Qt.TextFlag.TextWordWrap.value):
            split = split_word(text, fm, box.width())
            return Drawn(text, _px(font, painter.device().logicalDpiY(), scale), t.mapRect(need), where, split)
    else:
        at = QPointF(first) if not isinstance(first, (int, float)) else QPointF(first, args[1])
        need = QRectF(at.x(), at.y() - fm.ascent(), fm.horizontalAdvance(text), fm.ascent() + fm.descent())
    return Drawn(text, _px(font, painter.device().logicalDpiY(), scale), t.mapRect(need), where)


def _breakable(word: str) -> bool:
    """A word Qt may break between any two characters (Chinese, Japanese: no spaces between words)."""
    return any("\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\uffef" for ch in word)


def split_word(text: str, fm: QFontMetricsF, width: float) -> str:
    """The first word of `text` wider than `width` (wrapped there, Qt breaks it mid-word), or ""."""
    if width <= 0:
        return ""
    for word in text.split():
        if not _breakable(word) and fm.horizontalAdvance(word) > width + 0.5:
            return word
    return ""


def split_labels(top: QWidget) -> list[str]:
    """Word-wrapped QLabels of plain text that hold a word wider than their room: broken mid-word."""
    from PySide6.QtWidgets import QLabel

    out = []
    for label in top.findChildren(QLabel):
        if not (label.isVisibleTo(top.window()) and label.wordWrap() and label.width() > 0):
            continue
        if label.textFormat() == Qt.TextFormat.RichText or "<" in label.text():
            text = QTextDocumentFragment.fromHtml(label.text()).toPlainText()
        else:
            text = label.text()
        word = split_word(text, QFontMetricsF(label.font()), label.contentsRect().width() - 2 * label.margin())
        if word:
            out.append(f"split word: QLabel {word!r} in {label.contentsRect().width()} px ({text[:40]!r})")
    return out


def drawn_problems(texts: list[Drawn], bounds: QRectF | None, min_px: float, overlaps: bool = True) -> Report:
    """Small, cut and overlapping texts among `texts`, drawn in `bounds` (None: where they are is not known, as
    for a view rendered into a slide through its own painter state: only size and … are checked)."""
    report = Report()
    inner = bounds.adjusted(-1.5, -1.5, 1.5, 1.5) if bounds is not None else None
    for d in texts:
        if d.px and d.px < min_px - 0.01:
            report.small.append(f"{d.px:.1f} px: {d.where} {d.text[:50]!r}")
        if d.split:
            report.cut.append(f"split word: {d.where} {d.split!r} in {d.text[:50]!r}")
        if d.text.rstrip().endswith(ELLIPSIS):
            report.cut.append(f"elided: {d.where} {d.text[:60]!r}")
        elif inner is not None and not inner.contains(d.rect):
            report.cut.append(f"outside: {d.where} {d.text[:50]!r} {d.rect.getRect()} in {bounds.getRect()}")
    if overlaps:
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                common = a.rect.intersected(b.rect)
                if common.width() > 2 and common.height() > 2 and a.text != b.text:
                    report.overlap.append(f"{a.where}: {a.text[:40]!r} over {b.text[:40]!r}")
    return report


def plot_drawn(top: QWidget) -> list[tuple[QWidget, list[Drawn]]]:
    """pyqtgraph's texts, per plot widget, in its coordinates: ticks, titles, labels, legends, text items."""
    import pyqtgraph as pg

    from tests.overlap import plot_texts

    out = []
    for view in top.findChildren(pg.GraphicsView):
        if not (view.isVisibleTo(top.window()) and view.width() > 0):
            continue
        sizes = dict(item_sizes(view))
        dpi = view.logicalDpiY()
        texts = []
        for text, rect in plot_texts(view, view):
            px = sizes.get(f"text item {text[:40]!r}")
            if px is None:  # an axis's tick: its tick font
                px = min(
                    (_px(a.style.get("tickFont") or a.font(), dpi) for a in _axes(view)),
                    default=0.0,
                )
            texts.append(Drawn(text, px, rect, type(view).__name__))
        out.append((view, texts))
    return out


def _axes(view):
    import pyqtgraph as pg

    return [i for i in view.scene().items() if isinstance(i, pg.AxisItem) and i.isVisible()]


def widget_drawn(top: QWidget) -> list[Drawn]:
    from tests.overlap import widget_texts

    out = []
    for text, rect in widget_texts(top):
        out.append(Drawn(text, 0.0, rect, "widget"))
    return out


def check(top: QWidget, min_px: float, overlaps: bool = True) -> Report:
    """Small, cut and overlapping texts of everything `top` shows now."""

    QApplication.processEvents()
    report = Report()
    for what, px in widget_sizes(top):
        if px < min_px - 0.01:
            report.small.append(f"{px:.1f} px: {what}")
    for text, _rect in [(d.text, d.rect) for d in widget_drawn(top)]:
        if text.startswith("(clipped) "):
            report.cut.append(f"widget {text}")
    report.cut += split_labels(top)
    groups: list[tuple[QWidget, list[Drawn]]] = [(w, painted_texts(w)) for w in _painted_widgets(top)]
    groups += plot_drawn(top)
    report.seen = len(widget_sizes(top)) + sum(len(texts) for _w, texts in groups)
    for w, texts in groups:
        found = drawn_problems(texts, QRectF(w.rect()), min_px, overlaps)
        report.small += found.small
        report.cut += found.cut
        report.overlap += found.overlap
    report.small = sorted(set(report.small))
    report.cut = sorted(set(report.cut))
    report.overlap = sorted(set(report.overlap))
    return report


def widget_sizes(top: QWidget) -> list[tuple[str, float]]:
    out = []
    for w in top.findChildren(QWidget):
        if not w.isVisibleTo(top) or w.width() <= 0 or w.height() <= 0:
            continue
        if isinstance(w, QLabel) and w.text().strip():
            text = w.text()
        elif isinstance(w, QComboBox):
            text = w.currentText()
        elif isinstance(w, QAbstractButton):
            text = w.text()
        elif isinstance(w, QTabBar):
            text = " | ".join(w.tabText(i) for i in range(w.count()))
        elif isinstance(w, (QTextEdit, QPlainTextEdit)):
            text = w.toPlainText()
        elif isinstance(w, (QTableView, QTableWidget, QHeaderView)):
            text = type(w).__name__
        else:
            continue
        if text.strip():
            out.append((f"{type(w).__name__} {text[:40]!r}", float(QFontInfo(w.font()).pixelSize())))
    return out


def item_sizes(top: QWidget) -> list[tuple[str, float]]:
    """Each visible QGraphicsTextItem's smallest character, in the view's pixels."""
    import pyqtgraph as pg

    out = []
    for view in top.findChildren(pg.GraphicsView):
        if not view.isVisibleTo(top) or view.width() <= 0:
            continue
        dpi = view.logicalDpiY()
        for item in view.scene().items():
            if not isinstance(item, QGraphicsTextItem) or not item.isVisible() or not item.toPlainText().strip():
                continue
            if item.opacity() == 0 or not view.mapFromScene(item.sceneBoundingRect()).boundingRect().intersects(
                view.rect()
            ):
                continue
            t = item.sceneTransform() * view.transform()
            scale = math.hypot(t.m21(), t.m22())  # a rotated axis label too
            sizes = []
            block = item.document().begin()
            while block.isValid():
                it = block.begin()
                while not it.atEnd():
                    frag = it.fragment()
                    if frag.text().strip():
                        sizes.append(_px(frag.charFormat().font(), dpi, scale))
                    it += 1
                block = block.next()
            if sizes:
                out.append((f"text item {item.toPlainText()[:40]!r}", min(sizes)))
    return out
