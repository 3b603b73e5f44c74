"""Drawing one frame of the Hopper kernel's schedule (core/schedule/kind_hopper.py): A, B and C with this block's
tiles, the producer thread and its TMA copies (a whole tile moves at once), the ring of shared-memory stages
with their full/empty mbarriers, the consumer warpgroups, the counters and the step in words.

`draw_hopper` is a pure function of (schedule, step, t): ui/tiling/render.py calls it for schedule kind
"hopper". Every text it draws is recorded in `texts` (for the layout tests) when a list is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.schedule.kind_hopper import HopperSchedule, HopperStep, Slot
from gemmviz.ui.fonts import pixel_font
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import Theme
from gemmviz.ui.tiling.captions import caption_words
from gemmviz.ui.tiling.render import (
    Canvas,
    FrameState,
    ScheduleRenderer,
    font_px_for,
    min_text_px,
    register_renderer,
)

# core/schedule/kind_hopper.SLOT_STATES as the view names them (through tr())
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


def _text(
    painter: QPainter, texts: Texts | None, rect: QRectF, text: str, px: float, bold: bool = False, flags=LEFT
) -> None:
    """One line, shortened with … to fit the rectangle's width."""
    font = pixel_font(px, bold)
    painter.setFont(font)
    text = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    if not text:
        return
    painter.drawText(rect, flags, text)
    if texts is not None:
        texts.append((text, painter.boundingRect(rect, flags, text)))


def _wrapped(painter: QPainter, texts: Texts | None, rect: QRectF, text: str, px: float, floor: float = 8) -> None:
    """Wrapped text, in the largest font (at most px, at least `floor`) whose lines fit the rectangle."""
    size = px
    while True:
        font = pixel_font(size)
        need = QFontMetricsF(font).boundingRect(rect, WRAP, text)
        if need.height() <= rect.height() or size * 0.9 < max(8, floor):
            break
        size *= 0.9
    painter.setFont(font)
    painter.drawText(rect, WRAP, text)
    if texts is not None:
        texts.append((text, painter.boundingRect(rect, WRAP, text)))


def _sub(rect: QRectF, scale: float, r0: float, r1: float, c0: float, c1: float) -> QRectF:
    return QRectF(rect.left() + c0 * scale, rect.top() + r0 * scale, (c1 - c0) * scale, (r1 - r0) * scale)


def _lerp(a: QRectF, b: QRectF, e: float) -> QRectF:
    return QRectF(
        a.left() + (b.left() - a.left()) * e,
        a.top() + (b.top() - a.top()) * e,
        a.width() + (b.width() - a.width()) * e,
        a.height() + (b.height() - a.height()) * e,
    )


def _stage_tiles(inner: QRectF, s: HopperSchedule) -> tuple[QRectF, QRectF]:
    """Where a stage's A tile and B tile are shown, side by side in `inner`: two equal bars, each named by its
    letter (drawn to scale, a BM×32 tile was a sliver a few pixels wide; the shapes are in the ring's name)."""
    gap = min(0.08 * inner.width(), 12.0)
    half = (inner.width() - gap) / 2
    return (
        QRectF(inner.left(), inner.top(), half, inner.height()),
        QRectF(inner.left() + half + gap, inner.top(), half, inner.height()),
    )


def _last_copy(s: HopperSchedule, index: int, stage: int) -> HopperStep | None:
    """The TMA step that filled `stage` most recently, up to step `index`."""
    for st in reversed(s.steps[: index + 1]):
        if isinstance(st, HopperStep) and st.kind == "tma" and st.stage == stage:
            return st
    return None


def _actor_states(s: HopperSchedule, index: int) -> tuple[str, str]:
    """What the producer thread and the consumer warpgroups are doing after step `index`, in a few words."""
    producer, consumers = tr("starting"), tr("waiting for the first stage")
    for st in s.steps[: index + 1]:
        if not isinstance(st, HopperStep):
            continue
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


@dataclass(frozen=True)
class _Hopper:
    """One frame's drawing context: the painter, the schedule at step `index` (phase t), colours, sizes."""

    painter: QPainter
    s: HopperSchedule
    index: int
    t: float
    fg: QColor
    col_a: QColor
    col_b: QColor
    col_c: QColor
    col_prod: QColor
    col_cons: QColor
    fp: float  # the font's pixels
    line: float
    texts: Texts | None
    min_px: float = 0.0  # no text is set smaller (render.min_text_px)

    def px(self, share: float) -> float:
        """A text's size: `share` of the font, but never below the frame's smallest."""
        return max(share * self.fp, self.min_px)

    @property
    def st(self) -> HopperStep:
        step = self.s.steps[self.index]
        assert isinstance(step, HopperStep), "a Hopper schedule holds Hopper steps"
        return step

    @property
    def actor_colour(self) -> QColor:
        return self.col_prod if self.st.actor == "producer" else self.col_cons


@dataclass(frozen=True)
class _Matrices:
    a: QRectF
    b: QRectF
    c: QRectF
    scale: float


@dataclass(frozen=True)
class _Ring:
    producer: QRectF
    consumers: tuple[QRectF, ...]
    slots: tuple[QRectF, ...]
    bar_h: float


def draw_hopper(
    painter: QPainter,
    rect: QRectF,
    s: HopperSchedule,
    step: int,
    t: float,
    theme: Theme,
    font_px: float,
    texts: Texts | None = None,
    min_px: float = 0.0,
) -> None:
    """Draw step `step` of the schedule at phase t (0..1: a TMA copy moves from global to shared memory), no
    text smaller than `min_px`."""
    col_a, col_b, col_c, col_prod, col_cons = (QColor(theme.color(i)) for i in range(5))
    hf = _Hopper(
        painter,
        s,
        max(0, min(step, len(s.steps) - 1)),
        t,
        QColor(theme.foreground),
        col_a,
        col_b,
        col_c,
        col_prod,
        col_cons,
        font_px,
        max(2.0, theme.line_px),
        texts,
        min_px,
    )
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    m = max(6.0, 0.015 * min(rect.width(), rect.height()))
    inner = QRectF(rect.left() + m, rect.top() + m, rect.width() - 2 * m, rect.height() - 2 * m)
    _draw_title(hf, inner)
    counters_top = _draw_counters_and_words(hf, inner)
    top, bottom = inner.top() + 1.7 * font_px, counters_top - 0.9 * font_px  # a clear gap above the counters
    mats = _draw_matrices(hf, QRectF(inner.left(), top, 0.34 * inner.width(), bottom - top))
    rx = inner.left() + 0.34 * inner.width() + font_px
    ring = _ring_boxes(hf, QRectF(rx, top, inner.right() - rx, bottom - top))
    _draw_actors(hf, ring)
    for i, box in enumerate(ring.slots):
        _draw_stage(hf, i, box, ring.bar_h)
    _draw_tma_copy(hf, mats, ring)
    _draw_k_step_tiles(hf, mats)
    _draw_arrows(hf, ring)
    _draw_ring_label(hf, ring, theme)


def _draw_title(hf: _Hopper, inner: QRectF) -> None:
    s = hf.s
    hf.painter.setPen(hf.fg)
    title = tr("step {i}/{n}  ·  {title}  ·  {size}  ·  block ({by}, {bx}) of {gy}×{gx}").format(
        i=hf.index + 1,
        n=len(s.steps),
        title=tr(VARIANTS[s.variant].title),
        size=s.problem.label,
        by=s.block[0],
        bx=s.block[1],
        gy=s.grid[0],
        gx=s.grid[1],
    )
    _text(hf.painter, hf.texts, QRectF(inner.left(), inner.top(), inner.width(), 1.3 * hf.fp), title, hf.fp, bold=True)


def _draw_counters_and_words(hf: _Hopper, inner: QRectF) -> float:
    """At the bottom the step in words, above it two lines of counters; returns the counters' top."""
    fp, tot = hf.fp, hf.st.total
    words = QRectF(inner.left(), inner.bottom() - 2.6 * fp, inner.width(), 2.6 * fp)
    count_px = hf.px(0.8)
    lines = (
        tr("this block so far:  TMA loaded {a} B  ·  tensor cores read {b} B of shared memory").format(
            a=f"{4 * tot.global_loads:,}", b=f"{4 * tot.shared_loads:,}"
        ),
        (
            tr("{f} FLOP  ·  {w} mbarrier wait  ·  stored {s} B")
            if tot.barrier_waits == 1
            else tr("{f} FLOP  ·  {w} mbarrier waits  ·  stored {s} B")
        ).format(f=f"{2 * tot.fmas:,}", w=f"{tot.barrier_waits:,}", s=f"{4 * tot.global_stores:,}"),
    )
    cy = words.top() - 2 * 1.25 * count_px - 0.3 * fp
    hf.painter.setPen(hf.fg)
    for i, text in enumerate(lines):
        _text(
            hf.painter,
            hf.texts,
            QRectF(inner.left(), cy + i * 1.25 * count_px, inner.width(), 1.2 * count_px),
            text,
            count_px,
        )
    hf.painter.setPen(hf.actor_colour)
    _wrapped(hf.painter, hf.texts, words, caption_words(hf.st), hf.px(0.8), hf.min_px)
    return cy


def _draw_matrices(hf: _Hopper, area: QRectF) -> _Matrices:
    """The matrices (B above C, A left of C) in `area`, named, with this block's bands and its C tile."""
    p, fp, s, painter = hf.s.run_problem, hf.fp, hf.s, hf.painter
    scale = min((area.width() - fp) / (p.k + p.n), (area.height() - 2.4 * fp) / (p.k + p.m))
    mx, my = area.left(), area.top() + 1.2 * fp
    gap = 0.6 * fp
    ra = QRectF(mx, my + p.k * scale + gap + 1.2 * fp, p.k * scale, p.m * scale)
    rb = QRectF(mx + p.k * scale + gap, my, p.n * scale, p.k * scale)
    mats = _Matrices(ra, rb, QRectF(rb.left(), ra.top(), rb.width(), ra.height()), scale)
    for r, name, colour in (
        (ra, f"A {p.m}×{p.k}", hf.col_a),
        (rb, f"B {p.k}×{p.n}", hf.col_b),
        (mats.c, "C", hf.col_c),
    ):
        painter.fillRect(r, _faint(hf.fg, 14))
        painter.setPen(QPen(hf.fg, 1))
        painter.drawRect(r)
        painter.setPen(colour)
        _matrix_label(hf, mats, r, name)
    r0, c0 = s.block[0] * s.bm, s.block[1] * s.bn
    painter.fillRect(_sub(ra, scale, r0, min(r0 + s.bm, p.m), 0, p.k), _faint(hf.col_a, 50))
    painter.fillRect(_sub(rb, scale, 0, p.k, c0, min(c0 + s.bn, p.n)), _faint(hf.col_b, 50))
    block_c = _sub(mats.c, scale, r0, min(r0 + s.bm, p.m), c0, max(c0, min(c0 + s.bn, p.n)))
    painter.fillRect(block_c, _faint(hf.col_c, int(40 + 180 * hf.st.k_done / max(1, p.k))))
    if hf.st.kind == "store":
        painter.fillRect(block_c, _faint(hf.col_c, 230))
    painter.setPen(QPen(hf.col_c, hf.line))
    painter.drawRect(block_c)
    return mats


def _matrix_label(hf: _Hopper, mats: _Matrices, r: QRectF, name: str) -> None:
    """A matrix's name above it; too wide for its matrix, only its letter (the title says the sizes), and A's
    size on the row above, left of B, where it fits there."""
    fp = hf.fp
    room = mats.c.left() - r.left() - 0.25 * fp if r is mats.a else r.width()
    label = QRectF(r.left(), r.top() - 1.15 * fp, room, fp)
    font_px = hf.px(0.75)
    fm = QFontMetricsF(pixel_font(font_px, True))
    if fm.horizontalAdvance(name) > room:  # too wide for its matrix: the letter (the title says the size)
        size = name.split(" ", 1)[-1]
        above = r is mats.a and fm.horizontalAdvance(size) <= mats.b.left() - r.left() - 0.25 * fp
        if above:  # A's size on the row above it, left of B, where it fits
            _text(hf.painter, hf.texts, label.translated(0, -1.15 * fp), size, font_px, bold=True)
        name = name.split(" ", 1)[0]
    _text(hf.painter, hf.texts, label, name, font_px, bold=True)


def _ring_boxes(hf: _Hopper, area: QRectF) -> _Ring:
    """The producer's box on top, the consumer warpgroups' at the bottom, the ring of stages between."""
    fp, s = hf.fp, hf.s
    row = 1.6 * fp
    prod_box = QRectF(area.left(), area.top(), area.width(), row)
    cons_top = area.bottom() - row
    ring_top = prod_box.bottom() + 1.6 * fp
    bar_h = 1.1 * fp
    ring_h = max(2.5 * fp, cons_top - 1.2 * fp - bar_h - ring_top)
    cw = (area.width() - (s.consumers - 1) * 0.4 * fp) / s.consumers
    consumers = tuple(QRectF(area.left() + j * (cw + 0.4 * fp), cons_top, cw, row) for j in range(s.consumers))
    slot_gap = 0.4 * fp
    slot_w = (area.width() - (s.stages - 1) * slot_gap) / s.stages
    slots = tuple(QRectF(area.left() + i * (slot_w + slot_gap), ring_top, slot_w, ring_h) for i in range(s.stages))
    return _Ring(prod_box, consumers, slots, bar_h)


def _draw_actors(hf: _Hopper, ring: _Ring) -> None:
    """The producer thread and each consumer warpgroup: who, and what it is doing after this step."""
    fp, painter = hf.fp, hf.painter
    producer, consumers = _actor_states(hf.s, hf.index)
    boxes = [(ring.producer, hf.col_prod, tr("producer: 1 thread"), producer, hf.st.actor == "producer")]
    boxes += [
        (box, hf.col_cons, tr("warpgroup {0}").format(j + 1), consumers, hf.st.actor == "consumers")
        for j, box in enumerate(ring.consumers)
    ]
    for box, colour, who, doing, active in boxes:
        painter.fillRect(box, _faint(colour, 70 if active else 25))
        painter.setPen(QPen(colour, hf.line * (1.5 if active else 0.75)))
        painter.drawRect(box)
        painter.setPen(hf.fg)
        half = QRectF(box.left() + 0.3 * fp, box.top(), box.width() * 0.4, box.height())
        size = hf.px(0.7)
        half.setWidth(QFontMetricsF(pixel_font(size, True)).horizontalAdvance(who) + 0.1 * fp)
        _text(painter, hf.texts, half, who, size, bold=True)
        rest = QRectF(half.right() + 0.6 * fp, box.top(), box.right() - half.right() - 0.9 * fp, box.height())
        _text(painter, hf.texts, rest, doing, size)


def _stage_inner(box: QRectF, fp: float) -> QRectF:
    """Where a stage's two tiles go, under its name and state."""
    return box.adjusted(0.25 * fp, 2.1 * fp, -0.25 * fp, -0.25 * fp)


def _draw_stage(hf: _Hopper, i: int, box: QRectF, bar_h: float) -> None:
    """Stage i of the ring: its state, its two tiles (filled, in flight or empty) and its two mbarriers."""
    fp, painter, st = hf.fp, hf.painter, hf.st
    slot = st.ring[i]
    state_colour = {
        "empty": _faint(hf.fg, 10),
        "loading": _faint(hf.col_prod, 60),
        "full": _faint(hf.fg, 40),
        "consuming": _faint(hf.col_cons, 80),
    }
    painter.fillRect(box, state_colour[slot.state])
    here = st.stage == i
    painter.setPen(QPen(hf.col_cons if slot.state == "consuming" else hf.fg, hf.line * (1.5 if here else 0.6)))
    painter.drawRect(box)
    painter.setPen(hf.fg)
    _text(
        painter,
        hf.texts,
        QRectF(box.left() + 0.2 * fp, box.top(), box.width() - 0.4 * fp, fp),
        tr("stage {0}").format(i),
        hf.px(0.65),
        bold=True,
    )
    what = tr(slot.state) if slot.k_step < 0 else f"{tr(slot.state)} k{slot.k_step + 1}"  # SLOT_STATE_NAMES
    _text(
        painter, hf.texts, QRectF(box.left() + 0.2 * fp, box.top() + fp, box.width() - 0.4 * fp, fp), what, hf.px(0.6)
    )
    inner = _stage_inner(box, fp)
    if inner.height() <= 4 or inner.width() <= 4:
        return
    _draw_stage_tiles(hf, slot, here, inner)
    _draw_barriers(hf, i, box, bar_h)


def _draw_stage_tiles(hf: _Hopper, slot: Slot, here: bool, inner: QRectF) -> None:
    """The stage's A tile and B tile, each a bar named by its letter: filled while its tile is in the stage,
    hatched while the TMA copy is in flight, empty outlined. Left out where a letter would not fit at the floor."""
    st, painter = hf.st, hf.painter
    px = hf.px(0.6)
    if inner.height() < 1.05 * px:
        return
    filled = slot.state in ("full", "consuming") or (
        slot.state == "loading" and not (here and st.kind == "tma" and hf.t < 1.0)
    )
    for tile, colour, letter in zip(_stage_tiles(inner, hf.s), (hf.col_a, hf.col_b), ("A", "B")):
        if filled:
            painter.fillRect(tile, _faint(colour, 170))
        elif slot.state == "loading":  # the copy is in flight: its bytes are still arriving
            painter.fillRect(tile, QBrush(_faint(colour, 150), Qt.BrushStyle.BDiagPattern))
        painter.setPen(QPen(colour, max(2.0, hf.line * 0.6)))
        painter.drawRect(tile)
        painter.setPen(hf.fg)
        _text(painter, hf.texts, tile, letter, px, bold=True, flags=Qt.AlignmentFlag.AlignCenter)


def _draw_barriers(hf: _Hopper, i: int, box: QRectF, bar_h: float) -> None:
    """The mbarriers of stage i under it: a dot per barrier, filled while its phase parity is 1."""
    fp, painter, st = hf.fp, hf.painter, hf.st
    here = st.stage == i
    for j, (name, phases, colour) in enumerate((("F", st.full_phase, hf.col_prod), ("E", st.empty_phase, hf.col_cons))):
        cell = QRectF(box.left() + j * box.width() / 2, box.bottom() + 0.15 * fp, box.width() / 2, bar_h)
        r = 0.3 * fp
        centre = QPointF(cell.left() + r + 0.2 * fp, cell.center().y())
        touched = here and st.kind in (("wait_full", "tma") if name == "F" else ("wait_empty", "release"))
        painter.setPen(QPen(colour, hf.line * (1.5 if touched else 0.75)))
        painter.setBrush(colour if phases[i] & 1 else Qt.BrushStyle.NoBrush)
        painter.drawEllipse(centre, r, r)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(hf.fg)
        label = QRectF(centre.x() + r + 0.15 * fp, cell.top(), cell.right() - centre.x() - r - 0.2 * fp, bar_h)
        _text(painter, hf.texts, label, tr("full") if name == "F" else tr("empty"), hf.px(0.55))


def _block_tiles(hf: _Hopper, mats: _Matrices, k_tile: int, clip: bool) -> tuple[QRectF, QRectF]:
    """This block's A and B tiles of k-step `k_tile` in global memory (clipped to the matrices, or whole)."""
    s, p = hf.s, hf.s.run_problem
    r0, c0, k0 = s.block[0] * s.bm, s.block[1] * s.bn, k_tile * s.bk
    if not clip:
        return (
            _sub(mats.a, mats.scale, r0, r0 + s.bm, k0, k0 + s.bk),
            _sub(mats.b, mats.scale, k0, k0 + s.bk, c0, c0 + s.bn),
        )
    return (
        _sub(mats.a, mats.scale, r0, min(r0 + s.bm, p.m), k0, min(k0 + s.bk, p.k)),
        _sub(mats.b, mats.scale, k0, min(k0 + s.bk, p.k), c0, max(c0, min(c0 + s.bn, p.n))),
    )


def _draw_tma_copy(hf: _Hopper, mats: _Matrices, ring: _Ring) -> None:
    """The TMA copy: the whole A and B tiles move from global memory into the stage, as one bulk transfer each."""
    st, t = hf.st, hf.t
    if not (st.kind == "tma" and t < 1.0 and st.a is not None):
        return
    targets = _stage_tiles(_stage_inner(ring.slots[st.stage], hf.fp), hf.s)
    e = t * t * (3 - 2 * t)
    for src, dst, colour in zip(_block_tiles(hf, mats, st.k_tile, clip=False), targets, (hf.col_a, hf.col_b)):
        moving = _lerp(src, dst, e)
        hf.painter.fillRect(moving, _faint(colour, 160))
        hf.painter.setPen(QPen(colour, hf.line))
        hf.painter.drawRect(moving)


def _draw_k_step_tiles(hf: _Hopper, mats: _Matrices) -> None:
    """The tiles of this k-step in A and B, outlined, while they are copied, waited for or consumed."""
    st = hf.st
    if st.kind not in ("tma", "wgmma", "wait_full") or st.stage < 0:
        return
    copy = st if st.kind == "tma" else _last_copy(hf.s, hf.index, st.stage)
    if copy is None or copy.a is None:
        return
    for tile, colour in zip(_block_tiles(hf, mats, copy.k_tile, clip=True), (hf.col_a, hf.col_b)):
        hf.painter.setPen(QPen(colour, hf.line))
        hf.painter.drawRect(tile)


def _draw_arrows(hf: _Hopper, ring: _Ring) -> None:
    """Who acts on which stage: an arrow from the producer (copies, waits on empty) or from every consumer
    warpgroup (each reads its own 64 columns of B and all of the A tile); dashed while it waits."""
    st = hf.st
    if st.stage < 0:
        return
    slot = ring.slots[st.stage]
    style = Qt.PenStyle.DashLine if st.blocked else Qt.PenStyle.SolidLine
    hf.painter.setPen(QPen(hf.actor_colour, hf.line * 1.5, style))
    if st.actor == "producer":
        hf.painter.drawLine(QPointF(slot.center().x(), ring.producer.bottom()), QPointF(slot.center().x(), slot.top()))
        return
    for box in ring.consumers:
        hf.painter.drawLine(
            QPointF(box.center().x(), box.top()), QPointF(slot.center().x(), slot.bottom() + ring.bar_h)
        )


def _draw_ring_label(hf: _Hopper, ring: _Ring, theme: Theme) -> None:
    """What the ring is, on a background of its own over the producer's arrow."""
    s = hf.s
    ring_label = tr("shared memory: a ring of {n} stages, each an A tile {bm}×32 and a B tile 32×{bn}").format(
        n=s.stages, bm=s.bm, bn=s.bn
    )
    label_rect = QRectF(ring.producer.left(), ring.producer.bottom() + 0.3 * hf.fp, ring.producer.width(), hf.fp)
    hf.painter.setFont(pixel_font(hf.px(0.7)))
    hf.painter.fillRect(hf.painter.boundingRect(label_rect, LEFT, ring_label), QColor(theme.background))
    hf.painter.setPen(hf.fg)
    _text(hf.painter, hf.texts, label_rect, ring_label, hf.px(0.7))


@register_renderer("hopper")
class HopperRenderer(ScheduleRenderer):
    """The Hopper kernel's frame: its own picture of producer, ring of stages and consumers."""

    def draw(self, canvas: Canvas, state: FrameState) -> None:
        rect = QRectF(0, 0, canvas.w, canvas.h)
        canvas.painter.fillRect(rect, QColor(canvas.theme.background))
        font_px = font_px_for(canvas.w, canvas.h, canvas.theme)
        min_px = min_text_px(canvas.w, canvas.h, canvas.theme)
        s = state.schedule
        if not isinstance(s, HopperSchedule):
            raise TypeError(f"the hopper renderer draws a HopperSchedule, not {type(s).__name__}")
        draw_hopper(canvas.painter, rect, s, state.step, state.phase, canvas.theme, font_px, canvas.texts, min_px)
