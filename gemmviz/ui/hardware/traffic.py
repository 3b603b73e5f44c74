"""Model beside measurement: for one profiled result, the bytes the traffic model says the code asks of each
memory level next to what the hardware's counters saw there, as grouped bars on a log axis with 1-2-5 ticks.
The sentences that explain each difference come from core (explain_counters) and sit beside the chart."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF, QTextOption

from gemmviz.core.counters import WAVEFRONT_BYTES, Comparison
from gemmviz.core.explain import comparison_of
from gemmviz.core.numbers import percent
from gemmviz.core.results import Result
from gemmviz.core.views import times_text
from gemmviz.ui.charts.base import fit_legend_column, legend_column
from gemmviz.ui.hardware.trace import style_plot
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr
from gemmviz.ui.theme import LIGHT, Theme

NO_COUNTERS = QT_TRANSLATE_NOOP("", "No hardware counters in this session: run `gemmviz profile` on a GPU")  # drawn through tr()


def show_axes_and_legend(plot, legend, on: bool) -> None:
    for axis in ("left", "bottom"):
        plot.showAxis(axis, on)
    legend.setVisible(on)


def show_no_counters(plot, legend, theme, result) -> None:
    """A hardware chart's empty state: why there is nothing to draw; axes and legend hidden."""
    why = tr(NO_COUNTERS) if result is None else tr("{series} at {size}: no hardware counters").format(
        series=result.series, size=result.problem.label)
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
LEGEND = (QT_TRANSLATE_NOOP("", "model"), QT_TRANSLATE_NOOP("", "measured (ncu)"))  # short: the legend column is narrow, and the title says what is compared


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
    return tr("{pct}\nof model").format(pct=percent(r)) if r < 1 else tr("{ratio}×\nmodel").format(ratio=times_text(r)[:-1])


class TrafficChart(pg.PlotWidget):
    """Grouped bars per memory level: model (what the code asks) and measured (the counters), in bytes."""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent=parent)
        self.theme = theme
        self.result: Result | None = None
        self.comparison: Comparison | None = None
        self.bars: list[tuple[str, float | None, float | None]] = []  # (level, model bytes, measured bytes)
        self.ratio_items: list[pg.TextItem] = []  # measured / model above each group of bars
        self.legend = legend_column(self.getPlotItem())  # right of the plot: it never covers a bar
        self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setBackground(theme.background)
        self.set_result(self.result)

    def set_result(self, result: Result | None) -> None:
        self.result = result
        plot = self.getPlotItem()
        plot.clear()
        self.legend.clear()
        theme = self.theme
        self.comparison = comparison_of(result) if result is not None else None
        if self.comparison is None:
            self.bars = []
            show_no_counters(plot, self.legend, theme, result)
            return
        show_axes_and_legend(plot, self.legend, True)
        rows = {(r.level, r.quantity): r for r in self.comparison.rows}
        self.bars = []
        for label, key, unit_bytes in LEVELS:
            row = rows[key]
            self.bars.append((tr(label), None if row.model is None else row.model * unit_bytes,
                              None if row.measured is None else row.measured * unit_bytes))  # fmt: skip
        title = tr("Model vs measured traffic") + "<br>" + tr("{series} at {size}").format(
            series=result.series, size=result.problem.label)  # two lines: fits half a tab
        style_plot(plot, theme, title, "", tr("bytes (log scale)"))
        plot.showGrid(x=False, y=True, alpha=theme.grid_alpha)
        values = [v for _, a, b in self.bars for v in (a, b) if v]
        lo = math.floor(math.log10(min(values)) - 0.5)  # the smallest bar at least half a decade tall
        top = math.log10(max(values))
        hi = top + 0.15 * (top - lo) + 0.3  # headroom for the ratio labels
        self.legend.setLabelTextColor(theme.foreground)
        self.legend.setLabelTextSize(f"{theme.font_pt}pt")
        self.legend.clear()
        width = 0.38
        for offset, index, name, colour in ((-0.2, 1, tr(LEGEND[0]), theme.color(5)),
                                            (0.2, 2, tr(LEGEND[1]), theme.color(0))):  # fmt: skip
            xs = [i + offset for i, bar in enumerate(self.bars) if bar[index]]
            tops = [math.log10(bar[index]) for bar in self.bars if bar[index]]
            item = pg.BarGraphItem(x=xs, width=width, y0=lo, y1=tops, brush=pg.mkBrush(colour),
                                   pen=pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2)))  # fmt: skip
            plot.addItem(item)
            self.legend.add_entry(item, name)
        self.ratio_items = []
        for i, (_label, model, measured) in enumerate(self.bars):
            tallest = max([math.log10(v) for v in (model, measured) if v] or [lo])
            text = pg.TextItem(ratio_label(measured, model), color=theme.foreground, anchor=(0.5, 1))
            text.textItem.document().setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
            text.setPos(i, tallest)
            plot.addItem(text)
            self.ratio_items.append(text)
        plot.getAxis("bottom").setTicks([[(i, label) for i, (label, _, _) in enumerate(self.bars)], []])
        plot.getAxis("left").setTicks(ticks_125(lo, hi))
        plot.setXRange(-0.6, len(self.bars) - 0.4, padding=0)
        plot.setYRange(lo, hi, padding=0)
        plot.setMouseEnabled(x=False, y=False)
        self.fit_legend()
        self.fit_labels()

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
        group_px = plot.getViewBox().width() / (len(self.bars) + 0.2) * 0.92  # the x range spans n + 0.2 groups
        if group_px <= 0:
            return
        lines = [line for item in self.ratio_items for line in item.textItem.toPlainText().split("\n")]
        names = [label for label, _, _ in self.bars]
        for texts, apply in ((lines, self._set_ratio_font), (names, self._set_tick_font)):
            font = QFont()
            font.setPointSizeF(self.theme.font_pt)
            while font.pointSizeF() > 6 and max(QFontMetricsF(font).horizontalAdvance(t) for t in texts) > group_px:
                font.setPointSizeF(font.pointSizeF() - 1)
            apply(font)

    def _set_ratio_font(self, font: QFont) -> None:
        for item in self.ratio_items:
            item.setFont(font)

    def _set_tick_font(self, font: QFont) -> None:
        axis = self.getPlotItem().getAxis("bottom")
        if axis.style.get("tickFont") is None or axis.style["tickFont"].pointSizeF() != font.pointSizeF():
            axis.setStyle(tickFont=font)
        # the level names' line, with room for a CJK font's taller glyphs (共享内存 was cut at its foot)
        need = QFontMetricsF(font).height() + abs(axis.style["tickLength"]) + axis.style["tickTextOffset"][1] + 4
        if axis.height() < need:
            axis.setHeight(int(need + 1))

    def fit_legend(self) -> None:
        if getattr(self, "legend", None) is not None and self.getPlotItem() is not None:
            fit_legend_column(self, self.getPlotItem(), self.legend, self.theme)

    def measured_bytes(self) -> np.ndarray:
        """The measured bars, in bytes (NaN where not counted): what the chart shows, for tests and tooltips."""
        return np.array([np.nan if m is None else m for _, _, m in self.bars], dtype=float)
