"""What the gap and pipeline views share: texts drawn with a painter and noted with their boxes (a slide's layout
checks them), 1-2-5 ticks on a linear axis and the source line of a recorded file."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from gemmviz.core.messages import render
from gemmviz.core.numbers import sig
from gemmviz.core.recorded import Header

Texts = list[tuple[str, QRectF]]
WRAP = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)


def font(pt: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


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
    """ "recorded on NVIDIA H200, 2026-12-02 (file)", from the file itself."""
    return render("view.recorded", lang, {"gpu": header.gpu, "date": header.date, "file": header.file})
