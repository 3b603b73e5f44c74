"""What every panel of the access views shares: the panel (a kernel's request), the views' type sizes, text set
whole or wrapped, the 32 lanes, and the layout every panel of a view shares so that their figures sit on one
line (ui/accesses/coalescing.py and banks.py draw the two kinds of panel)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.text import tr
from gemmviz.ui.theme import Theme

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


def view_font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(6, round(px)))
    f.setBold(bold)
    return f


WRAP = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)


def put_text(
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
    font = view_font(px, bold)
    p.setFont(font)
    p.setPen(QColor(color))
    metrics = QFontMetricsF(font)
    if wrap:
        h = text_height(text, px, bold, rect.width())
        p.drawText(QRectF(rect.left(), rect.top(), rect.width(), h + 1), WRAP, text)
        return h
    shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    p.drawText(rect, int(align | Qt.AlignmentFlag.AlignTop), shown)
    return metrics.height()


def text_height(text: str, px: float, bold: bool, width: float) -> float:
    """The height `text` takes wrapped to `width` (inf where a word is wider than it: it does not fit)."""
    metrics = QFontMetricsF(view_font(px, bold))
    box = metrics.boundingRect(QRectF(0, 0, width, 1e6), WRAP, text)
    return box.height() if box.width() <= width + 0.5 else float("inf")


def lanes_row(p: QPainter, rect: QRectF, active: int, color_of, theme: Theme, px: float) -> list[QPointF]:
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
    h = QFontMetricsF(view_font(px)).height()
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
        put_text(p, box, str(lane), px, theme.foreground, align=align)
    return bottoms


def faded(color: str, alpha: int) -> QColor:
    c = QColor(color)
    c.setAlpha(alpha)
    return c


def where_text(pc) -> str:
    return pc.sass + (tr(", line {0}").format(pc.line) if pc.line else "")


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


def panel_layout(kind: str, texts: Sequence[PanelTexts], width: float, height: float, px: float) -> PanelLayout | None:
    """The layout of panels `width` × `height` at type `px`: None where it does not fit (a word wider than the
    panel, lanes thinner than 8 px or a panel narrower than ten letters, or too little height for the drawing at
    its smallest)."""
    if width < max(32 * 8, px * 10):
        return None
    title = max(text_height(t.title, px, True, width) for t in texts)
    request = max(text_height(t.request, px, False, width) for t in texts)
    results = max(
        text_height(t.first, px * 1.1, True, width)
        + text_height(t.second, px, True, width)
        + text_height(t.third, px, False, width)
        for t in texts
    )
    if float("inf") in (title, request, results):
        return None
    rows = max(t.rows for t in texts)
    line = QFontMetricsF(view_font(px)).height()
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


def squeezed(t: PanelTexts, px: float, rect: QRectF) -> PanelLayout:
    """A layout for a rectangle too small for any: the texts at `px`, the drawing squeezed into what is left."""
    w = max(1.0, rect.width())
    title, request = text_height(t.title, px, True, w), text_height(t.request, px, False, w)
    results = (
        text_height(t.first, px * 1.1, True, w)
        + text_height(t.second, px, True, w)
        + text_height(t.third, px, False, w)
    )
    title, request, results = (px * 1.3 if h == float("inf") else h for h in (title, request, results))
    line = QFontMetricsF(view_font(px)).height()
    room = max(0.0, rect.height() - title - request - results - line - px * 1.2)
    return PanelLayout(px, title, request, room * 0.1, line + 2, room * 0.3, room * 0.6 / t.rows, t.rows, results)


def draw_head_and_foot(p: QPainter, rect: QRectF, t: PanelTexts, lay: PanelLayout, theme: Theme) -> float:
    """The title and request above, the figures below the drawing; the drawing's top."""
    px = lay.px
    put_text(
        p, QRectF(rect.left(), rect.top(), rect.width(), lay.title), t.title, px, theme.foreground, True, wrap=True
    )
    y = rect.top() + lay.title
    put_text(p, QRectF(rect.left(), y, rect.width(), lay.request), t.request, px, theme.foreground, wrap=True)
    top = y + lay.request + px * 0.4
    y = top + lay.drawing + px * 0.4
    y += put_text(p, QRectF(rect.left(), y, rect.width(), px * 1.4), t.first, px * 1.1, t.color, True, wrap=True)
    y += put_text(p, QRectF(rect.left(), y, rect.width(), px * 1.4), t.second, px, t.color, True, wrap=True)
    put_text(p, QRectF(rect.left(), y, rect.width(), px * 1.4), t.third, px, theme.foreground, wrap=True)
    return top
