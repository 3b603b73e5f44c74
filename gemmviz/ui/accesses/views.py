"""What the kernel really touched, drawn: the coalescing view (one warp's global request as 32 lanes
onto 128-byte lines of 32-byte sectors) and the bank view (one warp's shared request as 32 lanes onto 32
banks, conflicts highlighted), from access records recorded on a GPU (core/hardware/accesses.py).

The drawing is plain functions of a painter, a rectangle and the records (draw_coalescing, draw_banks), used by
the AccessViews widget, by export_access_view (in the registered chart formats, PNG and SVG, at any size, the
1080p layout scaled, with a footer naming the GPU and date) and by any other view that wants them (a lesson
step, say). Text is at least 24 px
at 1080p in projector mode, so it reads from the back of a room and fits 1280x720.

    python -m gemmviz.ui.accesses.views coalescing out.png [--size 1280x720] [--dark]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QSpinBox, QVBoxLayout, QWidget

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.text import tr
from gemmviz.ui.theme import PROJECTOR_LIGHT, Theme, theme_for

KINDS = ("coalescing", "banks")
# Which kernels each view sets side by side by default: the seed's naive kernel and the same kernel with its
# threads mapped against the layout; tiled, padded tiled and the transposed store of the float4 kernel.
DEFAULT_PANELS = {
    "coalescing": (("gpu-naive", {"block": 16}), ("gpu-uncoalesced", {"block": 32})),
    "banks": (("gpu-tiled", {"tile": 16}), ("gpu-tiled-pad", {"tile": 16}), ("gpu-vectorize", {})),
}
GOOD, BAD, NEUTRAL = "#009E73", "#D55E00", "#0072B2"  # Okabe-Ito bluish green, vermillion, blue
MIN_FONT_PX = 24.0  # at 1080p, projector mode


@dataclass(frozen=True)
class Panel:
    """One kernel's request in a view: the trace and which of its requests."""

    trace: acc.AccessTrace
    index: int

    @property
    def title(self) -> str:
        return self.trace.label.split(" at ")[0]


def font_px(theme: Theme, rect: QRectF) -> float:
    """The views' font: 24 px at 1080p in projector mode (the theme's size otherwise), smaller only where the
    rectangle is too small for it."""
    base = max(MIN_FONT_PX, theme.font_pt * 1.2) if theme.font_pt >= 16 else theme.font_pt * 1.6
    return min(base, rect.height() / 16)


def screen_font_px(theme: Theme, window_height: float) -> tuple[float, float]:
    """(wanted, floor) for a view drawn at its real size on screen: the theme's type (20 pt on a projector,
    the window's otherwise), and the smallest it may shrink to where the view is short of room: the projector's
    24 px at 1080p, so 16 px at 720p (in proportion to the window's height), or 90% of the type off it."""
    wanted = theme.font_pt * 96 / 72
    if theme.font_pt < 16:
        return wanted, wanted * 0.9
    floor = MIN_FONT_PX * max(720.0, window_height) / 1080
    return max(wanted, floor), floor


def _font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(6, round(px)))
    f.setBold(bold)
    return f


WRAP = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)


def _text(
    p: QPainter,
    rect: QRectF,
    text: str,
    px: float,
    color: str,
    bold: bool = False,
    align=Qt.AlignmentFlag.AlignLeft,
    wrap: bool = False,
) -> float:
    """Draw one line of text in rect (elided to fit), or with `wrap` a paragraph wrapped to rect's width from its
    top; its height."""
    font = _font(px, bold)
    p.setFont(font)
    p.setPen(QColor(color))
    metrics = QFontMetricsF(font)
    if wrap:
        h = _text_h(text, px, bold, rect.width())
        p.drawText(QRectF(rect.left(), rect.top(), rect.width(), h + 1), WRAP, text)
        return h
    shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    p.drawText(rect, int(align | Qt.AlignmentFlag.AlignTop), shown)
    return metrics.height()


def _text_h(text: str, px: float, bold: bool, width: float) -> float:
    """The height `text` takes wrapped to `width` (inf where a word is wider than it: it does not fit)."""
    metrics = QFontMetricsF(_font(px, bold))
    box = metrics.boundingRect(QRectF(0, 0, width, 1e6), WRAP, text)
    return box.height() if box.width() <= width + 0.5 else float("inf")


def _lanes_row(p: QPainter, rect: QRectF, active: int, color_of, theme: Theme, px: float) -> list[QPointF]:
    """32 lane boxes across rect, their numbers 0, 16 and 31 under them; the bottom centre of each box (where
    its connector starts)."""
    w = rect.width() / 32
    bottoms = []
    for lane in range(32):
        box = QRectF(rect.left() + lane * w + 1, rect.top(), max(1.0, w - 2), rect.height())
        on = active >> lane & 1
        p.setPen(QPen(QColor(theme.foreground), 1))
        p.setBrush(QColor(color_of(lane)) if on else QColor(theme.background))
        p.drawRect(box)
        bottoms.append(QPointF(box.center().x(), box.bottom()))
    h = QFontMetricsF(_font(px)).height()
    y = rect.bottom() + 2
    for lane, align in (
        (0, Qt.AlignmentFlag.AlignLeft),
        (16, Qt.AlignmentFlag.AlignHCenter),
        (31, Qt.AlignmentFlag.AlignRight),
    ):
        if lane == 0:
            box = QRectF(rect.left(), y, px * 3, h)
        elif lane == 31:
            box = QRectF(rect.right() - px * 3, y, px * 3, h)
        else:
            box = QRectF(rect.left() + (lane + 0.5) * w - px * 1.5, y, px * 3, h)
        _text(p, box, str(lane), px, theme.foreground, align=align)
    return bottoms


def _faded(color: str, alpha: int) -> QColor:
    c = QColor(color)
    c.setAlpha(alpha)
    return c


@dataclass(frozen=True)
class PanelTexts:
    """What one panel writes: its title, the request, and the three lines of figures under the drawing."""

    title: str
    request: str
    first: str
    second: str
    third: str
    color: str
    rows: int  # coalescing: the rows of 128-byte lines; banks: the deepest stack of words


@dataclass(frozen=True)
class PanelLayout:
    """The heights every panel of a view shares (so their figures sit on one line): one layout for all."""

    px: float
    title: float
    request: float
    lanes: float
    numbers: float
    gap: float
    row: float  # a line's box (coalescing) or a bank's cell (banks)
    rows: int
    results: float
    row_gap: float = 0.0  # between two rows of lines (coalescing); a bank's words stack with none

    @property
    def drawing(self) -> float:
        return self.lanes + self.numbers + self.gap + self.rows * self.row + (self.rows - 1) * self.row_gap


def _panel_layout(kind: str, texts: Sequence[PanelTexts], width: float, height: float, px: float) -> PanelLayout | None:
    """The layout of panels `width` × `height` at type `px`: None where it does not fit (a word wider than the
    panel, lanes thinner than 8 px or a panel narrower than ten letters, or too little height for the drawing at
    its smallest)."""
    if width < max(32 * 8, px * 10):
        return None
    title = max(_text_h(t.title, px, True, width) for t in texts)
    request = max(_text_h(t.request, px, False, width) for t in texts)
    results = max(
        _text_h(t.first, px * 1.1, True, width)
        + _text_h(t.second, px, True, width)
        + _text_h(t.third, px, False, width)
        for t in texts
    )
    if float("inf") in (title, request, results):
        return None
    rows = max(t.rows for t in texts)
    line = QFontMetricsF(_font(px)).height()
    lanes, numbers = max(10.0, px * 0.9), line + 2
    gap_min = px * 1.5 if kind == "coalescing" else line + px * 0.6  # banks: "32 banks" sits in the gap
    row_min, row_max = (max(6.0, px * 0.4), px * 2.0) if kind == "coalescing" else (max(4.0, px * 0.3), px * 1.6)
    row_gap = px * 0.25 if kind == "coalescing" else 0.0
    fixed = title + request + px * 0.4 + lanes + numbers + px * 0.4 + results + (rows - 1) * row_gap
    room = height - fixed - gap_min
    if room < rows * row_min:
        return None
    row = min(row_max, room / rows)
    gap = gap_min + min(px * 3.5, room - rows * row)
    return PanelLayout(px, title, request, lanes, numbers, gap, row, rows, results, row_gap)


# ---------------------------------------------------------------------------------------------- coalescing


def _line_boxes(rect: QRectF, n: int, row: float, gap: float) -> list[QRectF]:
    """Where each touched 128-byte line is drawn: one row each for a few, a grid of four columns for many."""
    cols = 1 if n <= 4 else 4
    w = (rect.width() - gap * (cols - 1)) / cols
    return [
        QRectF(rect.left() + (i % cols) * (w + gap), rect.top() + (i // cols) * (row + gap), w, row) for i in range(n)
    ]


def _line_rows(n: int) -> int:
    return n if n <= 4 else -(-n // 4)


def _where(pc) -> str:
    return pc.sass + (tr(", line {0}").format(pc.line) if pc.line else "")


def _sectors_text(sectors: int, lines: int) -> str:
    forms = {
        (True, True): tr("{0} sector in {1} line"),
        (False, True): tr("{0} sectors in {1} line"),
        (True, False): tr("{0} sector in {1} lines"),
        (False, False): tr("{0} sectors in {1} lines"),
    }
    return forms[(sectors == 1, lines == 1)].format(sectors, lines)


def coalescing_texts(panel: Panel) -> PanelTexts:
    info = acc.request_lines(panel.trace, panel.index)
    request = (tr("warp {0} stores to {1} ({2})") if info["store"] else tr("warp {0} loads from {1} ({2})")).format(
        info["warp"], info["matrix"], _where(info["pc"])
    )
    size, sectors = info["size"], set(info["sectors"])
    useful = len({(a + d) for _, a in info["lanes"] for d in range(size)})
    moved = len(sectors) * acc.SECTOR_BYTES
    second = tr("{0} B moved for {1} B used ({2})").format(f"{moved:,}", f"{useful:,}", f"{useful / moved:.0%}")
    third = tr("block {0} of {1}×{2} blocks, {3}").format(
        panel.trace.blocks[0][:2], panel.trace.grid[0], panel.trace.grid[1], "×".join(map(str, panel.trace.mnk))
    )
    color = BAD if len(sectors) > 4 else GOOD
    first = _sectors_text(len(sectors), len(info["lines"]))
    return PanelTexts(panel.title, request, first, second, third, color, _line_rows(len(info["lines"])))


def _draw_head_and_foot(p: QPainter, rect: QRectF, t: PanelTexts, lay: PanelLayout, theme: Theme) -> float:
    """The title and request above, the figures below the drawing; the drawing's top."""
    px = lay.px
    _text(p, QRectF(rect.left(), rect.top(), rect.width(), lay.title), t.title, px, theme.foreground, True, wrap=True)
    y = rect.top() + lay.title
    _text(p, QRectF(rect.left(), y, rect.width(), lay.request), t.request, px, theme.foreground, wrap=True)
    top = y + lay.request + px * 0.4
    y = top + lay.drawing + px * 0.4
    y += _text(p, QRectF(rect.left(), y, rect.width(), px * 1.4), t.first, px * 1.1, t.color, True, wrap=True)
    y += _text(p, QRectF(rect.left(), y, rect.width(), px * 1.4), t.second, px, t.color, True, wrap=True)
    _text(p, QRectF(rect.left(), y, rect.width(), px * 1.4), t.third, px, theme.foreground, wrap=True)
    return top


def draw_coalescing_panel(
    p: QPainter, rect: QRectF, panel: Panel, theme: Theme, px: float, lay: PanelLayout | None = None
) -> None:
    """One warp request onto memory: lanes on top, the 128-byte lines it touched below (each of 4 sectors,
    those it fetched filled), a connector per lane, and the sectors, lines and bytes it cost."""
    info = acc.request_lines(panel.trace, panel.index)
    t = coalescing_texts(panel)
    lay = lay or _panel_layout("coalescing", [t], rect.width(), rect.height(), px) or _squeezed(t, px, rect)
    top = _draw_head_and_foot(p, rect, t, lay, theme)
    lanes_rect = QRectF(rect.left(), top, rect.width(), lay.lanes)
    active = sum(1 << lane for lane, _ in info["lanes"])
    bottoms = _lanes_row(p, lanes_rect, active, lambda lane: NEUTRAL, theme, lay.px)
    lines = info["lines"]
    mem = QRectF(rect.left(), lanes_rect.bottom() + lay.numbers + lay.gap, rect.width(), lay.rows * lay.row)
    boxes = dict(zip(lines, _line_boxes(mem, len(lines), lay.row, lay.row_gap)))
    sectors = set(info["sectors"])
    for line, box in boxes.items():
        for s in range(4):
            cell = QRectF(box.left() + s * box.width() / 4, box.top(), box.width() / 4, box.height())
            fetched = line * 4 + s in sectors
            p.setPen(QPen(QColor(theme.foreground), max(1.0, theme.line_px / 3)))
            p.setBrush(_faded(t.color, 200) if fetched else QColor(theme.background))
            p.drawRect(cell)
    p.setPen(QPen(_faded(theme.foreground, 110), max(1.0, theme.line_px / 4)))
    size = info["size"]
    for lane, addr in info["lanes"]:
        box = boxes[addr // acc.LINE_BYTES]
        x = box.left() + (addr % acc.LINE_BYTES + size / 2) / acc.LINE_BYTES * box.width()
        p.drawLine(bottoms[lane], QPointF(x, box.top()))


def _squeezed(t: PanelTexts, px: float, rect: QRectF) -> PanelLayout:
    """A layout for a rectangle too small for any: the texts at `px`, the drawing squeezed into what is left."""
    w = max(1.0, rect.width())
    title, request = _text_h(t.title, px, True, w), _text_h(t.request, px, False, w)
    results = _text_h(t.first, px * 1.1, True, w) + _text_h(t.second, px, True, w) + _text_h(t.third, px, False, w)
    title, request, results = (px * 1.3 if h == float("inf") else h for h in (title, request, results))
    line = QFontMetricsF(_font(px)).height()
    room = max(0.0, rect.height() - title - request - results - line - px * 1.2)
    return PanelLayout(px, title, request, room * 0.1, line + 2, room * 0.3, room * 0.6 / t.rows, t.rows, results)


# ---------------------------------------------------------------------------------------------------- banks


def banks_texts(panel: Panel, depth: int = 1) -> PanelTexts:
    info = acc.request_banks(panel.trace, panel.index)
    request = (tr("warp {0} stores ({1})") if info["store"] else tr("warp {0} loads ({1})")).format(
        info["warp"], _where(info["pc"])
    )
    worst = max(info["degree"].values(), default=1)
    conflicts = info["wavefronts"] - info["ideal"]
    color = BAD if conflicts else GOOD
    first = tr("{0}-way bank conflict").format(worst) if conflicts else tr("no bank conflict")
    second = (tr("{0} wavefronts, {1} needed") if info["wavefronts"] != 1 else tr("{0} wavefront, {1} needed")).format(
        info["wavefronts"], info["ideal"]
    )
    totals = panel.trace.summary[0]
    key = "st" if info["store"] else "ld"
    per = totals[f"shared_{key}_conflicts"] / max(1, totals[f"shared_{key}_requests"])
    third = (tr("block: {0} extra per store") if info["store"] else tr("block: {0} extra per load")).format(
        f"{per:.2f}"
    )
    return PanelTexts(panel.title, request, first, second, third, color, max(worst, depth))


def draw_banks_panel(
    p: QPainter, rect: QRectF, panel: Panel, theme: Theme, px: float, depth: int = 1, lay: PanelLayout | None = None
) -> None:
    """One warp's shared request onto the 32 banks: lanes on top, below each bank a stack of the distinct 4-byte
    words the warp asked of it (one is fine, more are a conflict: red), a connector per lane, the wavefronts."""
    info = acc.request_banks(panel.trace, panel.index)
    t = banks_texts(panel, depth)
    lay = lay or _panel_layout("banks", [t], rect.width(), rect.height(), px) or _squeezed(t, px, rect)
    top = _draw_head_and_foot(p, rect, t, lay, theme)
    degree = info["degree"]

    def lane_color(lane: int) -> str:
        word = dict(info["lanes"]).get(lane)
        return BAD if word is not None and degree.get(word % acc.BANKS, 1) > 1 else GOOD

    lanes_rect = QRectF(rect.left(), top, rect.width(), lay.lanes)
    active = sum(1 << lane for lane, _ in info["lanes"])
    bottoms = _lanes_row(p, lanes_rect, active, lane_color, theme, lay.px)
    banks_top = lanes_rect.bottom() + lay.numbers + lay.gap
    cell_h = lay.row  # the same cells in every panel of the view
    w = rect.width() / acc.BANKS
    stacks: dict[int, list[int]] = {}
    words = sorted({wd + d for _, wd in info["lanes"] for d in range(max(1, info["size"] // acc.BANK_BYTES))})
    for wd in words:
        stacks.setdefault(wd % acc.BANKS, []).append(wd)
    for bank in range(acc.BANKS):
        column = stacks.get(bank, [])
        color = BAD if len(column) > 1 else GOOD
        p.setPen(QPen(QColor(theme.foreground), 1))
        p.setBrush(QColor(theme.background))
        p.drawRect(QRectF(rect.left() + bank * w + 1, banks_top, max(1.0, w - 2), cell_h))
        for level, _word in enumerate(column):
            p.setBrush(_faded(color, 210))
            p.drawRect(QRectF(rect.left() + bank * w + 1, banks_top + level * cell_h, max(1.0, w - 2), cell_h))
    p.setPen(QPen(_faded(theme.foreground, 110), max(1.0, theme.line_px / 4)))
    for lane, wd in info["lanes"]:
        p.drawLine(bottoms[lane], QPointF(rect.left() + (wd % acc.BANKS + 0.5) * w, banks_top))
    label = tr("32 banks")
    metrics = QFontMetricsF(_font(lay.px))
    lw, lh = metrics.horizontalAdvance(label) + 4, metrics.height()
    box = QRectF(rect.right() - lw, banks_top - lh - lay.px * 0.2, lw, lh)
    p.fillRect(box, _faded(theme.background, 220))  # over the connectors, readable
    _text(p, box, label, lay.px, theme.foreground, align=Qt.AlignmentFlag.AlignRight)


# ------------------------------------------------------------------------------------------- whole views


def default_panels(kind: str, records: acc.AccessFile, warp: int = 0, nth: int | None = None) -> list[Panel]:
    """The kernels a view shows side by side, by `warp` of the interior block: each at its request with the most
    sectors (coalescing: loads) or the most wavefronts beyond the ideal (banks: stores), or with `nth` at the
    warp's nth such request in the order it issued them (the last kept one where it has fewer)."""
    panels = []
    space, store = (acc.GLOBAL, False) if kind == "coalescing" else (acc.SHARED, True)
    for variant, params in DEFAULT_PANELS[kind]:
        trace = records.find(variant, params)
        if trace is None:
            continue
        if nth is not None:
            order = acc.requests_in_order(trace, space, store, 0, warp)
            index = int(order[min(nth, len(order) - 1)]) if len(order) else None
        else:
            pick = acc.worst_global_request if kind == "coalescing" else acc.worst_shared_request
            index = pick(trace, 0, store)
            if index is not None and warp:
                index = _same_instruction(trace, index, warp)
        if index is not None:
            panels.append(Panel(trace, index))
    return panels


def _same_instruction(trace: acc.AccessTrace, index: int, warp: int) -> int | None:
    """The first request of the same instruction by another warp of the same block (None if it has none kept)."""
    import numpy as np

    hits = np.nonzero((trace.pc == trace.pc[index]) & (trace.warp == warp) & (trace.slot == trace.slot[index]))[0]
    return int(hits[np.argmin(trace.seq[hits])]) if len(hits) else None


def _heading(kind: str) -> str:
    return (
        tr("Coalescing: how many 32-byte sectors one warp's load costs")
        if kind == "coalescing"
        else tr("Bank conflicts: how many wavefronts one warp's shared access takes")
    )


@dataclass(frozen=True)
class ViewLayout:
    px: float
    cols: int
    heading: float  # its height
    panel: PanelLayout | None  # None: nothing fits even at the floor (the panels squeeze their drawings)


def _depth(kind: str, panels: Sequence[Panel]) -> int:
    if kind != "banks":
        return 1
    return max((max(acc.request_banks(pn.trace, pn.index)["degree"].values(), default=1) for pn in panels), default=1)


def layout_view(rect: QRectF, kind: str, panels: Sequence[Panel], px: float, floor: float | None = None) -> ViewLayout:
    """The largest type from `px` down to `floor` (px itself where None) at which the heading, wrapped, and the
    panels, side by side or stacked in rows, fit `rect`: every text whole, none over another. Side by side wins
    a tie; where nothing fits at the floor, the panels keep the floor's type and squeeze their drawings."""
    floor = px if floor is None else min(px, floor)
    depth = _depth(kind, panels)
    texts = [coalescing_texts(pn) if kind == "coalescing" else banks_texts(pn, depth) for pn in panels]
    n = max(1, len(panels))
    best: ViewLayout | None = None
    for cols in range(n, 0, -1):
        rows = -(-n // cols)
        size = px
        while True:
            heading = _text_h(_heading(kind), size * 1.15, True, rect.width() - 2 * size)
            body_h = rect.height() - size * 0.5 - heading - size * 0.6 - size * 0.6
            gap = size * 1.5
            w = (rect.width() - 2 * size - gap * (cols - 1)) / cols
            h = (body_h - gap * (rows - 1)) / rows
            lay = _panel_layout(kind, texts, w, h, size) if texts and heading != float("inf") else None
            if lay is not None or size <= floor:
                break
            size = max(floor, size - 1)
        if lay is not None and (best is None or best.panel is None or size > best.px):
            best = ViewLayout(size, cols, heading, lay)
        if best is None:
            best = ViewLayout(floor, n, min(heading, floor * 2.6), None)
    assert best is not None  # the loop ran: at least one column
    return best


def draw_view(
    p: QPainter,
    rect: QRectF,
    kind: str,
    panels: Sequence[Panel],
    theme: Theme,
    px: float | None = None,
    floor: float | None = None,
) -> None:
    """A whole view: its question as a heading, then the panels side by side (or in rows where they are too
    narrow), at the largest type from `px` (the 1080p layout's by default) down to `floor` that fits.
    Pure: the same input, the same picture."""
    px = px or font_px(theme, rect)
    p.fillRect(rect, QColor(theme.background))
    lay = layout_view(rect, kind, panels, px, floor)
    px = lay.px
    top = rect.top() + px * 0.5
    _text(
        p,
        QRectF(rect.left() + px, top, rect.width() - 2 * px, lay.heading),
        _heading(kind),
        px * 1.15,
        theme.foreground,
        bold=True,
        wrap=True,
    )
    h = lay.heading
    if not panels:
        _text(
            p,
            QRectF(rect.left() + px, top + h + px * 0.6, rect.width() - 2 * px, px * 1.4),
            tr("no recorded accesses for these kernels"),
            px,
            theme.foreground,
            wrap=True,
        )
        return
    body = QRectF(rect.left() + px, top + h + px * 0.6, rect.width() - 2 * px, rect.bottom() - top - h - px * 1.2)
    gap = px * 1.5
    cols = lay.cols
    rows = -(-len(panels) // cols)
    w = (body.width() - gap * (cols - 1)) / cols
    ph = (body.height() - gap * (rows - 1)) / rows
    depth = _depth(kind, panels)
    for i, panel in enumerate(panels):
        box = QRectF(body.left() + (i % cols) * (w + gap), body.top() + (i // cols) * (ph + gap), w, ph)
        if kind == "banks":  # the figures of every kernel on one line, under the deepest bank stack of the view
            draw_banks_panel(p, box, panel, theme, px, depth, lay.panel)
        else:
            draw_coalescing_panel(p, box, panel, theme, px, lay.panel)


def draw_access_view(
    p: QPainter,
    rect: QRectF,
    kind: str,
    theme: Theme,
    records: acc.AccessFile | None = None,
    warp: int = 0,
    nth: int | None = None,
) -> str:
    """What a lesson step (or any view) calls: the coalescing or bank view of `records` (the shipped H200 records
    if None) drawn into rect; returns the source line for the slide's footer ("" without records)."""
    records = records if records is not None else acc.shipped_file()
    draw_view(p, rect, kind, default_panels(kind, records, warp, nth) if records else [], theme)
    return footer(records) if records else ""


def footer(records: acc.AccessFile, replay: bool = True) -> str:
    from gemmviz.ui.export.exporters import footer_text

    how = tr("recorded, replayed") if replay else tr("measured")
    return footer_text([(records.gpu, records.date[:10], how)])


# ---------------------------------------------------------------------------------------------------- export


class DrawingCanvas(QWidget):
    """A drawing, `draw(painter, rect)`, as a widget the chart formats' writers export through its `paint_export`
    (ui/export/exporters.paint_charts): PNG, SVG and every other registered chart format, one exporter."""

    def __init__(self, draw, parent=None):
        super().__init__(parent)
        self.draw = draw

    def paint_export(self, painter: QPainter) -> None:
        self.draw(painter, QRectF(0, 0, self.width(), self.height()))


def export_drawing(draw, path: str | os.PathLike, width: int, height: int, theme: Theme, text: str) -> Path:
    """Write `draw(painter, rect)` at width x height (the 1080p layout, scaled: 4K is 1080p doubled) with `text` as
    the footer, in the registered chart format its path's suffix names (exporters.chart_writer), as a chart."""
    from gemmviz.ui.export.exporters import chart_writer, check_size

    check_size(width, height)
    target, writer = chart_writer(path)
    canvas = DrawingCanvas(draw)
    try:
        writer.write(canvas, target, width, height, theme, text)
    finally:
        canvas.deleteLater()
    return target


def export_access_view(
    kind: str,
    path: str | os.PathLike,
    width: int = 1920,
    height: int = 1080,
    theme: Theme = PROJECTOR_LIGHT,
    records: acc.AccessFile | None = None,
    warp: int = 0,
    nth: int | None = None,
) -> Path:
    """Write the coalescing or bank view of `warp`'s requests (its `nth` in issue order; None: its costliest, see
    default_panels) in the registered chart format its path's suffix names (PNG, SVG), as export_chart writes a
    chart: the canvas laid out at the 1080p-equivalent size, painted through the format's writer."""
    from gemmviz.ui.export.exporters import ExportError, chart_writer, check_size

    if kind not in KINDS:
        raise ExportError(f"unknown view {kind!r}; choose {' or '.join(KINDS)}")
    check_size(width, height)
    target, writer = chart_writer(path)
    records = records or acc.shipped_file()
    if records is None:
        raise ExportError("no access records: record some with gemmviz profile --accesses")
    canvas = AccessCanvas()
    canvas.kind, canvas.panels, canvas.theme = kind, default_panels(kind, records, warp, nth), theme
    try:
        writer.write(canvas, target, width, height, theme, footer(records))
    finally:
        canvas.hide()
        canvas.deleteLater()
    return target


# ---------------------------------------------------------------------------------------------------- widget


class AccessCanvas(QWidget):
    """Paints one view; everything it draws comes from draw_view, on screen and, through the chart formats'
    writers, in an export."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.kind, self.panels, self.theme = "coalescing", [], PROJECTOR_LIGHT
        self.setMinimumSize(320, 180)  # the window fits 1280x720 in projector mode, Chinese too

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        px, floor = screen_font_px(self.theme, self.window().height())
        draw_view(p, QRectF(self.rect()), self.kind, self.panels, self.theme, px, floor)
        p.end()

    def paint_export(self, painter: QPainter) -> None:
        """The view through an export's painter (ui/export/exporters.paint_charts, which the chart formats'
        writers draw with), at the size the export laid the canvas out at: vectors into an SVG."""
        draw_view(painter, QRectF(0, 0, self.width(), self.height()), self.kind, self.panels, self.theme)


class AccessViews(QWidget):
    """A self-contained panel: the coalescing or the bank view of recorded accesses (the shipped H200 records
    unless set_records gives others), a warp to look at, and Export (PNG/SVG)."""

    def __init__(self, parent=None, records: acc.AccessFile | None = None, theme: Theme | None = None):
        super().__init__(parent)
        self.records = records if records is not None else acc.shipped_file()
        self.canvas = AccessCanvas(self)
        if theme is not None:
            self.canvas.theme = theme
        self.kind = QComboBox(self)
        self.kind.addItem(self.tr("Coalescing (global loads)"), "coalescing")
        self.kind.addItem(self.tr("Bank conflicts (shared stores)"), "banks")
        self.warp = QComboBox(self)
        for w in range(8):
            self.warp.addItem(self.tr("warp {0}").format(w), w)
        self.request = QSpinBox(self)
        self.request.setRange(0, 100_000)
        self.request.setSpecialValueText(self.tr("costliest request"))
        self.request.setPrefix(self.tr("request "))
        self.request.setToolTip(
            self.tr("0: the costliest request of each kernel; 1, 2, …: the warp's requests in order")
        )
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.source = QLabel(self)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.source.setWordWrap(True)  # where the records come from: wraps, never widening the window
        self.source.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind.setMinimumContentsLength(28)  # the whole item: the source line is under the view now
        row = QHBoxLayout()
        for widget in (self.kind, self.warp, self.request, self.export_button):
            row.addWidget(widget)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.source)  # under the view, as the block replay's: a line, not three beside the controls
        self.kind.currentIndexChanged.connect(self.refresh)
        self.warp.currentIndexChanged.connect(self.refresh)
        self.request.valueChanged.connect(self.refresh)
        self.export_button.clicked.connect(self._export)
        self.refresh()

    def set_records(self, records: acc.AccessFile | None) -> None:
        self.records = records
        self.refresh()

    def set_theme(self, theme: Theme) -> None:
        self.canvas.theme = theme
        self.canvas.update()

    def refresh(self) -> None:
        kind = self.kind.currentData()
        self.canvas.kind = kind
        nth = self.request.value() - 1 if self.request.value() else None
        self.canvas.panels = (
            default_panels(kind, self.records, self.warp.currentData() or 0, nth) if self.records else []
        )
        self.source.setText(footer(self.records) if self.records else self.tr("no access records"))
        self.canvas.update()

    def _export(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        from gemmviz.core import export_formats

        path, _ = QFileDialog.getSaveFileName(
            self,
            self.tr("Export view"),
            f"{self.canvas.kind}.png",
            export_formats.file_filter(export_formats.CHART, tr),
        )
        if not path:
            return
        try:
            nth = self.request.value() - 1 if self.request.value() else None
            export_access_view(
                self.canvas.kind,
                path,
                theme=self.canvas.theme,
                records=self.records,
                warp=self.warp.currentData() or 0,
                nth=nth,
            )
        except Exception as exc:  # an unwritable file, a refused size: said, never raised into Qt
            QMessageBox.warning(self, self.tr("Export failed"), str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m gemmviz.ui.accesses.views KIND OUT [--size WxH] [--dark] [--records FILE]`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] not in KINDS:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    width, height = (int(x) for x in (args[args.index("--size") + 1] if "--size" in args else "1920x1080").split("x"))
    records = acc.load_file(args[args.index("--records") + 1]) if "--records" in args else None
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gemmviz.ui.fonts import install_cjk_fallback

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    install_cjk_fallback(app)
    out = export_access_view(args[0], args[1], width, height, theme_for(True, "--dark" in args), records)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
