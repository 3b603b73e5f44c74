"""Charts over a list of results: time and GFLOP/s vs size, speedup bars, all with hover and legends.

Only valid results are plotted; invalid ones stay in the table, flagged. Charts are redrawn from the
result list (a few hundred points at most), which keeps them simple and always consistent. Every series'
colour, marker and dash come from the one style table (core/charts/style.py); the legend sits in its own column
right of the plot and toggles a series on click (`seriesToggled`). The roofline is in ui/charts/roofline.py.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

from gemmviz.core.charts.kinds import DEFAULT_BASELINE
from gemmviz.core.charts.style import (
    SeriesStyle,
    colour_each,
    ladder_order,
    series_styles,
    source_order,
    style_table,
)
from gemmviz.core.kernels.variants import baseline as registry_baseline
from gemmviz.core.numbers import sig, times_text
from gemmviz.core.problem import parse_problem
from gemmviz.core.session.results import Baselines, Result, find_baseline, line_results
from gemmviz.ui.charts.axes import LegendMark, Log125Axis, SizeAxis, ticks_125
from gemmviz.ui.charts.base import (
    LIGHT,
    ResultChart,
    Theme,
    _Tip,
    _tip,
    is_projector,
    margin_px,
    plain,
    series_of,
    size_x,
    source_label,
)
from gemmviz.ui.charts.roofline import RooflineChart
from gemmviz.ui.text import QT_TRANSLATE_NOOP, join_cjk, tr

# the registry's baseline labels (core/kernels/variants.py BASELINES), for the catalogue: charts draw them through tr()
BASELINE_LABELS = (QT_TRANSLATE_NOOP("", "CPU loop"), QT_TRANSLATE_NOOP("", "GPU naive, block 16×16 (the seed's)"),
                   QT_TRANSLATE_NOOP("", "cuBLAS FP32"), QT_TRANSLATE_NOOP("", "cuBLAS TF32"))  # fmt: skip


class _SizeChart(ResultChart):
    x_label = QT_TRANSLATE_NOOP("", "matrix size (∛(M·N·K))")

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(theme, parent, axisItems={"left": Log125Axis("left"), "bottom": SizeAxis("bottom")})

    def value(self, r: Result) -> float | None:
        raise NotImplementedError

    def tip(self, r: Result, source: str) -> str:
        """The point's hover text, with its percentage of cuBLAS (of which cuBLAS) where its source has cuBLAS
        at its size, and what the result records of its provenance (made when hovered: one Baselines a hover)."""
        base = Baselines([x for x in self.results if self.source_of(x) == source]) if r.backend == "cuda" else None
        return _tip(r, source, base)

    def draw(self, plot: pg.PlotItem) -> bool | None:
        # Data go in as log10 values and the axes label them as 1-2-5 numbers, so lines, points and
        # error bars share one coordinate system. Items persist per series and get new data, which
        # keeps a redraw during a sweep to a few milliseconds.
        groups = series_of(self.results, self.source_of)
        plot.getAxis("bottom").set_sizes([size_x(r) for rs in groups.values() for r in rs])
        styles = _recoloured(style_table(groups), self.colour_each, lambda key: key[1])
        # the range first: set after the items were added, it ended pyqtgraph's auto-range by measuring every item
        # and moving the view over them once before the range set here
        self._fit_range(plot, groups)
        for key in [k for k in self._items if k not in groups]:
            for item in self._items.pop(key):
                plot.removeItem(item)
        budget = getattr(self, "_max_new", None)
        off_line: dict[str, float] = {}  # the sizes drawn hollow, off their series' line: the legend names them
        for (source, name), rs in groups.items():
            if budget is not None and (source, name) not in self._items:
                if budget == 0:
                    return False  # the rest, and the legend, on the next call
                budget -= 1
            style = styles[(source, name)]
            xs = np.log10([size_x(r) for r in rs])
            ys = np.log10(np.array([self.value(r) for r in rs], dtype=float))
            tips = [_Tip(self.tip, r, r, source) for r in rs]
            on_line = {id(r) for r in line_results(rs)}  # the square sweep is a line; another shape, a point
            off_line.update((r.problem.label, size_x(r)) for r in rs if id(r) not in on_line)
            joined = [i for i, r in enumerate(rs) if id(r) in on_line]
            brush, ring = pg.mkBrush(self.theme.color(style.colour)), pg.mkPen(self.theme.background)
            items = self._items.get((source, name))
            if items is None:
                # the line alone: a PlotDataItem made a curve and a scatter of its own for it (3.8 ms against 0.7 ms,
                # 46 of them in a dashboard); the markers are the scatter below
                line = pg.PlotCurveItem(xs[joined], ys[joined], pen=self.pen(style))
                spread = self.make_spread(rs, xs, style.colour)
                scatter = pg.ScatterPlotItem(
                    xs,
                    ys,
                    size=self.theme.symbol_px,
                    brush=brush,
                    pen=ring,
                    symbol=style.marker,
                    hoverable=True,
                    data=tips,
                    tip=lambda x, y, data: plain(data.text),
                    hoverSize=self.theme.symbol_px * 1.5,
                )
                scatter.sigClicked.connect(lambda _item, points, _ev: self.emit_point(points))
                self._mark_off_line(scatter, style.colour, [id(r) in on_line for r in rs])
                items = [i for i in (line, spread, scatter) if i is not None]
                for item in items:
                    plot.addItem(item)
                self._items[(source, name)] = items
            else:
                line, *rest = items
                line.setData(xs[joined], ys[joined])
                line.setPen(self.pen(style))
                scatter = rest[-1]
                scatter.setData(x=xs, y=ys, data=tips, brush=brush, pen=ring, symbol=style.marker)
                self._mark_off_line(scatter, style.colour, [id(r) in on_line for r in rs])
                if len(rest) == 2:
                    self.update_spread(rest[0], rs, xs, style.colour)
        sources = source_order(s for s, _ in groups)
        own = _recoloured(series_styles(n for _, n in groups), self.colour_each, lambda name: name)
        names = ladder_order(own)  # the legend reads down the ladder, as the registry lists it
        hollow = tuple(sorted(off_line, key=off_line.__getitem__))
        legend_key = (tuple(names), tuple(sources), tuple(self.hidden_series), hollow)
        if legend_key != self._legend_key and budget is not None and budget < getattr(self, "_max_new", 0):
            return False  # series were created in this call: the legend (a relayout) on the next one
        if legend_key != self._legend_key:
            self._legend_key = legend_key
            self._fill_legend(names, own, sources, hollow)
        return True

    def _fill_legend(self, names: list[str], own: dict, sources: list, hollow: tuple[str, ...]) -> None:
        """The legend anew: each series down the ladder, the hidden ones, each source's dash where it tells
        sessions apart, and the sizes drawn hollow (off their series' line) where there are any."""
        self.reset_legend()
        for name in names:
            self.legend.add_entry(self.sample(own[name]), name, series=name)
        self.add_hidden_entries()
        # a source's dash, where it tells sessions apart; one session alone is a line drawn nowhere, so a
        # projector's legend leaves it out (the window's names it, for the tooltip-less reader)
        if len(sources) > 1 or (sources and sources[0] and not is_projector(self.theme)):
            for i, source in enumerate(sources):
                dash = SeriesStyle(0, "o", ("solid", "dash", "dot", "dashdot")[i % 4])
                self.legend.add_entry(
                    LegendMark(pen=self.pen(dash, self.theme.foreground)),
                    source_label(source) or tr("live (this machine)"),
                )
        if hollow:  # 1000³ beside the sweep's 1024³, seed 001's 2048×3072×4096: points, not on the line
            ring = pg.mkPen(self.theme.foreground, width=max(2.0, 0.6 * self.theme.line_px))
            mark = LegendMark(symbol="o", symbolBrush=pg.mkBrush(self.theme.background), symbolPen=ring, symbolSize=10)
            # which sizes: "a size off the line" left a class asking which dot was which
            words = (
                tr("hollow: {sizes}").format(sizes=tr(" and ").join(hollow))
                if len(hollow) <= 2
                else tr("hollow: {size} and {n} other sizes").format(size=hollow[0], n=len(hollow) - 1)
            )
            self.legend.add_entry(mark, words)

    def _mark_off_line(self, scatter: pg.ScatterPlotItem, colour: int, on_line: list[bool]) -> None:
        """A series' markers off its line hollow, ringed in its colour (1000³ beside the sweep's 1024³,
        the two were one dot); those on it filled, as the series' own brush."""
        if all(on_line):
            return
        solid, edge = pg.mkBrush(self.theme.color(colour)), pg.mkPen(self.theme.background)
        hollow = pg.mkBrush(self.theme.background)
        ring = pg.mkPen(self.theme.color(colour), width=max(2.0, 0.6 * self.theme.line_px))
        scatter.setBrush([solid if on else hollow for on in on_line])
        scatter.setPen([edge if on else ring for on in on_line])

    def _fit_range(self, plot: pg.PlotItem, groups) -> None:
        """The range from the data alone (not from pen widths, as auto-range would), so that an export's
        thicker lines leave the layout of its 1080p twin unchanged."""
        xs = [math.log10(size_x(r)) for rs in groups.values() for r in rs]
        ys = [math.log10(v) for rs in groups.values() for r in rs for v in self.spread_values(r)]
        if not xs:
            return
        for lo, hi, set_range in ((min(xs), max(xs), plot.setXRange), (min(ys), max(ys), plot.setYRange)):
            pad = max(0.05, 0.04 * (hi - lo))
            lo, hi = lo - pad, hi + pad
            if set_range == plot.setYRange:
                lo = _three_ticks_below(lo, hi)
            set_range(lo, hi, padding=0)

    def spread_values(self, r: Result) -> list[float]:
        value = self.value(r)
        return [] if value is None else [value]

    def make_spread(self, rs, xs, colour_index):
        return None

    def update_spread(self, item, rs, xs, colour_index) -> None:
        return None


def _recoloured(styles: dict, each: bool, name_of) -> dict:
    """`styles` (by series, or by (source, series)) with each series in its own colour where `each` says so."""
    if not each:
        return styles
    colours = colour_each(name_of(key) for key in styles)
    return {key: replace(style, colour=colours[name_of(key)]) for key, style in styles.items()}


def _three_ticks_below(lo: float, hi: float) -> float:
    """`lo` lowered to the 1-2-5 values below it until the log axis from it to `hi` labels at least three: a
    range within one decade (2,800 to 9,500 GFLOP/s, the tile sizes' chart) was labelled at 5,000 and 10,000
    only and read as linear."""
    while len(ticks_125(lo, hi, 10**6)) < 3:
        below = [v for v in ticks_125(lo - 1.0, lo, 10**6) if v < lo - 1e-9]
        lo = below[-1] - 0.02 if below else lo - 0.1
    return lo


class TimeChart(_SizeChart):
    title = QT_TRANSLATE_NOOP("", "Time per multiplication")
    y_label = QT_TRANSLATE_NOOP("", "median time (ms)")

    def value(self, r):
        return r.median_ms

    def spread_values(self, r: Result) -> list[float]:
        return [v for v in (r.min_ms, r.max_ms) if v is not None]

    def make_spread(self, rs, xs, colour_index):
        item = pg.ErrorBarItem(beam=0.02)
        self.update_spread(item, rs, xs, colour_index)
        return item

    def update_spread(self, item, rs, xs, colour_index) -> None:
        # min–max of the samples as error bars, in log10 space because the plot is log-log
        lo = np.log10([r.min_ms for r in rs])
        hi = np.log10([r.max_ms for r in rs])
        mid = np.log10([r.median_ms for r in rs])
        item.setData(
            x=xs,
            y=mid,
            top=hi - mid,
            bottom=mid - lo,
            pen=pg.mkPen(self.theme.color(colour_index), width=max(1, self.theme.line_px / 2)),
        )


class GflopsChart(_SizeChart):
    title = QT_TRANSLATE_NOOP("", "Throughput")
    y_label = QT_TRANSLATE_NOOP("", "GFLOP/s (2·M·N·K / median time)")
    y_label_short = "GFLOP/s"

    def value(self, r):
        return r.gflops


class SpeedupChart(ResultChart):
    """Horizontal bars: how many times faster each series is than a baseline, at one size and from one
    source (speedups never mix machines), on a log scale. The title names the baseline."""

    title = QT_TRANSLATE_NOOP("", "Speedup")
    x_label = QT_TRANSLATE_NOOP("", "times as fast (log scale)")  # 0.12× is not "faster"
    y_label = ""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        self.baseline = DEFAULT_BASELINE  # a key of the registry's BASELINES
        self.size_key: str | None = None
        self.source: str | None = None
        self.bars: list[tuple[str, float]] = []  # every series' (name, speedup), fastest first
        self.rows: list[tuple[str, float | None]] = []  # what is drawn: the bars, or their ends and a row between
        self.fit_rows: int | None = None  # the rows legible text leaves room for (None: every bar)
        self._bar_items: list = []  # the drawn bars and their values, removed when the rows are drawn again
        self._bar_texts: list = []
        self._fitting_bars = False
        self.empty_reason = ""  # why nothing is drawn, naming the sizes that have the baseline
        self.compact = False  # a quarter of "all four" in projector type: no axis label (its ticks say ×)
        super().__init__(theme, parent, axisItems={"bottom": Log125Axis("bottom", suffix="×")})
        self.getPlotItem().getViewBox().sigResized.connect(lambda *_: self.fit_bar_text())  # a title that wraps

    def sources(self) -> list[str]:
        return sorted({self.source_of(r) for r in self.results if r.valid})

    def _source(self) -> str | None:
        sources = self.sources()
        return self.source if self.source in sources else (sources[0] if sources else None)

    def _mine(self) -> list[Result]:
        source = self._source()
        return [r for r in self.results if r.valid and self.source_of(r) == source]

    def sizes(self) -> list[str]:
        keys = {(r.m, r.n, r.k) for r in self._mine()}
        return [f"{m}x{n}x{k}" for m, n, k in sorted(keys, key=lambda s: s[0] * s[1] * s[2])]

    def sizes_with_baseline(self) -> list[str]:
        """The sizes (keys, smallest first) that have a result of the baseline."""
        base = registry_baseline(self.baseline)
        have = {
            r.problem.key
            for r in self._mine()
            if r.variant == base.variant and (not base.params or r.params == dict(base.params))
        }
        return [key for key in self.sizes() if key in have]

    def default_key(self) -> str | None:
        """The largest size that has a result of the baseline, else the largest size."""
        keys = self.sizes_with_baseline() or self.sizes()
        return keys[-1] if keys else None

    def set_view(self, baseline: str | None = None, size_key: str | None = None, source: str | None = None) -> None:
        if baseline is not None:
            self.baseline = baseline
        self.size_key = size_key
        self.source = source
        self.set_results(self.results)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_bar_text()

    def fit_bar_text(self) -> None:
        """Bar names and values in the theme's size, smaller where many bars share the height (a row of
        text never taller than its bar's row, so labels neither overlap nor get dropped by the axis). Where
        rows are too thin for a value beside its bar, the value joins the bar's name on the axis."""
        plot = self.getPlotItem()
        if plot is None or not hasattr(self, "theme") or not self.bars:
            return  # the view's own set-up, before the plot and theme exist; or nothing drawn
        if self._fitting_bars:
            return  # a resize of the plot this fit made: it is fitting already
        self._fitting_bars = True
        try:
            self._fit_bar_text(plot)
        finally:
            self._fitting_bars = False

    def _fit_bar_text(self, plot: pg.PlotItem) -> None:
        # the rows' room: the plot's own height once laid out (the title may wrap to two lines after the first
        # fit: 720p names came out at 13 px where 16 were meant), before that the chart's less its parts
        title_h = plot.titleLabel.boundingRect().height()
        bottom = max(plot.getAxis("bottom").height(), plot.getAxis("bottom").minimumHeight())
        laid_out = plot.getViewBox().height()
        room = laid_out if laid_out > 0 else self.height() - title_h - bottom - 2 * margin_px(self.theme)
        # the y range spans the rows and 0.4 of a row of margins (draw's setYRange)
        fit = int(room / _row_px(max(MIN_BAR_PT, MIN_BAR_SHARE * self.theme.font_pt)) - 0.4)
        fit_rows = fit if MIN_ROWS <= fit < len(self.bars) else None
        if fit_rows != self.fit_rows:  # the rows change: drawn again (its own call to fit returns at once)
            self.fit_rows = fit_rows
            self._draw_rows(plot)
        row_px = room / (len(self.rows) + 0.4)
        font = QFont()
        font.setPointSizeF(min(float(self.theme.font_pt), max(4.0, row_px * 0.75 * 72 / 96)))
        line_px = QFontMetricsF(font).height()
        beside = line_px <= row_px * 0.95 and font.pointSizeF() >= 6
        for text in self._bar_texts:
            text.setFont(font)
            text.textItem.document().setDocumentMargin(0)
            text.setVisible(beside)
        left = plot.getAxis("left")
        left.setTickFont(font)
        ticks = [
            (y, label if beside or x is None else f"{label}  {_times(x)}") for y, (label, x) in enumerate(self.rows)
        ]
        left.setTicks([ticks])
        # the axis's width from its names now (pyqtgraph learns it only when it first paints them, after the title
        # and the range were fitted beside a narrower axis: they then ran past the chart's right edge)
        metrics = QFontMetricsF(font)
        width = int(max(metrics.horizontalAdvance(t) for _, t in ticks) + abs(left.style["tickLength"]) + 12)
        changed = left.width() != width
        if changed:
            left.setWidth(width)
            plot.layout.activate()  # now, not on the next turn of the event loop: the bars' values are placed on it
        self._fit_bar_range(metrics if beside else None, left.width())
        if changed:
            self.fit_legend()  # the title, wrapped to the room right of the axis as it is now

    def _fit_bar_range(self, metrics: QFontMetricsF | None, left_px: float) -> None:
        """The x range: every bar with headroom for its value beside its end (in pixels, at the chart's width),
        the baseline's 1× in view."""
        logs = [math.log10(x) for _, x in self.bars]
        lo, hi = min([0.0, *logs]), max([0.0, *logs])
        x0, x1 = lo - 0.2 - (0.3 * (hi - lo) if lo < 0 else 0), hi + 0.3
        plot_px = self.width() - left_px - 4 * margin_px(self.theme) - 16  # the legend's column gap stays
        if metrics is not None and plot_px > 40:
            gap = 6 + metrics.height() * 0.2
            for _ in range(4):  # each widening of one end moves the other's labels: a few rounds settle it
                for (_label, x), v in zip(self.bars, logs):
                    f = min(0.6, (metrics.horizontalAdvance(_times(x)) + gap) / plot_px)
                    if v >= 0:
                        x1 = max(x1, (v - f * x0) / (1 - f))
                    else:
                        x0 = min(x0, (v - f * x1) / (1 - f))
        self.getPlotItem().setXRange(x0, x1, padding=0)

    def _empty(self, plot: pg.PlotItem, title: str, reason: str) -> None:
        self.empty_reason = reason
        size = f"{self.theme.font_pt + 2}pt"
        plot.setTitle(plain(title), color=self.theme.foreground, size=size)
        plot.getAxis("left").setTicks([[]])
        plot.getAxis("bottom").setStyle(showValues=False)
        if reason:
            text = pg.TextItem(reason, color=self.theme.foreground, anchor=(0.5, 0.5))
            font = QFont()
            font.setPointSize(self.theme.font_pt)
            text.setFont(font)
            text.setPos(0.5, 0.5)
            plot.addItem(text)
        plot.setXRange(0, 1, padding=0)
        plot.setYRange(0, 1, padding=0)

    def draw(self, plot: pg.PlotItem) -> None:
        plot.clear()
        self.reset_legend()
        self.legend.setVisible(False)  # bars are named on their axis
        plot.getAxis("bottom").showLabel(not self.compact)
        self.bars, self.rows = [], []
        self._bar_items, self._bar_texts = [], []  # plot.clear() above took them off the plot
        self.empty_reason = ""
        key = self.size_key if self.size_key in self.sizes() else self.default_key()
        chosen = registry_baseline(self.baseline)
        name = tr(chosen.label)  # the registry's English label; BASELINE_LABELS marks them for the catalogue
        if key is None:
            self._empty(plot, tr("Speedup: no results yet"), "")
            return
        at_size = [r for r in self._mine() if r.problem.key == key]
        size_label = at_size[0].problem.label
        base = find_baseline(at_size, at_size[0], chosen.variant, chosen.params)
        if base is None:
            series = baseline_series(chosen)
            if series in self.hidden_series:  # the result exists: the user hid its series
                self._empty(
                    plot,
                    tr("{name} is hidden").format(name=name),
                    tr("show {series} again (a click on it in a\nchart's legend) or choose another baseline").format(
                        series=series
                    ),
                )
                return
            have = [key_label(k) for k in self.sizes_with_baseline()]
            reason = tr("sizes with one: {sizes}").format(sizes=", ".join(have)) if have else tr("no size has one")
            self._empty(plot, tr("No {name} result at {size}").format(name=name, size=size_label), reason)
            return
        plot.getAxis("bottom").setStyle(showValues=True)
        plot.setTitle(
            plain(join_cjk(tr("Speedup vs {name} at {size}").format(name=name, size=size_label))),
            color=self.theme.foreground,
            size=f"{self.theme.font_pt + 2}pt",
        )
        best: dict[str, Result] = {}
        for r in at_size:
            if r.series not in best or _median(r) < _median(best[r.series]):
                best[r.series] = r
        ordered = sorted(best.values(), key=_median, reverse=True)
        self.bars = [(r.series, _median(base) / _median(r)) for r in ordered]
        self._draw_rows(plot)

    def _draw_rows(self, plot: pg.PlotItem) -> None:
        """The bars, or where legible names leave room for fewer rows (25 series in a quarter of a 720p
        screen), the fastest and the slowest with one row between them saying how many it stands for: the
        ends are the lesson; the table has every figure."""
        for item in [*self._bar_items, *self._bar_texts]:
            plot.removeItem(item)
        self.rows = elide_middle(self.bars, self.fit_rows)
        drawn = [(y, label, x) for y, (label, x) in enumerate(self.rows) if x is not None]
        styles = series_styles(label for _, label, _ in drawn)
        logs = [math.log10(x) for _, _, x in drawn]
        bars = pg.BarGraphItem(
            x0=[min(0.0, v) for v in logs],
            width=[abs(v) for v in logs],
            y=np.array([y for y, _, _ in drawn]),
            height=0.7,
            brushes=[pg.mkBrush(self.theme.color(styles[label].colour)) for _, label, _ in drawn],
            pen=pg.mkPen(self.theme.foreground, width=1),
        )
        plot.addItem(bars)
        self._bar_items = [bars]
        self._bar_texts = []
        for (y, _label, x), v in zip(drawn, logs):
            words = f" {_times(x)}" if v >= 0 else f"{_times(x)} "  # a space between the bar's end and its value
            text = pg.TextItem(words, color=self.theme.foreground, anchor=(0.0, 0.5) if v >= 0 else (1.0, 0.5))
            text.setPos(v, y)
            plot.addItem(text)
            self._bar_texts.append(text)
        plot.setYRange(-0.6, len(self.rows) - 0.2, padding=0)
        self.fit_bar_text()  # and the x range, with room for the values


MIN_BAR_PT = 7.0  # the smallest bar name drawn, in points; in projector type a share of the theme's text instead
MIN_BAR_SHARE = 0.6  # 12 pt of projector type's 20: 16 px, the projector floor at 1280×720 (DESIGN's Presentation)
MIN_ROWS = 5  # fewer rows than this and the names shrink instead: two bars each end and the row between


def _row_px(pt: float) -> float:
    """The bar row a name of `pt` points needs (fit_bar_text sets the names at 75% of the row)."""
    return pt * 96 / 72 / 0.75


def elide_middle(bars: list[tuple[str, float]], rows: int | None) -> list[tuple[str, float | None]]:
    """`bars` as `rows` rows: all of them where they fit (`rows` None or enough), else the first and last
    bars around one row naming how many it stands for and their range ("⋯ 11 more, 1.02× to 3.19×")."""
    if rows is None or len(bars) <= rows:
        return list(bars)
    head = rows // 2
    tail = rows - 1 - head
    middle = bars[head : len(bars) - tail]
    xs = [x for _, x in middle]
    gap = tr("⋯ {n} more, {low} to {high}").format(n=len(middle), low=_times(min(xs)), high=_times(max(xs)))
    return [*bars[:head], (gap, None), *bars[len(bars) - tail :]]


def key_label(key: str) -> str:
    """A size key ("8192x8192x8192") as the app writes sizes: 8192³, or 2048×4096×3072."""
    return parse_problem(key).label


def baseline_series(b) -> str:
    """The series name (as Result.series writes it) of a registry baseline's results."""
    params = ", ".join(f"{k} {v}" for k, v in b.params.items())
    return f"{b.variant} ({params})" if params else b.variant


def _median(r: Result) -> float:
    """A drawn result's median time (the charts draw valid results, which have one)."""
    return r.median_ms if r.median_ms is not None else math.inf


def _times(x: float) -> str:
    """The bar's label, as the lessons write ratios: 1.53×, 15.3×, 153×; tiny ones with two digits."""
    if x == 1.0:
        return "1×"  # the baseline itself
    return f"{sig(x, 2)}×" if x < 0.1 else times_text(x)


__all__ = ["GflopsChart", "ResultChart", "RooflineChart", "SpeedupChart", "TimeChart", "series_of", "size_x"]
