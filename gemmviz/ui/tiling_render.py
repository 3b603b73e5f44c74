"""Drawing one frame of the tiling animation: A, B and C in global memory, the kernel's shared tiles, and the
steps of one thread block moving between them. It only draws a schedule that `core` computed.

`render_frame(painter, w, h, state, theme)` is a pure function of the state (schedule, step, phase,
thread), so stepping to frame i from anywhere draws the same image: on screen (ui/tiling.py), into a PNG,
GIF or video (ui/export.py) and in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPen, QPixmap

from gemmviz.core.schedule import Schedule, Step, reuse_factor
from gemmviz.core.variants import VARIANTS
from gemmviz.ui.theme import LIGHT, Theme

MAX_GRID_LINES = 64  # per matrix side; beyond this, every n-th tile boundary is drawn


@dataclass(frozen=True)
class FrameState:
    schedule: Schedule
    step: int
    phase: float = 1.0  # 0..1 within the step; loads move from global to shared memory as it grows
    thread: tuple[int, int] = (0, 0)  # (ty, tx) within the block


@dataclass(frozen=True)
class Layout:
    scale: float
    a: QRectF
    b: QRectF
    c: QRectF
    smem_a: QRectF
    smem_b: QRectF
    regs: QRectF | None  # the highlighted thread's registers (block-tiling kernels)
    text: QRectF


def layout_for(w: int, h: int, s: Schedule, font_px: float) -> Layout:
    """Place B above C and A left of C; shared memory, registers and the counters on the right."""
    p = s.run_problem
    margin = max(8.0, 0.02 * min(w, h))
    right_w = max(0.30 * w, 18 * font_px)
    avail_w = w - right_w - 3 * margin
    avail_h = h - 3 * margin - 2 * font_px
    gap_units = 0.06 * max(p.k + p.n, p.k + p.m)
    scale = min(avail_w / (p.k + p.n + gap_units), avail_h / (p.k + p.m + gap_units))
    gap = gap_units * scale
    x0, y0 = margin, margin + font_px * 1.4
    a = QRectF(x0, y0 + p.k * scale + gap, p.k * scale, p.m * scale)
    b = QRectF(x0 + p.k * scale + gap, y0, p.n * scale, p.k * scale)
    c = QRectF(b.left(), a.top(), p.n * scale, p.m * scale)
    side = min(right_w * 0.42, (h - 2 * margin) * 0.28)
    cell = side / max(s.bm, s.bn, s.bk)  # one scale for both tiles, so their shapes are true
    sx = w - right_w
    top = y0 + font_px * 1.5
    smem_a = QRectF(sx, top, max(cell * s.bk, font_px * 0.6), cell * s.bm)
    smem_b = QRectF(smem_a.right() + margin * 1.5, top, cell * s.bn, max(cell * s.bk, font_px * 0.6))
    bottom = max(smem_a.bottom(), smem_b.bottom()) + font_px * 1.6
    regs = None
    if s.kind == "blocktile2d":
        r = font_px * 0.9
        regs = QRectF(smem_b.left(), smem_b.bottom() + font_px * 4.0, r * (s.tn + 2), r * (s.tm + 1))
        bottom = max(bottom, regs.bottom() + font_px * 0.6)
    text = QRectF(sx, bottom + font_px * 1.8, right_w - margin, h - bottom - 3 * font_px)
    return Layout(scale, a, b, c, smem_a, smem_b, regs, text)


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
    """The static part (matrix outlines, tile grid, labels), cached as a pixmap per shape and theme."""

    def __init__(self):
        self.key = None
        self.pixmap: QPixmap | None = None

    def get(self, w: int, h: int, s: Schedule, theme: Theme, font_px: float, dpr: float = 1.0) -> QPixmap:
        key = (w, h, s.run_problem, s.bm, s.bn, s.bk, s.kind, theme, font_px, dpr)
        if key != self.key:
            pixmap = QPixmap(int(w * dpr), int(h * dpr))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(QColor(theme.background))
            painter = QPainter(pixmap)
            draw_background(painter, w, h, s, theme, font_px)
            painter.end()
            self.key, self.pixmap = key, pixmap
        return self.pixmap


def _font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(6, int(px)))
    f.setBold(bold)
    return f


def draw_background(painter: QPainter, w: int, h: int, s: Schedule, theme: Theme, font_px: float) -> None:
    p = s.run_problem
    lay = layout_for(w, h, s, font_px)
    fg = QColor(theme.foreground)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    fill = QColor(theme.foreground)
    fill.setAlpha(14)
    grid = QColor(theme.foreground)
    grid.setAlpha(45)
    for rect, rows, cols, rt, ct, name in ((lay.a, p.m, p.k, s.bm, s.bk, f"A  ({p.m}×{p.k})"),
                                           (lay.b, p.k, p.n, s.bk, s.bn, f"B  ({p.k}×{p.n})"),
                                           (lay.c, p.m, p.n, s.bm, s.bn, f"C  ({p.m}×{p.n})")):  # fmt: skip
        painter.fillRect(rect, fill)
        painter.setPen(QPen(grid, 1))
        _grid_lines(painter, rect, rows, cols, rt, ct, lay.scale)
        painter.setPen(QPen(fg, max(1.0, font_px / 10)))
        painter.drawRect(rect)
        painter.setFont(_font(font_px, bold=True))
        painter.drawText(QPointF(rect.left(), rect.top() - font_px * 0.35), name)
    painter.setFont(_font(font_px * 0.9))
    painter.drawText(QPointF(lay.a.left(), lay.b.top() + font_px), "global memory (HBM)")
    painter.setFont(_font(font_px, bold=True))
    painter.drawText(QPointF(lay.smem_a.left(), lay.smem_a.top() - font_px * 0.4), "shared memory (on chip)")


def _faint(c: QColor, alpha: int) -> QColor:
    c = QColor(c)
    c.setAlpha(alpha)
    return c


def render_frame(painter: QPainter, w: int, h: int, state: FrameState, theme: Theme = LIGHT,
                 background: Background | None = None) -> None:  # fmt: skip
    """Draw one frame. Pure: the same state gives the same picture."""
    s = state.schedule
    p = s.run_problem
    font_px = max(11.0, theme.font_pt * 1.35 * min(w / 1920, h / 1080) ** 0.5 * 1.4)
    bg = (background or Background()).get(w, h, s, theme, font_px, painter.device().devicePixelRatioF())
    painter.drawPixmap(0, 0, bg)
    lay = layout_for(w, h, s, font_px)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    palette = theme.palette
    col_a, col_b, col_c, col_t = QColor(palette[0]), QColor(palette[1]), QColor(palette[2]), QColor(palette[3])
    fg = QColor(theme.foreground)
    step_i = max(0, min(state.step, len(s.steps) - 1))
    step = s.steps[step_i]
    r0, r1 = s.rows
    c0, c1 = s.cols
    ty, tx = state.thread
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
        _draw_naive(painter, lay, s, step, col_a, col_b, fg, font_px)
    else:
        _draw_tiled(painter, lay, s, step, state.phase, state.thread, col_a, col_b, col_t, fg, line_px, font_px)
    if lay.regs is not None:
        _draw_registers(painter, lay.regs, s, step, col_a, col_b, col_c, fg, font_px)

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
    _draw_text(painter, lay, s, step_i, step, state.thread, thread_live, fg, col_t, font_px)


def _draw_tiled(painter, lay, s, step, phase, thread, col_a, col_b, col_t, fg, line_px, font_px) -> None:
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
    name_a, name_b = VARIANTS[s.variant].shared_names or ("A tile", "B tile")  # the kernel's own array names
    for rect, colour, name, rows, cols in (
        (lay.smem_a, col_a, name_a, s.bm, s.bk),
        (lay.smem_b, col_b, name_b, s.bk, s.bn),
    ):
        painter.fillRect(rect, _faint(colour, 170 if loaded else 25))
        painter.setPen(QPen(_faint(fg, 60), 1))
        if max(rows, cols) <= 32:
            cw, ch = rect.width() / cols, rect.height() / rows
            for i in range(1, cols):
                painter.drawLine(
                    QPointF(rect.left() + i * cw, rect.top()), QPointF(rect.left() + i * cw, rect.bottom())
                )
            for i in range(1, rows):
                painter.drawLine(QPointF(rect.left(), rect.top() + i * ch), QPointF(rect.right(), rect.top() + i * ch))
        painter.setPen(QPen(colour, line_px))
        painter.drawRect(rect)
        painter.setFont(_font(font_px * 0.9))
        painter.setPen(fg)
        label = QPointF(rect.left(), rect.bottom() + font_px * 1.1)
        painter.drawText(label, f"{name}[{rows}][{cols}]")
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
        y = max(lay.smem_a.bottom(), lay.smem_b.bottom()) + font_px * 1.6
        painter.setPen(QPen(fg, line_px, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(lay.smem_a.left(), y), QPointF(lay.smem_b.right(), y))
        painter.setFont(_font(font_px, bold=True))
        painter.drawText(QPointF(lay.smem_b.left(), y - font_px * 0.3), "__syncthreads()  — barrier")


def _draw_registers(painter, rect: QRectF, s, step, col_a, col_b, col_c, fg, font_px) -> None:
    """The highlighted thread's registers: TM values of A, TN of B, and its TM x TN accumulator tile."""
    r = font_px * 0.9
    painter.setFont(_font(font_px * 0.9, bold=True))
    painter.setPen(fg)
    painter.drawText(
        QPointF(rect.left(), rect.top() - font_px * 0.6),
        f"registers of the thread: {s.tm}+{s.tn} operands, {s.tm}×{s.tn} sums",
    )
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


def _draw_naive(painter, lay, s, step, col_a, col_b, fg, font_px) -> None:
    sc = lay.scale
    if step.a is not None:
        painter.fillRect(_sub(lay.a, sc, step.a.r0, step.a.r1, step.a.c0, step.a.c1), _faint(col_a, 170))
        painter.fillRect(_sub(lay.b, sc, step.b.r0, step.b.r1, step.b.c0, step.b.c1), _faint(col_b, 170))
    for rect in (lay.smem_a, lay.smem_b):
        painter.setPen(QPen(_faint(fg, 80), 1, Qt.PenStyle.DashLine))
        painter.drawRect(rect)
        painter.setFont(_font(font_px * 0.8))
        painter.drawText(
            rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, "unused:\nnaive reads\nglobal memory"
        )


def _draw_text(painter, lay, s, step_i, step: Step, thread, thread_live, fg, col_t, font_px) -> None:
    p = s.problem
    total = step.total
    k_done = step.k_done
    r0, r1 = s.rows
    c0, c1 = s.cols
    active = (r1 - r0) * (c1 - c0)
    naive_loads = 2 * active * k_done  # what the naive kernel would have read for the same work
    shape = {
        "tiled": f"TILE {s.bm}",
        "naive": f"block {s.bm}",
        "blocktile2d": f"{s.bm}×{s.bn}×{s.bk}, {s.tm}×{s.tn} per thread",
    }[s.kind]
    lines = [
        (f"{VARIANTS[s.variant].title}  ·  {p.label}  ·  {shape}", True),
        (f"block ({s.block[0]}, {s.block[1]}) of {s.grid[0]}×{s.grid[1]}  ·  step {step_i + 1}/{len(s.steps)}", False),
        ("", False),
        ("this block so far:", True),
        (f"global loads   {total.global_loads:,}", False),
        (f"shared loads   {total.shared_loads:,}", False),
        (f"multiply-adds  {total.fmas:,}", False),
        (f"global stores  {total.global_stores:,}", False),
        (f"global bytes   {total.global_bytes:,}", False),
        (f"reuse: each loaded value used {reuse_factor(total):.0f}×" if total.global_loads else "reuse: —", True),
    ]
    if s.kind != "naive" and k_done and total.global_loads:
        lines.append(
            (f"naive kernel: {naive_loads:,} global loads ({naive_loads / total.global_loads:.0f}× more)", False)
        )
    if s.kind == "blocktile2d" and total.shared_loads:
        lines.append(
            (f"{total.fmas / total.shared_loads:.0f} multiply-adds per shared-memory read (tiled: 0.5)", False)
        )
    ty, tx = thread
    lines.append(("", False))
    if thread_live:
        what = (
            f"C[{r0 + ty * s.tm}:{r0 + (ty + 1) * s.tm}][{c0 + tx * s.tn}:{c0 + (tx + 1) * s.tn}]"
            if s.tm * s.tn > 1
            else f"C[{r0 + ty}][{c0 + tx}]"
        )
        lines.append((f"thread ({ty}, {tx}) → {what} = Σ over k < {k_done}", False))
    else:
        lines.append((f"thread ({ty}, {tx}) is outside C: it only helps load (pads with 0)", False))
    y = lay.text.top()
    for text, bold in lines:
        painter.setFont(_font(font_px * 0.95, bold))
        painter.setPen(fg)
        painter.drawText(QPointF(lay.text.left(), y), text)
        y += font_px * 1.3
    # the step, in words, along the bottom
    painter.setFont(_font(font_px, True))
    painter.setPen(col_t)
    bottom = QRectF(lay.a.left(), lay.a.bottom() + font_px * 0.3, lay.text.right() - lay.a.left(), font_px * 2.6)
    painter.drawText(bottom, Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap, step.text)


def render_image(state: FrameState, width: int, height: int, theme: Theme = LIGHT,
                 background: Background | None = None) -> QImage:  # fmt: skip
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.background))
    painter = QPainter(image)
    render_frame(painter, width, height, state, theme, background)
    painter.end()
    return image
