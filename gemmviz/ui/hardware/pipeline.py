"""The Hopper pipeline on one SM, as a timeline: a lane per warpgroup and role, the producer's
TMA copies in flight (a thin row per stage) and its waits for a free stage, each consumer's waits for data and its
wgmma batches, and a lane of bubbles, where no wgmma is in flight. Drawn by one function, `draw_pipeline`."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter
from PySide6.QtWidgets import QComboBox, QSizePolicy, QVBoxLayout, QWidget

from gemmviz.core.hardware import pipeline_trace as pt
from gemmviz.core.messages import render
from gemmviz.ui.hardware.gap import draw_message
from gemmviz.ui.hardware.painted import Texts, axis, file_line, font, heading, small_pt, source_line, text
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import LIGHT, Theme

RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
CENTER = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
DENSE_PX = 4.0  # waits and batches mostly thinner than this (px) are drawn as each pixel column's shares
# what each box is: (message key of its legend entry, palette index)
STYLES = {
    "tma": ("view.pipe.tma", 0),
    "wait_full": ("view.pipe.wait_full", 1),
    "wait_empty": ("view.pipe.wait_empty", 4),
    "wgmma": ("view.pipe.wgmma", 2),
    "bubble": ("view.pipe.bubble", 3),
}


def _style(e: pt.Event) -> str:
    if e.kind == "wait":
        return "wait_empty" if e.role == "producer" else "wait_full"
    return e.kind


def _legend(painter, r: QRectF, theme: Theme, lang: str, texts: Texts | None, dense: bool = False) -> float:
    """The legend's entries in rows along the bottom of `r` (`dense`: and how the boxes thinner than a pixel are
    drawn); returns its height."""
    small = font(small_pt(theme.font_pt))
    fm = QFontMetricsF(small)
    sw, gap = fm.height() * 0.9, fm.height() * 0.8
    entries = [(render(key, lang), colour) for key, colour in STYLES.values()]
    if dense:
        entries.append((render("view.pipe.dense", lang), -1))
    faded = STYLES["wait_empty"][1]  # drawn faded under the copies in flight, in the lane and here
    rows: list[list[tuple[str, int, float]]] = [[]]
    used = 0.0
    for label, colour in entries:
        w = sw + gap / 3 + fm.horizontalAdvance(label) + gap
        if rows[-1] and used + w > r.width():
            rows.append([])
            used = 0.0
        rows[-1].append((label, colour, w))
        used += w
    height = len(rows) * fm.height() * 1.2
    y = r.bottom() - height
    for row in rows:
        x = r.left()
        for label, colour, w in row:
            if colour >= 0:
                swatch = QColor(theme.color(colour))
                if colour == faded:
                    swatch.setAlpha(120)
                painter.fillRect(QRectF(x, y + (fm.height() - sw) / 2, sw, sw), swatch)
            else:  # the note on heights: a swatch of two shares, one above the other
                for share, key in ((0.35, "wait_full"), (0.65, "wgmma")):
                    part = sw * share
                    top = y + (fm.height() + sw) / 2 - (sw if key == "wgmma" else part)
                    painter.fillRect(QRectF(x, top, sw, part), QColor(theme.color(STYLES[key][1])))
            box = QRectF(x + sw + gap / 3, y, w - sw - gap / 3, fm.height())
            text(painter, box, LEFT, label, small, theme.foreground, texts)
            x += w
        y += fm.height() * 1.2
    return height


def is_dense(events: list[pt.Event], x) -> bool:
    """Whether the waits and batches are mostly thinner than DENSE_PX: drawn one by one, a consumer's green batches
    and yellow waits blended into an olive band that is neither."""
    widths = [x(e.end) - x(e.start) for e in events if e.kind != "tma"]
    return bool(widths) and float(np.median(widths)) < DENSE_PX


def _colour(theme: Theme, style: str, role: str) -> QColor:
    colour = QColor(theme.color(STYLES[style][1]))
    if role == "producer":
        colour.setAlpha(120)
    return colour


def _lane(
    painter: QPainter,
    band: QRectF,
    events: list[pt.Event],
    x,
    span: tuple[float, float],
    stages: int,
    theme: Theme,
    dense: bool,
) -> None:
    """One warpgroup's boxes in `band`: a producer's waits under its copies in flight (a thin row per stage, so the
    copies in flight at once are seen one above the other), a consumer's waits and wgmma batches. Where those are
    mostly thinner than DENSE_PX (`dense`: is_dense), each pixel column shows the share of its time each took, as
    a height."""
    if dense:
        _shares(painter, band, events, span, theme)
    for e in sorted(events, key=lambda e: e.kind == "tma"):
        left, width = x(e.start), max(1.0, x(e.end) - x(e.start))
        if e.kind == "tma":
            row = band.height() / stages
            colour = QColor(theme.color(STYLES["tma"][1]))
            painter.fillRect(QRectF(left, band.top() + e.stage * row, width, row * 0.8), colour)
        elif not dense:
            # a hairline of background between one batch and the next, where a batch is wide enough to spare it
            rect = QRectF(left, band.top(), width - 1.5 if width >= 6 else width, band.height())
            painter.fillRect(rect, _colour(theme, _style(e), e.role))


def _shares(painter: QPainter, band: QRectF, events: list[pt.Event], span: tuple[float, float], theme: Theme) -> None:
    """Each pixel column of `band`: the share of its time spent in each state, as a height. A wgmma batch stays
    in flight while its warpgroup waits for the next stage's data, so the states overlap: each has its own row
    of the band (the batches above the waits), not a stack. Runs of columns of one height are drawn as one box."""
    columns = max(1, int(band.width()))
    width = band.width() / columns
    styles = [s for s in ("wgmma", "wait_full", "wait_empty") if any(_style(e) == s for e in events if e.kind != "tma")]
    row = band.height() / max(1, len(styles))
    for k, style in enumerate(styles):
        # two batches in flight at once count once: the share of time with one or more
        chosen = pt.union([(e.start, e.end) for e in events if e.kind != "tma" and _style(e) == style])
        heights = np.round(np.clip(pt.column_time(chosen, span[0], span[1], columns), 0.0, 1.0) * row * 0.9)
        colour, floor = _colour(theme, style, events[0].role), band.top() + (k + 1) * row
        start = 0
        for i in range(1, columns + 1):  # one box per run of columns of one height
            if i == columns or heights[i] != heights[start]:
                if heights[start] > 0:
                    left = band.left() + start * width
                    painter.fillRect(QRectF(left, floor - heights[start], (i - start) * width, heights[start]), colour)
                start = i


def _fitting(painter: QPainter, labels: list[str], most: float, least: float, room: float):
    """The font of the largest size from `most` down to `least` points (in steps of one) whose lines of `labels`
    are at most `room` tall; `least` where none is."""
    size = most
    while True:
        f = font(size)
        painter.setFont(f)
        if size <= least or max(painter.boundingRect(QRectF(0, 0, 1e4, 1e4), LEFT, s).height() for s in labels) <= room:
            return f
        size = max(least, size - 1)


def draw_pipeline(
    painter: QPainter,
    rect: QRectF,
    trace: pt.PipelineTrace,
    theme: Theme = LIGHT,
    lang: str = "en",
    texts=None,
    window: tuple[float, float] | None = None,
) -> None:
    """The timeline of `trace` in `rect`, over `window` (from, to in the trace's clock; None: all of it)."""
    fg, pt_size = theme.foreground, theme.font_pt
    big, small = font(pt_size), font(small_pt(pt_size))
    pad = QFontMetricsF(big).height() * 0.4
    r = rect.adjusted(pad, pad / 2, -pad, -pad / 2)
    title = render("view.pipe.title", lang, {"label": trace.variant, "sm": trace.sm})  # its macros: in the words
    y = heading(painter, r, title, source_line(trace.header, lang), pt_size, fg, texts) + pad / 2
    lanes = trace.lanes()
    labels = [render(f"view.pipe.{role}", lang, {"wg": wg}) for wg, role in lanes] + [render("view.pipe.bubbles", lang)]
    label_w = min(r.width() * 0.35, max(QFontMetricsF(big).horizontalAdvance(s) for s in labels) + pad)
    x0, x1 = r.left() + label_w, r.right()
    lo, hi = window or (0.0, trace.span)

    def x(t: float) -> float:
        return x0 + (t - lo) / (hi - lo) * (x1 - x0)

    shown = [e for e in trace.events if e.end >= lo and e.start <= hi]
    by_lane = {lane: [e for e in shown if (e.warpgroup, e.role) == lane] for lane in lanes}
    dense = {lane: is_dense(events, x) for lane, events in by_lane.items()}  # each lane's, measured once
    legend_h = _legend(painter, r, theme, lang, texts, any(dense.values()))
    bottom = r.bottom() - legend_h - 2 * QFontMetricsF(small).height() - pad
    weights = [1.5 if role == "producer" else 1.0 for _, role in lanes] + [0.6]
    # the idle lane, 0.6 of a consumer's, is at least a name's line tall (drawText cuts a name to its lane: at
    # 720p "张量核心空闲" lost its lower third); the names in the largest type, from the big one down, that fits
    painter.setFont(big)
    line = max(painter.boundingRect(QRectF(0, 0, 1e4, 1e4), LEFT, s).height() for s in labels)
    unit = (bottom - y) / sum(weights)
    if weights[-1] * unit < line < bottom - y:
        unit = (bottom - y - line) / sum(weights[:-1])
        weights[-1] = line / unit
    tops = [y + unit * sum(weights[:i]) for i in range(len(weights))]
    label_font = _fitting(painter, labels, pt_size, small_pt(pt_size) * 0.8, unit * min(weights))
    for top, label, weight in zip(tops, labels, weights):
        text(painter, QRectF(r.left(), top, label_w - pad / 2, unit * weight), RIGHT, label, label_font, fg, texts)
    painter.save()
    painter.setClipRect(QRectF(x0, y, x1 - x0, bottom - y))  # a window's edge cuts the boxes across it
    for lane, top, weight in zip(lanes, tops, weights):
        band = QRectF(x0, top + unit * weight * 0.1, x1 - x0, unit * weight * 0.8)
        if by_lane[lane]:
            _lane(painter, band, by_lane[lane], x, (lo, hi), max(1, trace.stages), theme, dense[lane])
    height = unit * weights[-1]
    for s, e in pt.bubbles(trace):
        colour = QColor(theme.color(STYLES["bubble"][1]))
        painter.fillRect(QRectF(x(s), tops[-1] + height * 0.15, max(2.0, x(e) - x(s)), height * 0.7), colour)
    painter.restore()
    axis(painter, r, (lo, hi, bottom), x, render(f"view.pipe.axis.{trace.clock}", lang), theme, texts)


class PipelineChart(QWidget):
    """One SM's pipeline trace (the shipped recording unless given one), or a sentence saying why there is none."""

    def __init__(self, theme: Theme = LIGHT, lang: str = "en", trace: pt.PipelineTrace | None = None, parent=None):
        super().__init__(parent)
        self.theme, self.lang = theme, lang
        why = ""
        if trace is None:
            trace, why = pt.load_shipped_pipeline(lang)
        self.trace = trace
        self.span: tuple[float, float] | None = None  # shown; None: all (not `window`: a QWidget method)
        self.message = "" if trace is not None else render("view.pipe.none", lang, {"why": why})
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def sentences(self) -> str:
        if self.trace is None:
            return self.message
        return "\n\n".join([*pt.sentences(self.trace, self.lang), file_line(self.trace.header, self.lang)])

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(self.theme.background))
        self.draw(painter, QRectF(self.rect()))
        painter.end()

    def draw(self, painter: QPainter, rect: QRectF, texts: Texts | None = None) -> None:
        if self.trace is None:
            draw_message(painter, rect, self.message, self.theme, texts)
        else:
            draw_pipeline(painter, rect, self.trace, self.theme, self.lang, texts, self.span)

    def set_window(self, window: tuple[float, float] | None) -> None:
        self.span = window
        self.update()

    def paint_export(self, painter: QPainter) -> None:
        self.draw(painter, QRectF(self.rect()))


WINDOWS = {
    "all": QT_TRANSLATE_NOOP("", "the whole trace"),
    "start": QT_TRANSLATE_NOOP("", "the first k-steps"),
    "bubble": QT_TRANSLATE_NOOP("", "around the longest bubble"),
}


class PipelineView(QWidget):
    """The timeline and a choice of span: the whole trace, its first k-steps (box by box) or the longest bubble."""

    def __init__(self, theme: Theme = LIGHT, lang: str = "en", trace: pt.PipelineTrace | None = None, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.window_combo = QComboBox()
        self.chart = PipelineChart(theme, lang, trace)
        self.windows = pt.windows(self.chart.trace) if self.chart.trace is not None else {}
        for key in self.windows:
            self.window_combo.addItem(tr(WINDOWS[key]), key)
        self.window_combo.setEnabled(len(self.windows) > 1)
        layout.addWidget(self.window_combo)
        layout.addWidget(self.chart, 1)
        self.window_combo.currentIndexChanged.connect(self._pick)

    def _pick(self, _index: int) -> None:
        key = self.window_combo.currentData()
        self.chart.set_window(None if key in (None, "all") else self.windows[key])

    def sentences(self) -> str:
        return self.chart.sentences()

    def apply_theme(self, theme: Theme) -> None:
        self.chart.apply_theme(theme)
