"""SMs × time: every thread block of one traced run as a bar on the SM that ran it, coloured by wave, with the
blocks resident on the GPU below, each wave's start marked and its number under it, the tail
of the last wave marked, and the SM-time each SM sits idle after its last block hatched, its share of the run's
SM-time stated in the title ("last wave: 64 blocks on 64 of 132 SMs — 52% of SM-time idle",
core/hardware/last_wave.py). `set_time` hides what had not yet happened, so a timer sweeping it shows the blocks
landing in waves.

Thousands of blocks are drawn by one BarGraphItem per wave colour; more than DRAW_BARS_MAX as one image of
SM lanes × time bins, and the residency curve as its peak per bin (both prepared without Qt by
core/hardware/trace_drawing.py), so a million-block trace draws as fast as a small one. The sweep moves one mask
rectangle and a cursor line, never the bars. `set_result_stepwise` runs one step of a large trace's preparation
per event-loop turn, so the window never stalls on it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF

from gemmviz.core.hardware.counters import TraceSummary
from gemmviz.core.hardware.last_wave import LastWave
from gemmviz.core.hardware.model_trace import MODEL_BACKEND
from gemmviz.core.hardware.trace_drawing import (
    DRAW_BARS_MAX,
    WAVE_COLOURS,
    TraceDrawing,
    prepare,
    prepare_steps,
)
from gemmviz.core.session.results import Result
from gemmviz.ui.charts.base import is_projector, legible
from gemmviz.ui.text import QT_TRANSLATE_NOOP, plain, tr
from gemmviz.ui.theme import LIGHT, Theme

# the palette's four most distinct hues (blue, orange, green, pink): orange beside vermillion read as one wave
WAVE_PALETTE = (0, 1, 2, 4)
WAVE_TICKS_MAX = 8  # waves named under the SM plot; beyond, every n-th
NO_TRACE = QT_TRANSLATE_NOOP("", "No block trace in this session: run `gemmviz profile` on a GPU")  # drawn through tr()
IDLE_ALPHA = "26"  # the idle area's tint (hex alpha of the foreground) beneath its hatching
# a view shorter than this many lines of its type (720p in projector type, beside the window's banners) drops the
# residency plot and puts the time axis under the SMs: a two-line title left the SM plot too short to read
COMPACT_LINES = 18
# a compact chart's title over this share of its height drops its statement (the side panel's first sentence says
# it): the Chinese Hardware tab's four lines took 44% of the chart at 720p, the English three and a wrap 38%
TITLE_SHARE = 0.4
# any chart drops it over this smaller share where the statement is not the chart's message (little idle SM-time):
# gpu-naive at 1000³ (2% idle) took four lines, 34%, and left its 132 SMs about 110 px
QUIET_TITLE_SHARE, QUIET_IDLE = 0.3, 0.1


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


class SmTraceChart(pg.GraphicsLayoutWidget):
    """One result's block trace: SMs × time above, blocks resident on the GPU below."""

    ready = Signal()  # set_result_stepwise has drawn its result

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent=parent)
        self.theme = theme
        self.result: Result | None = None
        self.sm_count: int | None = None
        self.blocks_per_sm: int | None = None  # the kernel's occupancy, where the caller knows it
        self.span_us: float | None = None  # the time axis at least this long: traces shown in turn share one
        # the title's head in place of "series at size" (a case of a comparison); "": none (the view names it)
        self.heading: str | None = None
        self.time_label = True  # "time (µs)" under a compact chart (charts stacked on one axis: the lowest only)
        self.time_words: str | None = None  # the time axis's name where it is not a measured time (a model's)
        self._time_axis_words = ""  # the time axis's name as drawn, said when the plots were styled
        # the last wave's tail marked ("tail 25%": the time after the first SM ran dry); off where the cases are
        # compared by their idle SM-time (the last-wave view), which a second share beside it only muddles
        self.show_tail = True
        self.sm_words: str | None = None  # the SM axis's name where its rows are not SM numbers (busiest first)
        # with a heading, the title in one line: the case, its blocks and its idle SM-time (a slide: its words say
        # the rest, and a second line of title left the SM plot a few pixels high)
        self.one_line = False
        self.summary: TraceSummary | None = None
        self.last: LastWave | None = None  # the last wave and the idle SM-time, stated in the title
        self.idle_bars: pg.BarGraphItem | None = None  # the SM-time left idle after each SM's last block
        self.compact: bool | None = None  # the SMs alone, no residency plot (a short view); None: not yet fitted
        self.compact_as: bool | None = None  # a stack's choice for all its charts (None: from this chart's height)
        self.rows = 0  # SM rows drawn
        self.blocks = 0  # bars drawn
        self.duration_us = 0.0
        self.time_us = 0.0
        self._drawing: tuple | None = None  # (result, sm_count, TraceDrawing) drawn last
        self._steps: Iterator[None] | None = None  # a preparation under way (set_result_stepwise)
        self._stepper = QTimer(self)
        self._stepper.setSingleShot(True)
        self._stepper.setInterval(0)
        self._stepper.timeout.connect(self._step)
        self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme = legible(theme)
        self.setBackground(theme.background)
        (self.set_result_stepwise if self.preparing else self.set_result)(
            self.result, self.sm_count, self.blocks_per_sm
        )

    def set_result(self, result: Result | None, sm_count: int | None = None, blocks_per_sm: int | None = None) -> None:
        """Draw `result`'s block trace on `sm_count` SM rows (at least every SM the trace used), now;
        `blocks_per_sm`: the kernel's occupancy where known (else the trace's own)."""
        self._stepper.stop()
        self._steps = None
        self.result, self.sm_count, self.blocks_per_sm = result, sm_count, blocks_per_sm
        drawing = None
        if result is not None and result.block_trace:
            drawing = self._cached(result, sm_count, blocks_per_sm) or prepare(
                result.block_trace, sm_count, blocks_per_sm
            )
        self._draw(result, drawing)

    def set_result_stepwise(
        self, result: Result | None, sm_count: int | None = None, blocks_per_sm: int | None = None
    ) -> None:
        """Like set_result, but a trace over DRAW_BARS_MAX blocks is prepared one step per event-loop turn
        (the view says so meanwhile); `ready` is emitted when it is drawn."""
        if (
            result is None
            or not result.block_trace
            or len(result.block_trace) <= DRAW_BARS_MAX
            or self._cached(result, sm_count, blocks_per_sm)
        ):
            self.set_result(result, sm_count, blocks_per_sm)
            self.ready.emit()
            return
        self.set_result(None)
        self.result, self.sm_count, self.blocks_per_sm = result, sm_count, blocks_per_sm
        self.sms_plot.setTitle(
            plain(f"Preparing the trace of {len(result.block_trace):,} blocks…"),
            color=self.theme.foreground,
            size=f"{self.theme.font_pt + 2}pt",
        )
        self._steps = prepare_steps(result.block_trace, sm_count, blocks_per_sm)
        self._stepper.start()

    @property
    def preparing(self) -> bool:
        return self._steps is not None

    def _step(self) -> None:
        if self._steps is None:
            return
        try:
            next(self._steps)
        except StopIteration as done:
            self._steps = None
            self._draw(self.result, done.value)
            self.ready.emit()
            return
        self._stepper.start()

    def _cached(self, result: Result, sm_count: int | None, blocks_per_sm: int | None) -> TraceDrawing | None:
        """The drawing made last, when it was of this result on these rows (a theme change redraws it)."""
        last = self._drawing
        if last is not None and last[0] is result and last[1] == (sm_count, blocks_per_sm):
            return last[2]
        return None

    def _draw(self, result: Result | None, drawing: TraceDrawing | None) -> None:
        self.clear()
        self.sms_plot = self.addPlot(row=0, col=0, enableMenu=False)  # NO_MENU (charts/base.py)
        if result is None or drawing is None:
            self._draw_no_trace(result)
            return
        self._drawing = (result, (self.sm_count, self.blocks_per_sm), drawing)
        self.resident_plot = self.addPlot(row=1, col=0, enableMenu=False)
        self.compact = None  # a new layout: fitted to the view's height by _fit_rows
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 1)
        s = self.summary = drawing.summary
        self.last = drawing.last
        self.rows = drawing.rows
        self.blocks = len(drawing.t)
        self._starts_us = drawing.t[:, 2] / 1e3  # sorted
        self.duration_us = s.duration_ns / 1e3
        self._style_plots(result, s)
        self._draw_blocks(drawing)
        self._draw_idle(drawing)
        top = self.rows  # the lanes take the plot's whole height; the tail's label sits inside, at the top
        font = QFont()
        font.setPointSize(self.theme.font_pt)
        if self.show_tail:
            self._draw_tail(s, top, font)
        self._frame(top)
        self._draw_waves(drawing)
        self._draw_resident(drawing, font)
        self._add_sweep(top)
        self.set_time(self.duration_us)
        for plot in (self.sms_plot, self.resident_plot):
            plot.getViewBox().sigResized.connect(lambda _vb: self._fit_headroom())
        self._fit_title()

    def _draw_no_trace(self, result: Result | None) -> None:
        """The one plot's title says why there is nothing to draw."""
        theme = self.theme
        self.rows = self.blocks = 0
        self.summary = None
        self.last = None
        self.idle_bars = None
        self._drawing = None
        why = (
            tr(NO_TRACE)
            if result is None
            else tr("{series} at {size}: no block trace").format(series=result.series, size=result.problem.label)
        )
        self.sms_plot.setTitle(plain(why), color=theme.foreground, size=f"{theme.font_pt + 2}pt")
        for axis in ("left", "bottom"):
            self.sms_plot.hideAxis(axis)

    def _style_plots(self, result: Result, s: TraceSummary) -> None:
        """The title, the axes' labels and widths, and the time axis the two plots share."""
        theme = self.theme
        # two lines, fitted to the pane by _fit_title: a title wider than the pane held the plot open past its edge;
        # at 720p in projector type a third line left the SM plot too short to read
        last = self.last
        # a wave's size beside the count: "0.24 waves" of 64 blocks on 132 SMs read as a mistake without "of 264"
        waves = tr("{waves} waves of {slots}").format(
            waves=f"{last.waves if last is not None else s.waves:.2f}",
            slots=f"{last.slots if last is not None else s.max_resident_total:,}",
        )
        if self.heading == "":  # named around it (a toggle, a caption): the figures alone
            title = tr("{blocks} blocks, {waves}").format(blocks=f"{s.blocks:,}", waves=waves)
        elif self.heading is not None:
            title = tr("{case} · {blocks} blocks, {waves}").format(
                case=plain(self.heading), blocks=f"{s.blocks:,}", waves=waves
            )
        else:
            title = tr("{series} at {size}: {blocks} blocks, {waves}").format(
                series=plain(result.series), size=result.problem.label, blocks=f"{s.blocks:,}", waves=waves
            )
        brief = self.one_line and bool(self.heading) and last is not None
        if brief and last is not None:
            title = tr("{case} · {blocks} blocks — {idle}% of SM-time idle").format(
                case=plain(self.heading or ""), blocks=f"{s.blocks:,}", idle=f"{100 * last.idle_share:.0f}"
            )
        if result.backend == MODEL_BACKEND:
            title += " " + tr("(model)")
        if last is not None and not brief:
            title += "<br>" + self.statement()
        self._title = title
        style_plot(self.sms_plot, theme, title, "", self.sm_words or "SM")
        # over the SM axis too: beside it, a projector's two lines of title took three
        self.sms_plot.layout.removeItem(self.sms_plot.titleLabel)
        self.sms_plot.layout.addItem(self.sms_plot.titleLabel, 0, 0, 1, 3)
        # the words now, in the language being spoken (a lesson's): the compact layout names the axis on a resize
        self._time_axis_words = self.time_words or tr("time (µs)")
        style_plot(self.resident_plot, theme, "", self._time_axis_words, tr("resident"))
        for plot in (self.sms_plot, self.resident_plot):  # ticks of at most "10,000" beside the rotated label
            plot.getAxis("left").setWidth(int(theme.font_pt * 96 / 72 * 5.4))
        self.sms_plot.getAxis("bottom").setStyle(showValues=False)
        self.resident_plot.setXLink(self.sms_plot)

    def statement(self) -> str:
        """What the idle area says, in words: "last wave: 64 blocks on 64 of 132 SMs — 52% of SM-time idle"."""
        last = self.last
        if last is None:
            return ""
        return tr("last wave: {blocks} blocks on {used} of {sms} SMs — {idle}% of SM-time idle").format(
            blocks=f"{last.last_blocks:,}", used=last.last_sms, sms=last.sms, idle=f"{100 * last.idle_share:.0f}"
        )

    def _draw_idle(self, drawing: TraceDrawing) -> None:
        """The SM-time each SM sits idle after its last block (the whole run for an SM that ran none), hatched
        over the SM rows: the area the statement's share measures, under the sweep's mask."""
        idle = drawing.idle
        self.idle_bars = None
        if not len(idle):
            return
        brush = QBrush(QColor(self.theme.foreground), Qt.BrushStyle.BDiagPattern)
        fill = pg.BarGraphItem(
            x0=idle[:, 1] / 1e3,
            x1=idle[:, 2] / 1e3,
            y0=idle[:, 0],
            y1=idle[:, 0] + 1,
            brush=pg.mkBrush(self.theme.foreground + IDLE_ALPHA),
            pen=pg.mkPen(None),
        )
        hatch = pg.BarGraphItem(
            x0=idle[:, 1] / 1e3, x1=idle[:, 2] / 1e3, y0=idle[:, 0], y1=idle[:, 0] + 1, brush=brush, pen=pg.mkPen(None)
        )
        for item in (fill, hatch):
            item.setZValue(3)  # over the grid, under the wave lines (4) and the sweep's mask (5)
            self.sms_plot.addItem(item)
        self.idle_bars = hatch

    def _draw_blocks(self, drawing: TraceDrawing) -> None:
        """Every block on its SM's lane: one image for a large trace, else one bar item per wave colour."""
        if drawing.image is not None:
            self.sms_plot.addItem(self._image(drawing))
            return
        t, lane, wave = drawing.t, drawing.lane, drawing.wave
        lanes = max(drawing.summary.max_resident_per_sm, 1)
        start_us, end_us = t[:, 2] / 1e3, t[:, 3] / 1e3
        y0 = t[:, 1] + lane / lanes
        for colour in range(WAVE_COLOURS):
            pick = wave % WAVE_COLOURS == colour
            if pick.any():
                bars = pg.BarGraphItem(
                    x0=start_us[pick],
                    x1=end_us[pick],
                    y0=y0[pick],
                    y1=y0[pick] + 0.85 / lanes,
                    brush=pg.mkBrush(self.theme.color(WAVE_PALETTE[colour])),
                    pen=pg.mkPen(None),
                )
                self.sms_plot.addItem(bars)

    def _draw_tail(self, s: TraceSummary, top: float, font: QFont) -> None:
        """The last wave's tail shaded and labelled."""
        theme = self.theme
        tail_from = self._tail_from(s)
        tail = pg.LinearRegionItem(
            (tail_from, self.duration_us), movable=False, brush=pg.mkBrush(theme.foreground + "30"), pen=pg.mkPen(None)
        )
        self.sms_plot.addItem(tail)
        # beside the shaded tail, pointing at it, not over it (its hatching read through the words)
        label = pg.TextItem(
            tr("tail: {pct}% of the run").format(pct=f"{s.tail_pct:.1f}") + " →",  # of time, not SM-time (the title's)
            color=theme.foreground,
            anchor=(1, 0),
            fill=pg.mkBrush(theme.background + "D0"),
        )
        label.setZValue(7)  # over the bars and the sweep's mask
        label.setFont(font)
        label.setPos(tail_from, top)
        self.sms_plot.addItem(label)
        self.tail_label = label

    def _tail_from(self, s: TraceSummary | None = None) -> float:
        """Where the last wave's tail begins, in µs (0 with no trace shown)."""
        s = s or self.summary
        return self.duration_us * (1 - s.tail_pct / 100) if s is not None else 0.0

    def _frame(self, top: float) -> None:
        """The SM axis's ticks and both ranges of the SM plot."""
        self._sm_tick_values: list[tuple[float, str]] | None = None  # a new plot: its axis has none yet
        self.sms_plot.setYRange(0, top, padding=0)
        self._sm_ticks()
        # room left of 0 for its tick's label: the time axis read from 50 µs; traces shown in turn share one span
        span = max(self.duration_us, self.span_us or 0.0)
        self.sms_plot.setXRange(-0.03 * span, span * 1.01, padding=0)

    def _draw_waves(self, drawing: TraceDrawing) -> None:
        """Where each wave begins (a dashed line at the median start of its blocks) and its number under the
        SM plot, at the middle of its blocks: the colours alone, blended across 132 SMs' lanes, could not be
        counted."""
        t, wave = drawing.t, drawing.wave
        self.wave_lines = []
        ticks = []
        waves = int(wave.max()) + 1 if len(wave) else 0
        every = max(1, -(-waves // WAVE_TICKS_MAX))
        pen = pg.mkPen(
            self.theme.foreground, width=max(1.5, self.theme.line_px / 2), style=pg.QtCore.Qt.PenStyle.DashLine
        )
        for k in range(waves):
            pick = wave == k
            start = float(np.median(t[pick, 2])) / 1e3
            end = float(np.median(t[pick, 3])) / 1e3
            if k:
                line = pg.InfiniteLine(pos=start, angle=90, pen=pen)
                line.setZValue(4)
                self.sms_plot.addItem(line)
                self.wave_lines.append(line)
            if k % every == 0:
                ticks.append(((start + end) / 2, tr("wave {n}").format(n=k + 1)))
        axis = self.sms_plot.getAxis("bottom")
        axis.setStyle(showValues=True)
        axis.setTicks([ticks, []])
        self.wave_ticks = ticks

    def set_compact(self, compact: bool | None) -> None:
        """A stack's choice of layout for all its charts (None: each chart's own, from its height), applied now."""
        self.compact_as = compact
        self._fit_rows()

    def _fit_rows(self) -> None:
        """Both plots where the view has the height for them; else the SMs alone, the time axis under them (the
        waves are told apart by colour and their dashed lines)."""
        compact = 0 < self.height() < COMPACT_LINES * self.theme.font_pt * 96 / 72
        if self.compact_as is not None:
            compact = self.compact_as
        if compact == self.compact:
            return
        self.compact = compact
        axis = self.sms_plot.getAxis("bottom")
        if compact:
            self.ci.removeItem(self.resident_plot)
            self.resident_plot.hide()
            axis.setTicks(None)
            px = self.theme.font_pt * 96 / 72
            if self.time_label:
                words = self._time_axis_words
                axis.setLabel(words, color=self.theme.foreground, **{"font-size": f"{self.theme.font_pt}pt"})
            # stacked on one time axis: its numbers under the lowest chart only, the others' strips the taller
            axis.setStyle(showValues=self.time_label)
            axis.setHeight(int(px * (3.2 if self.time_label else 0.4)))
        else:
            if self.resident_plot.scene() is None:
                self.ci.addItem(self.resident_plot, row=1, col=0)
                self.ci.layout.setRowStretchFactor(1, 1)
            self.resident_plot.show()
            axis.setTicks([self.wave_ticks, []])
            axis.setLabel(None)
            axis.setStyle(showValues=True)
            axis.setHeight(None)

    def _sm_ticks(self) -> None:
        """SM numbers on the left axis every 32 SMs, or every 64, 128, … where the plot is too short for labels
        that far apart (at 720p in projector type "32" sat on "64"); the first and the last SM always. Labels are
        apart when their digits are (1.3 digit heights between their centres): the line's height, a third more
        than the digits', dropped the "64" of a Chinese slide's last wave, which had the room for it."""
        height_px = self.sms_plot.getViewBox().height()
        metrics = QFontMetricsF(self.sms_plot.getAxis("left").style.get("tickFont") or QFont())
        line_px, digits_px = metrics.height(), metrics.tightBoundingRect("0123456789").height()
        low, high = self.sms_plot.getViewBox().viewRange()[1]
        per_sm = height_px / max(high - low, 1.0)
        step = 32
        while height_px > 0 and step < self.rows and per_sm * step < digits_px * 1.3:
            step *= 2
        # the last SM's label stays clear of the one below it
        values = {0, *range(step, self.rows - step // 2, step), self.rows - 1}
        if 0 < height_px < line_px * 2.4:  # no room for two numbers apart: the last SM's alone (how many there are)
            values = {self.rows - 1}
        ticks = [(y + 0.5, str(y)) for y in sorted(values)]
        axis = self.sms_plot.getAxis("left")
        if getattr(self, "_sm_tick_values", None) != ticks:
            self._sm_tick_values = ticks
            axis.setTicks([ticks, []])
        self._sm_axis_name(height_px)

    def _sm_axis_name(self, height_px: float) -> None:
        """The SM axis's name, rotated beside the plot, as long as the plot is tall (a Chinese slide's three
        last-wave strips: "SM（按负载）" ran past its strip into the next one's). Rows sorted by load are never
        called "SM" (row 0 is the busiest SM, not SM 0): "SMs by load", else "SM rank", else no name."""
        font = QFont()
        font.setPointSizeF(self.theme.font_pt)
        width = QFontMetricsF(font).horizontalAdvance
        names = [self.sm_words, tr("SM rank"), ""] if self.sm_words else ["SM"]
        words = next((n for n in names if not 0 < height_px < width(n)), names[-1])
        axis = self.sms_plot.getAxis("left")
        if axis.labelText != words:
            axis.setLabel(words, color=self.theme.foreground, **{"font-size": f"{self.theme.font_pt}pt"})

    def _draw_resident(self, drawing: TraceDrawing, font: QFont) -> None:
        """The blocks resident over time, with the most there ever were at once as a dashed line."""
        theme, s = self.theme, drawing.summary
        xs, ys = drawing.resident_us
        self.resident_plot.addItem(pg.PlotDataItem(xs, ys, pen=pg.mkPen(theme.foreground, width=theme.line_px)))
        capacity = pg.InfiniteLine(
            pos=s.max_resident_total,
            angle=0,
            label=tr("most at once: {n}").format(n=f"{s.max_resident_total:,}"),
            labelOpts={"position": 0.02, "anchors": [(0, 1), (0, 1)], "color": theme.foreground},
            pen=pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2), style=pg.QtCore.Qt.PenStyle.DashLine),
        )
        capacity.label.setFont(font)
        self.resident_plot.addItem(capacity)
        self.capacity_line = capacity
        self.resident_plot.setYRange(0, s.max_resident_total * 1.5, padding=0)
        self.resident_plot.getAxis("left").setTicks(
            [[(0, "0"), (s.max_resident_total, f"{s.max_resident_total:,}")], []]
        )

    def _add_sweep(self, top: float) -> None:
        """Per plot, the mask that hides what had not yet happened and the cursor at its edge (set_time moves them)."""
        if self.summary is None:
            return
        mask_brush = pg.mkBrush(self.theme.background)
        self._masks = []
        self._cursors = []
        for plot, height in ((self.sms_plot, top), (self.resident_plot, self.summary.max_resident_total * 1.5)):
            height *= 4  # above any top _fit_headroom gives the plot
            mask = pg.BarGraphItem(x0=[0], x1=[1], y0=[0], y1=[height], brush=mask_brush, pen=pg.mkPen(None))
            mask.setZValue(5)
            cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen(self.theme.foreground, width=self.theme.line_px))
            cursor.setZValue(6)
            plot.addItem(mask)
            plot.addItem(cursor)
            self._masks.append((mask, height))
            self._cursors.append(cursor)

    def _image(self, drawing: TraceDrawing) -> pg.ImageItem:
        """A large trace as one image: its pixels' wave colours through a lookup table (0: the background)."""
        lut = np.zeros((WAVE_COLOURS + 1, 4), np.uint8)
        for colour in range(WAVE_COLOURS):
            c = QColor(self.theme.color(WAVE_PALETTE[colour]))
            lut[colour + 1] = (c.red(), c.green(), c.blue(), 255)
        item = pg.ImageItem(lut[drawing.image], axisOrder="row-major", levels=(0, 255))
        item.setRect(QRectF(0.0, 0.0, max(drawing.summary.duration_ns / 1e3, 1e-3), float(drawing.rows)))
        return item

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self.closed:  # pyqtgraph's close() clears the scene, then resizes: the title is gone (segfault)
            self._fit_title()

    def _fit_title(self) -> None:
        """Fit the title to the view's width: smaller type (down to 60%), then a third line; never wider than
        the view (a wider title held the plots open past the pane's edge, with the time axis and the cursor)."""
        if not getattr(self, "blocks", 0) or self.summary is None:
            return
        self._fit_rows()
        label = self.sms_plot.titleLabel
        # the title spans the plot's column only: the view less the left axis and the margins
        # the title spans the SM axis's column too (_style_plots): the view less the margins
        room = max(40.0, self.width() - 40.0)
        base = self.theme.font_pt + 2
        # in projector type never below the axes' text (it was 60% of it at 720p): a third line, then wrapped
        smallest = self.theme.font_pt if is_projector(self.theme) else 0.6 * base
        self._set_fitted_title(self._title, room, base, smallest)
        rect = label.item.boundingRect()
        head = self._title.split("<br>")[0]
        quiet = self.last is not None and self.last.idle_share < QUIET_IDLE
        limit = QUIET_TITLE_SHARE if quiet else TITLE_SHARE if self.compact else None
        if head != self._title and limit is not None and rect.height() > limit * self.height():
            # four lines of title at 720p left the SMs 55 px (a lesson's compact chart) to 110 px (the Hardware
            # tab): the figures' line alone, the statement being the side panel's (or the slide's) words too
            self._set_fitted_title(head, room, base, smallest)
            rect = label.item.boundingRect()
        label.setMinimumWidth(min(rect.width(), room))
        label.setMaximumHeight(rect.height())
        self.sms_plot.layout.setRowFixedHeight(0, rect.height())
        for layout in (self.sms_plot.layout, self.ci.layout):  # their cached minimums held a wider title
            layout.invalidate()
        self.ci.setGeometry(self.range)  # the layout grown by a wider title earlier: back to the view's size
        self._fit_headroom()

    def _set_fitted_title(self, title: str, room: float, base: float, smallest: float) -> None:
        """`title` in the largest type down to `smallest` that fits `room`; wrapped after its first comma, then at
        its dash, where it does not; at `room`'s width where nothing else fits."""
        label = self.sms_plot.titleLabel
        label.item.setTextWidth(-1)
        # where a line is too wide: the first line after its first comma, the statement at its dash
        wrapped = title.replace(", ", "<br>", 1) if ", " in title else title.replace("，", "，<br>", 1)
        for text in (title, title.replace(" — ", "<br>"), wrapped, wrapped.replace(" — ", "<br>")):
            pt: float = base
            label.setText(text, size=f"{pt}pt")
            while label.item.boundingRect().width() > room and pt > smallest:
                pt = max(pt * 0.92, smallest)
                label.setText(text, size=f"{pt:.1f}pt")
            if label.item.boundingRect().width() <= room:
                break
        if label.item.boundingRect().width() > room:
            label.item.setTextWidth(room)

    def _fit_headroom(self) -> None:
        """Give each plot the headroom its label needs above the data at the plot's height in pixels (run
        whenever a plot's view box changes size)."""
        if not getattr(self, "blocks", 0) or self.summary is None:
            return
        # no headroom (the tail's label is inside), only half a tick label's height at each end, so that the
        # first and the last SM's numbers are not dropped at the axis's ends
        height_px = self.sms_plot.getViewBox().height()
        font = self.sms_plot.getAxis("left").style.get("tickFont") or QFont()
        half_px = QFontMetricsF(font).height() * 0.45
        pad = self.rows * half_px / max(height_px - 2 * half_px, 1.0) if height_px > 0 else 0.0
        self.sms_plot.setYRange(-pad, self.rows + pad, padding=0)
        for plot, item, data_top in ((self.resident_plot, self.capacity_line.label, self.summary.max_resident_total),):
            height_px = plot.getViewBox().height()
            if height_px <= 0:
                continue
            text_px = item.boundingRect().height() + 6
            top = data_top / max(0.2, 1 - text_px / height_px)
            plot.setYRange(0, max(top, data_top * 1.1), padding=0)
        if self.show_tail:
            self.tail_label.setPos(self._tail_from(), self.rows + pad)
        self._sm_ticks()

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
        return int(np.searchsorted(self._starts_us, self.time_us, side="right"))
