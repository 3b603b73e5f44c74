"""What the gap and pipeline views share: texts drawn with a painter and noted with their boxes (a slide's layout
checks them), 1-2-5 ticks on a linear axis and the source line of a recorded file."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from gemmviz.core.messages import render
from gemmviz.core.numbers import sig
from gemmviz.core.session.recorded import Header

Texts = list[tuple[str, QRectF]]
WRAP = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)


def font(pt: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


def small_pt(pt: float) -> float:
    """The smaller type of a view (source line, ticks, legend): a point below the main type, at most 10% below, so
    a projector's 20 pt gives 19 pt and its 720p scaling, 13 pt, gives 12 pt (16 px, 24 px at 1080p)."""
    return max(pt * 0.9, pt - 1)


def text(painter: QPainter, rect: QRectF, flags: int, s: str, f: QFont, colour: str | QColor, texts: Texts | None):
    """Draw `s` in `rect`; returns the box it took (noted in `texts`)."""
    painter.setFont(f)
    painter.setPen(QPen(QColor(colour)))
    need = painter.boundingRect(rect, int(flags), s)
    painter.drawText(rect, int(flags), s)
    if texts is not None:
        texts.append((s, need))
    return need


def wrapped_height(painter: QPainter, width: float, s: str, f: QFont) -> float:
    painter.setFont(f)
    return painter.boundingRect(QRectF(0, 0, width, 10_000), WRAP, s).height()


def ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Values at 1, 2 or 5 times a power of ten between lo and hi, at most `most` of them."""
    span = hi - lo
    if span <= 0:
        return [lo]
    step = 10 ** math.floor(math.log10(span / most))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= most:
            step *= factor
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def compact(x: float) -> str:
    """A tick's value, short: 0, 500, 5k, 1.5M."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return sig(x / div, 3) + suffix
    return sig(x, 3)


def source_line(header: Header, lang: str) -> str:
    """ "recorded on NVIDIA H200, 2026-12-02", from the file itself (its name and command: `file_line`)."""
    return render("view.recorded", lang, {"gpu": header.gpu, "date": header.date})


def file_line(header: Header, lang: str) -> str:
    """Which file the figures come from and the command that recorded it: the last line of the view's text."""
    return render("view.file", lang, {"file": header.file, "command": header.command})


CENTER = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)


def heading(painter: QPainter, r: QRectF, title: str, source: str, pt: float, fg: str, texts: Texts | None) -> float:
    """The view's title (bold, wrapped) and its source line under it, from the top of `r`; returns the y below."""
    h = wrapped_height(painter, r.width(), title, font(pt, True))
    text(painter, QRectF(r.left(), r.top(), r.width(), h), WRAP, title, font(pt, True), fg, texts)
    y = r.top() + h
    h = wrapped_height(painter, r.width(), source, font(small_pt(pt)))
    text(painter, QRectF(r.left(), y, r.width(), h), WRAP, source, font(small_pt(pt)), fg, texts)
    return y + h


def axis(painter: QPainter, r: QRectF, span: tuple[float, float, float], to_x, title: str, theme, texts) -> None:
    """A horizontal axis at y = span[2] from value span[0] to span[1]: its line, 1-2-5 ticks that fit inside `r`
    without touching, and its title centred under them. `to_x` maps a value to x."""
    lo, hi, bottom = span
    small = font(small_pt(theme.font_pt))
    fm = QFontMetricsF(small)
    painter.setPen(QPen(QColor(theme.foreground), max(1.0, theme.line_px / 2)))
    painter.drawLine(int(to_x(lo)), int(bottom), int(to_x(hi)), int(bottom))
    shown: list[QRectF] = []
    for t in ticks(lo, hi, 5):
        label = compact(t)
        w = fm.horizontalAdvance(label) + fm.height() / 2
        box = QRectF(to_x(t) - w / 2, bottom + 2, w, fm.height())
        if box.left() < r.left() or box.right() > r.right() or any(box.intersects(s) for s in shown):
            continue
        shown.append(box)
        painter.setPen(QPen(QColor(theme.foreground), max(1.0, theme.line_px / 2)))
        painter.drawLine(int(to_x(t)), int(bottom), int(to_x(t)), int(bottom + 4))
        text(painter, box, CENTER, label, small, theme.foreground, texts)
    box = QRectF(r.left(), bottom + 2 + fm.height(), r.width(), fm.height())  # under the ticks' row, not on it
    text(painter, box, CENTER, title, small, theme.foreground, texts)
