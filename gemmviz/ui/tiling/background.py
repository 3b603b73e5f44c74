"""The static part of a frame of the tiling animation: the matrices' outlines, tile grid and names, global and shared
memory's headings, and the cell lines of the shared tiles and the zoomed block, cached as pixmaps per shape,
theme and layout (ui/tiling/layout.py says where each goes)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen, QPixmap

from gemmviz.core import interrupt
from gemmviz.core.schedule.block import Schedule
from gemmviz.core.schedule.kinds import schedule_kind
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme
from gemmviz.ui.tiling.layout import Layout, _fm, shared_pad
from gemmviz.ui.tiling.paint import Texts, cell_lines, faint, put_text

MAX_GRID_LINES = 64  # per matrix side; beyond this, every n-th tile boundary is drawn


def _grid_lines(
    painter: QPainter, rect: QRectF, rows: int, cols: int, row_tile: int, col_tile: int, scale: float
) -> None:
    for count, tile, vertical in ((cols, col_tile, True), (rows, row_tile, False)):
        tiles = math.ceil(count / tile)
        every = max(1, math.ceil(tiles / MAX_GRID_LINES))
        for i in range(every, tiles, every):
            pos = i * tile * scale
            if vertical:
                painter.drawLine(QPointF(rect.left() + pos, rect.top()), QPointF(rect.left() + pos, rect.bottom()))
            else:
                painter.drawLine(QPointF(rect.left(), rect.top() + pos), QPointF(rect.right(), rect.top() + pos))


class Background:
    """The static part (matrix outlines, tile grid, labels), cached as a pixmap per shape, theme and layout."""

    def __init__(self) -> None:
        self.key: tuple | None = None
        self.pixmap = QPixmap()  # null until get() draws it
        self.grid: QPixmap | None = None

    def get(self, w: int, h: int, s: Schedule, theme: Theme, lay: Layout, dpr: float = 1.0) -> QPixmap:
        key = (w, h, s.run_problem, s.bm, s.bn, s.bk, s.kind, s.variant, theme, lay, dpr)
        if key != self.key:
            pixmap = QPixmap(int(w * dpr), int(h * dpr))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(QColor(theme.background))
            painter = QPainter(pixmap)
            draw_background(painter, s, theme, lay)
            painter.end()
            self.key, self.pixmap = key, pixmap
            self.grid = None
        return self.pixmap

    def grids(self, s: Schedule, theme: Theme, lay: Layout, dpr: float = 1.0) -> QPixmap:
        """The cell lines of the shared-memory tiles and of the zoomed block, on a transparent pixmap drawn over
        their fills each frame (drawn line by line they cost half of a 1080p frame). Call after get()."""
        if self.grid is None:
            w, h = self.pixmap.width() / dpr, self.pixmap.height() / dpr
            pixmap = QPixmap(int(w * dpr), int(h * dpr))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(QColor(0, 0, 0, 0))
            painter = QPainter(pixmap)
            draw_grids(painter, s, theme, lay)
            painter.end()
            self.grid = pixmap
        return self.grid


def draw_grids(painter: QPainter, s: Schedule, theme: Theme, lay: Layout) -> None:
    """The cell lines of the shared-memory tiles (32 cells a side at most) and of the zoomed block."""
    fg = QColor(theme.foreground)
    painter.setPen(QPen(faint(fg, 60), 1))
    pad = shared_pad(s)
    for rect, rows, cols in ((lay.smem_a, s.bm, s.bk + pad), (lay.smem_b, s.bk, s.bn + pad)):
        if max(rows, cols) <= 33 and schedule_kind(s.kind).shared_memory:  # the naive kernel's boxes stay empty
            cell_lines(painter, rect, rows, cols)
    if lay.inset is not None:
        painter.setPen(QPen(faint(fg, 70), 1))
        cell_lines(painter, lay.inset, *lay.inset_threads)


def _label_right(lay: Layout) -> float:
    """Where the matrices' names must end: left of the shared-memory column and of the counters."""
    return min(lay.smem_a.left(), lay.text.left()) - lay.font_px * 0.5


def background_labels(s: Schedule, lay: Layout) -> list[tuple[QPointF, str, float, bool]]:
    """The matrices' names over them (a name shortened to its letter where its size would reach the next one:
    the sizes are in the counters' title), global memory's name where it fits at the frame's type or its floor
    (left of B's name, else after it on B's row at its size or the frame's floor, B's name then shortened to its
    letter if that makes room, else after A's name, else from A's left edge with B's letter moved right after it),
    and shared memory's heading."""
    p, f = s.run_problem, lay.font_px
    right = _label_right(lay)
    fm = _fm(f, True)
    names = {}
    for rect, letter, size, end in (
        (lay.a, "A", f"{p.m}×{p.k}", lay.c.left() - f * 0.5),
        (lay.b, "B", f"{p.k}×{p.n}", right),
        (lay.c, "C", f"{p.m}×{p.n}", right),
    ):
        name = f"{letter}  ({size})"
        names[letter] = name if rect.left() + fm.horizontalAdvance(name) <= end else letter
    px = max(f * 0.9, lay.min_px)
    floor = max(lay.min_px, 1.0)  # the frame's floor: global memory's name on B's row rather than under the zoom line
    gm = _fm(px)
    y = lay.b.top() - f * 0.35
    # left of B's name is the corner over the zoomed block: there it read as the block's name, so it is used
    # only where the frame has no zoomed block
    left_room = lay.b.left() - lay.a.left() - f * 0.5 if lay.inset is None else -1.0
    where = None
    # global memory's name at its size, else at the floor; beside B's whole name first, its letter if that makes room
    sizes = dict.fromkeys((px, floor))
    for gm_px, b_name in ((at, b) for at in sizes for b in dict.fromkeys((names["B"], "B"))):
        metrics = _fm(gm_px)
        after = lay.b.left() + fm.horizontalAdvance(b_name) + (f if gm_px == px else f * 0.6)
        for name in (tr("global memory (HBM)"), tr("global memory")):
            if after + metrics.horizontalAdvance(name) <= right:
                where = (QPointF(after, y), name)
            elif metrics.horizontalAdvance(name) <= left_room:
                where = (QPointF(lay.a.left(), y), name)
            if where:
                break
        if where:
            names["B"], px = b_name, gm_px
            break
    b_x = lay.b.left()
    if where is None:  # after A's name, on A's row (left of C's)
        where = _after_a(lay, names, fm, gm)
    if where is None:  # last: global memory's name from A's left edge, B's letter moved right to follow it
        name = tr("global memory")
        after = lay.a.left() + gm.horizontalAdvance(name) + f * 0.6
        if after + fm.horizontalAdvance("B") <= min(right, lay.b.right()):
            where, names["B"], b_x = (QPointF(lay.a.left(), y), name), "B", max(b_x, after)
    c_x = max(lay.c.left(), lay.a.left() + fm.horizontalAdvance(names["A"]) + f * 0.4)  # A narrower than its name
    out = [
        (QPointF(x, rect.top() - f * 0.35), names[letter], f, True)
        for rect, letter, x in ((lay.a, "A", lay.a.left()), (lay.b, "B", b_x), (lay.c, "C", c_x))
    ]
    if where:
        out.append((where[0], where[1], px, False))
    out.append((QPointF(lay.smem_a.left(), lay.smem_a.top() - f * 0.4), tr("shared memory (on chip)"), f, True))
    return out


def _after_a(lay: Layout, names: dict[str, str], fm: QFontMetricsF, gm: QFontMetricsF):
    """Global memory's name after A's (its letter if that makes room), left of C's name; None where neither fits."""
    f = lay.font_px
    for a_name in dict.fromkeys((names["A"], "A")):
        after = lay.a.left() + fm.horizontalAdvance(a_name) + f * 0.6
        for name in (tr("global memory (HBM)"), tr("global memory")):
            if after + gm.horizontalAdvance(name) <= lay.c.left() - f * 0.5:
                names["A"] = a_name
                return QPointF(after, lay.a.top() - f * 0.35), name
    return None


def draw_background(painter: QPainter, s: Schedule, theme: Theme, lay: Layout, texts: Texts | None = None) -> None:
    p = s.run_problem
    fg = QColor(theme.foreground)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    fill = QColor(theme.foreground)
    fill.setAlpha(14)
    grid = QColor(theme.foreground)
    grid.setAlpha(45)
    for rect, rows, cols, rt, ct in (
        (lay.a, p.m, p.k, s.bm, s.bk),
        (lay.b, p.k, p.n, s.bk, s.bn),
        (lay.c, p.m, p.n, s.bm, s.bn),
    ):
        painter.fillRect(rect, fill)
        painter.setPen(QPen(grid, 1))
        _grid_lines(painter, rect, rows, cols, rt, ct, lay.scale)
        painter.setPen(QPen(fg, max(1.0, lay.font_px / 10)))
        painter.drawRect(rect)
    painter.setPen(fg)
    for at, text, px, bold in background_labels(s, lay):
        put_text(painter, texts, at, text, px, bold)


def record_background(s: Schedule, lay: Layout, texts: Texts) -> None:
    """The background's texts (drawn once into the cached pixmap), measured again for the record."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    with interrupt.deferred():
        painter = QPainter(image)
        try:
            for at, text, px, bold in background_labels(s, lay):
                put_text(painter, texts, at, text, px, bold)
        finally:
            painter.end()
