"""Drawing one frame of the tiling animation: A, B and C in global memory, the kernel's shared tiles, and the
steps of one thread block moving between them. It only draws a schedule that `core` computed.

`render_frame(painter, w, h, state, theme)` is a pure function of the state (schedule, step, phase,
thread), so stepping to frame i from anywhere draws the same image: on screen (ui/tiling/view.py), into a PNG,
GIF or video (ui/export/exporters.py) and in the tests.

Each schedule kind (core/schedule/kinds.py) is drawn by the renderer registered under its name: the block-tiled
ones here (BlockRenderer with the shared-memory part per kind: NaiveRenderer, TiledRenderer, BlockTileRenderer),
any other in a module of its own, ui/tiling/kind_NAME.py (kind_hopper.py). A new block-tiled kind may subclass
one of these and draw its shared memory from the public parts below: draw_tiled, draw_padding, draw_copy,
draw_shared_reads and draw_barrier, each drawing from a Frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QImage, QPainter, QPen, QPixmap

from gemmviz.core import interrupt
from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.registry import Registry, import_if_present
from gemmviz.core.schedule.block import Schedule, Step, reuse_factor
from gemmviz.core.schedule.kinds import schedule_kind
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import LIGHT, Theme
from gemmviz.ui.tiling.bounds_bug import draw_bug
from gemmviz.ui.tiling.captions import caption_words
from gemmviz.ui.tiling.layout import (
    LINE,
    NAME_PX,
    Layout,
    _cached_layout,
    _fm,
    _registers_label,
    _shared_labels,
    has_registers,
    inset_window,
    shared_pad,
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
    # beside another picture (side by side, the code view: half a slide): the counters that tell the kernels
    # apart only, so that the rest stays at projector size (no bytes, no single thread's sum)
    compact: bool = False


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
    pad = shared_pad(s)
    for rect, rows, cols in ((lay.smem_a, s.bm, s.bk + pad), (lay.smem_b, s.bk, s.bn + pad)):
        if max(rows, cols) <= 33 and schedule_kind(s.kind).shared_memory:  # the naive kernel's boxes stay empty
            _grid(painter, rect, rows, cols)
    if lay.inset is not None:
        painter.setPen(QPen(_faint(fg, 70), 1))
        _grid(painter, lay.inset, *lay.inset_threads)


def _text(
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


def _label_right(lay: Layout) -> float:
    """Where the matrices' names must end: left of the shared-memory column and of the counters."""
    return min(lay.smem_a.left(), lay.text.left()) - lay.font_px * 0.5


def _background_labels(s: Schedule, lay: Layout) -> list[tuple[QPointF, str, float, bool]]:
    """The matrices' names over them (a name shortened to its letter where its size would reach the next one:
    the sizes are in the counters' title), global memory's name where it fits at the frame's type or its floor
    (left of B's name, else after it on B's row, B's name then shortened to its letter if that makes room, else
    from A's left edge with B's letter moved right after it), and shared memory's heading."""
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
    gm = _fm(px)
    y = lay.b.top() - f * 0.35
    # left of B's name is the corner over the zoomed block: there it read as the block's name, so it is used
    # only where the frame has no zoomed block
    left_room = lay.b.left() - lay.a.left() - f * 0.5 if lay.inset is None else -1.0
    where = None
    for b_name in dict.fromkeys((names["B"], "B")):  # B's whole name first, its letter if that makes room
        after = lay.b.left() + fm.horizontalAdvance(b_name) + f
        for name in (tr("global memory (HBM)"), tr("global memory")):
            if after + gm.horizontalAdvance(name) <= right:
                where = (QPointF(after, y), name)
            elif gm.horizontalAdvance(name) <= left_room:
                where = (QPointF(lay.a.left(), y), name)
            if where:
                break
        if where:
            names["B"] = b_name
            break
    b_x = lay.b.left()
    if where is None:  # after A's name, on A's row (left of C's)
        where = _after_a(lay, names, fm, gm)
    if where is None:  # last: global memory's name from A's left edge, B's letter moved right to follow it
        name = tr("global memory")
        after = lay.a.left() + gm.horizontalAdvance(name) + f * 0.6
        if after + fm.horizontalAdvance("B") <= min(right, lay.b.right()):
            where, names["B"], b_x = (QPointF(lay.a.left(), y), name), "B", max(b_x, after)
    out = [
        (QPointF(x, rect.top() - f * 0.35), names[letter], f, True)
        for rect, letter, x in ((lay.a, "A", lay.a.left()), (lay.b, "B", b_x), (lay.c, "C", lay.c.left()))
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
    for at, text, px, bold in _background_labels(s, lay):
        _text(painter, texts, at, text, px, bold)


def _faint(c: QColor, alpha: int) -> QColor:
    c = QColor(c)
    c.setAlpha(alpha)
    return c


def font_px_for(w: int, h: int, theme: Theme) -> float:
    """The animation's font: the theme's size (exports scale the theme, so 4K is 1080p doubled), made smaller
    only where the view is too small for it."""
    return max(7.0, min(theme.font_pt * FONT_PER_PT, h / 18))


PROJECTOR_SHARE = 0.64  # a projector's smallest text, 24 px at 1080p, of the projector theme's 38 px type
SHORT_VIEW_LINES = 24  # a short view's smallest text: 1/24 of its height (16 px in the window at 1280×720)


def min_text_px(w: int, h: int, theme: Theme) -> float:
    """The smallest type any text of a frame is set in: never below 70% of the frame's font, nor below the
    projector's 24 px at 1080p (0.64 of the theme's type; exports scale the theme), except in a view too short
    for that type (the window at 1280×720 gives it about 400 px), where it is 1/24 of the view's height."""
    base = font_px_for(w, h, theme)
    short = math.ceil(h / SHORT_VIEW_LINES)  # whole pixels: fonts are set in them
    return min(base, max(0.7 * base, min(PROJECTOR_SHARE * theme.font_pt * FONT_PER_PT, short)))


# ---- the registry of renderers: one per schedule kind (core/schedule/kinds.py) ----------------------------------
@dataclass(frozen=True)
class Canvas:
    """Where a frame is drawn: the painter and its size, the theme, the cached background and, for the layout
    tests, the list every text drawn is appended to (None: not recorded)."""

    painter: QPainter
    w: int
    h: int
    theme: Theme
    background: Background
    texts: Texts | None = None


class ScheduleRenderer:
    """The drawing of one kind of schedule: `draw(canvas, state)` draws one frame, a pure function of the state."""

    def draw(self, canvas: Canvas, state: FrameState) -> None:
        raise NotImplementedError


RENDERERS: Registry[str, ScheduleRenderer] = Registry("renderer of schedule kind")


def register_renderer(name: str):
    """Class decorator: the renderer of schedule kind `name` (its core part registered under the same name)."""

    def add(cls: type[ScheduleRenderer]) -> type[ScheduleRenderer]:
        RENDERERS.add(cls(), name)
        return cls

    return add


def unregister_renderer(name: str) -> None:
    RENDERERS.remove(name)


def renderer_for(kind: str) -> ScheduleRenderer:
    """The renderer of schedule kind `kind`, its module (ui/tiling/kind_KIND.py, a name no other module of the
    package has) imported on first use."""
    module = f"gemmviz.ui.tiling.kind_{kind}"
    if kind not in RENDERERS:
        import_if_present(module)
    if kind not in RENDERERS:
        raise KeyError(f"schedule kind {kind!r} has no renderer registered (ui/tiling/render.py)")
    return RENDERERS[kind]


def render_frame(
    painter: QPainter,
    w: int,
    h: int,
    state: FrameState,
    theme: Theme = LIGHT,
    background: Background | None = None,
    texts: Texts | None = None,
) -> None:
    """Draw one frame. Pure: the same state gives the same picture. If `texts` is a list, every text drawn is
    appended to it with its box (for the layout tests)."""
    canvas = Canvas(painter, w, h, theme, background or Background(), texts)
    renderer_for(state.schedule.kind).draw(canvas, state)


# ---- the block-tiled kinds: naive, tiled, block tiling -------------------------------------------------------
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

    def shape_words(self, s: Schedule) -> str:
        """The block's shape, as the counters' second line says it."""
        return f"TILE {s.bm}"

    def draw_shared(self, f: Frame) -> None:
        """Shared memory and the step's movement in it."""

    def bank_line(self, s: Schedule) -> str | None:
        """A line of the counters on shared memory's bank conflicts (None: the kind has none to show)."""
        return None

    def draw(self, canvas: Canvas, state: FrameState) -> None:
        s = state.schedule
        step_i = max(0, min(state.step, len(s.steps) - 1))
        lines = _counter_lines(s, step_i, s.steps[step_i], state.thread, state.compact)
        if s.steps[step_i].kind == "store" and s.steps[step_i].wrong:  # the seed's bounds bug, drawn big
            w, h, theme = canvas.w, canvas.h, canvas.theme
            draw_bug(canvas, s, step_i, font_px_for(w, h, theme), min_text_px(w, h, theme), self.shape_words(s), _text)
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
        last = _counter_lines(s, len(s.steps) - 1, s.steps[-1], state.thread, state.compact)
        font_px, min_px = font_px_for(w, h, theme), min_text_px(w, h, theme)
        return _cached_layout(w, h, s, font_px, [t for t, _b in last], min_px)

    def _frame(self, canvas: Canvas, state: FrameState, step_i: int) -> Frame:
        """The frame's layout (fitted to the last step's counters: the longest numbers and every optional line,
        so that it and the cached background stay the same for the whole animation), its background drawn."""
        s, painter = state.schedule, canvas.painter
        lay = self.layout(canvas.w, canvas.h, state, canvas.theme)
        painter.drawPixmap(0, 0, canvas.background.get(canvas.w, canvas.h, s, canvas.theme, lay, _dpr(painter)))
        if canvas.texts is not None:
            _record_background(s, lay, canvas.texts)
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


@register_renderer("naive")
class NaiveRenderer(BlockRenderer):
    """No shared memory: each step's slices of A and B light up in global memory; the tiles' boxes stay empty."""

    def shape_words(self, s: Schedule) -> str:
        return tr("block {n}").format(n=s.bm)

    def draw_shared(self, f: Frame) -> None:
        _draw_naive(f)


@register_renderer("tiled")
class TiledRenderer(BlockRenderer):
    """Tiles of A and B copied into shared memory (zero-padded at the matrix's edges), barriers, reads from them."""

    pads_tiles = True  # the part of a tile outside the matrix is zero-filled (hatched)
    shows_banks = True  # a line of the counters: the bank conflicts of its shared stores and reads

    def bank_line(self, s: Schedule) -> str | None:
        """Its shared stores' and reads' bank conflicts, worked out from the kernel's addresses at this tile and
        padding (core/schedule/accesses.shared_banks: the rule the recorded accesses are summarised by)."""
        if not self.shows_banks:
            return None
        from gemmviz.core.schedule.accesses import shared_banks  # numpy and the traces' code, on first use

        banks = shared_banks(s.bm, shared_pad(s))

        parts = [
            tr("{what} {n}-way").format(what=tr(what), n=_times(banks.ways(kind)))
            for kind, what in (("store", QT_TRANSLATE_NOOP("", "stores")), ("read", QT_TRANSLATE_NOOP("", "reads")))
            if banks.ways(kind) > 1.0
        ]  # short: beside another kernel the counters have half a slide
        return tr("bank conflicts: {which}").format(which=", ".join(parts) if parts else tr("none"))

    def draw_shared(self, f: Frame) -> None:
        draw_tiled(f)
        if self.pads_tiles:
            draw_padding(f)
        if f.step.kind == "load" and f.state.phase < 1.0:
            draw_copy(f)
        if f.step.kind == "compute":
            draw_shared_reads(f)
        if f.step.kind in ("sync", "sync2"):
            draw_barrier(f)


@register_renderer("blocktile2d")
class BlockTileRenderer(TiledRenderer):
    """Block tiling: the kernel runs a zero-padded problem, and each thread keeps a TM×TN tile in registers."""

    pads_tiles = False
    shows_banks = False

    def shape_words(self, s: Schedule) -> str:
        return tr("{bm}×{bn}×{bk}, {tm}×{tn} per thread").format(bm=s.bm, bn=s.bn, bk=s.bk, tm=s.tm, tn=s.tn)


def _draw_block_bands(f: Frame) -> None:
    """The rows of A and columns of B the block will ever read, and its partial sums growing in C."""
    p, sc, lay, painter = f.s.run_problem, f.lay.scale, f.lay, f.painter
    (r0, r1), (c0, c1) = f.s.rows, f.s.cols
    painter.fillRect(_sub(lay.a, sc, r0, r1, 0, p.k), _faint(f.col_a, 40))
    painter.fillRect(_sub(lay.b, sc, 0, p.k, c0, c1), _faint(f.col_b, 40))
    block_c = _sub(lay.c, sc, r0, r1, c0, c1)
    painter.fillRect(block_c, _faint(f.col_c, int(40 + 180 * f.step.k_done / p.k)))
    painter.setPen(QPen(f.col_c, f.line_px))
    painter.drawRect(block_c)
    if f.step.kind == "store":
        painter.fillRect(block_c, _faint(f.col_c, 230))


def _draw_thread(f: Frame) -> None:
    """The highlighted thread: its rows of A, columns of B and elements of C, and the part of K summed so far."""
    p, sc, lay, painter = f.s.run_problem, f.lay.scale, f.lay, f.painter
    (tr0, tr1), (tc0, tc1) = f.thread_rows, f.thread_cols
    k_hi = f.step.k_done if f.step.kind != "store" else p.k
    painter.setPen(QPen(f.col_t, f.line_px))
    painter.drawRect(_sub(lay.a, sc, tr0, tr1, 0, p.k))
    painter.drawRect(_sub(lay.b, sc, 0, p.k, tc0, tc1))
    cell = _sub(lay.c, sc, tr0, tr1, tc0, tc1)
    grow = max(0.0, 4 - cell.width()) / 2
    painter.fillRect(cell.adjusted(-grow, -grow, grow, grow), f.col_t)
    if k_hi:
        painter.fillRect(_sub(lay.a, sc, tr0, tr1, 0, k_hi), _faint(f.col_t, 120))
        painter.fillRect(_sub(lay.b, sc, 0, k_hi, tc0, tc1), _faint(f.col_t, 120))


def _record_background(s: Schedule, lay: Layout, texts: Texts) -> None:
    """The background's texts (drawn once into the cached pixmap), measured again for the record."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    with interrupt.deferred():
        painter = QPainter(image)
        try:
            for at, text, px, bold in _background_labels(s, lay):
                _text(painter, texts, at, text, px, bold)
        finally:
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


def _draw_inset(f: Frame) -> None:
    """The block of C magnified (a window of its threads around the highlighted one): each cell one thread's
    elements, the highlighted thread's cell at least 12 px at 720p; its name on the row above it."""
    lay, s, painter = f.lay, f.s, f.painter
    if lay.inset is None:
        return
    painter.fillRect(lay.inset, _faint(f.col_c, int(40 + 180 * f.step.k_done / s.run_problem.k)))
    _grey_outside_c(f)
    painter.setPen(QPen(f.col_c, f.line_px))
    painter.drawRect(lay.inset)
    if f.thread_live:
        painter.fillRect(thread_cell(lay, s, f.state.thread), f.col_t)
    # what it magnifies: a dashed line in C's colour from it to the block in C (its name in that colour too,
    # so that it reads as C's block, not as global memory's name over it)
    block = _sub(lay.c, lay.scale, s.rows[0], s.rows[1], s.cols[0], s.cols[1])
    painter.setPen(QPen(f.col_c, max(2.0, f.line_px * 0.7), Qt.PenStyle.DashLine))
    painter.drawLine(lay.inset.bottomRight(), block.topLeft())
    name_colour = QColor(f.col_c).darker(135) if f.fg.lightness() < 128 else QColor(f.col_c).lighter(120)
    painter.setPen(name_colour)
    px = max(lay.font_px * NAME_PX, lay.min_px)
    room = lay.b.left() - lay.inset.left() - lay.font_px * 0.5
    last = len(lay.inset_name) - 1
    for i, line in enumerate(lay.inset_name):  # the last line just above the block
        at = QPointF(lay.inset.left(), lay.inset.top() - lay.font_px * 0.35 - (last - i) * LINE * px)
        _text(painter, f.texts, at, line, px, width=room, floor=lay.min_px)


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
    ga = _sub(lay.a, lay.scale, s.rows[0], s.rows[0] + s.bm, k0, k0 + s.bk).intersected(lay.a.adjusted(-1, -1, 1, 1))
    gb = _sub(lay.b, lay.scale, k0, k0 + s.bk, s.cols[0], s.cols[0] + s.bn).intersected(lay.b.adjusted(-1, -1, 1, 1))
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
        painter.fillRect(rect, _faint(colour, 170 if loaded else 25))
        if pad:  # a padded array's extra column: words no thread loads or reads, only there to shift the banks
            c = rect.width() / (cols + pad)
            painter.fillRect(QRectF(rect.left() + cols * c, rect.top(), pad * c, rect.height()), QColor("#8A8A8A"))
        painter.setPen(QPen(colour, f.line_px))
        painter.drawRect(rect)
        painter.setPen(f.fg)
        _text(painter, f.texts, QPointF(rect.left(), label_y), label, f.font_px * 0.9)


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
    hatch = QBrush(_faint(f.fg, 150), Qt.BrushStyle.BDiagPattern)
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
        f.painter.fillRect(moving, _faint(colour, 150))
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
    _text(
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
    r = rect.height() / (s.tm + 1)  # a register's square (layout.REGISTER_CELL)
    painter.setPen(f.fg)
    for i, line in enumerate(reversed(_registers_label(s))):  # upwards from the line just above the registers
        px = f.font_px * 0.9
        _text(painter, f.texts, QPointF(rect.left(), rect.top() - r - px * 0.25 - i * LINE * px), line, px, True)
    active = f.step.kind == "compute"
    left, top = rect.left(), rect.top() + r * 0.6
    for i in range(s.tm):  # regM, a column left of the accumulators
        painter.fillRect(QRectF(left, top + i * r, r * 0.9, r * 0.9), _faint(f.col_a, 200 if active else 50))
    for j in range(s.tn):  # regN, a row above them
        painter.fillRect(QRectF(left + (j + 1) * r, top - r, r * 0.9, r * 0.9), _faint(f.col_b, 200 if active else 50))
    fill = _faint(f.col_c, int(40 + 180 * f.step.k_done / s.run_problem.k))
    for i in range(s.tm):
        for j in range(s.tn):
            painter.fillRect(QRectF(left + (j + 1) * r, top + i * r, r * 0.9, r * 0.9), fill)


def _draw_naive(f: Frame) -> None:
    """The step's slices light up in global memory; shared memory's boxes are dashed and say they are unused."""
    painter, lay, step = f.painter, f.lay, f.step
    if step.a is not None:
        painter.fillRect(_sub(lay.a, lay.scale, step.a.r0, step.a.r1, step.a.c0, step.a.c1), _faint(f.col_a, 170))
        painter.fillRect(_sub(lay.b, lay.scale, step.b.r0, step.b.r1, step.b.c0, step.b.c1), _faint(f.col_b, 170))
    for rect in (lay.smem_a, lay.smem_b):
        painter.setPen(QPen(_faint(f.fg, 80), 1, Qt.PenStyle.DashLine))
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


def _times(x: float) -> str:
    """A reuse figure: whole inside a block (16), to a tenth at an edge block (7.1)."""
    return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"


def _counter_lines(
    s: Schedule, step_i: int, step: Step, thread: tuple[int, int], compact: bool = False
) -> list[tuple[str, bool]]:
    """The counters beside the frame, (text, bold) per line (`compact`: FrameState.compact)."""
    p = s.problem
    total = step.total
    k_done = step.k_done
    r0, r1 = s.rows
    c0, c1 = s.cols
    active = max(0, min(r1, p.m) - r0) * max(0, min(c1, p.n) - c0)  # threads inside C
    naive_loads = 2 * active * min(k_done, p.k)  # what the naive kernel would have read for the same work
    reuse = reuse_factor(s, step)  # in-bounds loads already used, by threads inside C: at most the block's edge
    shape = renderer_for(s.kind).shape_words(s)
    lines = [
        (s.variant if compact else tr(VARIANTS[s.variant].title), True),  # half a view: the name, shorter
        (f"{p.label}  ·  {shape}", False),
        (
            tr("block ({by}, {bx}) of {gy}×{gx}  ·  step {i}/{n}").format(
                by=s.block[0], bx=s.block[1], gy=s.grid[0], gx=s.grid[1], i=step_i + 1, n=len(s.steps)
            ),
            False,
        ),
        *([(bank, False)] if (bank := renderer_for(s.kind).bank_line(s)) else []),
        (tr("this block so far:"), True),
        (tr("global loads   {n}").format(n=f"{total.global_loads:,}"), False),
        (tr("shared loads   {n}").format(n=f"{total.shared_loads:,}"), False),
        (tr("multiply-adds  {n}").format(n=f"{total.fmas:,}"), False),
        (tr("global stores  {n}").format(n=f"{total.global_stores:,}"), False),
        *([] if compact else [(tr("global bytes   {n}").format(n=f"{total.global_bytes:,}"), False)]),
        (
            (tr("reuse: {n}× per loaded value") if compact else tr("reuse: each loaded value used {n}×")).format(
                n=_times(reuse)
            )
            if reuse is not None
            else (tr("reuse: none yet") if compact else tr("reuse: nothing computed yet")),
            True,
        ),
    ]
    if schedule_kind(s.kind).shared_memory and reuse is not None and compact:
        lines.append((tr("naive kernel: {x}× more loads").format(x=_times(reuse)), False))
    elif schedule_kind(s.kind).shared_memory and reuse is not None:  # the naive kernel's loads per in-bounds use
        lines.append(
            (tr("naive kernel: {n} global loads ({x}× more)").format(n=f"{naive_loads:,}", x=_times(reuse)), False)
        )
    if has_registers(s) and total.shared_loads:
        lines.append(
            (
                tr("{n} multiply-adds per shared-memory read (tiled: 0.5)").format(
                    n=f"{total.fmas / total.shared_loads:.0f}"
                ),
                False,
            )
        )
    ty, tx = thread
    if compact:
        return lines
    if r0 + ty * s.tm < s.run_problem.m and c0 + tx * s.tn < s.run_problem.n:
        what = (
            f"C[{r0 + ty * s.tm}:{r0 + (ty + 1) * s.tm}][{c0 + tx * s.tn}:{c0 + (tx + 1) * s.tn}]"
            if s.tm * s.tn > 1
            else f"C[{r0 + ty}][{c0 + tx}]"
        )
        lines.append((tr("thread ({ty}, {tx}) → {what}").format(ty=ty, tx=tx, what=what), False))
        lines.append(
            (tr("  = Σ over k < {k}").format(k=k_done) if k_done else tr("  = 0 so far (no k summed yet)"), False)
        )
    else:
        lines.append((tr("thread ({ty}, {tx}) is outside C:").format(ty=ty, tx=tx), False))
        lines.append((tr("  it only helps load (pads with 0)"), False))
    return lines


def _draw_text(f: Frame, lines: list[tuple[str, bool]]) -> None:
    """The counters beside the frame, one line each, and the step in words along the bottom."""
    painter, lay, font_px, texts = f.painter, f.lay, f.font_px, f.texts
    y = lay.text.top() + font_px
    painter.setPen(f.fg)
    for text, bold in lines:
        _text(painter, texts, QPointF(lay.text.left(), y), text, font_px * 0.95, bold, lay.text.width(), lay.min_px)
        y += font_px * LINE
    # the step, in words, along the bottom under A and C (never under the counters)
    painter.setFont(pixel_font(font_px, True))
    painter.setPen(f.col_t)
    flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
    text = caption = caption_words(f.step)  # in the window's language
    fm = QFontMetricsF(painter.font())
    share = lay.caption.height() // (LINE * font_px) - 0.1  # keep to its lines: cut with … (wrapping loses some)
    while fm.boundingRect(lay.caption, flags, text).height() > lay.caption.height() + 1 and share > 0.5:
        text = fm.elidedText(caption, Qt.TextElideMode.ElideRight, lay.caption.width() * share)
        share -= 0.15
    painter.drawText(lay.caption, flags, text)
    if texts is not None:
        texts.append((text, fm.boundingRect(lay.caption, flags, text)))


def render_image(
    state: FrameState,
    width: int,
    height: int,
    theme: Theme = LIGHT,
    background: Background | None = None,
    texts: Texts | None = None,
) -> QImage:
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.background))
    with interrupt.deferred():  # Ctrl+C waits for the frame: a painter must end before its image goes
        painter = QPainter(image)
        try:
            render_frame(painter, width, height, state, theme, background, texts)
        finally:
            painter.end()
    return image
