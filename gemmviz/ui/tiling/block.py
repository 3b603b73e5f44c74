"""The block-tiled kinds' frame (naive, tiled, padded, blocktile2d): a thread block walking K, with A, B and C and
the block's bands, shared memory (what each kind's `draw_shared` draws), the highlighted thread, the zoomed
block, the counters (core/schedule/counters.py, in the language drawn) and the step in words. A new block-tiled
kind subclasses BlockRenderer (or a kind's renderer) and draws its shared memory from the public parts here:
draw_tiled, draw_padding, draw_copy, draw_shared_reads and draw_barrier, each taking the Frame."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.messages import render
from gemmviz.core.schedule.block import Schedule, Step
from gemmviz.core.schedule.counters import counter_lines
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import spoken_language, tr
from gemmviz.ui.theme import Theme
from gemmviz.ui.tiling.background import record_background
from gemmviz.ui.tiling.bounds_bug import draw_bug
from gemmviz.ui.tiling.captions import caption_words
from gemmviz.ui.tiling.layout import (
    LINE,
    NAME_PX,
    Floors,
    Layout,
    _cached_layout,
    _registers_label,
    _shared_labels,
    column_lines,
    inset_window,
    shared_pad,
    text_columns,
    thread_cell,
)
from gemmviz.ui.tiling.paint import Texts, faint, put_text, sub_rect
from gemmviz.ui.tiling.render import (
    Canvas,
    FrameState,
    ScheduleRenderer,
    font_px_for,
    legible_text_px,
    min_text_px,
    renderer_for,
)


@dataclass(frozen=True)
class Frame:
    """Everything one frame of a block-tiled schedule is drawn with (the drawing context of its parts)."""

    painter: QPainter
    s: Schedule
    step: Step
    state: FrameState
    lay: Layout
    col_a: QColor
    col_b: QColor
    col_c: QColor
    col_t: QColor  # the highlighted thread
    fg: QColor
    line_px: float
    texts: Texts | None

    @property
    def font_px(self) -> float:
        return self.lay.font_px

    @property
    def thread_rows(self) -> tuple[int, int]:
        """The rows of C the highlighted thread computes (and its columns, below)."""
        r0 = self.s.rows[0] + self.state.thread[0] * self.s.tm
        return r0, r0 + self.s.tm

    @property
    def thread_cols(self) -> tuple[int, int]:
        c0 = self.s.cols[0] + self.state.thread[1] * self.s.tn
        return c0, c0 + self.s.tn

    @property
    def thread_live(self) -> bool:
        p = self.s.run_problem
        return self.thread_rows[0] < p.m and self.thread_cols[0] < p.n


class BlockRenderer(ScheduleRenderer):
    """A thread block walking K: A, B and C with the block's bands, shared memory (what `draw_shared` draws),
    the highlighted thread, the zoomed block, the counters and the step in words."""

    def shape_words(self, s: Schedule, compact: bool = False) -> str:
        """The block's shape, as the counters' second line says it (`compact`: beside another picture)."""
        return f"TILE {s.bm}"

    def draw_shared(self, f: Frame) -> None:
        """Shared memory and the step's movement in it."""

    def bank_line(self, s: Schedule, compact: bool = False) -> str | None:
        """A line of the counters on shared memory's bank conflicts (None: the kind has none to show)."""
        return None

    def draw(self, canvas: Canvas, state: FrameState) -> None:
        s = state.schedule
        step_i = max(0, min(state.step, len(s.steps) - 1))
        lines = counter_texts(s, step_i, state.thread, state.compact, state.lang)
        if s.steps[step_i].kind == "store" and s.steps[step_i].wrong:  # the seed's bounds bug, drawn big
            w, h, theme = canvas.w, canvas.h, canvas.theme
            draw_bug(
                canvas, s, step_i, font_px_for(w, h, theme), min_text_px(w, h, theme), self.shape_words(s), put_text
            )
            return
        f = self._frame(canvas, state, step_i)
        _draw_block_bands(f)
        self.draw_shared(f)
        if f.lay.regs is not None:
            _draw_registers(f)
        if f.thread_live:
            _draw_thread(f)
        _draw_inset(f)
        canvas.painter.drawPixmap(0, 0, canvas.background.grids(s, canvas.theme, f.lay, _dpr(canvas.painter)))
        _draw_text(f, lines)

    def layout(self, w: int, h: int, state: FrameState, theme: Theme) -> Layout:
        """Where the frame's parts go in a w × h view (the layout _frame draws into)."""
        s = state.schedule
        last = counter_texts(s, len(s.steps) - 1, state.thread, state.compact, state.lang)
        font_px, min_px = font_px_for(w, h, theme), min_text_px(w, h, theme)
        bold = tuple(b for _t, b in last)
        measured = [t for t, _b in last]
        floors = Floors(min_px, legible_text_px(h, theme))
        return _cached_layout(w, h, s, font_px, measured, floors, bold, state.compact, state.lang)

    def _frame(self, canvas: Canvas, state: FrameState, step_i: int) -> Frame:
        """The frame's layout (fitted to the last step's counters: the longest numbers and every optional line,
        so that it and the cached background stay the same for the whole animation), its background drawn."""
        s, painter = state.schedule, canvas.painter
        lay = self.layout(canvas.w, canvas.h, state, canvas.theme)
        painter.drawPixmap(0, 0, canvas.background.get(canvas.w, canvas.h, s, canvas.theme, lay, _dpr(painter)))
        if canvas.texts is not None:
            record_background(s, lay, canvas.texts)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        col_a, col_b, col_c, col_t = (QColor(canvas.theme.palette[i]) for i in range(4))
        return Frame(
            painter,
            s,
            s.steps[step_i],
            state,
            lay,
            col_a,
            col_b,
            col_c,
            col_t,
            QColor(canvas.theme.foreground),
            max(2.0, canvas.theme.line_px),
            canvas.texts,
        )


def _dpr(painter: QPainter) -> float:
    return painter.device().devicePixelRatioF()


def _draw_block_bands(f: Frame) -> None:
    """The rows of A and columns of B the block will ever read, and its partial sums growing in C."""
    p, sc, lay, painter = f.s.run_problem, f.lay.scale, f.lay, f.painter
    (r0, r1), (c0, c1) = f.s.rows, f.s.cols
    painter.fillRect(sub_rect(lay.a, sc, r0, r1, 0, p.k), faint(f.col_a, 40))
    painter.fillRect(sub_rect(lay.b, sc, 0, p.k, c0, c1), faint(f.col_b, 40))
    block_c = sub_rect(lay.c, sc, r0, r1, c0, c1)
    painter.fillRect(block_c, faint(f.col_c, int(40 + 180 * f.step.k_done / p.k)))
    painter.setPen(QPen(f.col_c, f.line_px))
    painter.drawRect(block_c)
    if f.step.kind == "store":
        painter.fillRect(block_c, faint(f.col_c, 230))


def _draw_thread(f: Frame) -> None:
    """The highlighted thread: its rows of A, columns of B and elements of C, and the part of K summed so far."""
    p, sc, lay, painter = f.s.run_problem, f.lay.scale, f.lay, f.painter
    (tr0, tr1), (tc0, tc1) = f.thread_rows, f.thread_cols
    k_hi = f.step.k_done if f.step.kind != "store" else p.k
    painter.setPen(QPen(f.col_t, f.line_px))
    painter.drawRect(sub_rect(lay.a, sc, tr0, tr1, 0, p.k))
    painter.drawRect(sub_rect(lay.b, sc, 0, p.k, tc0, tc1))
    cell = sub_rect(lay.c, sc, tr0, tr1, tc0, tc1)
    grow = max(0.0, 4 - cell.width()) / 2
    painter.fillRect(cell.adjusted(-grow, -grow, grow, grow), f.col_t)
    if k_hi:
        painter.fillRect(sub_rect(lay.a, sc, tr0, tr1, 0, k_hi), faint(f.col_t, 120))
        painter.fillRect(sub_rect(lay.b, sc, 0, k_hi, tc0, tc1), faint(f.col_t, 120))


def _draw_inset(f: Frame) -> None:
    """The block of C magnified (a window of its threads around the highlighted one): each cell one thread's
    elements, the highlighted thread's cell at least 12 px at 720p; its name on the row above it."""
    lay, s, painter = f.lay, f.s, f.painter
    if lay.inset is None:
        return
    painter.fillRect(lay.inset, faint(f.col_c, int(40 + 180 * f.step.k_done / s.run_problem.k)))
    _grey_outside_c(f)
    painter.setPen(QPen(f.col_c, f.line_px))
    painter.drawRect(lay.inset)
    cell = thread_cell(lay, s, f.state.thread)
    if f.thread_live and cell is not None:
        painter.fillRect(cell, f.col_t)
    # what it magnifies: a dashed line in C's colour from it to the block in C (its name in that colour too,
    # so that it reads as C's block, not as global memory's name over it)
    block = sub_rect(lay.c, lay.scale, s.rows[0], s.rows[1], s.cols[0], s.cols[1])
    painter.setPen(QPen(f.col_c, max(2.0, f.line_px * 0.7), Qt.PenStyle.DashLine))
    painter.drawLine(lay.inset.bottomRight(), block.topLeft())
    name_colour = QColor(f.col_c).darker(135) if f.fg.lightness() < 128 else QColor(f.col_c).lighter(120)
    painter.setPen(name_colour)
    px = max(lay.font_px * NAME_PX, lay.min_px)
    room = lay.b.left() - lay.inset.left() - lay.font_px * 0.5
    last = len(lay.inset_name) - 1
    for i, line in enumerate(lay.inset_name):  # the last line just above the block
        at = QPointF(lay.inset.left(), lay.inset.top() - lay.font_px * 0.35 - (last - i) * LINE * px)
        put_text(painter, f.texts, at, line, px, width=room, floor=lay.min_px)


def _grey_outside_c(f: Frame) -> None:
    """At an edge block, the inset's threads whose elements lie outside C (rows ≥ M or columns ≥ N) greyed
    out: they load zeros and their store is skipped by the bounds check."""
    lay, s = f.lay, f.s
    oy, ox = inset_window(lay, s, f.state.thread)
    shown_y, shown_x = lay.inset_threads
    # the first thread row / column outside C, in the inset's window
    first_y = -(-(s.problem.m - s.block[0] * s.bm) // max(1, s.tm)) - oy
    first_x = -(-(s.problem.n - s.block[1] * s.bn) // max(1, s.tn)) - ox
    grey = QColor("#8A8A8A")
    grey.setAlpha(200)
    cell, box = lay.inset_cell, lay.inset
    if box is None:
        return
    if 0 <= first_y < shown_y:
        f.painter.fillRect(
            QRectF(box.left(), box.top() + first_y * cell, box.width(), box.bottom() - box.top() - first_y * cell), grey
        )
    if 0 <= first_x < shown_x:
        f.painter.fillRect(
            QRectF(box.left() + first_x * cell, box.top(), box.right() - box.left() - first_x * cell, box.height()),
            grey,
        )


def _global_slices(f: Frame) -> tuple[QRectF, QRectF] | None:
    """The k-slice of A and of B this step works on, in global memory (None for the final store)."""
    kt, lay, s = f.step.k_tile, f.lay, f.s
    if kt < 0:
        return None
    k0 = kt * s.bk
    ga = sub_rect(lay.a, lay.scale, s.rows[0], s.rows[0] + s.bm, k0, k0 + s.bk).intersected(
        lay.a.adjusted(-1, -1, 1, 1)
    )
    gb = sub_rect(lay.b, lay.scale, k0, k0 + s.bk, s.cols[0], s.cols[0] + s.bn).intersected(
        lay.b.adjusted(-1, -1, 1, 1)
    )
    return ga, gb


def draw_tiled(f: Frame) -> None:
    """The step's slices of A and B outlined in global memory; the shared tiles (the layout's smem_a, smem_b),
    filled once loaded (from a load's settled frame to the second barrier), named as the kernel names them."""
    painter, lay, step = f.painter, f.lay, f.step
    loaded = step.kind in ("sync", "compute", "sync2") or (step.kind == "load" and f.state.phase >= 1.0)
    slices = _global_slices(f)
    if slices is not None:
        for rect, colour in zip(slices, (f.col_a, f.col_b)):
            painter.setPen(QPen(colour, f.line_px))
            painter.drawRect(rect)
    label_y = max(lay.smem_a.bottom(), lay.smem_b.bottom()) + f.font_px * 1.05
    pad = shared_pad(f.s)
    for rect, colour, label, cols in zip(
        (lay.smem_a, lay.smem_b), (f.col_a, f.col_b), _shared_labels(f.s), (f.s.bk, f.s.bn)
    ):
        painter.fillRect(rect, faint(colour, 170 if loaded else 25))
        if pad:  # a padded array's extra column: words no thread loads or reads, only there to shift the banks
            c = rect.width() / (cols + pad)
            painter.fillRect(QRectF(rect.left() + cols * c, rect.top(), pad * c, rect.height()), QColor("#8A8A8A"))
        painter.setPen(QPen(colour, f.line_px))
        painter.drawRect(rect)
        painter.setPen(f.fg)
        put_text(painter, f.texts, QPointF(rect.left(), label_y), label, f.font_px * 0.9)


def draw_padding(f: Frame) -> None:
    """The part of a square shared tile (TILE = BM) that lies outside the matrix is zero-filled, not loaded:
    hatched."""
    kt, s, p = f.step.k_tile, f.s, f.s.run_problem
    if kt < 0:
        return
    t = s.bm
    rows_a, cols_a = min(t, p.m - s.rows[0]), min(t, p.k - kt * t)
    rows_b, cols_b = min(t, p.k - kt * t), min(t, p.n - s.cols[0])
    grey = QColor("#8A8A8A")  # as the zoomed block greys its threads outside C
    grey.setAlpha(170)
    hatch = QBrush(faint(f.fg, 150), Qt.BrushStyle.BDiagPattern)
    pad = shared_pad(s)
    for rect, rows, cols in ((f.lay.smem_a, rows_a, cols_a), (f.lay.smem_b, rows_b, cols_b)):
        c = rect.width() / (t + pad)  # a padded array's extra column is right of the tile's t
        strips = []
        if cols < t:
            strips.append(QRectF(rect.left() + cols * c, rect.top(), (t - cols) * c, rect.height()))
        if rows < t:
            strips.append(QRectF(rect.left(), rect.top() + rows * c, cols * c, (t - rows) * c))
        for strip in strips:
            f.painter.fillRect(strip, grey)
            f.painter.fillRect(strip, hatch)


def draw_copy(f: Frame) -> None:
    """The copy from global to shared memory, as a visible movement (smoothstep of the phase): draw it while a
    step of a kind the schedule kind `glides` has a phase below 1."""
    slices = _global_slices(f)
    if slices is None:
        return
    t = f.state.phase
    e = t * t * (3 - 2 * t)
    for src, dst, colour in zip(slices, (f.lay.smem_a, f.lay.smem_b), (f.col_a, f.col_b)):
        moving = QRectF(
            src.left() + (dst.left() - src.left()) * e,
            src.top() + (dst.top() - src.top()) * e,
            src.width() + (dst.width() - src.width()) * e,
            src.height() + (dst.height() - src.height()) * e,
        )
        f.painter.fillRect(moving, faint(colour, 150))
        f.painter.setPen(QPen(colour, f.line_px))
        f.painter.drawRect(moving)


def draw_shared_reads(f: Frame) -> None:
    """The highlighted thread's reads during compute: its TM rows of the A tile and TN columns of the B tile."""
    lay, s = f.lay, f.s
    ty, tx = f.state.thread
    cell_a = lay.smem_a.height() / s.bm
    cell_b = lay.smem_b.width() / (s.bn + shared_pad(s))  # a padded array's extra column is not a thread's
    f.painter.setPen(QPen(f.col_t, f.line_px))
    a, b = lay.smem_a, lay.smem_b
    f.painter.drawRect(
        QRectF(a.left(), a.top() + ty * s.tm * cell_a, a.width() * s.bk / (s.bk + shared_pad(s)), s.tm * cell_a)
    )
    f.painter.drawRect(QRectF(b.left() + tx * s.tn * cell_b, b.top(), s.tn * cell_b, b.height()))


def draw_barrier(f: Frame) -> None:
    """__syncthreads(): a dashed line across the shared-memory column (the layout's barrier_y), named."""
    lay, painter = f.lay, f.painter
    y = lay.barrier_y
    painter.setPen(QPen(f.fg, f.line_px, Qt.PenStyle.DashLine))
    # the line under the label's underscores, in the row the layout keeps below it (it ran through "__syncthreads()")
    line_y = y + 0.3 * f.font_px
    painter.drawLine(QPointF(lay.smem_a.left(), line_y), QPointF(lay.column_right, line_y))
    painter.setPen(f.fg)
    put_text(
        painter,
        f.texts,
        QPointF(lay.smem_a.left(), y - f.font_px * 0.35),
        tr("__syncthreads()  — barrier"),
        f.font_px,
        True,
        lay.column_right - lay.smem_a.left(),
    )


def _draw_registers(f: Frame) -> None:
    """The highlighted thread's registers: TM values of A, TN of B, and its TM x TN accumulator tile."""
    rect, s, painter = f.lay.regs, f.s, f.painter
    if rect is None:
        return
    r = rect.height() / (s.tm + 1)  # a register's square (layout.REGISTER_CELL)
    painter.setPen(f.fg)
    for i, line in enumerate(reversed(_registers_label(s))):  # upwards from the line just above the registers
        px = f.font_px * 0.9
        put_text(painter, f.texts, QPointF(rect.left(), rect.top() - r - px * 0.25 - i * LINE * px), line, px, True)
    active = f.step.kind == "compute"
    left, top = rect.left(), rect.top() + r * 0.6
    for i in range(s.tm):  # regM, a column left of the accumulators
        painter.fillRect(QRectF(left, top + i * r, r * 0.9, r * 0.9), faint(f.col_a, 200 if active else 50))
    for j in range(s.tn):  # regN, a row above them
        painter.fillRect(QRectF(left + (j + 1) * r, top - r, r * 0.9, r * 0.9), faint(f.col_b, 200 if active else 50))
    fill = faint(f.col_c, int(40 + 180 * f.step.k_done / s.run_problem.k))
    for i in range(s.tm):
        for j in range(s.tn):
            painter.fillRect(QRectF(left + (j + 1) * r, top + i * r, r * 0.9, r * 0.9), fill)


def counter_texts(
    s: Schedule, step_i: int, thread: tuple[int, int], compact: bool = False, lang: str | None = None
) -> list[tuple[str, bool]]:
    """The counters beside the frame (core/schedule/counters.py), (text, bold) per line, in `lang`, else in the
    language spoken where the frame is drawn (the window's, or a lesson's own)."""
    kind = renderer_for(s.kind)
    shape = kind.shape_words(s, compact) if isinstance(kind, BlockRenderer) else ""
    bank = kind.bank_line(s, compact) if isinstance(kind, BlockRenderer) else None
    lines = counter_lines(s, step_i, thread, compact, tr(VARIANTS[s.variant].title), shape, bank)
    lang = lang or spoken_language()
    return [(render(m, lang), bold) for m, bold in lines]


def _draw_text(f: Frame, lines: list[tuple[str, bool]]) -> None:
    """The counters beside the frame, one line each, and the step in words along the bottom."""
    painter, lay, font_px, texts = f.painter, f.lay, f.font_px, f.texts
    painter.setPen(f.fg)
    for (x, width), column in zip(text_columns(lay), column_lines(lines, lay.text_columns, [b for _t, b in lines])):
        y = lay.text.top() + font_px
        for text, bold in column:
            put_text(painter, texts, QPointF(x, y), text, font_px * 0.95, bold, width, lay.min_px)
            y += font_px * LINE
    # the step, in words, along the bottom under A and C (never under the counters)
    painter.setPen(f.col_t)
    flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
    text = caption = caption_words(f.step, f.state.lang)  # in the frame's language
    # the layout was fitted to the widest caption of each kind; another of the same kind may wrap a word sooner
    # and need a line more: a smaller type, down to the frame's smallest, before any word is cut with …
    px = font_px
    fm = QFontMetricsF(pixel_font(px, True))
    while fm.boundingRect(lay.caption, flags, text).height() > lay.caption.height() + 1 and px > lay.min_px:
        px = max(lay.min_px, px - 0.5)
        fm = QFontMetricsF(pixel_font(px, True))
    painter.setFont(pixel_font(px, True))
    share = lay.caption.height() // (LINE * px) - 0.1  # keep to its lines: cut with … (wrapping loses some)
    while fm.boundingRect(lay.caption, flags, text).height() > lay.caption.height() + 1 and share > 0.5:
        text = fm.elidedText(caption, Qt.TextElideMode.ElideRight, lay.caption.width() * share)
        share -= 0.15
    painter.drawText(lay.caption, flags, text)
    if texts is not None:
        texts.append((text, fm.boundingRect(lay.caption, flags, text)))
