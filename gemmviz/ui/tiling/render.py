"""Drawing one frame of the tiling animation: A, B and C in global memory, the kernel's shared tiles, and the
steps of one thread block moving between them. It only draws a schedule that `core` computed.

`render_frame(painter, w, h, state, theme)` is a pure function of the state (schedule, step, phase,
thread), so stepping to frame i from anywhere draws the same image: on screen (ui/tiling/view.py), into a PNG,
GIF or video (ui/export/exporters.py) and in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QImage, QPainter, QPen, QPixmap

from gemmviz.core.schedule import Schedule, Step, reuse_factor
from gemmviz.core.variants import VARIANTS
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import tr
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.captions import caption_words
from gemmviz.ui.tiling.layout import (  # noqa: F401  (layout_for, inset_window, thread_cell: used by tests)
    LINE,
    MIN_CELL_720P,
    Layout,
    _cached_layout,
    _fit_layout,
    _fm,
    _registers_label,
    _shared_labels,
    inset_window,
    layout_for,
    thread_cell,
)

MAX_GRID_LINES = 64  # per matrix side; beyond this, every n-th tile boundary is drawn


@dataclass(frozen=True)
class FrameState:
    schedule: Schedule
    step: int
    # t in [0, 1]: how far the step has gone. In-between frames (the app's 250 ms glide, a GIF's move frames)
    # use it; a load's tiles travel from global to shared memory as it grows. 1.0 is the step's settled frame.
    phase: float = 1.0
    thread: tuple[int, int] = (0, 0)  # (ty, tx) within the block


Texts = list[tuple[str, QRectF]]  # every text a frame draws, with its box: the layout tests check them
FONT_PER_PT = 1.9  # pixels of animation font per theme point at 1080p (the theme is scaled for exports)


def _sub(rect: QRectF, scale: float, r0: float, r1: float, c0: float, c1: float) -> QRectF:
    return QRectF(rect.left() + c0 * scale, rect.top() + r0 * scale, (c1 - c0) * scale, (r1 - r0) * scale)


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

    def __init__(self):
        self.key = None
        self.pixmap: QPixmap | None = None
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
    painter.setPen(QPen(_faint(fg, 60), 1))
    for rect, rows, cols in ((lay.smem_a, s.bm, s.bk), (lay.smem_b, s.bk, s.bn)):
        if max(rows, cols) <= 32 and s.kind != "naive":  # the naive kernel's boxes stay empty
            _grid(painter, rect, rows, cols)
    if lay.inset is not None:
        painter.setPen(QPen(_faint(fg, 70), 1))
        _grid(painter, lay.inset, *lay.inset_threads)


def _text(painter: QPainter, texts: Texts | None, at: QPointF, text: str, px: float, bold: bool = False,
          width: float | None = None) -> None:  # fmt: skip
    """One line from its baseline's left end; too long for `width`, it is set smaller (down to 70%) and only
    then cut with …; recorded in `texts` if given."""
    font = pixel_font(px, bold)
    fm = QFontMetricsF(font)
    if width is not None and fm.horizontalAdvance(text) > width > 0:
        size = int(px * width / fm.horizontalAdvance(text)) + 1
        while fm.horizontalAdvance(text) > width and size > 0.7 * px:  # whole pixels: widths are not linear
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
        texts.append((text, QRectF(at.x(), at.y() - fm.ascent(), fm.horizontalAdvance(text), fm.ascent() + fm.descent())))


def _background_labels(s: Schedule, lay: Layout) -> list[tuple[QPointF, str, float, bool]]:
    p, f = s.run_problem, lay.font_px
    out = [(QPointF(rect.left(), rect.top() - f * 0.35), name, f, True)
           for rect, name in ((lay.a, f"A  ({p.m}×{p.k})"), (lay.b, f"B  ({p.k}×{p.n})"), (lay.c, f"C  ({p.m}×{p.n})"))]
    room = lay.b.left() - lay.a.left() - f * 0.5  # left of B's name; "(HBM)" goes where even 70% type is too wide
    hbm = tr("global memory (HBM)")
    name = hbm if 0.66 * _fm(f * 0.9).horizontalAdvance(hbm) <= room else tr("global memory")
    out.append((QPointF(lay.a.left(), lay.b.top() - f * 0.35), name, f * 0.9, False))
    out.append((QPointF(lay.smem_a.left(), lay.smem_a.top() - f * 0.4), tr("shared memory (on chip)"), f, True))
    return out


def draw_background(painter: QPainter, s: Schedule, theme: Theme, lay: Layout, texts: Texts | None = None) -> None:
    p = s.run_problem
    fg = QColor(theme.foreground)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    fill = QColor(theme.foreground)
    fill.setAlpha(14)
    grid = QColor(theme.foreground)
    grid.setAlpha(45)
    for rect, rows, cols, rt, ct in ((lay.a, p.m, p.k, s.bm, s.bk), (lay.b, p.k, p.n, s.bk, s.bn),
                                     (lay.c, p.m, p.n, s.bm, s.bn)):  # fmt: skip
        painter.fillRect(rect, fill)
        painter.setPen(QPen(grid, 1))
        _grid_lines(painter, rect, rows, cols, rt, ct, lay.scale)
        painter.setPen(QPen(fg, max(1.0, lay.font_px / 10)))
        painter.drawRect(rect)
    painter.setPen(fg)
    labels = _background_labels(s, lay)
    global_w = lay.b.left() - lay.a.left() - lay.font_px * 0.5  # "global memory" stays left of B's name
    for at, text, px, bold in labels:
        _text(painter, texts, at, text, px, bold, global_w if _is_global(text) else None)


def _is_global(text: str) -> bool:
    """The global-memory label (in the window's language), which stays left of B's name."""
    return text in (tr("global memory (HBM)"), tr("global memory"))


def _faint(c: QColor, alpha: int) -> QColor:
    c = QColor(c)
    c.setAlpha(alpha)
    return c


def font_px_for(w: int, h: int, theme: Theme) -> float:
    """The animation's font: the theme's size (exports scale the theme, so 4K is 1080p doubled), made smaller
    only where the view is too small for it."""
    return max(7.0, min(theme.font_pt * FONT_PER_PT, h / 18))


def render_frame(painter: QPainter, w: int, h: int, state: FrameState, theme: Theme = LIGHT,
                 background: Background | None = None, texts: Texts | None = None) -> None:  # fmt: skip
    """Draw one frame. Pure: the same state gives the same picture. If `texts` is a list, every text drawn is
    appended to it with its box (for the layout tests)."""
    s = state.schedule
    p = s.run_problem
    if s.kind == "hopper":
        from gemmviz.ui.tiling.hopper import draw_hopper

        painter.fillRect(QRectF(0, 0, w, h), QColor(theme.background))
        draw_hopper(painter, QRectF(0, 0, w, h), s, state.step, state.phase, theme, font_px_for(w, h, theme), texts)
        return
    step_i = max(0, min(state.step, len(s.steps) - 1))
    step = s.steps[step_i]
    ty, tx = state.thread
    lines = _counter_lines(s, step_i, step, state.thread)
    # the layout is fitted to the last step's counters (the longest numbers and every optional line), so that
    # it and the cached background stay the same for the whole animation
    last = _counter_lines(s, len(s.steps) - 1, s.steps[-1], state.thread)
    measured = [t for t, _b in last] + ([_registers_label(s)] if s.kind == "blocktile2d" else [])
    lay = _cached_layout(w, h, s, font_px_for(w, h, theme), measured)
    font_px = lay.font_px
    background = background or Background()
    bg = background.get(w, h, s, theme, lay, painter.device().devicePixelRatioF())
    painter.drawPixmap(0, 0, bg)
    if texts is not None:
        _record_background(s, lay, texts)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    palette = theme.palette
    col_a, col_b, col_c, col_t = QColor(palette[0]), QColor(palette[1]), QColor(palette[2]), QColor(palette[3])
    fg = QColor(theme.foreground)
    r0, r1 = s.rows
    c0, c1 = s.cols
    t_rows = (r0 + ty * s.tm, r0 + (ty + 1) * s.tm)  # the rows and columns of C this thread computes
    t_cols = (c0 + tx * s.tn, c0 + (tx + 1) * s.tn)
    thread_live = t_rows[0] < p.m and t_cols[0] < p.n
    sc = lay.scale
    line_px = max(2.0, theme.line_px)

    # the block's bands: the rows of A and columns of B it will ever read
    painter.fillRect(_sub(lay.a, sc, r0, r1, 0, p.k), _faint(col_a, 40))
    painter.fillRect(_sub(lay.b, sc, 0, p.k, c0, c1), _faint(col_b, 40))
    # partial sums growing in the C block
    progress = step.k_done / p.k
    painter.fillRect(_sub(lay.c, sc, r0, r1, c0, c1), _faint(col_c, int(40 + 180 * progress)))
    painter.setPen(QPen(col_c, line_px))
    painter.drawRect(_sub(lay.c, sc, r0, r1, c0, c1))
    if step.kind == "store":
        painter.fillRect(_sub(lay.c, sc, r0, r1, c0, c1), _faint(col_c, 230))

    if s.kind == "naive":
        _draw_naive(painter, lay, s, step, col_a, col_b, fg, font_px, texts)
    else:
        _draw_tiled(painter, lay, s, step, state.phase, state.thread, col_a, col_b, col_t, fg, line_px, font_px,
                    texts)  # fmt: skip
    if lay.regs is not None:
        _draw_registers(painter, lay.regs, s, step, col_a, col_b, col_c, fg, font_px, texts)

    # the highlighted thread: its rows of A, columns of B and elements of C
    if thread_live:
        k_hi = step.k_done if step.kind != "store" else p.k
        painter.setPen(QPen(col_t, line_px))
        painter.drawRect(_sub(lay.a, sc, t_rows[0], t_rows[1], 0, p.k))
        painter.drawRect(_sub(lay.b, sc, 0, p.k, t_cols[0], t_cols[1]))
        cell = _sub(lay.c, sc, t_rows[0], t_rows[1], t_cols[0], t_cols[1])
        grow = max(0.0, 4 - cell.width()) / 2
        painter.fillRect(cell.adjusted(-grow, -grow, grow, grow), col_t)
        if k_hi:
            painter.fillRect(_sub(lay.a, sc, t_rows[0], t_rows[1], 0, k_hi), _faint(col_t, 120))
            painter.fillRect(_sub(lay.b, sc, 0, k_hi, t_cols[0], t_cols[1]), _faint(col_t, 120))
    _draw_inset(painter, lay, s, step, state.thread, thread_live, col_c, col_t, fg, line_px, texts)
    painter.drawPixmap(0, 0, background.grids(s, theme, lay, painter.device().devicePixelRatioF()))
    _draw_text(painter, lay, lines, step, fg, col_t, font_px, texts)


def _record_background(s: Schedule, lay: Layout, texts: Texts) -> None:
    """The background's texts (drawn once into the cached pixmap), measured again for the record."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    global_w = lay.b.left() - lay.a.left() - lay.font_px * 0.5
    for at, text, px, bold in _background_labels(s, lay):
        _text(painter, texts, at, text, px, bold, global_w if _is_global(text) else None)
    painter.end()


def _grid(painter: QPainter, rect: QRectF, rows: int, cols: int) -> None:
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


def _draw_inset(painter, lay: Layout, s, step, thread, thread_live, col_c, col_t, fg, line_px, texts) -> None:  # noqa: PLR0913
    """The block of C magnified (a window of its threads around the highlighted one): each cell one thread's
    elements, the highlighted thread's cell at least 12 px at 720p."""
    if lay.inset is None:
        return
    oy, ox = inset_window(lay, s, thread)
    rows, cols = lay.inset_threads
    painter.fillRect(lay.inset, _faint(col_c, int(40 + 180 * step.k_done / s.run_problem.k)))
    painter.setPen(QPen(col_c, line_px))
    painter.drawRect(lay.inset)
    if thread_live:
        painter.fillRect(thread_cell(lay, s, thread), col_t)
    whole = (rows, cols) == (max(1, s.bm // s.tm), max(1, s.bn // s.tn))
    name = tr("block of C: a cell per thread") if whole else tr("part of the block of C: a cell per thread")
    painter.setPen(fg)
    _text(painter, texts, QPointF(lay.inset.left(), lay.inset.top() - lay.font_px * 0.35), name, lay.font_px * 0.8,
          width=lay.b.left() - lay.inset.left() - lay.font_px * 0.5)  # fmt: skip


def _draw_tiled(painter, lay, s, step, phase, thread, col_a, col_b, col_t, fg, line_px, font_px, texts) -> None:  # noqa: PLR0913
    p, sc = s.run_problem, lay.scale
    kt = step.k_tile
    loaded = step.kind in ("sync", "compute", "sync2") or (step.kind == "load" and phase >= 1.0)
    cell_a = lay.smem_a.height() / s.bm  # one cell of shared memory, in pixels
    if kt >= 0:  # the k-slice this step works on, in global memory
        k0 = kt * s.bk
        ga = _sub(lay.a, sc, s.rows[0], s.rows[0] + s.bm, k0, k0 + s.bk).intersected(lay.a.adjusted(-1, -1, 1, 1))
        gb = _sub(lay.b, sc, k0, k0 + s.bk, s.cols[0], s.cols[0] + s.bn).intersected(lay.b.adjusted(-1, -1, 1, 1))
        painter.setPen(QPen(col_a, line_px))
        painter.drawRect(ga)
        painter.setPen(QPen(col_b, line_px))
        painter.drawRect(gb)
    label_a, label_b = _shared_labels(s)
    for rect, colour, label in ((lay.smem_a, col_a, label_a), (lay.smem_b, col_b, label_b)):
        painter.fillRect(rect, _faint(colour, 170 if loaded else 25))
        painter.setPen(QPen(_faint(fg, 60), 1))
        painter.setPen(QPen(colour, line_px))
        painter.drawRect(rect)
        painter.setPen(fg)
        _text(painter, texts, QPointF(rect.left(), max(lay.smem_a.bottom(), lay.smem_b.bottom()) + font_px * 1.05),
              label, font_px * 0.9)  # fmt: skip
    # padding: the part of a tile that lies outside the matrix is zero-filled, not loaded
    if kt >= 0 and s.kind == "tiled":
        t = s.bm
        rows_a, cols_a = min(t, p.m - s.rows[0]), min(t, p.k - kt * t)
        rows_b, cols_b = min(t, p.k - kt * t), min(t, p.n - s.cols[0])
        for rect, rows, cols in ((lay.smem_a, rows_a, cols_a), (lay.smem_b, rows_b, cols_b)):
            c = rect.width() / t
            if rows < t or cols < t:
                hatch = QBrush(_faint(fg, 90), Qt.BrushStyle.BDiagPattern)
                if cols < t:
                    painter.fillRect(QRectF(rect.left() + cols * c, rect.top(), (t - cols) * c, rect.height()), hatch)
                if rows < t:
                    painter.fillRect(QRectF(rect.left(), rect.top() + rows * c, rect.width(), (t - rows) * c), hatch)
    # the copy from global to shared memory, as a visible movement
    if step.kind == "load" and phase < 1.0:
        e = phase * phase * (3 - 2 * phase)  # smoothstep
        for src, dst, colour in ((ga, lay.smem_a, col_a), (gb, lay.smem_b, col_b)):
            moving = QRectF(
                src.left() + (dst.left() - src.left()) * e, src.top() + (dst.top() - src.top()) * e,
                src.width() + (dst.width() - src.width()) * e, src.height() + (dst.height() - src.height()) * e,
            )  # fmt: skip
            painter.fillRect(moving, _faint(colour, 150))
            painter.setPen(QPen(colour, line_px))
            painter.drawRect(moving)
    # during compute the highlighted thread reads its rows of tile_A and columns of tile_B
    if step.kind == "compute":
        ty, tx = thread
        painter.setPen(QPen(col_t, line_px))
        painter.drawRect(
            QRectF(lay.smem_a.left(), lay.smem_a.top() + ty * s.tm * cell_a, lay.smem_a.width(), s.tm * cell_a)
        )
        cw = lay.smem_b.width() / s.bn
        painter.drawRect(QRectF(lay.smem_b.left() + tx * s.tn * cw, lay.smem_b.top(), s.tn * cw, lay.smem_b.height()))
    if step.kind in ("sync", "sync2"):
        y = lay.barrier_y
        painter.setPen(QPen(fg, line_px, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(lay.smem_a.left(), y), QPointF(lay.column_right, y))
        painter.setPen(fg)
        _text(painter, texts, QPointF(lay.smem_a.left(), y - font_px * 0.35), tr("__syncthreads()  — barrier"), font_px,
              True, lay.column_right - lay.smem_a.left())  # fmt: skip


def _draw_registers(painter, rect: QRectF, s, step, col_a, col_b, col_c, fg, font_px, texts) -> None:  # noqa: PLR0913
    """The highlighted thread's registers: TM values of A, TN of B, and its TM x TN accumulator tile."""
    r = font_px * 0.9
    painter.setPen(fg)
    _text(painter, texts, QPointF(rect.left(), rect.top() - r * 1.1), _registers_label(s), font_px * 0.9, True)
    active = step.kind == "compute"
    left, top = rect.left(), rect.top() + r * 0.6
    for i in range(s.tm):  # regM, a column left of the accumulators
        painter.fillRect(QRectF(left, top + i * r, r * 0.9, r * 0.9), _faint(col_a, 200 if active else 50))
    for j in range(s.tn):  # regN, a row above them
        painter.fillRect(QRectF(left + (j + 1) * r, top - r, r * 0.9, r * 0.9), _faint(col_b, 200 if active else 50))
    fill = _faint(col_c, int(40 + 180 * step.k_done / s.run_problem.k))
    for i in range(s.tm):
        for j in range(s.tn):
            painter.fillRect(QRectF(left + (j + 1) * r, top + i * r, r * 0.9, r * 0.9), fill)


def _draw_naive(painter, lay, s, step, col_a, col_b, fg, font_px, texts) -> None:
    sc = lay.scale
    if step.a is not None:
        painter.fillRect(_sub(lay.a, sc, step.a.r0, step.a.r1, step.a.c0, step.a.c1), _faint(col_a, 170))
        painter.fillRect(_sub(lay.b, sc, step.b.r0, step.b.r1, step.b.c0, step.b.c1), _faint(col_b, 170))
    for rect in (lay.smem_a, lay.smem_b):
        painter.setPen(QPen(_faint(fg, 80), 1, Qt.PenStyle.DashLine))
        painter.drawRect(rect)
        flags = Qt.AlignmentFlag.AlignCenter
        text = tr("unused:\nnaive reads\nglobal memory")
        px = font_px * 0.8
        while px > font_px * 0.45:  # the largest type at which the three lines sit inside the dashed box
            painter.setFont(pixel_font(px))
            need = painter.boundingRect(rect, flags, text)
            if need.height() <= rect.height() - 2 and need.width() <= rect.width() - 4:
                painter.drawText(rect, flags, text)
                if texts is not None:
                    texts.append((text, need))
                break
            px *= 0.9


def _counter_lines(s: Schedule, step_i: int, step: Step, thread: tuple[int, int]) -> list[tuple[str, bool]]:
    """The counters beside the frame, (text, bold) per line."""
    p = s.problem
    total = step.total
    k_done = step.k_done
    r0, r1 = s.rows
    c0, c1 = s.cols
    active = (r1 - r0) * (c1 - c0)
    naive_loads = 2 * active * k_done  # what the naive kernel would have read for the same work
    shape = {
        "tiled": f"TILE {s.bm}",
        "naive": tr("block {n}").format(n=s.bm),
        "blocktile2d": tr("{bm}×{bn}×{bk}, {tm}×{tn} per thread").format(bm=s.bm, bn=s.bn, bk=s.bk, tm=s.tm, tn=s.tn),
    }[s.kind]
    lines = [
        (tr(VARIANTS[s.variant].title), True),
        (f"{p.label}  ·  {shape}", False),
        (
            tr("block ({by}, {bx}) of {gy}×{gx}  ·  step {i}/{n}").format(
                by=s.block[0], bx=s.block[1], gy=s.grid[0], gx=s.grid[1], i=step_i + 1, n=len(s.steps)
            ),
            False,
        ),
        (tr("this block so far:"), True),
        (tr("global loads   {n}").format(n=f"{total.global_loads:,}"), False),
        (tr("shared loads   {n}").format(n=f"{total.shared_loads:,}"), False),
        (tr("multiply-adds  {n}").format(n=f"{total.fmas:,}"), False),
        (tr("global stores  {n}").format(n=f"{total.global_stores:,}"), False),
        (tr("global bytes   {n}").format(n=f"{total.global_bytes:,}"), False),
        (
            tr("reuse: each loaded value used {n}×").format(n=f"{reuse_factor(total):.0f}")
            if total.global_loads and total.fmas
            else tr("reuse: nothing computed yet"),
            True,
        ),
    ]
    if s.kind != "naive" and k_done and total.global_loads:
        lines.append(
            (
                tr("naive kernel: {n} global loads ({x}× more)").format(
                    n=f"{naive_loads:,}", x=f"{naive_loads / total.global_loads:.0f}"
                ),
                False,
            )
        )
    if s.kind == "blocktile2d" and total.shared_loads:
        lines.append((tr("{n} multiply-adds per shared-memory read (tiled: 0.5)").format(
            n=f"{total.fmas / total.shared_loads:.0f}"), False))  # fmt: skip
    ty, tx = thread
    if r0 + ty * s.tm < s.run_problem.m and c0 + tx * s.tn < s.run_problem.n:
        what = (f"C[{r0 + ty * s.tm}:{r0 + (ty + 1) * s.tm}][{c0 + tx * s.tn}:{c0 + (tx + 1) * s.tn}]"
                if s.tm * s.tn > 1 else f"C[{r0 + ty}][{c0 + tx}]")  # fmt: skip
        lines.append((tr("thread ({ty}, {tx}) → {what}").format(ty=ty, tx=tx, what=what), False))
        lines.append((tr("  = Σ over k < {k}").format(k=k_done) if k_done else tr("  = 0 so far (no k summed yet)"),
                       False))  # fmt: skip
    else:
        lines.append((tr("thread ({ty}, {tx}) is outside C:").format(ty=ty, tx=tx), False))
        lines.append((tr("  it only helps load (pads with 0)"), False))
    return lines


def _draw_text(painter, lay: Layout, lines, step: Step, fg, col_t, font_px, texts) -> None:
    y = lay.text.top() + font_px
    painter.setPen(fg)
    for text, bold in lines:
        _text(painter, texts, QPointF(lay.text.left(), y), text, font_px * 0.95, bold, lay.text.width())
        y += font_px * LINE
    # the step, in words, along the bottom under A and C (never under the counters)
    painter.setFont(pixel_font(font_px, True))
    painter.setPen(col_t)
    flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
    text = caption = caption_words(step.text)  # in the window's language
    fm = QFontMetricsF(painter.font())
    share = 1.9  # keep it to its two lines: cut with … (wrapping at words loses some of each line)
    while fm.boundingRect(lay.caption, flags, text).height() > lay.caption.height() + 1 and share > 0.5:
        text = fm.elidedText(caption, Qt.TextElideMode.ElideRight, lay.caption.width() * share)
        share -= 0.15
    painter.drawText(lay.caption, flags, text)
    if texts is not None:
        texts.append((text, fm.boundingRect(lay.caption, flags, text)))


def render_image(state: FrameState, width: int, height: int, theme: Theme = LIGHT,
                 background: Background | None = None, texts: Texts | None = None) -> QImage:  # fmt: skip
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.background))
    painter = QPainter(image)
    render_frame(painter, width, height, state, theme, background, texts)
    painter.end()
    return image
