"""The bank panel: one warp's shared request as 32 lanes onto the 32 banks, a stack of the distinct words each bank
was asked for (more than one is a conflict), and the wavefronts it took."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.accesses.panels import (
    BAD,
    GOOD,
    Panel,
    PanelLayout,
    PanelTexts,
    draw_head_and_foot,
    faded,
    lanes_row,
    panel_layout,
    put_text,
    squeezed,
    view_font,
    where_text,
)
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme


def banks_texts(panel: Panel, depth: int = 1) -> PanelTexts:
    info = acc.request_banks(panel.trace, panel.index)
    request = (tr("warp {0} stores ({1})") if info["store"] else tr("warp {0} loads ({1})")).format(
        info["warp"], where_text(info["pc"])
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
    lay = lay or panel_layout("banks", [t], rect.width(), rect.height(), px) or squeezed(t, px, rect)
    top = draw_head_and_foot(p, rect, t, lay, theme)
    degree = info["degree"]

    def lane_color(lane: int) -> str:
        word = dict(info["lanes"]).get(lane)
        return BAD if word is not None and degree.get(word % acc.BANKS, 1) > 1 else GOOD

    lanes_rect = QRectF(rect.left(), top, rect.width(), lay.lanes)
    active = sum(1 << lane for lane, _ in info["lanes"])
    bottoms = lanes_row(p, lanes_rect, active, lane_color, theme, lay.px)
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
            p.setBrush(faded(color, 210))
            p.drawRect(QRectF(rect.left() + bank * w + 1, banks_top + level * cell_h, max(1.0, w - 2), cell_h))
    p.setPen(QPen(faded(theme.foreground, 110), max(1.0, theme.line_px / 4)))
    for lane, wd in info["lanes"]:
        p.drawLine(bottoms[lane], QPointF(rect.left() + (wd % acc.BANKS + 0.5) * w, banks_top))
    label = tr("32 banks")
    metrics = QFontMetricsF(view_font(lay.px))
    lw, lh = metrics.horizontalAdvance(label) + 4, metrics.height()
    box = QRectF(rect.right() - lw, banks_top - lh - lay.px * 0.2, lw, lh)
    p.fillRect(box, faded(theme.background, 220))  # over the connectors, readable
    put_text(p, box, label, lay.px, theme.foreground, align=Qt.AlignmentFlag.AlignRight)
