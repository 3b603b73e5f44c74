"""Charts over a list of results: time and GFLOP/s vs size, speedup bars, all with hover and legends.

Only valid results are plotted; invalid ones stay in the table, flagged. Charts are redrawn from the
result list (a few hundred points at most), which keeps them simple and always consistent.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore
from PySide6.QtGui import QFont

from gemmviz.core.results import Result, find_baseline
from gemmviz.core.variants import baseline as registry_baseline
from gemmviz.ui.theme import LIGHT, Theme

SourceOf = Callable[[Result], str]  # where a result came from ("" = live); the workspace answers it


def one_source(_r: Result) -> str:
    return ""


def size_x(r: Result) -> float:
    """Chart x of a result: the cube root of MNK, i.e. N for square problems."""
    return (r.m * r.n * r.k) ** (1 / 3)


def series_of(results: list[Result], source_of: SourceOf = one_source) -> dict[tuple[str, str], list[Result]]:
    """Valid results grouped by (source label, series), each sorted by size."""
    groups: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for r in results:
        if r.valid and r.median_ms:
            groups[(source_of(r), r.series)].append(r)
    for rs in groups.values():
        rs.sort(key=size_x)
    return dict(sorted(groups.items()))


SYMBOLS = ("o", "s", "t", "d")


def symbol_for(index: int, palette_size: int) -> str:
    """Past the palette's length colours repeat, so the marker shape changes instead."""
    return SYMBOLS[(index // palette_size) % len(SYMBOLS)]


def colour_map(results: list[Result]) -> dict[str, int]:
    """One colour per series (variant and params) across every chart, in registry order."""
    from gemmviz.core.variants import VARIANTS

    order = {name: i for i, name in enumerate(VARIANTS)}
    series = {(order.get(r.variant, len(order)), tuple(sorted(r.params.items())), r.series) for r in results}
    return {name: i for i, (_, _, name) in enumerate(sorted(series))}


def size_ticks(sizes: list[float]) -> list[list[tuple[float, str]]]:
    """Ticks at powers of two (in log10 coordinates) covering the sizes: 256, 512, 1024, …"""
    if not sizes:
        return [[]]
    lo, hi = math.floor(math.log2(min(sizes))), math.ceil(math.log2(max(sizes)))
    every = max(1, math.ceil((hi - lo + 1) / 7))
    major = [
        (math.log10(2**e), f"{2**e // 1024}k" if e >= 10 else str(2**e))
        for e in range(lo, hi + 1)
        if (e - lo) % every == 0
    ]
    return [major, []]


class LogTimesAxis(pg.AxisItem):
    """A y axis whose values are log10(speedup), labelled as 0.1×, 1×, 10×."""

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            x = 10**v
            out.append(f"{x:.3g}×" if x < 1000 else f"{x:,.0f}×")
        return out


def _style_plot(plot: pg.PlotItem, theme: Theme, title: str, x_label: str, y_label: str) -> None:
    font = QFont()
    font.setPointSize(theme.font_pt)
    plot.setTitle(title, color=theme.foreground, size=f"{theme.font_pt + 2}pt")
    for name, label in (("bottom", x_label), ("left", y_label)):
        axis = plot.getAxis(name)
        axis.setLabel(label, color=theme.foreground, **{"font-size": f"{theme.font_pt}pt"})
        axis.setTickFont(font)
        axis.setPen(pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2)))
        axis.setTextPen(pg.mkPen(theme.foreground))
        axis.enableAutoSIPrefix(False)
    plot.showGrid(x=True, y=True, alpha=theme.grid_alpha)


class ResultChart(pg.PlotWidget):
    """Base: a themed plot with a legend that redraws itself from results."""

    pointClicked = QtCore.Signal(object)  # the Result under a clicked point

    title = ""
    x_label = ""
    y_label = ""

    def __init__(self, theme: Theme = LIGHT, parent=None, axisItems=None):
        super().__init__(parent=parent, axisItems=axisItems)
        self.theme = theme
        self.results: list[Result] = []
        self.source_of: SourceOf = one_source
        self.apply_theme(theme)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.getPlotItem().clear()
        self._items = {}
        self._legend_key = None
        self.setBackground(theme.background)
        _style_plot(self.getPlotItem(), theme, self.title, self.x_label, self.y_label)
        self.set_results(self.results)

    def set_results(self, results: list[Result], max_new: int | None = None, source_of: SourceOf | None = None) -> bool:
        """Redraw from `results` (`source_of` says which session each came from). With `max_new`, create at
        most that many new series now and return False if more remain (the caller calls again on the next
        event-loop turn, so a sweep that adds many series never freezes the UI for long)."""
        self.results = list(results)
        if source_of is not None:
            self.source_of = source_of
        plot = self.getPlotItem()
        if getattr(self, "legend", None) is None:
            # The legend sits in its own column right of the plot, so it never hides data.
            self.legend = pg.LegendItem()
            plot.layout.addItem(self.legend, 2, 3)
        self._max_new = max_new
        complete = self.draw(plot) is not False
        self.fit_legend()
        return complete

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_legend()

    def fit_legend(self) -> None:
        """Spread the legend over columns when its entries would not fit the chart's height."""
        legend = getattr(self, "legend", None)
        if legend is None:
            return
        entries = len(legend.items)
        row_px = self.theme.font_pt * 96 / 72 * 1.9
        rows = max(3, int(max(self.height() - 4 * row_px, row_px) / row_px))
        columns = max(1, -(-entries // rows))
        if legend.columnCount != columns:
            legend.setColumnCount(columns)

    def reset_legend(self) -> None:
        self.legend.clear()
        self.legend.setLabelTextColor(self.theme.foreground)
        self.legend.setLabelTextSize(f"{self.theme.font_pt}pt")

    def draw(self, plot: pg.PlotItem) -> None:
        raise NotImplementedError

    def series_pen(self, index: int, source_index: int = 0):
        style = [pg.QtCore.Qt.PenStyle.SolidLine, pg.QtCore.Qt.PenStyle.DashLine, pg.QtCore.Qt.PenStyle.DotLine]
        return pg.mkPen(self.theme.color(index), width=self.theme.line_px, style=style[source_index % 3])


class _SizeChart(ResultChart):
    x_label = "matrix size (∛(M·N·K))"
    log_y = True

    def value(self, r: Result) -> float | None:
        raise NotImplementedError

    def tip(self, r: Result, source: str) -> str:
        return _tip(r, source)

    def draw(self, plot: pg.PlotItem) -> None:
        # Data go in as log10 values and the axes label them as powers of ten, so lines, points and
        # error bars share one coordinate system. Items persist per series and get new data, which
        # keeps a redraw during a sweep to a few milliseconds.
        plot.getAxis("left").setLogMode(self.log_y)
        groups = series_of(self.results, self.source_of)
        plot.getAxis("bottom").setTicks(size_ticks([size_x(r) for rs in groups.values() for r in rs]))
        sources = sorted({source for source, _ in groups})
        colour_of = colour_map([r for rs in groups.values() for r in rs])
        for key in [k for k in self._items if k not in groups]:
            for item in self._items.pop(key):
                plot.removeItem(item)
        budget = getattr(self, "_max_new", None)
        for (source, name), rs in groups.items():
            if budget is not None and (source, name) not in self._items:
                if budget == 0:
                    return False  # the rest, and the legend, on the next call
                budget -= 1
            colour_index = colour_of[name]
            xs = np.log10([size_x(r) for r in rs])
            ys = np.array([self.value(r) for r in rs], dtype=float)
            ys = np.log10(ys) if self.log_y else ys
            pen = self.series_pen(colour_index, sources.index(source))
            brush = pg.mkBrush(self.theme.color(colour_index))
            tips = [_Tip(self.tip(r, source), r) for r in rs]
            items = self._items.get((source, name))
            if items is None:
                line = pg.PlotDataItem(xs, ys, pen=pen)
                spread = self.make_spread(rs, xs, colour_index)
                scatter = pg.ScatterPlotItem(
                    xs, ys, size=self.theme.symbol_px, brush=brush, pen=pg.mkPen(self.theme.background),
                    symbol=symbol_for(colour_index, len(self.theme.palette)), hoverable=True, data=tips, tip=lambda x, y, data: data.text, hoverSize=self.theme.symbol_px * 1.5,
                )  # fmt: skip
                scatter.sigClicked.connect(
                    lambda _item, points, _ev: points and self.pointClicked.emit(points[0].data().result)
                )
                items = [i for i in (line, spread, scatter) if i is not None]
                for item in items:
                    plot.addItem(item)
                self._items[(source, name)] = items
            else:
                line, *rest = items
                line.setData(xs, ys)
                line.setPen(pen)
                scatter = rest[-1]
                scatter.setData(x=xs, y=ys, data=tips, brush=brush)
                if len(rest) == 2:
                    self.update_spread(rest[0], rs, xs, colour_index)
        legend_key = (tuple(sorted(colour_of.items())), tuple(sources))
        if legend_key != self._legend_key and budget is not None and budget < getattr(self, "_max_new", 0):
            return False  # series were created in this call: the legend (a relayout) on the next one
        if legend_key != self._legend_key:
            self._legend_key = legend_key
            self.reset_legend()
            for name, colour_index in sorted(colour_of.items(), key=lambda kv: kv[1]):
                sample = pg.PlotDataItem(pen=self.series_pen(colour_index), symbol=symbol_for(colour_index, len(self.theme.palette)),
                                         symbolBrush=self.theme.color(colour_index), symbolPen=None, symbolSize=self.theme.symbol_px)  # fmt: skip
                self.legend.addItem(sample, name)
            if len(sources) > 1 or (sources and sources[0]):
                for i, source in enumerate(sources):
                    self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen(self.theme.foreground, width=self.theme.line_px,
                                        style=self.series_pen(0, i).style())), source or "live (this machine)")  # fmt: skip

    def make_spread(self, rs, xs, colour_index):
        return None

    def update_spread(self, item, rs, xs, colour_index) -> None:
        return None


class _Tip:
    """What a chart point carries: its hover text and its result."""

    __slots__ = ("text", "result")

    def __init__(self, text: str, result: Result):
        self.text, self.result = text, result


def _tip(r: Result, source: str) -> str:
    params = ", ".join(f"{k} {v}" for k, v in r.params.items())
    return (
        f"{r.variant}{f' ({params})' if params else ''}\n{r.m}×{r.n}×{r.k}\n"
        f"median {r.median_ms:.4g} ms (min {r.min_ms:.4g}, max {r.max_ms:.4g}, n={len(r.samples_ms)})\n"
        f"{r.gflops:,.0f} GFLOP/s, rel. error {'—' if r.rel_error is None else format(r.rel_error, '.1e')}"
        + (f"\n{source}" if source else "")
        + (f"\n{r.note}" if r.note else "")
    )


class TimeChart(_SizeChart):
    title = "Time per multiplication"
    y_label = "median time (ms)"

    def value(self, r):
        return r.median_ms

    def make_spread(self, rs, xs, colour_index):
        item = pg.ErrorBarItem(beam=0.02)
        self.update_spread(item, rs, xs, colour_index)
        return item

    def update_spread(self, item, rs, xs, colour_index) -> None:
        # min–max of the samples as error bars, in log10 space because the plot is log-log
        lo = np.log10([r.min_ms for r in rs])
        hi = np.log10([r.max_ms for r in rs])
        mid = np.log10([r.median_ms for r in rs])
        item.setData(x=xs, y=mid, top=hi - mid, bottom=mid - lo,
                     pen=pg.mkPen(self.theme.color(colour_index), width=max(1, self.theme.line_px / 2)))  # fmt: skip


class GflopsChart(_SizeChart):
    title = "Throughput"
    y_label = "GFLOP/s (2·M·N·K / median time)"

    def value(self, r):
        return r.gflops


class SpeedupChart(ResultChart):
    """Horizontal bars: how many times faster each series is than a baseline, at one size and from one
    source (speedups never mix machines), on a log scale."""

    title = "Speedup"
    x_label = "times faster (log scale)"
    y_label = ""

    def __init__(self, theme: Theme = LIGHT, parent=None):
        self.baseline = "cpu-naive"  # a key of the registry's BASELINES
        self.size_key: str | None = None
        self.source: str | None = None
        self.bars: list[tuple[str, float]] = []
        super().__init__(theme, parent, axisItems={"bottom": LogTimesAxis("bottom")})

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

    def default_key(self) -> str | None:
        """The largest size that has a result of the baseline, else the largest size."""
        sizes = self.sizes()
        base = registry_baseline(self.baseline)
        with_base = [
            key
            for key in sizes
            if any(
                r.variant == base.variant and r.params == dict(base.params) and r.problem.key == key
                for r in self._mine()
            )
        ]
        return (with_base or sizes or [None])[-1]

    def set_view(self, baseline: str | None = None, size_key: str | None = None, source: str | None = None) -> None:
        if baseline is not None:
            self.baseline = baseline
        self.size_key = size_key
        self.source = source
        self.set_results(self.results)

    def draw(self, plot: pg.PlotItem) -> None:
        plot.clear()
        key = self.size_key if self.size_key in self.sizes() else self.default_key()
        self.bars = []
        chosen = registry_baseline(self.baseline)
        name = chosen.label
        title_size = f"{self.theme.font_pt + 2}pt"
        if key is None:
            plot.setTitle(f"{self.title}: no results yet", color=self.theme.foreground, size=title_size)
            return
        at_size = [r for r in self._mine() if r.problem.key == key]
        size_label = at_size[0].problem.label
        base = find_baseline(at_size, at_size[0], chosen.variant, chosen.params)
        if base is None:
            plot.setTitle(f"No {name} result at {size_label}", color=self.theme.foreground, size=title_size)
            return
        plot.setTitle(f"Speedup vs {name} at {size_label}", color=self.theme.foreground, size=title_size)
        best: dict[str, Result] = {}
        for r in at_size:
            if r.series not in best or r.median_ms < best[r.series].median_ms:
                best[r.series] = r
        ordered = sorted(best.values(), key=lambda r: r.median_ms, reverse=True)
        self.bars = [(r.series, base.median_ms / r.median_ms) for r in ordered]
        logs = [math.log10(x) for _, x in self.bars]
        colours = colour_map([r for r in self.results if r.valid])
        ys = np.arange(len(self.bars))
        plot.addItem(pg.BarGraphItem(
            x0=[min(0.0, v) for v in logs], width=[abs(v) for v in logs], y=ys, height=0.7,
            brushes=[pg.mkBrush(self.theme.color(colours[label])) for label, _ in self.bars],
            pen=pg.mkPen(self.theme.foreground, width=1),
        ))  # fmt: skip
        font = QFont()
        font.setPointSize(self.theme.font_pt)
        for y, ((_label, x), v) in enumerate(zip(self.bars, logs)):
            text = pg.TextItem(f"{x:,.0f}×" if x >= 10 else f"{x:.2g}×", color=self.theme.foreground,
                               anchor=(0.0, 0.5) if v >= 0 else (1.0, 0.5))  # fmt: skip
            text.setFont(font)
            text.setPos(v, y)
            plot.addItem(text)
        plot.getAxis("left").setTicks([[(y, label) for y, (label, _) in enumerate(self.bars)]])
        lo, hi = min([0.0, *logs]), max([0.0, *logs])
        plot.setXRange(lo - 0.2 - (0.3 * (hi - lo) if lo < 0 else 0), hi + 0.25 * (hi - lo) + 0.3, padding=0)
        plot.setYRange(-0.6, len(self.bars) - 0.4, padding=0)


class RooflineChart(ResultChart):
    """Log-log roofline: the GPU's ceilings as lines, the ridge point, one point per GPU result."""

    title = "Roofline"
    x_label = "arithmetic intensity (FLOP / byte of global traffic, from the model)"
    y_label = "GFLOP/s (measured)"

    def __init__(self, theme: Theme = LIGHT, parent=None):
        self.ceilings = None
        self.points = []
        super().__init__(theme, parent)

    def set_ceilings(self, ceilings) -> None:
        self.ceilings = ceilings
        self.set_results(self.results)

    def draw(self, plot: pg.PlotItem) -> None:
        from gemmviz.core.roofline import roofline_points

        plot.clear()
        self._legend_key = None
        self.reset_legend()
        plot.getAxis("left").setLogMode(True)
        by_source: dict[str, list[Result]] = defaultdict(list)
        for r in self.results:
            by_source[self.source_of(r)].append(r)
        # one call per source: a result's % of cuBLAS is against cuBLAS measured on the same machine
        self.points = [p for rs in by_source.values() for p in roofline_points(rs, self.ceilings)]
        c = self.ceilings
        xs_all = [p.intensity for p in self.points] or [0.25, 1000]
        x_lo, x_hi = min(0.1, min(xs_all) / 2), max(1000, max(xs_all) * 2)
        decades = range(math.floor(math.log10(x_lo)), math.ceil(math.log10(x_hi)) + 1)
        plot.getAxis("bottom").setTicks([[(d, f"{10.0**d:g}") for d in decades], []])
        fg = self.theme.foreground
        if c is not None:
            title = f"Roofline of {c.device}"
            xs = np.logspace(math.log10(x_lo), math.log10(x_hi), 200)
            for value, name, style in ((c.fp32_peak_gflops, "FP32 peak (computed)", QtCore.Qt.PenStyle.SolidLine),
                                       (c.fp32_gemm_gflops, "best FP32 GEMM (cuBLAS)", QtCore.Qt.PenStyle.DashLine),
                                       (c.tf32_gemm_gflops, "TF32 tensor cores (cuBLAS)", QtCore.Qt.PenStyle.DotLine)):  # fmt: skip
                if not value:
                    continue
                ys = np.minimum(c.bandwidth_gbs * xs, value) if c.bandwidth_gbs else np.full_like(xs, value)
                item = pg.PlotDataItem(
                    np.log10(xs), np.log10(ys), pen=pg.mkPen(fg, width=self.theme.line_px, style=style)
                )
                plot.addItem(item)
                self.legend.addItem(item, name)
            if c.bandwidth_gbs:
                label = pg.TextItem(f"{c.bandwidth_gbs:,.0f} GB/s (measured copy)", color=fg, anchor=(0, 1), angle=0)
                label.setPos(math.log10(x_lo * 1.5), math.log10(c.bandwidth_gbs * x_lo * 1.5))
                plot.addItem(label)
            if c.ridge:
                ridge = pg.ScatterPlotItem([math.log10(c.ridge)], [math.log10(c.fp32_peak_gflops)], symbol="d",
                                           size=self.theme.symbol_px * 1.6, brush=pg.mkBrush(fg), pen=pg.mkPen(fg))  # fmt: skip
                plot.addItem(ridge)
                self.legend.addItem(ridge, f"ridge point {c.ridge:.1f} FLOP/byte")
        else:
            title = "Roofline: no ceilings measured for this GPU (run gemmviz ceilings on it)"
        plot.setTitle(title, color=fg, size=f"{self.theme.font_pt + 2}pt")
        colours = colour_map([p.result for p in self.points])
        groups: dict[str, list] = defaultdict(list)
        for p in self.points:
            groups[p.result.series].append(p)
        for name, pts in sorted(groups.items(), key=lambda kv: colours[kv[0]]):
            tips = [_Tip(self._tip(p, self.source_of(p.result)), p.result) for p in pts]
            scatter = pg.ScatterPlotItem(
                np.log10([p.intensity for p in pts]), np.log10([p.gflops for p in pts]), size=self.theme.symbol_px,
                symbol=symbol_for(colours[name], len(self.theme.palette)),
                brush=pg.mkBrush(self.theme.color(colours[name])), pen=pg.mkPen(self.theme.background), hoverable=True,
                data=tips, tip=lambda x, y, data: data.text, hoverSize=self.theme.symbol_px * 1.5,
            )  # fmt: skip
            scatter.sigClicked.connect(
                lambda _i, points, _ev: points and self.pointClicked.emit(points[0].data().result)
            )
            plot.addItem(scatter)
            self.legend.addItem(scatter, name)
        plot.setXRange(math.log10(x_lo), math.log10(x_hi))

    @staticmethod
    def _tip(p, source: str) -> str:
        r = p.result
        roof = f"{p.pct_of_roof:.0f}% of the roof here ({p.roof:,.0f} GFLOP/s)" if p.roof else "no roof measured"
        cub = f", {p.pct_of_cublas:.0f}% of cuBLAS" if p.pct_of_cublas is not None else ""
        return (
            f"{r.series} at {r.problem.label}\n{p.intensity:,.2f} FLOP/byte, {p.gflops:,.0f} GFLOP/s\n{roof}{cub}"
            + (f"\n{source}" if source else "")
        )
