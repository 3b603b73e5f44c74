"""SMs × time: every thread block of one traced run as a bar on the SM that ran it, coloured by wave, with the
blocks resident on the GPU below and the tail of the last wave marked. `set_time` hides what had not yet
happened, so a timer sweeping it shows the blocks landing in waves.

Thousands of blocks are drawn by one BarGraphItem per wave colour; the sweep moves one mask rectangle and a
cursor line, never the bars.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont

from gemmviz.core.counters import TRACE_FIELDS, TraceSummary, resident_timeline, trace_summary
from gemmviz.core.results import Result
from gemmviz.ui.chart_base import legible
from gemmviz.ui.text import plain
from gemmviz.ui.theme import LIGHT, Theme

WAVE_COLOURS = 4  # colours cycle every 4 waves: enough to tell neighbours apart, few enough to read
NO_TRACE = "No block trace in this session: run `gemmviz profile` on a GPU"


def trace_lanes(trace: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(records sorted by start, lane, wave) for a decoded trace.

    Blocks resident on one SM at the same time get different lanes (its rows are split among them); a
    block's wave is how many blocks held its lane before it, so wave 0 is the first block each slot ran.
    """
    t = np.asarray(trace, dtype=np.int64).reshape(-1, TRACE_FIELDS)
    t = t[np.lexsort((t[:, 0], t[:, 2]))]
    lane = np.zeros(len(t), np.int64)
    wave = np.zeros(len(t), np.int64)
    free: dict[int, list[int]] = {}  # per SM: lanes free now (a heap)
    busy: dict[int, list[tuple[int, int]]] = {}  # per SM: (end, lane) of resident blocks (a heap)
    used: dict[tuple[int, int], int] = {}  # (sm, lane) -> blocks it held so far
    for i, (_block, sm, start, end) in enumerate(t.tolist()):
        running, spare = busy.setdefault(sm, []), free.setdefault(sm, [])
        while running and running[0][0] <= start:  # a block ending as another starts frees its lane first
            heapq.heappush(spare, heapq.heappop(running)[1])
        slot = heapq.heappop(spare) if spare else len(running)
        heapq.heappush(running, (end, slot))
        lane[i] = slot
        wave[i] = used.get((sm, slot), 0)
        used[(sm, slot)] = wave[i] + 1
    return t, lane, wave


def style_plot(plot: pg.PlotItem, theme: Theme, title: str, x_label: str, y_label: str) -> None:
    """Title, axis labels, tick fonts and pens of one plot in the theme's sizes (shared by the hardware views)."""
    font = QFont()
    font.setPointSize(theme.font_pt)
    plot.setTitle(title or None, color=theme.foreground, size=f"{theme.font_pt + 2}pt")
    if title:  # pyqtgraph fixes the title row at 30 px: too short for a projector's font or a two-line title
        height = plot.titleLabel.item.boundingRect().height()
        plot.titleLabel.setMaximumHeight(height)
        plot.layout.setRowFixedHeight(0, height)
    for name, label in (("bottom", x_label), ("left", y_label)):
        axis = plot.getAxis(name)
        axis.setLabel(label or None, color=theme.foreground, **{"font-size": f"{theme.font_pt}pt"})
        axis.setTickFont(font)
        axis.setPen(pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2)))
        axis.setTextPen(pg.mkPen(theme.foreground))
        axis.enableAutoSIPrefix(False)
    # pyqtgraph sizes axes for its default font: make room for the theme's tick labels and axis label
    px = theme.font_pt * 96 / 72
    if x_label:
        plot.getAxis("bottom").setHeight(int(px * 3.2))
    plot.getAxis("left").setWidth(int(px * 6.2))  # "100 MB" beside the rotated label
    plot.setContentsMargins(6, 4, 10, 4)  # the rotated axis label's box reaches past the plot's left edge
    plot.showGrid(x=True, y=True, alpha=theme.grid_alpha)


def _step(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of a staircase that holds each value from its time to the next."""
    xs = np.repeat(times, 2)[1:]
    ys = np.repeat(values, 2)[:-1]
    return xs, ys


class SmTraceChart(pg.GraphicsLayoutWidget):
    """One result's block trace: SMs × time above, blocks resident on the GPU below."""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent=parent)
        self.theme = theme
        self.result: Result | None = None
        self.sm_count: int | None = None
        self.summary: TraceSummary | None = None
        self.rows = 0  # SM rows drawn
        self.blocks = 0  # bars drawn
        self.duration_us = 0.0
        self.time_us = 0.0
        self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme = legible(theme)
        self.setBackground(theme.background)
        self.set_result(self.result, self.sm_count)

    def set_result(self, result: Result | None, sm_count: int | None = None) -> None:  # noqa: PLR0915
        """Draw `result`'s block trace on `sm_count` SM rows (at least every SM the trace used)."""
        self.result, self.sm_count = result, sm_count
        self.clear()
        theme = self.theme
        self.sms_plot = self.addPlot(row=0, col=0)
        if result is None or not result.block_trace:
            self.rows = self.blocks = 0
            self.summary = None
            why = NO_TRACE if result is None else f"{result.series} at {result.problem.label}: no block trace"
            self.sms_plot.setTitle(why, color=theme.foreground, size=f"{theme.font_pt + 2}pt")
            for axis in ("left", "bottom"):
                self.sms_plot.hideAxis(axis)
            return
        self.resident_plot = self.addPlot(row=1, col=0)
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 1)
        t, lane, wave = trace_lanes(result.block_trace)
        s = self.summary = trace_summary(t)
        self.rows = max(int(t[:, 1].max()) + 1, sm_count or 0)
        self.blocks = len(t)
        lanes = max(s.max_resident_per_sm, 1)
        start_us, end_us = t[:, 2] / 1e3, t[:, 3] / 1e3
        self.duration_us = s.duration_ns / 1e3
        # two lines, fitted to the pane by _fit_title: a title wider than the pane held the plot open past its edge
        title = (
            f"{plain(result.series)} at {result.problem.label}<br>{s.blocks:,} blocks on {self.rows} SMs, "
            f"{s.waves:.2f} waves (colour = wave)"
        )
        self._title = title
        style_plot(self.sms_plot, theme, title, "", "SM")
        style_plot(self.resident_plot, theme, "", "time (µs)", "resident")
        for plot in (self.sms_plot, self.resident_plot):  # ticks of at most "10,000" beside the rotated label
            plot.getAxis("left").setWidth(int(theme.font_pt * 96 / 72 * 5.4))
        self.sms_plot.getAxis("bottom").setStyle(showValues=False)
        self.resident_plot.setXLink(self.sms_plot)
        y0 = t[:, 1] + lane / lanes
        for colour in range(WAVE_COLOURS):
            pick = wave % WAVE_COLOURS == colour
            if pick.any():
                bars = pg.BarGraphItem(x0=start_us[pick], x1=end_us[pick], y0=y0[pick], y1=y0[pick] + 0.85 / lanes,
                                       brush=pg.mkBrush(theme.color(colour)), pen=pg.mkPen(None))  # fmt: skip
                self.sms_plot.addItem(bars)
        top = self.rows * 1.1  # headroom above the last SM for the tail's label
        tail_from = self.duration_us * (1 - s.tail_pct / 100)
        tail = pg.LinearRegionItem((tail_from, self.duration_us), movable=False,
                                   brush=pg.mkBrush(theme.foreground + "30"), pen=pg.mkPen(None))  # fmt: skip
        self.sms_plot.addItem(tail)
        font = QFont()
        font.setPointSize(theme.font_pt)
        label = pg.TextItem(f"tail {s.tail_pct:.1f}%", color=theme.foreground, anchor=(1, 0))
        label.setFont(font)
        label.setPos(self.duration_us, top)
        self.sms_plot.addItem(label)
        self.tail_label = label
        self.sms_plot.getAxis("left").setTicks(
            [[(y + 0.5, str(y)) for y in sorted({0, *range(32, self.rows - 16, 32), self.rows - 1})], []]
        )
        self.sms_plot.setYRange(0, top, padding=0)
        self.sms_plot.setXRange(0, self.duration_us, padding=0.01)
        times, resident = resident_timeline(t)
        xs, ys = _step(times / 1e3, resident)
        self.resident_plot.addItem(pg.PlotDataItem(xs, ys, pen=pg.mkPen(theme.foreground, width=theme.line_px)))
        capacity = pg.InfiniteLine(pos=s.max_resident_total, angle=0, label=f"most at once: {s.max_resident_total:,}",
                                   labelOpts={"position": 0.02, "anchors": [(0, 1), (0, 1)], "color": theme.foreground},
                                   pen=pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2),
                                                style=pg.QtCore.Qt.PenStyle.DashLine))  # fmt: skip
        capacity.label.setFont(font)
        self.resident_plot.addItem(capacity)
        self.capacity_line = capacity
        self.resident_plot.setYRange(0, s.max_resident_total * 1.5, padding=0)
        self.resident_plot.getAxis("left").setTicks(
            [[(0, "0"), (s.max_resident_total, f"{s.max_resident_total:,}")], []]
        )
        mask_brush = pg.mkBrush(theme.background)
        self._masks = []
        self._cursors = []
        for plot, height in ((self.sms_plot, top), (self.resident_plot, s.max_resident_total * 1.5)):
            height *= 4  # above any top _fit_headroom gives the plot
            mask = pg.BarGraphItem(x0=[0], x1=[1], y0=[0], y1=[height], brush=mask_brush, pen=pg.mkPen(None))
            mask.setZValue(5)
            cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen(theme.foreground, width=theme.line_px))
            cursor.setZValue(6)
            plot.addItem(mask)
            plot.addItem(cursor)
            self._masks.append((mask, height))
            self._cursors.append(cursor)
        self.set_time(self.duration_us)
        for plot in (self.sms_plot, self.resident_plot):
            plot.getViewBox().sigResized.connect(lambda _vb: self._fit_headroom())
        self._fit_title()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_title()

    def _fit_title(self) -> None:
        """Fit the title to the view's width: smaller type (down to 60%), then a third line; never wider than
        the view (a wider title held the plots open past the pane's edge, with the time axis and the cursor)."""
        if not getattr(self, "blocks", 0) or self.summary is None:
            return
        label = self.sms_plot.titleLabel
        # the title spans the plot's column only: the view less the left axis and the margins
        room = max(40.0, self.width() - self.sms_plot.getAxis("left").maximumWidth() - 40.0)  # its fixed width
        base = self.theme.font_pt + 2
        for text in (self._title, self._title.replace(", ", "<br>", 1)):
            pt = base
            label.setText(text, size=f"{pt}pt")
            while label.item.boundingRect().width() > room and pt > 0.6 * base:
                pt *= 0.92
                label.setText(text, size=f"{pt:.1f}pt")
            if label.item.boundingRect().width() <= room:
                break
        rect = label.item.boundingRect()
        label.setMinimumWidth(min(rect.width(), room))
        label.setMaximumHeight(rect.height())
        self.sms_plot.layout.setRowFixedHeight(0, rect.height())
        for layout in (self.sms_plot.layout, self.ci.layout):  # their cached minimums held a wider title
            layout.invalidate()
        self.ci.setGeometry(self.range)  # the layout grown by a wider title earlier: back to the view's size
        self._fit_headroom()

    def _fit_headroom(self) -> None:
        """Give each plot the headroom its label needs above the data at the plot's height in pixels (run
        whenever a plot's view box changes size)."""
        if not getattr(self, "blocks", 0) or self.summary is None:
            return
        for plot, item, data_top in ((self.sms_plot, self.tail_label, self.rows),
                                     (self.resident_plot, self.capacity_line.label, self.summary.max_resident_total)):  # fmt: skip
            height_px = plot.getViewBox().height()
            if height_px <= 0:
                continue
            text_px = item.boundingRect().height() + 6
            top = data_top / max(0.2, 1 - text_px / height_px)
            plot.setYRange(0, max(top, data_top * 1.1), padding=0)
        self.tail_label.setPos(self.duration_us, self.sms_plot.getViewBox().viewRange()[1][1])

    def set_time(self, time_us: float) -> None:
        """Show the run up to `time_us`: later parts of bars and of the residency curve are covered."""
        if not self.blocks:
            return
        self.time_us = min(max(time_us, 0.0), self.duration_us)
        done = self.time_us >= self.duration_us
        for (mask, height), cursor in zip(self._masks, self._cursors):
            mask.setOpts(x0=[self.time_us], x1=[self.duration_us * 1.02], y0=[0], y1=[height])
            mask.setVisible(not done)
            cursor.setPos(self.time_us)
            cursor.setVisible(not done)

    def landed(self) -> int:
        """Blocks that had started by the cursor's time."""
        if not self.blocks:
            return 0
        starts = np.asarray(self.result.block_trace, dtype=np.int64)[:, 2] / 1e3
        return int((starts <= self.time_us).sum())
