"""The store step of the seed's bounds bug (bounds = "or") drawn big: a frame of its own in which C, and the
rows of C's row-major array continued past its end, take most of the view; the block's right writes, its
writes over other cells of C and its writes past C's end each in a treatment of their own (C's colour; red
fill; red hatch, outlined), each named beside it with its count from the schedule. The counters beside it
say what this edge block's reuse figure would hide: most of its threads are outside C.

ui/tiling/render.py's block renderers draw this frame for a store step with wrong writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPen

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.schedule.block import Schedule, Step
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import tr
from gemmviz.ui.tiling.captions import caption_words
from gemmviz.ui.tiling.layout import LINE, _fm, spill_rows, wrap_name

LABEL_ROOM = 0.88  # the labels are wrapped by the regular face's widths and set bold: a bold line is wider
WRONG_LIGHT, WRONG_DARK = "#C8102E", "#FF5A6E"  # the wrong writes' red, on a light and on a dark background


@dataclass(frozen=True)
class BugParts:
    """The store's writes, from the schedule: right ones (C's block), over other cells of C, past C's end."""

    right: int
    over: tuple[tuple[int, int], ...]  # (row, col) in C's row-major array
    past: tuple[tuple[int, int], ...]  # rows ≥ M: past its end
    threads: int  # the block's threads


def bug_parts(s: Schedule, step: Step) -> BugParts:
    p = s.run_problem
    cells = [divmod(w.offset, p.n) for w in step.wrong]
    over = tuple(rc for rc in cells if rc[0] < p.m)
    past = tuple(rc for rc in cells if rc[0] >= p.m)
    threads = max(1, s.bm // s.tm) * max(1, s.bn // s.tn)
    return BugParts(step.c.count if step.c is not None else 0, over, past, threads)


def counter_lines(s: Schedule, step_i: int, step: Step, shape: str) -> list[tuple[str, bool]]:
    """The counters of this frame: what the block is, its stores (right and wrong), and why no reuse figure."""
    parts = bug_parts(s, step)
    wrong = len(parts.over) + len(parts.past)
    return [
        (tr(VARIANTS[s.variant].title), True),
        (f"{s.problem.label}  ·  {shape}", False),
        (
            tr("block ({by}, {bx}) of {gy}×{gx}  ·  step {i}/{n}").format(
                by=s.block[0], bx=s.block[1], gy=s.grid[0], gx=s.grid[1], i=step_i + 1, n=len(s.steps)
            ),
            False,
        ),
        (tr("global stores  {n}").format(n=f"{step.total.global_stores:,}"), True),
        (tr("= {right} right + {wrong} wrong").format(right=f"{parts.right:,}", wrong=f"{wrong:,}"), False),
    ]


def note_text(s: Schedule, step: Step) -> str:
    """In place of the reuse line: most of an edge block's threads are outside C."""
    parts = bug_parts(s, step)
    return tr("{out} of this edge block's {n} threads are outside C: no reuse figure here").format(
        out=f"{parts.threads - parts.right:,}", n=f"{parts.threads:,}"
    )


@dataclass(frozen=True)
class BugLayout:
    cell: float  # one element of C, pixels
    c: QRectF
    spill: QRectF | None
    left_w: float  # the labels' columns, left and right of the picture
    right_x: float
    right_w: float
    text: QRectF  # the counters
    caption: QRectF
    font_px: float
    label_px: float


def _labels(parts: BugParts) -> tuple[str, str, str]:
    return (
        tr("{n} right").format(n=f"{parts.right:,}"),
        tr("{n} overwrite other cells of C").format(n=f"{len(parts.over):,}"),
        tr("{n} past the end of C").format(n=f"{len(parts.past):,}"),
    )


def _wrapped_h(text: str, px: float, width: float) -> float | None:
    lines = wrap_name(text, px, width, 3)
    return None if lines is None else len(lines) * LINE * px


def bug_layout(
    w: int, h: int, s: Schedule, step: Step, step_i: int, font_px: float, min_px: float, shape: str
) -> BugLayout:
    """C and its spill as big as the view allows, beside labels that fit in three lines at `min_px` or more."""
    p = s.run_problem
    parts = bug_parts(s, step)
    f = font_px
    margin = max(6.0, 0.015 * min(w, h))
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
    caption = caption_words(step)
    rows = p.m + spill_rows(s)
    lay = None
    while True:
        lines = [t for t, _b in counter_lines(s, step_i, step, shape)]
        bold = _fm(f * 0.95, True)
        text_w = min(max(bold.horizontalAdvance(t) for t in lines) + margin, 0.32 * w)
        text = QRectF(w - margin - text_w, margin, text_w, h - 2 * margin)
        left = margin
        area_w = text.left() - margin - left
        cap_fm = QFontMetricsF(pixel_font(f, True))
        note_fm = QFontMetricsF(pixel_font(max(min_px, 0.9 * f)))
        note_h = note_fm.boundingRect(QRectF(0, 0, text_w, 10 * h), flags, note_text(s, step)).height()
        text_bottom = text.top() + len(lines) * LINE * f + 0.3 * f + note_h
        for cap_w in (w - 2 * margin, area_w):  # under the counters too where they end above it
            cap_h = cap_fm.boundingRect(QRectF(left, 0, cap_w, 10 * h), flags, caption).height()
            caption_r = QRectF(left, h - margin - cap_h, cap_w, cap_h)
            if text_bottom <= caption_r.top() - 0.2 * f:
                break
        top = margin + LINE * f  # C's name above it
        bottom = caption_r.top() - 0.4 * f
        px = max(min_px, 0.95 * f)
        gap = 0.6 * f
        cell = max(1.0, (bottom - top) / rows)
        labels = _labels(parts)
        while cell > 1.0:
            pic_w = p.n * cell
            side = (area_w - pic_w - 2 * gap) / 2
            if side > 0 and all(
                _wrapped_h(t, px, LABEL_ROOM * (side - 0.6 * f - 1.8 * px)) is not None for t in labels
            ):
                break
            cell *= 0.93
        pic_left = left + side + gap
        c = QRectF(pic_left, top, p.n * cell, p.m * cell)
        spill = QRectF(c.left(), c.bottom(), c.width(), (rows - p.m) * cell) if rows > p.m else None
        lay = BugLayout(cell, c, spill, side, c.right() + gap, side, text, caption_r, f, px)
        if cell >= 4 * h / 720 or f * 0.93 < min_px or f <= 7:
            return lay
        f *= 0.93


def _path(cells, c: QRectF, cell: float) -> QPainterPath:
    path = QPainterPath()
    for r, col in cells:
        path.addRect(QRectF(c.left() + col * cell, c.top() + r * cell, cell, cell))
    return path.simplified()


@dataclass(frozen=True)
class _Ctx:
    painter: QPainter
    lay: BugLayout
    texts: list | None
    fg: QColor
    red: QColor
    line_px: float
    min_px: float
    put_text: Callable[..., None]  # paint.put_text: one line, recorded in texts
    shape: str  # the block's shape, as the counters say it
    sides: dict = field(default_factory=lambda: {True: [], False: []})  # the labels placed left, right of C

    def placed(self, on_left: bool) -> list[QRectF]:
        return self.sides[on_left]


def draw_bug(canvas, s: Schedule, step_i: int, font_px: float, min_px: float, shape: str, put_text) -> None:
    """The frame: C (its block's right writes in C's colour), the overwritten cells red, the spill past C's end
    dashed with the writes there hatched red and outlined, each group named beside it; counters; the caption."""
    painter, w, h, theme, texts = canvas.painter, canvas.w, canvas.h, canvas.theme, canvas.texts
    step = s.steps[step_i]
    fg = QColor(theme.foreground)
    red = QColor(WRONG_DARK if fg.lightness() > 128 else WRONG_LIGHT)
    painter.fillRect(QRectF(0, 0, w, h), QColor(theme.background))
    lay = bug_layout(w, h, s, step, step_i, font_px, min_px, shape)
    ctx = _Ctx(painter, lay, texts, fg, red, max(3.0, theme.line_px), min_px, put_text, shape)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    parts = bug_parts(s, step)
    right, over, past = _draw_cells(ctx, s, step, parts, QColor(theme.palette[2]))
    labels = _labels(parts)
    if right is not None:
        _label(ctx, labels[0], fg, right, False, lambda r: painter.fillRect(r, QColor(theme.palette[2])))
    if parts.over:
        _label(ctx, labels[1], red, over.boundingRect(), True, lambda r: painter.fillRect(r, red))
    if parts.past:
        _label(ctx, labels[2], red, past.boundingRect(), False, lambda r: _hatch(ctx, QPainterPath(), r))
    _draw_words(ctx, s, step, step_i, QColor(theme.palette[3]))


def _hatch(ctx: _Ctx, path: QPainterPath, rect: QRectF | None = None) -> None:
    """Past C's end: a pale red with a red hatch over it (a tone from far away, lines close up), outlined."""
    painter = ctx.painter
    if rect is not None:
        path = QPainterPath()
        path.addRect(rect)
    painter.save()
    painter.setBrushOrigin(0, 0)
    painter.fillPath(path, _alpha(ctx.red, 60))
    painter.fillPath(path, QBrush(ctx.red, Qt.BrushStyle.BDiagPattern))
    painter.setPen(QPen(ctx.red, ctx.line_px if rect is None else 2))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(path)
    painter.restore()


def _draw_cells(ctx: _Ctx, s: Schedule, step: Step, parts: BugParts, col_c: QColor):
    """C with its faint cell grid, the right writes, the overwritten cells, the spill and the writes in it."""
    _text = ctx.put_text
    p, painter, lay, fg = s.run_problem, ctx.painter, ctx.lay, ctx.fg
    cell, c = lay.cell, lay.c
    painter.fillRect(c, _alpha(fg, 14))
    if cell >= 5:
        painter.setPen(QPen(_alpha(fg, 35), 1))
        for i in range(1, p.n):
            painter.drawLine(QPointF(c.left() + i * cell, c.top()), QPointF(c.left() + i * cell, c.bottom()))
        for i in range(1, p.m):
            painter.drawLine(QPointF(c.left(), c.top() + i * cell), QPointF(c.right(), c.top() + i * cell))
    right = None
    if step.c is not None and step.c.count:
        rc = step.c
        right = QRectF(c.left() + rc.c0 * cell, c.top() + rc.r0 * cell, (rc.c1 - rc.c0) * cell, (rc.r1 - rc.r0) * cell)
        painter.fillRect(right, col_c)
    over = _path(parts.over, c, cell)
    painter.fillPath(over, ctx.red)
    past = _path(parts.past, c, cell)
    if lay.spill is not None:
        painter.setPen(QPen(_alpha(ctx.red, 200), max(2.0, ctx.line_px * 0.7), Qt.PenStyle.DashLine))
        painter.drawRect(lay.spill)
    _hatch(ctx, past)
    painter.setPen(QPen(fg, ctx.line_px))
    painter.drawRect(c)  # C's edge over everything: where its array ends
    painter.setPen(fg)
    name = f"C  ({p.m}×{p.n})"
    _text(painter, ctx.texts, QPointF(c.left(), c.top() - lay.font_px * 0.35), name, max(ctx.min_px, lay.font_px), True)
    return right, over, past


def _label(ctx: _Ctx, text: str, colour: QColor, target: QRectF, on_left: bool, swatch) -> None:
    """A label beside what it names (left or right of C), below one already there, with its treatment's swatch
    and a leader line to it."""
    _text = ctx.put_text
    painter, lay = ctx.painter, ctx.lay
    px, f, c = lay.label_px, lay.font_px, lay.c
    room = LABEL_ROOM * (lay.left_w - 0.6 * f - 1.8 * px)
    lines = wrap_name(text, px, room, 3) or (text,)
    while len(lines) > 1:  # balanced: as narrow as keeps the same lines (no word left alone on the last)
        narrower = wrap_name(text, px, room * 0.95, len(lines))
        if narrower is None:
            break
        lines, room = narrower, room * 0.95
    fm = _fm(px, True)
    block_h = len(lines) * LINE * px
    y0 = target.center().y() - block_h / 2
    for other in ctx.placed(on_left):  # below a label already placed on this side
        if other.bottom() > y0 - 0.3 * px:
            y0 = other.bottom() + 0.3 * px
    y0 = max(c.top(), min(y0, lay.caption.top() - block_h - 0.2 * px))
    widest = max(fm.horizontalAdvance(t) for t in lines)
    x_text = (c.left() - 0.6 * f - widest) if on_left else (c.right() + 0.6 * f + 1.6 * px)
    sw = QRectF(x_text - 1.6 * px, y0 + 0.25 * px, px, px)
    swatch(sw)
    painter.setPen(colour)
    for i, line in enumerate(lines):
        _text(painter, ctx.texts, QPointF(x_text, y0 + px + i * LINE * px), line, px, True)
    ctx.placed(on_left).append(QRectF(sw.left(), y0, widest + 1.6 * px, block_h))
    painter.setPen(QPen(colour, max(2.0, ctx.line_px * 0.7)))
    end_y = target.center().y()
    if on_left:
        start, end = QPointF(x_text + widest + 0.2 * px, y0 + 0.7 * px), QPointF(target.left(), end_y)
    else:
        start, end = QPointF(sw.left() - 0.2 * px, y0 + 0.7 * px), QPointF(target.right(), end_y)
    painter.drawLine(start, end)


def _draw_words(ctx: _Ctx, s: Schedule, step: Step, step_i: int, col_t: QColor) -> None:
    """The counters, the note in place of the reuse line, and the step in words along the bottom."""
    _text = ctx.put_text
    painter, lay, texts, f = ctx.painter, ctx.lay, ctx.texts, ctx.lay.font_px
    painter.setPen(ctx.fg)
    y = lay.text.top() + f
    for text, bold in counter_lines(s, step_i, step, ctx.shape):
        _text(painter, texts, QPointF(lay.text.left(), y), text, f * 0.95, bold, lay.text.width(), ctx.min_px)
        y += f * LINE
    box = QRectF(lay.text.left(), y - f + 0.3 * f, lay.text.width(), lay.caption.top() - y)
    flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
    painter.setFont(pixel_font(max(ctx.min_px, 0.9 * f)))
    note = note_text(s, step)
    painter.drawText(box, flags, note)
    if texts is not None:
        texts.append((note, painter.boundingRect(box, flags, note)))
    painter.setFont(pixel_font(f, True))
    painter.setPen(col_t)
    caption = caption_words(step)
    painter.drawText(lay.caption, flags, caption)
    if texts is not None:
        texts.append((caption, QFontMetricsF(painter.font()).boundingRect(lay.caption, flags, caption)))


def _alpha(c: QColor, a: int) -> QColor:
    c = QColor(c)
    c.setAlpha(a)
    return c
