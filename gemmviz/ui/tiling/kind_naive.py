"""The naive kernel's frame: no shared memory, so each step's slices of A and B light up in global memory and the
shared tiles' boxes stay empty, saying so (ui/tiling/block.py draws the rest)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPen

from gemmviz.core.schedule.block import Schedule
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import tr
from gemmviz.ui.tiling.block import BlockRenderer, Frame
from gemmviz.ui.tiling.paint import faint, sub_rect
from gemmviz.ui.tiling.render import register_renderer


@register_renderer("naive")
class NaiveRenderer(BlockRenderer):
    """No shared memory: each step's slices of A and B light up in global memory; the tiles' boxes stay empty."""

    def shape_words(self, s: Schedule, compact: bool = False) -> str:
        return tr("block {n}").format(n=s.bm)

    def draw_shared(self, f: Frame) -> None:
        _draw_naive(f)


def _draw_naive(f: Frame) -> None:
    """The step's slices light up in global memory; shared memory's boxes are dashed and say they are unused."""
    painter, lay, step = f.painter, f.lay, f.step
    if step.a is not None and step.b is not None:
        painter.fillRect(sub_rect(lay.a, lay.scale, step.a.r0, step.a.r1, step.a.c0, step.a.c1), faint(f.col_a, 170))
        painter.fillRect(sub_rect(lay.b, lay.scale, step.b.r0, step.b.r1, step.b.c0, step.b.c1), faint(f.col_b, 170))
    for rect in (lay.smem_a, lay.smem_b):
        painter.setPen(QPen(faint(f.fg, 80), 1, Qt.PenStyle.DashLine))
        painter.drawRect(rect)
    # one line under the boxes, where the tiles' names go for the other kernels, wrapped to the column
    px = max(f.font_px * 0.9, lay.min_px)
    below = max(lay.smem_a.bottom(), lay.smem_b.bottom())
    box = QRectF(
        lay.smem_a.left(), below + f.font_px * 0.2, lay.column_right - lay.smem_a.left(), lay.barrier_y - below
    )
    flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
    painter.setFont(pixel_font(px))
    painter.setPen(f.fg)
    text = tr("unused: the naive kernel reads global memory")
    painter.drawText(box, flags, text)
    if f.texts is not None:
        f.texts.append((text, painter.boundingRect(box, flags, text)))
