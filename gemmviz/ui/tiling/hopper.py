"""Drawing one frame of the Hopper kernel's schedule (core/schedule_hopper.py): A, B and C with this block's
tiles, the producer thread and its TMA copies (a whole tile moves at once), the ring of shared-memory stages
with their full/empty mbarriers, the consumer warpgroups, the counters and the step in words.

`draw_hopper` is a pure function of (schedule, step, t): ui/tiling/render.py calls it for schedule kind
"hopper". Every text it draws is recorded in `texts` (for the layout tests) when a list is given.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen

from gemmviz.core.schedule_hopper import HopperSchedule, HopperStep
from gemmviz.core.variants import VARIANTS
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import Theme
from gemmviz.ui.tiling.captions import caption_words
from gemmviz.ui.tiling.render import Canvas, FrameState, ScheduleRenderer, font_px_for, register_renderer

# core/schedule_hopper.SLOT_STATES as the view names them (through tr())
SLOT_STATE_NAMES = (QT_TRANSLATE_NOOP("", "empty"), QT_TRANSLATE_NOOP("", "loading"), QT_TRANSLATE_NOOP("", "full"),
                    QT_TRANSLATE_NOOP("", "consuming"))  # fmt: skip

Texts = list[tuple[str, QRectF]]
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
CENTER = Qt.AlignmentFlag.AlignCenter
WRAP = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap


def _faint(colour: QColor, alpha: int) -> QColor:
    c = QColor(colour)
    c.setAlpha(alpha)
    return c


def _text(painter: QPainter, texts: Texts | None, rect: QRectF, text: str, px: float, bold: bool = False,
          flags=LEFT) -> None:  # fmt: skip
    """One line, shortened with … to fit the rectangle's width."""
    font = pixel_font(px, bold)
    painter.setFont(font)
    text = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    if not text:
        return
    painter.drawText(rect, flags, text)
    if texts is not None:
        texts.append((text, painter.boundingRect(rect, flags, text)))


def _shrunk(painter: QPainter, texts: Texts | None, rect: QRectF, text: str, px: float, bold: bool = False) -> None:
    """One line, set smaller (down to 60%) where it is wider than the rectangle, then shortened with …."""
    width = QFontMetricsF(pixel_font(px, bold)).horizontalAdvance(text)
    if width > rect.width() > 0:
        px = max(0.6 * px, px * rect.width() / width)
    _text(painter, texts, rect, text, px, bold)


def _wrapped(painter: QPainter, texts: Texts | None, rect: QRectF, text: str, px: float) -> None:
    """Wrapped text, in the largest font (at most px) whose lines fit the rectangle."""
    size = px
    while True:
        font = pixel_font(size)
        need = QFontMetricsF(font).boundingRect(rect, WRAP, text)
        if need.height() <= rect.height() or size <= 8:
            break
        size *= 0.9
    painter.setFont(font)
    painter.drawText(rect, WRAP, text)
    if texts is not None:
        texts.append((text, painter.boundingRect(rect, WRAP, text)))


def _sub(rect: QRectF, scale: float, r0: float, r1: float, c0: float, c1: float) -> QRectF:
    return QRectF(rect.left() + c0 * scale, rect.top() + r0 * scale, (c1 - c0) * scale, (r1 - r0) * scale)


def _lerp(a: QRectF, b: QRectF, e: float) -> QRectF:
    return QRectF(a.left() + (b.left() - a.left()) * e, a.top() + (b.top() - a.top()) * e,
                  a.width() + (b.width() - a.width()) * e, a.height() + (b.height() - a.height()) * e)  # fmt: skip


def _stage_tiles(inner: QRectF, s: HopperSchedule) -> tuple[QRectF, QRectF]:
    """A stage's A tile (BM×32) and B tile (32×BN), to scale, side by side in `inner`."""
    u = min(inner.height() / s.bm, inner.width() / (s.bk + s.bn + 8), inner.height() / s.bk)
    ta = QRectF(inner.left(), inner.top(), s.bk * u, s.bm * u)
    return ta, QRectF(ta.right() + 8 * u, inner.top(), s.bn * u, s.bk * u)


def _last_copy(s: HopperSchedule, index: int, stage: int) -> HopperStep | None:
    """The TMA step that filled `stage` most recently, up to step `index`."""
    for st in reversed(s.steps[: index + 1]):
        if st.kind == "tma" and st.stage == stage:
            return st
    return None


def _actor_states(s: HopperSchedule, index: int) -> tuple[str, str]:
    """What the producer thread and the consumer warpgroups are doing after step `index`, in a few words."""
    producer, consumers = tr("starting"), tr("waiting for the first stage")
    for st in s.steps[: index + 1]:
        if st.actor == "producer":
            producer = {
                "wait_empty": (tr("sleeps on empty[{0}]") if st.blocked else tr("passes empty[{0}]")).format(st.stage),
                "tma": tr("issued TMA → stage {0}").format(st.stage),
                "drain": tr("waits for every stage, then exits") if st.blocked else tr("exits"),
            }[st.kind]
        else:
            consumers = {
                "wait_full": tr("passed full[{0}]").format(st.stage),
                "wgmma": tr("wgmma on stage {0}").format(st.stage),
                "release": tr("arrived on empty[{0}]").format(st.stage),
                "store": tr("store C (epilogue)"),
            }[st.kind]
    if index == len(s.steps) - 1:
        producer = tr("exited")
    return producer, consumers


def draw_hopper(painter: QPainter, rect: QRectF, s: HopperSchedule, step: int, t: float, theme: Theme,  # noqa: PLR0915, C901
                font_px: float, texts: Texts | None = None) -> None:  # fmt: skip
    """Draw step `step` of the schedule at phase t (0..1: a TMA copy moves from global to shared memory)."""
    index = max(0, min(step, len(s.steps) - 1))
    st = s.steps[index]
    p = s.run_problem
    fp = font_px
    fg = QColor(theme.foreground)
    col_a, col_b, col_c = (QColor(theme.color(i)) for i in range(3))
    col_prod, col_cons = QColor(theme.color(3)), QColor(theme.color(4))
    line = max(2.0, theme.line_px)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    m = max(6.0, 0.015 * min(rect.width(), rect.height()))
    x0, y0, w, h = rect.left() + m, rect.top() + m, rect.width() - 2 * m, rect.height() - 2 * m

    painter.setPen(fg)
    title = tr("step {i}/{n}  ·  {title}  ·  {size}  ·  block ({by}, {bx}) of {gy}×{gx}").format(
        i=index + 1, n=len(s.steps), title=tr(VARIANTS[s.variant].title), size=s.problem.label, by=s.block[0],
        bx=s.block[1], gy=s.grid[0], gx=s.grid[1])  # fmt: skip
    _text(painter, texts, QRectF(x0, y0, w, 1.3 * fp), title, fp, bold=True)

    # bottom: the step in words, above it two lines of counters
    words = QRectF(x0, y0 + h - 2.6 * fp, w, 2.6 * fp)
    tot = st.total
    count_px = 0.8 * fp
    lines = (tr("this block so far:  TMA loaded {a} B  ·  tensor cores read {b} B of shared memory").format(
                 a=f"{4 * tot.global_loads:,}", b=f"{4 * tot.shared_loads:,}"),
             tr("{f} FLOP  ·  {w} mbarrier waits  ·  stored {s} B").format(
                 f=f"{2 * tot.fmas:,}", w=f"{tot.barrier_waits:,}", s=f"{4 * tot.global_stores:,}"))  # fmt: skip
    cy = words.top() - 2 * 1.25 * count_px - 0.3 * fp
    painter.setPen(fg)
    for i, text in enumerate(lines):
        _text(painter, texts, QRectF(x0, cy + i * 1.25 * count_px, w, 1.2 * count_px), text, count_px)
    painter.setPen(col_prod if st.actor == "producer" else col_cons)
    _wrapped(painter, texts, words, caption_words(st.text), 0.8 * fp)

    top, bottom = y0 + 1.7 * fp, cy - 0.4 * fp
    # left: the matrices (B above C, A left of C), this block's bands, the tiles of the last copy
    left_w = 0.34 * w
    scale = min((left_w - fp) / (p.k + p.n), (bottom - top - 2.4 * fp) / (p.k + p.m))
    mx, my = x0, top + 1.2 * fp
    gap = 0.6 * fp
    ra = QRectF(mx, my + p.k * scale + gap + 1.2 * fp, p.k * scale, p.m * scale)
    rb = QRectF(mx + p.k * scale + gap, my, p.n * scale, p.k * scale)
    rc = QRectF(rb.left(), ra.top(), rb.width(), ra.height())
    r0, c0 = s.block[0] * s.bm, s.block[1] * s.bn
    for r, name, colour in ((ra, f"A {p.m}×{p.k}", col_a), (rb, f"B {p.k}×{p.n}", col_b), (rc, "C", col_c)):
        painter.fillRect(r, _faint(fg, 14))
        painter.setPen(QPen(fg, 1))
        painter.drawRect(r)
        painter.setPen(colour)
        # A's label ends before C's (A is narrow where K is short): its size goes on the row above, beside B
        room = rc.left() - r.left() - 0.25 * fp if r is ra else r.width()
        label = QRectF(r.left(), r.top() - 1.15 * fp, room, fp)
        font_px = 0.75 * fp
        if r is ra and QFontMetricsF(pixel_font(font_px, True)).horizontalAdvance(name) > room:
            _shrunk(painter, texts, label.translated(0, -1.15 * fp), f"{p.m}×{p.k}", font_px, bold=True)
            name = "A"
        _shrunk(painter, texts, label, name, font_px, bold=True)
    painter.fillRect(_sub(ra, scale, r0, min(r0 + s.bm, p.m), 0, p.k), _faint(col_a, 50))
    painter.fillRect(_sub(rb, scale, 0, p.k, c0, min(c0 + s.bn, p.n)), _faint(col_b, 50))
    block_c = _sub(rc, scale, r0, min(r0 + s.bm, p.m), c0, max(c0, min(c0 + s.bn, p.n)))
    painter.fillRect(block_c, _faint(col_c, int(40 + 180 * st.k_done / max(1, p.k))))
    if st.kind == "store":
        painter.fillRect(block_c, _faint(col_c, 230))
    painter.setPen(QPen(col_c, line))
    painter.drawRect(block_c)

    # right: producer, ring of stages with their barriers, consumers
    rx = x0 + left_w + fp
    rw = x0 + w - rx
    row = 1.6 * fp
    prod_box = QRectF(rx, top, rw, row)
    cons_box = QRectF(rx, bottom - row, rw, row)
    ring_top = prod_box.bottom() + 1.6 * fp
    bar_h = 1.1 * fp
    ring_h = max(2.5 * fp, cons_box.top() - 1.2 * fp - bar_h - ring_top)
    producer, consumers = _actor_states(s, index)
    cw = (rw - (s.consumers - 1) * 0.4 * fp) / s.consumers
    cons_boxes = [QRectF(rx + j * (cw + 0.4 * fp), cons_box.top(), cw, row) for j in range(s.consumers)]
    boxes = [(prod_box, col_prod, tr("producer: 1 thread"), producer, st.actor == "producer")]
    boxes += [(box, col_cons, tr("warpgroup {0}").format(j + 1), consumers, st.actor == "consumers")
              for j, box in enumerate(cons_boxes)]  # fmt: skip
    for box, colour, who, doing, active in boxes:
        painter.fillRect(box, _faint(colour, 70 if active else 25))
        painter.setPen(QPen(colour, line * (1.5 if active else 0.75)))
        painter.drawRect(box)
        painter.setPen(fg)
        half = QRectF(box.left() + 0.3 * fp, box.top(), box.width() * 0.4, box.height())
        _text(painter, texts, half, who, 0.7 * fp, bold=True)
        _text(painter, texts, QRectF(half.right() + 0.3 * fp, box.top(), box.width() * 0.6 - 0.9 * fp, box.height()),
              doing, 0.7 * fp)  # fmt: skip
    n = s.stages
    slot_gap = 0.4 * fp
    slot_w = (rw - (n - 1) * slot_gap) / n
    slots = [QRectF(rx + i * (slot_w + slot_gap), ring_top, slot_w, ring_h) for i in range(n)]
    state_colour = {"empty": _faint(fg, 10), "loading": _faint(col_prod, 60), "full": _faint(fg, 40),
                    "consuming": _faint(col_cons, 80)}  # fmt: skip
    e = t * t * (3 - 2 * t)
    for i, (slot, box) in enumerate(zip(st.ring, slots, strict=True)):
        painter.fillRect(box, state_colour[slot.state])
        here = st.stage == i
        painter.setPen(QPen(col_cons if slot.state == "consuming" else fg, line * (1.5 if here else 0.6)))
        painter.drawRect(box)
        painter.setPen(fg)
        _text(painter, texts, QRectF(box.left() + 0.2 * fp, box.top(), box.width() - 0.4 * fp, fp),
              tr("stage {0}").format(i), 0.65 * fp, bold=True)  # fmt: skip
        what = tr(slot.state) if slot.k_step < 0 else f"{tr(slot.state)} k{slot.k_step + 1}"  # SLOT_STATE_NAMES
        _text(painter, texts, QRectF(box.left() + 0.2 * fp, box.top() + fp, box.width() - 0.4 * fp, fp), what,
              0.6 * fp)  # fmt: skip
        # the two tiles of the stage, drawn to scale against each other
        inner = box.adjusted(0.25 * fp, 2.1 * fp, -0.25 * fp, -0.25 * fp)
        if inner.height() <= 4 or inner.width() <= 4:
            continue
        ta, tb = _stage_tiles(inner, s)
        filled = slot.state in ("full", "consuming") or (
            slot.state == "loading" and not (here and st.kind == "tma" and t < 1.0)
        )
        for tile, colour in ((ta, col_a), (tb, col_b)):
            if filled:
                painter.fillRect(tile, _faint(colour, 170))
            elif slot.state == "loading":  # the copy is in flight: its bytes are still arriving
                painter.fillRect(tile, QBrush(_faint(colour, 150), Qt.BrushStyle.BDiagPattern))
            painter.setPen(QPen(colour, 1))
            painter.drawRect(tile)
        # the mbarriers of the stage: a dot per barrier, filled while its phase parity is 1
        for j, (name, phases, colour) in enumerate((("F", st.full_phase, col_prod), ("E", st.empty_phase, col_cons))):
            cell = QRectF(box.left() + j * box.width() / 2, box.bottom() + 0.15 * fp, box.width() / 2, bar_h)
            r = 0.3 * fp
            centre = QPointF(cell.left() + r + 0.2 * fp, cell.center().y())
            touched = here and st.kind in (("wait_full", "tma") if name == "F" else ("wait_empty", "release"))
            painter.setPen(QPen(colour, line * (1.5 if touched else 0.75)))
            painter.setBrush(colour if phases[i] & 1 else Qt.BrushStyle.NoBrush)
            painter.drawEllipse(centre, r, r)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(fg)
            label = QRectF(centre.x() + r + 0.15 * fp, cell.top(), cell.right() - centre.x() - r - 0.2 * fp, bar_h)
            _text(painter, texts, label, tr("full") if name == "F" else tr("empty"), 0.55 * fp)

    # the TMA copy: the whole A and B tiles move from global memory into the stage, as one bulk transfer each
    if st.kind == "tma" and t < 1.0 and st.a is not None:
        targets = _stage_tiles(slots[st.stage].adjusted(0.25 * fp, 2.1 * fp, -0.25 * fp, -0.25 * fp), s)
        k0 = st.k_tile * s.bk
        sources = (_sub(ra, scale, r0, r0 + s.bm, k0, k0 + s.bk), _sub(rb, scale, k0, k0 + s.bk, c0, c0 + s.bn))
        for src, dst, colour in zip(sources, targets, (col_a, col_b), strict=True):
            moving = _lerp(src, dst, e)
            painter.fillRect(moving, _faint(colour, 160))
            painter.setPen(QPen(colour, line))
            painter.drawRect(moving)
    if st.kind in ("tma", "wgmma", "wait_full") and st.stage >= 0:  # the tiles of this k-step in A and B
        copy = st if st.kind == "tma" else _last_copy(s, index, st.stage)
        if copy is not None and copy.a is not None:
            k0 = copy.k_tile * s.bk
            painter.setPen(QPen(col_a, line))
            painter.drawRect(_sub(ra, scale, r0, min(r0 + s.bm, p.m), k0, min(k0 + s.bk, p.k)))
            painter.setPen(QPen(col_b, line))
            painter.drawRect(_sub(rb, scale, k0, min(k0 + s.bk, p.k), c0, max(c0, min(c0 + s.bn, p.n))))
    # who acts on which stage: an arrow from the producer (copies, waits on empty) or the consumers
    if st.stage >= 0:
        slot = slots[st.stage]
        style = Qt.PenStyle.DashLine if st.blocked else Qt.PenStyle.SolidLine
        painter.setPen(QPen(col_prod if st.actor == "producer" else col_cons, line * 1.5, style))
        if st.actor == "producer":
            painter.drawLine(QPointF(slot.center().x(), prod_box.bottom()), QPointF(slot.center().x(), slot.top()))
        else:  # every consumer warpgroup reads the stage (its own 64 columns of B, all of the A tile)
            for box in cons_boxes:
                painter.drawLine(
                    QPointF(box.center().x(), box.top()), QPointF(slot.center().x(), slot.bottom() + bar_h)
                )
    ring_label = tr("shared memory: a ring of {n} stages, each an A tile {bm}×32 and a B tile 32×{bn}").format(
        n=s.stages, bm=s.bm, bn=s.bn)  # fmt: skip
    label_rect = QRectF(rx, prod_box.bottom() + 0.3 * fp, rw, fp)
    painter.setFont(pixel_font(0.7 * fp))
    painter.fillRect(painter.boundingRect(label_rect, LEFT, ring_label), QColor(theme.background))  # over the arrow
    painter.setPen(fg)
    _text(painter, texts, label_rect, ring_label, 0.7 * fp)


@register_renderer("hopper")
class HopperRenderer(ScheduleRenderer):
    """The Hopper kernel's frame: its own picture of producer, ring of stages and consumers."""

    def draw(self, canvas: Canvas, state: FrameState) -> None:
        rect = QRectF(0, 0, canvas.w, canvas.h)
        canvas.painter.fillRect(rect, QColor(canvas.theme.background))
        font_px = font_px_for(canvas.w, canvas.h, canvas.theme)
        draw_hopper(canvas.painter, rect, state.schedule, state.step, state.phase, canvas.theme, font_px, canvas.texts)
