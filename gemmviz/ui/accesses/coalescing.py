"""The coalescing panel: one warp's global request as 32 lanes onto the 128-byte lines of 32-byte sectors it
touched, and the sectors, lines and bytes it cost."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPen

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses.panels import (
    BAD,
    GOOD,
    NEUTRAL,
    Panel,
    PanelLayout,
    PanelTexts,
    draw_head_and_foot,
    faded,
    lanes_row,
    panel_layout,
    squeezed,
    where_text,
)
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme


def _line_boxes(rect: QRectF, n: int, row: float, gap: float) -> list[QRectF]:
    """Where each touched 128-byte line is drawn: one row each for a few, a grid of four columns for many."""
    cols = 1 if n <= 4 else 4
    w = (rect.width() - gap * (cols - 1)) / cols
    return [
        QRectF(rect.left() + (i % cols) * (w + gap), rect.top() + (i // cols) * (row + gap), w, row) for i in range(n)
    ]


def _line_rows(n: int) -> int:
    return n if n <= 4 else -(-n // 4)


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
        info["warp"], info["matrix"], where_text(info["pc"])
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


def draw_coalescing_panel(
    p: QPainter, rect: QRectF, panel: Panel, theme: Theme, px: float, lay: PanelLayout | None = None
) -> None:
    """One warp request onto memory: lanes on top, the 128-byte lines it touched below (each of 4 sectors,
    those it fetched filled), a connector per lane, and the sectors, lines and bytes it cost."""
    info = acc.request_lines(panel.trace, panel.index)
    t = coalescing_texts(panel)
    lay = lay or panel_layout("coalescing", [t], rect.width(), rect.height(), px) or squeezed(t, px, rect)
    top = draw_head_and_foot(p, rect, t, lay, theme)
    lanes_rect = QRectF(rect.left(), top, rect.width(), lay.lanes)
    active = sum(1 << lane for lane, _ in info["lanes"])
    bottoms = lanes_row(p, lanes_rect, active, lambda lane: NEUTRAL, theme, lay.px)
    lines = info["lines"]
    mem = QRectF(rect.left(), lanes_rect.bottom() + lay.numbers + lay.gap, rect.width(), lay.rows * lay.row)
    boxes = dict(zip(lines, _line_boxes(mem, len(lines), lay.row, lay.row_gap)))
    sectors = set(info["sectors"])
    for line, box in boxes.items():
        for s in range(4):
            cell = QRectF(box.left() + s * box.width() / 4, box.top(), box.width() / 4, box.height())
            fetched = line * 4 + s in sectors
            p.setPen(QPen(QColor(theme.foreground), max(1.0, theme.line_px / 3)))
            p.setBrush(faded(t.color, 200) if fetched else QColor(theme.background))
            p.drawRect(cell)
    p.setPen(QPen(faded(theme.foreground, 110), max(1.0, theme.line_px / 4)))
    size = info["size"]
    for lane, addr in info["lanes"]:
        box = boxes[addr // acc.LINE_BYTES]
        x = box.left() + (addr % acc.LINE_BYTES + size / 2) / acc.LINE_BYTES * box.width()
        p.drawLine(bottoms[lane], QPointF(x, box.top()))
