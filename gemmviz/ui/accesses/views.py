"""What the kernel really touched, drawn: the coalescing view (one warp's global request as 32 lanes onto
128-byte lines of 32-byte sectors) and the bank view (one warp's shared request as 32 lanes onto 32 banks,
conflicts highlighted), from access records recorded on a GPU (core/hardware/accesses.py).

A whole view is a plain function of a painter, a rectangle and the records (draw_view, draw_access_view): its
question as a heading and the kernels' panels (ui/accesses/coalescing.py, banks.py) side by side, at the largest
type that fits. The AccessViews widget (ui/accesses/widget.py), the exports (ui/accesses/export.py, through the
registered chart formats) and a lesson step draw it. Text is at least 24 px at 1080p in projector mode, so it
reads from the back of a room and fits 1280x720."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses.banks import banks_texts, draw_banks_panel
from gemmviz.ui.accesses.coalescing import coalescing_texts, draw_coalescing_panel
from gemmviz.ui.accesses.panels import Panel, PanelLayout, font_px, panel_layout, put_text, text_height
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme

KINDS = ("coalescing", "banks")
# Which kernels each view sets side by side by default: the seed's naive kernel and the same kernel with its
# threads mapped against the layout; tiled, padded tiled and the transposed store of the float4 kernel.
DEFAULT_PANELS = {
    "coalescing": (("gpu-naive", {"block": 16}), ("gpu-uncoalesced", {"block": 32})),
    "banks": (("gpu-tiled", {"tile": 16}), ("gpu-tiled-pad", {"tile": 16}), ("gpu-vectorize", {})),
}


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
            heading = text_height(_heading(kind), size * 1.15, True, rect.width() - 2 * size)
            body_h = rect.height() - size * 0.5 - heading - size * 0.6 - size * 0.6
            gap = size * 1.5
            w = (rect.width() - 2 * size - gap * (cols - 1)) / cols
            h = (body_h - gap * (rows - 1)) / rows
            lay = panel_layout(kind, texts, w, h, size) if texts and heading != float("inf") else None
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
    put_text(
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
        put_text(
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
