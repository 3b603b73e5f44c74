"""Small painting helpers of the tiling animation's parts: a line of text that shrinks before it is cut and is
recorded with its box, a colour made faint, a rectangle of a matrix's cells, thin cell lines."""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter

from gemmviz.ui.fonts import pixel_font

Texts = list[tuple[str, QRectF]]  # every text a frame draws, with its box: the layout tests check them


def put_text(
    painter: QPainter,
    texts: Texts | None,
    at: QPointF,
    text: str,
    px: float,
    bold: bool = False,
    width: float | None = None,
    floor: float = 0.0,
) -> None:
    """One line from its baseline's left end; too long for `width`, it is set smaller (down to `floor`, or 70%
    where none is given) and only then cut with …; recorded in `texts` if given."""
    font = pixel_font(px, bold)
    fm = QFontMetricsF(font)
    low = min(px, floor or 0.7 * px)
    if width is not None and fm.horizontalAdvance(text) > width > 0:
        size = int(px * width / fm.horizontalAdvance(text)) + 1
        while fm.horizontalAdvance(text) > width and size - 1 >= low:  # whole pixels: widths are not linear
            size -= 1
            font = pixel_font(size, bold)
            fm = QFontMetricsF(font)
        if fm.horizontalAdvance(text) > width:
            text = fm.elidedText(text, Qt.TextElideMode.ElideRight, width)
    painter.setFont(font)
    if not text:
        return
    painter.drawText(at, text)
    if texts is not None:
        texts.append(
            (text, QRectF(at.x(), at.y() - fm.ascent(), fm.horizontalAdvance(text), fm.ascent() + fm.descent()))
        )


def faint(c: QColor, alpha: int) -> QColor:
    c = QColor(c)
    c.setAlpha(alpha)
    return c


def sub_rect(rect: QRectF, scale: float, r0: float, r1: float, c0: float, c1: float) -> QRectF:
    return QRectF(rect.left() + c0 * scale, rect.top() + r0 * scale, (c1 - c0) * scale, (r1 - r0) * scale)


def cell_lines(painter: QPainter, rect: QRectF, rows: int, cols: int) -> None:
    """Thin cell lines inside `rect`, in one call and without antialiasing (they are axis-aligned: drawn one
    by one and antialiased, they took half of a 1080p frame)."""
    cw, ch = rect.width() / cols, rect.height() / rows
    lines = [QLineF(rect.left() + i * cw, rect.top(), rect.left() + i * cw, rect.bottom()) for i in range(1, cols)]
    lines += [QLineF(rect.left(), rect.top() + i * ch, rect.right(), rect.top() + i * ch) for i in range(1, rows)]
    if lines:
        aa = painter.testRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.drawLines(lines)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
