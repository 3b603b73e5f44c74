"""The Hardware tab: what the GPU itself reported for one result, beside the model. One view at a time (SMs ×
time, model vs measured traffic, the hierarchical roofline) and the plain-text sentences from core beside it.

The hierarchical roofline draws one result at its measured intensity at each memory level (FLOPs / bytes the
counters saw there) under that level's bandwidth, and keeps the model's point, named "requested traffic".
"""

from __future__ import annotations

import math
import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gemmviz.core.charts.kinds import hardware_result
from gemmviz.core.hardware.counters import level_intensities
from gemmviz.core.hardware.roofline import intensity, load_ceilings
from gemmviz.core.kernels.variants import occupancy
from gemmviz.core.numbers import sig
from gemmviz.core.session.results import Result
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.charts.axes import LegendMark
from gemmviz.ui.charts.base import fit_legend_column, is_projector, legend_column, legible, repaint_whole
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.hardware.gap import GapView
from gemmviz.ui.hardware.last_wave import LastWaveView
from gemmviz.ui.hardware.pipeline import PipelineView
from gemmviz.ui.hardware.trace import SmTraceChart, style_plot
from gemmviz.ui.hardware.traffic import NO_COUNTERS, TrafficChart, show_axes_and_legend, show_no_counters
from gemmviz.ui.i18n import explain_counters, explain_trace, language
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import LIGHT, Theme

# level -> (Ceilings attribute with its bandwidth in GB/s, palette index, marker). L1 and shared memory are
# one SRAM on Hopper with one 128 B/clock path, so L1 meets the shared-memory roof.
LEVELS = {
    "DRAM": ("bandwidth_gbs", 0, "s"),
    "L2": ("l2_gbs", 1, "t"),
    "L1": ("shared_gbs", 2, "d"),
    "shared": ("shared_gbs", 3, "star"),
}
VIEWS = (QT_TRANSLATE_NOOP("", "SMs × time"), QT_TRANSLATE_NOOP("", "Model vs measured"),
         QT_TRANSLATE_NOOP("", "Hierarchical roofline"), QT_TRANSLATE_NOOP("", "Gap between two kernels"),
         QT_TRANSLATE_NOOP("", "Pipeline on one SM"), QT_TRANSLATE_NOOP("", "Last wave: filling the GPU"))  # fmt: skip
# views drawn from a recorded file of their own (assets/sessions/*-gap.json, *-pipeline.json), or from their own
# pick of the workspace's results or the model (the last wave's before / after), not from the picked result
GAP_VIEW, PIPELINE_VIEW, LAST_WAVE_VIEW = 3, 4, 5
FILE_VIEWS = (GAP_VIEW, PIPELINE_VIEW, LAST_WAVE_VIEW)
TRACE_VIEWS = (0, LAST_WAVE_VIEW)  # views the player sweeps


def level_ceilings(ceilings) -> dict[str, float]:
    """Bandwidth (GB/s) of each level that has one measured; `l2_gbs` and `shared_gbs` are read where the
    ceilings file carries them."""
    if ceilings is None:
        return {}
    out = {}
    for level, (attr, _, _) in LEVELS.items():
        value = getattr(ceilings, attr, None)
        if value:
            out[level] = float(value)
    return out


def compact(value: float) -> str:
    """A power of ten as 1, 10, 100, 1k … 100M: a projector's font left too little width for "100,000"."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= div:
            return f"{value / div:g}{suffix}"
    return f"{value:g}"


def with_unit(text: str) -> str:
    """A legend entry whose figures wrap with their units: a no-break space between a number and the word
    after it (the narrow legend wrapped "DRAM 4,253 / GB/s")."""
    return re.sub(r"(?<=\d) (?=\S)", "\u00a0", text)


def build_words(r: Result) -> str:
    """A result's build in a few words: its tiles (Stream-K where it ran so) and its blocks, where recorded."""
    c = r.config
    words = [f"{c['BM']}×{c['BN']}" if "BM" in c and "BN" in c else ""]
    if c.get("SCHED"):
        words.append("Stream-K")
    if r.block_trace:
        words.append(tr("{n} blocks").format(n=f"{len(r.block_trace):,}"))
    return " ".join(w for w in words if w)


class LevelRooflineChart(pg.PlotWidget):
    """One profiled result on a log-log roofline: a point per memory level at its measured intensity, each
    level's bandwidth line, the FP32 peak, and the model's point ("requested traffic")."""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent=parent, enableMenu=False)  # NO_MENU (charts/base.py)
        repaint_whole(self)
        self.theme = theme
        self.result: Result | None = None
        self.ceilings = None
        self.points: dict[str, tuple[float, float]] = {}  # name -> (FLOP/byte, GFLOP/s)
        self.roofs: dict[str, float] = {}  # level -> GB/s drawn
        # right of the plot: it never covers a roof or a point; the title over both
        self.legend = legend_column(self.getPlotItem(), title_spans=True)
        self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme = legible(theme)
        self.setBackground(theme.background)
        self.set_result(self.result, self.ceilings)

    def set_result(self, result: Result | None, ceilings=None) -> None:
        self.result, self.ceilings = result, ceilings
        plot = self.getPlotItem()
        plot.clear()
        self.legend.clear()
        theme, fg = self.theme, self.theme.foreground
        self.points, self.roofs = {}, {}
        if result is None or not result.counters or not result.gflops:
            show_no_counters(plot, self.legend, theme, result)
            return
        show_axes_and_legend(plot, self.legend, True)
        self.legend.setLabelTextColor(fg)
        self.legend.setLabelTextSize(f"{theme.font_pt}pt")
        self.points["requested traffic"] = (intensity(result), result.gflops)
        for level, x in level_intensities(result.problem.flops, result.counters).items():
            if x:
                self.points[level] = (x, result.gflops)
        style_plot(
            plot,
            theme,
            tr("Hierarchical roofline")
            + "<br>"
            + tr("{series} at {size}").format(series=result.series, size=result.problem.label),
            tr("FLOP / byte at each level"),
            "GFLOP/s",
        )
        xs = [x for x, _ in self.points.values()]
        x_lo, x_hi = 10 ** math.floor(math.log10(min(xs) / 2)), 10 ** math.ceil(math.log10(max(xs) * 2))
        peak = ceilings.fp32_peak_gflops if ceilings is not None else None
        y_top = max([peak or 0, *(y for _, y in self.points.values())]) * 4
        y_lo = min(y for _, y in self.points.values()) / 100
        grid = np.logspace(math.log10(x_lo), math.log10(x_hi), 200)
        if peak:
            line = pg.PlotDataItem(
                np.log10(grid), np.full_like(grid, math.log10(peak)), pen=pg.mkPen(fg, width=theme.line_px)
            )
            plot.addItem(line)
            self.legend.add_entry(line, with_unit(tr("FP32 peak {0} TFLOP/s").format(f"{peak / 1e3:,.1f}")))
        drawn_with = self._draw_roofs(plot, grid, peak, y_lo)
        for name, (x, y) in self.points.items():
            if name == "requested traffic":
                item = pg.ScatterPlotItem(
                    [math.log10(x)],
                    [math.log10(y)],
                    symbol="o",
                    size=theme.symbol_px * 1.6,
                    brush=pg.mkBrush(None),
                    pen=pg.mkPen(fg, width=theme.line_px),
                )
                label = tr("model: {0} FLOP/B").format(sig(x, 2))  # short: the legend column is narrow
            else:
                _, colour, marker = LEVELS[name]
                item = pg.ScatterPlotItem(
                    [math.log10(x)],
                    [math.log10(y)],
                    symbol=marker,
                    size=theme.symbol_px * 1.6,
                    brush=pg.mkBrush(theme.color(colour)),
                    pen=pg.mkPen(theme.background),
                )
                label = f"{tr(name)}: {sig(x, 3)} FLOP/B"
            plot.addItem(item)
            if name not in drawn_with:  # else named with its level's roof, whose colour it has
                self.legend.add_entry(item, with_unit(label))
        decades = range(round(math.log10(x_lo)), round(math.log10(x_hi)) + 1)
        plot.getAxis("bottom").setTicks([[(d, sig(10.0**d, 1)) for d in decades], []])
        y_decades = range(math.ceil(math.log10(y_lo)), math.floor(math.log10(y_top)) + 1)
        plot.getAxis("left").setTicks([[(d, compact(10.0**d)) for d in y_decades], []])  # narrow axis
        plot.setXRange(math.log10(x_lo), math.log10(x_hi), padding=0)
        plot.setYRange(math.log10(y_lo), math.log10(y_top), padding=0)
        self.fit_legend()

    def _draw_roofs(self, plot, grid: np.ndarray, peak: float | None, y_lo: float) -> set[str]:
        """Each level's bandwidth roof (L1 and shared share one), named in the legend with the level's point in
        its colour; returns the levels whose point is named so."""
        self.roofs = level_ceilings(self.ceilings)
        theme = self.theme
        shown_roofs: dict[float, str] = {}
        drawn_with: set[str] = set()  # levels whose point is named in their roof's entry
        for level, gbs in self.roofs.items():
            colour = theme.color(LEVELS[level][1])
            if gbs in shown_roofs:  # L1 and shared share one roof: one line, named once
                continue
            shown_roofs[gbs] = level
            ys = np.minimum(gbs * grid, peak) if peak else gbs * grid
            keep = ys >= y_lo
            line = pg.PlotDataItem(
                np.log10(grid[keep]),
                np.log10(ys[keep]),
                pen=pg.mkPen(colour, width=theme.line_px, style=Qt.PenStyle.DashLine),
            )
            plot.addItem(line)
            name = tr("L1/shared") if level == "L1" and "shared" in self.roofs else tr(level)  # level: LEVELS' names
            # one entry for the level's roof and its point, in one colour (the point's x is its intensity): a
            # legend of a line and a point per level did not fit beside the plot at a projector's size
            sample = line
            if level in self.points:
                drawn_with.add(level)
                sample = LegendMark(
                    pen=line.opts["pen"],
                    symbol=LEVELS[level][2],
                    symbolBrush=colour,
                    symbolPen=None,
                    symbolSize=min(theme.symbol_px * 1.6, 18),
                )
            self.legend.add_entry(sample, with_unit(f"{name} {gbs:,.0f} GB/s"))  # a line in GB/s: a roof
        return drawn_with

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_legend()

    def fit_legend(self) -> None:
        if getattr(self, "legend", None) is not None and self.getPlotItem() is not None:
            fit_legend_column(self, self.getPlotItem(), self.legend, self.theme)


class HardwareTab(QSplitter):
    """Pick a result that carries counters or a block trace; see one view of it and the sentences beside it."""

    def __init__(
        self, workspace: Workspace, theme: Theme = LIGHT, parent: QWidget | None = None, lang: str | None = None
    ):
        super().__init__(parent)
        self.lang = lang or language()  # what its explanations and charts' sentences are written in
        self.workspace = workspace
        self.candidates: list[Result] = []
        self.sm_count: int | None = None
        left = QWidget()
        layout = QVBoxLayout(left)
        layout.setContentsMargins(0, 0, 0, 0)
        # the result alone across the chart's pane, the view above the sentences: side by side, a projector's
        # font cut the result's name ("… at 1000³ (t")
        self.result_combo = QComboBox()
        self.view_combo = QComboBox()
        self.view_combo.addItems([tr(v) for v in VIEWS])
        layout.addWidget(self.result_combo)
        self.trace_chart = SmTraceChart(theme)
        self.traffic_chart = TrafficChart(theme)
        self.roofline_chart = LevelRooflineChart(theme)
        self.gap_view = GapView(theme, self.lang)
        self.pipeline_view = PipelineView(theme, self.lang)
        self.last_wave_view = LastWaveView(workspace, theme, self.lang)
        self.stack = QStackedWidget()
        for chart in self._views():
            self.stack.addWidget(chart)
        layout.addWidget(self.stack, 1)
        player = QHBoxLayout()
        self.play_button = QPushButton(tr("Play"))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 1000)
        self.slider.setValue(1000)
        self.time_label = QLabel()
        self.time_label.setTextFormat(Qt.TextFormat.PlainText)
        self.time_label.setMinimumWidth(self.time_label.fontMetrics().horizontalAdvance("0000.0 µs · 00,000 blocks"))
        for w in (self.play_button, self.slider, self.time_label):
            player.addWidget(w, 1 if w is self.slider else 0)
        self.player = QWidget()
        self.player.setLayout(player)
        layout.addWidget(self.player)
        self.addWidget(left)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.apply_text_font(theme)
        right = QWidget()
        side = QVBoxLayout(right)
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(self.view_combo)
        side.addWidget(self.text, 1)
        self.addWidget(right)
        # the sentences need about as much room as the chart: at a projector's font a narrow column had to scroll
        self.setStretchFactor(0, 11)
        self.setStretchFactor(1, 9)
        self.set_shares(theme)
        self.timer = QTimer(self)
        self.timer.setInterval(40)
        self.timer.timeout.connect(self._tick)
        self.result_combo.currentIndexChanged.connect(lambda _i: self.show_result())
        self.view_combo.currentIndexChanged.connect(self.show_view)
        self.play_button.clicked.connect(self.toggle_play)
        self.slider.valueChanged.connect(self._seek)
        self.trace_chart.ready.connect(self._trace_ready)
        self.gap_view.changed.connect(self.show_text)
        self.last_wave_view.group.idClicked.connect(lambda _i: self._restart_sweep())
        self.show_view(0)
        # redrawn whenever it comes on screen; while hidden, changes only mark it (it draws a result at a time)
        self.follower = WorkspaceFollower(self, workspace, self.refresh, always_on_show=True)

    def _views(self) -> tuple:
        """The stack's views, in VIEWS' order."""
        return (
            self.trace_chart,
            self.traffic_chart,
            self.roofline_chart,
            self.gap_view,
            self.pipeline_view,
            self.last_wave_view,
        )

    def swept(self):
        """The SMs × time chart the player drives: the picked result's, or the last wave's before / after."""
        return self.last_wave_view.chart if self.view_combo.currentIndex() == LAST_WAVE_VIEW else self.trace_chart

    def _restart_sweep(self) -> None:
        """Another view or case of the before / after: the sweep stops and the chart shows the whole run."""
        self.stop()
        chart = self.swept()
        chart.set_time(chart.duration_us)
        self.slider.blockSignals(True)
        self.slider.setValue(self.slider.maximum())
        self.slider.blockSignals(False)
        self._update_time_label()

    # ---- data ---------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """The shown results that carry counters or a block trace, keeping the picked one where it remains;
        otherwise the first that has what the chosen view draws (a block trace for SMs × time)."""
        current = self.current()
        self.candidates = [r for r in self.workspace.shown() if r.valid and (r.counters or r.block_trace)]
        self.result_combo.blockSignals(True)
        self.result_combo.clear()
        names = [tr("{series} at {size}").format(series=r.series, size=r.problem.label) for r in self.candidates]
        for r, name in zip(self.candidates, names):
            what = " + ".join(
                tr(w)
                for w, has in (
                    (QT_TRANSLATE_NOOP("", "counters"), r.counters),
                    (QT_TRANSLATE_NOOP("", "trace"), r.block_trace),
                )
                if has
            )
            if names.count(name) > 1:  # one kernel in several builds (benchmarks/traces_small.py): which one
                what += ", " + build_words(r)
            self.result_combo.addItem(name + f" ({what})")
        if current in self.candidates:
            self.result_combo.setCurrentIndex(self.candidates.index(current))
        else:
            self.result_combo.setCurrentIndex(self.candidate_for(self.view_combo.currentIndex()))
        self.result_combo.blockSignals(False)
        self.last_wave_view.refresh()  # recorded traces of the fix's builds, where the workspace now shows them
        self.show_result()

    @staticmethod
    def has_data(result: Result | None, view: int) -> bool:
        """The result carries what view `view` draws: a block trace (SMs × time) or counters (the others); the
        gap and pipeline views draw their own recorded files, whatever the result."""
        if view in FILE_VIEWS:
            return True
        return result is not None and bool(result.block_trace if view == 0 else result.counters)

    def candidate_for(self, view: int, like: Result | None = None) -> int:
        """Index of the candidate to show in `view`: one that has its data, `like`'s series at the nearest size
        where there is one; the first candidate if none has it (its view then says what is missing)."""
        usable = [i for i, r in enumerate(self.candidates) if self.has_data(r, view)]
        if not usable:
            return 0 if self.candidates else -1
        if like is not None:
            same = [i for i in usable if self.candidates[i].series == like.series]
            if same:
                return min(same, key=lambda i: abs(math.log(self.candidates[i].problem.flops / like.problem.flops)))
        return usable[0]

    def current(self) -> Result | None:
        i = self.result_combo.currentIndex()
        return self.candidates[i] if 0 <= i < len(self.candidates) else None

    def show_result(self) -> None:
        self.stop()
        r = self.current()
        gpu = self.workspace.gpu_of(r) if r is not None else None
        loaded = self.workspace.session_of(r) if r is not None else None
        env = loaded.session.environment if loaded else self.workspace.environment
        sm_count = env.get("backends", {}).get("cuda", {}).get("sms") or None
        self.sm_count = sm_count
        # a large trace: in steps, then `ready`; a wave is the SMs times the blocks the kernel's model says one holds
        self.trace_chart.set_result_stepwise(r, sm_count, occupancy(r.variant, r.config) if r is not None else None)
        self.traffic_chart.set_result(r)
        self.roofline_chart.set_result(r, load_ceilings(gpu) if gpu else None)
        if r is not None and not self.has_data(r, self.view_combo.currentIndex()):
            self.view_combo.blockSignals(True)  # the user picked this result: a view that has data for it
            self.view_combo.setCurrentIndex(1 if r.counters else 0)
            self.view_combo.blockSignals(False)
            self.stack.setCurrentIndex(self.view_combo.currentIndex())
            self.player.setVisible(self.view_combo.currentIndex() in TRACE_VIEWS)
        self.show_text()
        self.slider.blockSignals(True)
        self.slider.setValue(1000)
        self.slider.blockSignals(False)
        self._update_time_label()

    def _trace_ready(self) -> None:
        if self.trace_chart.result is self.current():
            self.show_text()
            self._update_time_label()

    # ---- views and the sweep ------------------------------------------------------------------------
    def show_view(self, index: int) -> None:
        """The user picked a view: where the shown result has no data for it, a result that has (the same
        series where one has)."""
        self.stop()
        self.stack.setCurrentIndex(index)
        self.player.setVisible(index in TRACE_VIEWS)
        self._restart_sweep()
        self.result_combo.setVisible(index not in FILE_VIEWS)  # those views pick from their own files
        r = self.current()
        if r is not None and not self.has_data(r, index):
            i = self.candidate_for(index, like=r)
            if self.has_data(self.candidates[i], index):
                self.result_combo.setCurrentIndex(i)  # shows it, and its text
                return
        self.show_text()

    def show_text(self) -> None:
        """The sentences of the view shown: the trace's beside SMs × time, the counters' beside the others (both
        at once did not fit beside the chart at a projector's font)."""
        r = self.current()
        view = self.view_combo.currentIndex()
        if view in FILE_VIEWS:
            sentences = {
                GAP_VIEW: self.gap_view.sentences,
                PIPELINE_VIEW: self.pipeline_view.sentences,
                LAST_WAVE_VIEW: self.last_wave_view.sentences,
            }[view]
            self.text.setPlainText(sentences())
        elif r is None:
            self.text.setPlainText(
                tr(NO_COUNTERS) + tr(".\nProfiled or traced results appear here when a session has them.")
            )
        elif self.view_combo.currentIndex() == 0 and self.trace_chart.preparing:
            self.text.setPlainText(
                tr("{series} at {size}: preparing its {n} blocks…").format(
                    series=r.series, size=r.problem.label, n=f"{len(r.block_trace or []):,}"
                )
            )
        elif self.view_combo.currentIndex() == 0:
            chart = self.trace_chart  # its summary, made once with the drawing
            self.text.setPlainText(
                explain_trace(
                    r,
                    self.lang,
                    self.sm_count,
                    chart.summary if chart.result is r else None,
                    chart.last if chart.result is r else None,
                )
            )
        else:
            self.text.setPlainText(explain_counters(r, self.lang))

    def apply_theme(self, theme: Theme) -> None:
        self.set_shares(theme)
        for chart in self._views():
            chart.apply_theme(theme)
        self.apply_text_font(theme)

    def set_shares(self, theme: Theme) -> None:
        """The chart's and the sentences' shares of the width: in projector type the chart takes more (at 720p
        the levels' names and ratios at 20 pt need it; the sentences scroll)."""
        self.setSizes([1240, 760] if is_projector(theme) else [1100, 900])

    def apply_text_font(self, theme: Theme) -> None:
        """Prose a little smaller than the charts' text, so it fits beside them; on a projector 18 pt of 20, the
        24 px at 1080p every text keeps (it was 16 pt, 21 px)."""
        font = self.text.font()
        font.setPointSize(max(9, round(theme.font_pt * 0.9)))
        self.text.setFont(font)

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self.stop()
            return
        if not self.swept().blocks:
            return
        if self.slider.value() >= self.slider.maximum():
            self.slider.setValue(0)
        self.play_button.setText(tr("Pause"))
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.play_button.setText(tr("Play"))

    def _tick(self) -> None:
        # about 8 s for a whole run, whatever its length: the waves are seen one after the other
        value = min(self.slider.value() + 5, self.slider.maximum())
        self.slider.setValue(value)
        if value >= self.slider.maximum():
            self.stop()

    def _seek(self, value: int) -> None:
        chart = self.swept()
        chart.set_time(chart.duration_us * value / self.slider.maximum())
        self._update_time_label()

    def _update_time_label(self) -> None:
        c = self.swept()
        self.time_label.setText(
            tr("{us} µs · {n} blocks").format(us=f"{c.time_us:,.1f}", n=f"{c.landed():,}") if c.blocks else ""
        )


def hardware_chart(
    kind: str,
    results: list[Result],
    theme: Theme,
    series: str | None = None,
    size_key: str | None = None,
    sm_count: int | None = None,
) -> pg.GraphicsView:
    """A `traffic` or `sm-trace` chart of the first result that has counters / a block trace (narrowed by
    series and size); raises core.charts.kinds.NoHardwareData when none has."""
    result = hardware_result(kind, results, series, size_key)
    if kind == "traffic":
        chart = TrafficChart(theme)
        chart.set_result(result)
        return chart
    chart = SmTraceChart(theme)
    chart.set_result(result, sm_count, occupancy(result.variant, result.config) if result is not None else None)
    return chart
