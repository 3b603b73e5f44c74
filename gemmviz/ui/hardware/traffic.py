"""Model beside measurement: for one profiled result, the bytes the traffic model says the code asks of each
memory level next to what the hardware's counters saw there, as grouped bars on a log axis with 1-2-5 ticks.
The sentences that explain each difference come from core (explain_counters) and sit beside the chart."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF, QTextOption

from gemmviz.core.charts.explain import comparison_of
from gemmviz.core.charts.style import style_of
from gemmviz.core.hardware.counters import WAVEFRONT_BYTES, Comparison
from gemmviz.core.numbers import percent, times_text
from gemmviz.core.session.results import Result
from gemmviz.ui.charts.base import fit_legend_column, is_projector, legend_column, legible, place_legend
from gemmviz.ui.hardware.trace import style_plot
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import LIGHT, Theme

NO_COUNTERS = QT_TRANSLATE_NOOP(
    "", "No hardware counters in this session: run `gemmviz profile` on a GPU"
)  # drawn through tr()


NARROW_PX = 700  # a chart narrower than this has its legend below the plot


def show_axes_and_legend(plot, legend, on: bool) -> None:
    for axis in ("left", "bottom"):
        plot.showAxis(axis, on)
    legend.setVisible(on)


def show_no_counters(plot, legend, theme, result) -> None:
    """A hardware chart's empty state: why there is nothing to draw; axes and legend hidden."""
    why = (
        tr(NO_COUNTERS)
        if result is None
        else tr("{series} at {size}: no hardware counters").format(series=result.series, size=result.problem.label)
    )
    plot.setTitle(why, color=theme.foreground, size=f"{theme.font_pt + 2}pt")
    show_axes_and_legend(plot, legend, False)


# (bar label, comparison row (level, quantity), bytes per counted unit): one group of bars per level, in bytes,
# so the levels share one axis. A shared wavefront moves 128 B; the model's scalar loads are 4 B per thread,
# 128 B per warp instruction, so model "wavefronts" x 128 B are its shared bytes.
LEVELS: tuple[tuple[str, tuple[str, str], float], ...] = (
    ("DRAM", ("DRAM", "bytes read + written"), 1.0),
    ("L2", ("L2", "bytes through L2"), 1.0),
    ("L1", ("L1/TEX global", "bytes of global-load sectors"), 1.0),
    (QT_TRANSLATE_NOOP("", "shared"), ("shared", "load wavefronts"), WAVEFRONT_BYTES),
    (QT_TRANSLATE_NOOP("", "conflicts"), ("shared", "bank conflicts (ld + st)"), WAVEFRONT_BYTES),
)  # the bar labels are drawn through tr()
LEGEND = (
    QT_TRANSLATE_NOOP("", "model"),
    QT_TRANSLATE_NOOP("", "measured (ncu)"),
)  # short: the legend column is narrow, and the title says what is compared


def byte_label(x: float, digits: int = 6) -> str:
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if x >= scale:
            return f"{x / scale:.{digits}g} {unit}"
    return f"{x:.{digits}g} B"


def ticks_125(lo: float, hi: float) -> list[list[tuple[float, str]]]:
    """Ticks at 1, 2, 5 × 10^k between 10^lo and 10^hi (log10 coordinates); over more than four decades only
    the powers of ten are labelled, the 2s and 5s stay as unlabelled minor ticks."""
    major, minor = [], []
    for decade in range(math.floor(lo), math.ceil(hi) + 1):
        for m in (1, 2, 5):
            v = m * 10.0**decade
            if lo - 1e-9 <= math.log10(v) <= hi + 1e-9:
                if m == 1 or hi - lo <= 4:
                    major.append((math.log10(v), byte_label(v)))
                else:
                    minor.append((math.log10(v), ""))
    return [major, minor]


def ratio_label(measured: float | None, model: float | None) -> str:
    if measured is None:
        return tr("not counted")
    if not model:
        return "0" if measured == 0 else f"+{byte_label(measured, 3)}"
    r = measured / model
    # two short lines, to fit over the bar pair; the wording and figures of core/numbers.of_model
    return (
        tr("{pct}\nof model").format(pct=percent(r))
        if r < 1
        else tr("{ratio}×\nmodel").format(ratio=times_text(r)[:-1])
    )


class TrafficChart(pg.PlotWidget):
    """Grouped bars per memory level: model (what the code asks) and measured (the counters), in bytes."""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent=parent, enableMenu=False)  # NO_MENU (charts/base.py)
        self.theme = theme
        self.result: Result | None = None
        self.results: list[Result] = []  # two or more results compared (set_results), else empty
        self.comparison: Comparison | None = None
        self.bars: list[tuple[str, float | None, float | None]] = []  # (level, model bytes, measured bytes)
        self.ratio_items: list[pg.TextItem] = []  # measured / model above each group of bars
        self.legend = legend_column(self.getPlotItem())  # right of the plot: it never covers a bar
        self.apply_theme(theme)
        self.getPlotItem().getViewBox().sigResized.connect(lambda _vb: self._fit_headroom())

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme = legible(theme)
        self.setBackground(theme.background)
        if len(self.results) > 1:
            self.set_results(self.results)
        else:
            self.set_result(self.result)

    def set_results(self, results: list[Result]) -> None:
        """Several profiled results side by side: per memory level that all of them use, one bar of measured
        bytes per result, in each series' own colour; with two, the second's bytes as a multiple of the first's
        above each pair (a lesson's "the tiled kernel reads more DRAM than the naive one"). Results without
        counters are left out; fewer than two left is the one-result chart."""
        compared = [(r, c) for r in results if r is not None and (c := comparison_of(r)) is not None]
        having = [r for r, _c in compared]
        if len(having) < 2:
            self.results = []
            self.set_result(having[0] if having else (results[0] if results else None))
            return
        self.results, self.result, self.comparison = having, None, None
        plot = self.getPlotItem()
        plot.clear()
        self.legend.clear()
        show_axes_and_legend(plot, self.legend, True)
        per_result = []
        for _r, comparison in compared:
            measured = {(row.level, row.quantity): row.measured for row in comparison.rows}
            per_result.append([None if (m := measured[key]) is None else m * unit for _, key, unit in LEVELS])
        shown = [i for i in range(len(LEVELS)) if all(values[i] for values in per_result)]  # levels all of them use
        per_result = [[values[i] for i in shown] for values in per_result]
        self.bars = [(tr(LEVELS[i][0]), per_result[0][j], per_result[1][j]) for j, i in enumerate(shown)]
        sizes = {r.problem.label for r in having}
        title = (
            tr("Measured traffic per memory level at {size}").format(size=sizes.pop())
            if len(sizes) == 1
            else tr("Measured traffic per memory level")
        )
        if len(having) == 2:
            title += "<br>" + tr("above each pair: {second} ÷ {first}").format(
                first=having[0].series, second=having[1].series
            )
        lo, hi = self._axes(plot, title, [v for row in per_result for v in row if v])
        n, width = len(having), 0.8 / len(having)
        for j, (r, values) in enumerate(zip(having, per_result, strict=True)):
            xs = [i + (j - (n - 1) / 2) * width for i, v in enumerate(values) if v]
            item = pg.BarGraphItem(
                x=xs,
                width=width * 0.95,
                y0=lo,
                y1=[math.log10(v) for v in values if v],
                brush=pg.mkBrush(self.theme.color(style_of(r.series).colour)),
                pen=pg.mkPen(self.theme.foreground, width=max(1.0, self.theme.line_px / 2)),
            )
            plot.addItem(item)
            self.legend.add_entry(item, r.series)
        self.ratio_items = []
        if n == 2:
            for i, (_label, first, second) in enumerate(self.bars):
                if first and second:
                    self._ratio_text(plot, i, times_text(second / first), max(math.log10(first), math.log10(second)))
        self._finish(plot, lo, hi)

    def _axes(self, plot, title: str, values: list[float]) -> tuple[float, float]:
        style_plot(plot, self.theme, title, "", tr("bytes (log scale)"))
        plot.showGrid(x=False, y=True, alpha=self.theme.grid_alpha)
        lo = math.floor(math.log10(min(values)) - 0.5)  # the smallest bar at least half a decade tall
        top = math.log10(max(values))
        self._lo, self._top = lo, top  # fit_labels gives the ratios above the tallest bar their pixels
        self.legend.setLabelTextColor(self.theme.foreground)
        self.legend.setLabelTextSize(f"{self.theme.font_pt}pt")
        self.legend.clear()
        return lo, top + 0.15 * (top - lo) + 0.3  # headroom for the ratio labels

    def _ratio_text(self, plot, x: float, words: str, y: float) -> None:
        text = pg.TextItem(words, color=self.theme.foreground, anchor=(0.5, 1))
        text.textItem.document().setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
        text.textItem.document().setDocumentMargin(1)  # as wide as its text: neighbours' boxes stay apart
        text.setPos(x, y)
        plot.addItem(text)
        self.ratio_items.append(text)

    def _finish(self, plot, lo: float, hi: float) -> None:
        plot.getAxis("bottom").setTicks([[(i, label) for i, (label, _, _) in enumerate(self.bars)], []])
        ticks = ticks_125(lo, hi)
        left = plot.getAxis("left")
        left.setTicks(ticks)
        # as wide as its labels and the rotated axis label need (style_plot's fixed width took the bars' room)
        metrics = QFontMetricsF(left.style.get("tickFont") or QFont())
        widest = max([metrics.horizontalAdvance(text) for text in (t for _, t in ticks[0])] or [0.0])
        left.setWidth(int(widest + metrics.height() + abs(left.style["tickLength"]) + 14))
        plot.setXRange(-0.5, len(self.bars) - 0.5, padding=0)
        plot.setYRange(lo, hi, padding=0)
        plot.setMouseEnabled(x=False, y=False)
        self.fit_legend()
        self.fit_labels()

    def set_result(self, result: Result | None) -> None:
        self.result, self.results = result, []
        plot = self.getPlotItem()
        plot.clear()
        self.legend.clear()
        theme = self.theme
        self.comparison = comparison_of(result) if result is not None else None
        self.ratio_items = []
        if self.comparison is None or result is None:
            self.bars = []
            show_no_counters(plot, self.legend, theme, result)
            return
        show_axes_and_legend(plot, self.legend, True)
        rows = {(r.level, r.quantity): r for r in self.comparison.rows}
        self.bars = []
        for label, key, unit_bytes in LEVELS:
            row = rows[key]
            self.bars.append(
                (
                    tr(label),
                    None if row.model is None else row.model * unit_bytes,
                    None if row.measured is None else row.measured * unit_bytes,
                )
            )
        title = (
            tr("Model vs measured traffic")
            + "<br>"
            + tr("{series} at {size}").format(series=result.series, size=result.problem.label)
        )  # two lines: fits half a tab
        lo, hi = self._axes(plot, title, [v for _, a, b in self.bars for v in (a, b) if v])
        width = 0.38
        for offset, index, name, colour in (
            (-0.2, 1, tr(LEGEND[0]), theme.color(5)),
            (0.2, 2, tr(LEGEND[1]), theme.color(0)),
        ):
            heights = [model if index == 1 else measured for _label, model, measured in self.bars]
            xs = [i + offset for i, height in enumerate(heights) if height]
            tops = [math.log10(height) for height in heights if height]
            item = pg.BarGraphItem(
                x=xs,
                width=width,
                y0=lo,
                y1=tops,
                brush=pg.mkBrush(colour),
                pen=pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2)),
            )
            plot.addItem(item)
            self.legend.add_entry(item, name)
        self.ratio_items = []
        for i, (_label, model, measured) in enumerate(self.bars):
            # no bar: the figure just above the axis, clear of the level's name below it
            tallest = max([math.log10(v) for v in (model, measured) if v] or [lo + 0.03 * (hi - lo)])
            self._ratio_text(plot, i, ratio_label(measured, model), tallest)
        self._finish(plot, lo, hi)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_legend()
        self.fit_labels()

    def fit_labels(self) -> None:
        """Shrink the ratio labels and the level names (from the theme's size) until each fits its group of bars:
        at a projector's font a narrow chart would otherwise run one group's text into the next."""
        if not getattr(self, "bars", None):
            return  # called by the view's own set-up, or no counters to draw
        plot = self.getPlotItem()
        group_px = plot.getViewBox().width() / len(self.bars) * 0.94  # the x range spans n groups
        if group_px <= 0:
            return
        # in projector type never below the chart's other text: a ratio too wide on its two lines keeps its
        # figure alone (the x axis's label then says what the figures are)
        smallest = self.theme.font_pt if is_projector(self.theme) else 6
        self._ratio_lines(2)
        lines = [line for item in self.ratio_items for line in item.textItem.toPlainText().split("\n")]
        if is_projector(self.theme) and self.result is not None and self._widest(lines, smallest) > group_px:
            self._ratio_lines(1)
            lines = [item.textItem.toPlainText() for item in self.ratio_items]
        names = [label for label, _, _ in self.bars]
        for texts, apply in ((lines, self._set_ratio_font), (names, self._set_tick_font)):
            font = QFont()
            font.setPointSizeF(self.theme.font_pt)
            while font.pointSizeF() > smallest and self._widest(texts, font.pointSizeF()) > group_px:
                font.setPointSizeF(max(smallest, font.pointSizeF() - 1))
            apply(font)
        self._fit_headroom()

    def _fit_headroom(self) -> None:
        """The y range's top, so that the ratios above the tallest bars fit below the plot's top edge (in pixels:
        a fixed share of the range was too little in a short pane at a projector's size)."""
        lo, top = getattr(self, "_lo", None), getattr(self, "_top", None)
        height_px = self.getPlotItem().getViewBox().height()
        if lo is None or top is None or not self.ratio_items or height_px <= 0:
            return
        text_px = max(item.boundingRect().height() for item in self.ratio_items) + 6
        f = min(0.6, text_px / height_px)
        self.getPlotItem().setYRange(lo, max(top + 0.1, (top - f * lo) / (1 - f)), padding=0)

    @staticmethod
    def _widest(texts: list[str], pt: float) -> float:
        font = QFont()
        font.setPointSizeF(pt)
        return max([QFontMetricsF(font).horizontalAdvance(t) for t in texts] or [0.0])

    def _ratio_lines(self, n: int) -> None:
        """The one-result chart's ratios on their two lines ("5.9%" / "of model"), or (n = 1) the figure alone,
        the x axis's label saying what it is."""
        if self.result is None:
            return
        for item, (_label, model, measured) in zip(self.ratio_items, self.bars):
            words = ratio_label(measured, model)
            words = words if n == 2 else words.split("\n")[0]
            if item.textItem.toPlainText() != words:
                item.setText(words)
        axis = self.getPlotItem().getAxis("bottom")
        label = "" if n == 2 else tr("above the bars: measured ÷ model")
        if (axis.labelText or "") != label:
            axis.setLabel(label or None, color=self.theme.foreground, **{"font-size": f"{self.theme.font_pt}pt"})
            axis.showLabel(bool(label))

    def _set_ratio_font(self, font: QFont) -> None:
        for item in self.ratio_items:
            item.setFont(font)

    def _set_tick_font(self, font: QFont) -> None:
        axis = self.getPlotItem().getAxis("bottom")
        if axis.style.get("tickFont") is None or axis.style["tickFont"].pointSizeF() != font.pointSizeF():
            axis.setStyle(tickFont=font)
        # the level names' line, with room for a CJK font's taller glyphs (共享内存 was cut at its foot)
        need = QFontMetricsF(font).height() + abs(axis.style["tickLength"]) + axis.style["tickTextOffset"][1] + 4
        if axis.label.isVisible():  # and the axis's label below the names
            need += axis.label.boundingRect().height() + 4
        if abs(axis.height() - need) > 1:
            axis.setHeight(int(need + 1))

    def fit_legend(self) -> None:
        if getattr(self, "legend", None) is not None and self.getPlotItem() is not None:
            # in projector type or a narrow pane the legend's two entries go below the plot: beside it they took
            # the width that the title, the levels' names and the ratios need
            below = is_projector(self.theme) or self.width() < NARROW_PX
            place_legend(self.getPlotItem(), self.legend, below=below)
            fit_legend_column(self, self.getPlotItem(), self.legend, self.theme)

    def measured_bytes(self) -> np.ndarray:
        """The measured bars, in bytes (NaN where not counted): what the chart shows, for tests and tooltips."""
        return np.array([np.nan if m is None else m for _, _, m in self.bars], dtype=float)


def compare_chart(results: list[Result], theme: Theme = LIGHT, size_key: str | None = None):
    """A TrafficChart of the first profiled result of each series among `results` (in their order; at one size
    when given), side by side; fewer than two such series is the one-result chart or its empty state."""
    chosen: dict[str, Result] = {}
    for r in results:
        if r.valid and r.counters and (size_key is None or r.problem.key == size_key):
            chosen.setdefault(r.series, r)
    chart = TrafficChart(theme)
    chart.set_results(list(chosen.values()) or results[:1])
    return chart
