"""The base of every chart: theme, legend column (ui/charts/axes.py), series styles from core/charts/style.py,
the hover text of a point. A click on a legend entry emits `seriesToggled(series)`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

import pyqtgraph as pg
from pyqtgraph.Qt import QtCore
from PySide6.QtGui import QFont, QFontMetricsF

from gemmviz.core.charts.style import SeriesStyle, style_of
from gemmviz.core.messages import render
from gemmviz.core.numbers import sig
from gemmviz.core.session import provenance
from gemmviz.core.session.results import Baselines, Result
from gemmviz.ui.charts.axes import LegendMark, RoomyAxis, SeriesLegend
from gemmviz.ui.i18n import language
from gemmviz.ui.text import QT_TRANSLATE_NOOP, plain, tr
from gemmviz.ui.theme import LIGHT, Theme

SourceOf = Callable[[Result], str]  # where a result came from ("" = live); the workspace answers it
PEN_STYLES = {
    "solid": QtCore.Qt.PenStyle.SolidLine,
    "dash": QtCore.Qt.PenStyle.DashLine,
    "dot": QtCore.Qt.PenStyle.DotLine,
    "dashdot": QtCore.Qt.PenStyle.DashDotLine,
}
LEGEND_MAX_WIDTH = 0.38  # of the chart's width: beyond it the text shrinks, then entries give way to "+k more"


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


PROJECTOR_MIN_LINE_PX = 3.0  # read from the back of a room: lines and markers no thinner, no smaller
PROJECTOR_MIN_SYMBOL_PX = 10


def is_projector(theme: Theme) -> bool:
    return theme.name.startswith("projector")


def legible(theme: Theme) -> Theme:
    """A projector theme as a chart draws it: lines at least 3 px, markers at least 10 px, however small the
    view it was scaled to (a lesson's slide at 720p scales the 1080p sizes by 2/3)."""
    if not is_projector(theme):
        return theme
    return replace(
        theme,
        line_px=max(theme.line_px, PROJECTOR_MIN_LINE_PX),
        symbol_px=max(theme.symbol_px, PROJECTOR_MIN_SYMBOL_PX),
    )


def legend_min_factor(theme: Theme) -> float:
    """How far a legend may shrink its text to fit: in projector mode not below the axes' text."""
    return 1.0 if is_projector(theme) else 0.5


def repaint_whole(view: pg.GraphicsView) -> None:
    """Repaint the whole chart on any change: pyqtgraph's minimal updates left fragments of the layout before
    (ticks, points, legend text) on screen after the window's first layout, until the tab was switched. A
    chart of a few hundred items repaints in a millisecond or two."""
    view.setViewportUpdateMode(pg.QtWidgets.QGraphicsView.ViewportUpdateMode.FullViewportUpdate)


def margin_px(theme: Theme) -> int:
    return max(8, round(theme.font_pt * 0.5))


def legend_column(plot: pg.PlotItem, title_spans: bool = False) -> SeriesLegend:
    """A legend in its own column right of the plot (so it never hides data), entries from the top; with
    `title_spans`, the title spans the plot's and the legend's columns (a two-line title beside a projector's
    legend wrapped to four lines)."""
    legend = SeriesLegend()
    plot.layout.addItem(legend, 2, 3, 2, 1)  # beside the x axis too: the legend may reach its foot
    plot.layout.setColumnAlignment(3, QtCore.Qt.AlignmentFlag.AlignTop)
    plot.layout.setColumnSpacing(2, 16)  # a gap between the plot and the legend
    legend.title_spans = title_spans
    if title_spans:
        plot.layout.removeItem(plot.titleLabel)
        plot.layout.addItem(plot.titleLabel, 0, 1, 1, 3)
    return legend


def place_legend(plot: pg.PlotItem, legend: SeriesLegend, below: bool) -> None:
    """The legend in its column right of the plot, or in a row below the plot's x axis (a chart with a few
    entries in a narrow pane: the column took the width the title and the bars' labels needed)."""
    if getattr(legend, "below", False) == below:
        return
    plot.layout.removeItem(legend)
    if below:
        plot.layout.addItem(legend, 4, 0, 1, 2)  # under the left axis too: two entries side by side at 720p
        plot.layout.setColumnSpacing(2, 0)
    else:
        plot.layout.addItem(legend, 2, 3, 2, 1)
        plot.layout.setColumnAlignment(3, QtCore.Qt.AlignmentFlag.AlignTop)
        plot.layout.setColumnSpacing(2, 16)
    legend.below = below


def _fit_legend_below(view: pg.GraphicsView, plot: pg.PlotItem, legend: SeriesLegend, theme: Theme) -> float:
    """A legend in the row below the plot: its entries side by side across the plot's width, at the theme's
    size; the title has the whole width."""
    left = plot.getAxis("left").width() if plot.getAxis("left").isVisible() else 0
    width = view.width() - 2 * margin_px(theme) - 4
    _fit_title(plot, theme, width - left, wrap=is_projector(theme))
    legend.fit(theme.font_pt, view.height() * 0.3, width, legend_min_factor(theme), across=True)
    plot.setGeometry(view.range)
    return view.height() * 0.5


def fit_legend_column(view: pg.GraphicsView, plot: pg.PlotItem, legend: SeriesLegend, theme: Theme) -> float:
    """Fit a legend_column to the view's height (beside the plot and its x axis) and its share of the width;
    returns the plot's height."""
    if getattr(legend, "below", False) and legend.isVisible():
        return _fit_legend_below(view, plot, legend, theme)
    _, top, _, bottom = plot.getContentsMargins()
    axis = plot.getAxis("bottom")

    def beside(title_h: float) -> tuple[float, float]:
        """The height beside the plot and its x axis (slack for rounding), and the plot's in it, under a title."""
        height = (view.height() - title_h - top - bottom) * 0.96
        return height, height - (max(axis.minimumHeight(), axis.height()) if axis.isVisible() else 0)

    title_h = plot.titleLabel.boundingRect().height() if plot.titleLabel.isVisible() else 0
    height, plot_h = beside(title_h)
    # what the plot's other columns need at least (the title's width holds the data column open)
    left = plot.getAxis("left").width() if plot.getAxis("left").isVisible() else 0
    if not legend.isVisible():  # no legend (the speedup bars are named on their axis): the title has the width
        # the bars' names widen the left axis only once the plot is laid out at the new type: fit the title
        # again to the room the axis leaves then (measured before, it ended past the chart's right edge)
        for _ in range(3):
            _fit_title(plot, theme, view.width() - left - 2 * margin_px(theme) - 4, wrap=True)
            plot.layout.invalidate()  # its cached minimum still holds the title's former width
            plot.setGeometry(view.range)
            plot.layout.activate()  # at the same geometry the layout is not laid out again by itself
            now = plot.getAxis("left").width() if plot.getAxis("left").isVisible() else 0
            if abs(now - left) <= 0.5:
                break
            left = now
        return plot_h
    spans = getattr(legend, "title_spans", False)
    others = left + (0 if spans else plot.titleLabel.minimumWidth()) + 16 + 2 * margin_px(theme) + 4
    # the legend's full names at its smallest text are its due (up to its share); a long title gives way
    smallest = legend_min_factor(theme)
    due = min(view.width() * LEGEND_MAX_WIDTH, legend.full_width(theme.font_pt * max(0.6, smallest)))
    room = max(40.0, due, min(view.width() * LEGEND_MAX_WIDTH, view.width() - others))
    # in projector type a title wraps rather than shrinks below the chart's other text (24 px at 1080p)
    title_room = view.width() - left - 2 * margin_px(theme) - 4 - (0 if spans else room + 16)
    _fit_title(plot, theme, title_room, wrap=is_projector(theme))
    if is_projector(theme) and plot.titleLabel.isVisible() and plot.titleLabel.maximumHeight() != title_h:
        # the title's height as _fit_title set it (its label takes it when the plot is next laid out): measured
        # before, a first fit was to a height that the title's second line then took, and fitted again after
        height, plot_h = beside(plot.titleLabel.maximumHeight())
    legend.fit(theme.font_pt, max(height, 40), room, smallest)
    # the legend estimates its width from its labels as they are, possibly still shortened for a narrower view
    # (its full names then take more): while it is wider than its room or the plot's minimum wider than the view, fit again into less room
    for _ in range(3):
        plot.layout.invalidate()  # the cached minimum still holds the legend's former width
        over = plot.layout.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width() - view.width()
        excess = max(over, legend.maximumWidth() - room)
        if excess <= 1:
            break
        room = max(40.0, min(room, legend.maximumWidth() - excess - 2))
        legend.fit(theme.font_pt, max(height, 40), room, smallest)
    # the plot was given the view's size while the legend was still at its first, larger size (its minimum
    # then held the plot taller than the view): give it the view's size again
    plot.setGeometry(view.range)
    return plot_h


def learn_tick_sizes(plot: pg.PlotItem, keep: bool = False) -> None:
    """Let the left and bottom axes learn their tick labels' size now, as their paint would (pyqtgraph's axes
    measure their labels only when painting them): a legend fitted before the first paint was fitted to a
    plot whose axes then grew, and fitted again after it. `keep`: each axis keeps the picture made, as its paint
    does (an offscreen layout that paints nothing: exporters.layout_offscreen)."""
    from PySide6.QtGui import QPainter, QPicture

    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        if not axis.isVisible() or axis.picture is not None:
            continue  # hidden, or painted at its size already (it measured its labels then)
        picture = QPicture()
        painter = QPainter(picture)
        try:
            if axis.style["tickFont"]:
                painter.setFont(axis.style["tickFont"])
            specs = axis.generateDrawSpecs(painter)  # what AxisItem.paint does: first the labels' size
            if keep and specs is not None:
                axis.drawPicture(painter, *specs)
        finally:
            painter.end()
        if keep:
            axis.picture = picture


def _fit_title(plot: pg.PlotItem, theme: Theme, room: float, wrap: bool = False) -> None:
    """The title at the theme's size, or smaller where its lines are wider than `room` (down to 60%); with
    `wrap`, then wrapped to `room` and never wider (a chart with no legend column: its title alone held the
    plot open past the chart's edge), and in projector mode never smaller than the chart's other text (24 px
    at 1080p: the speedup chart's long title in a quarter of "all four")."""
    label = plot.titleLabel
    if not label.isVisible() or not label.text:
        return
    base = theme.font_pt + 2
    # a title that may wrap, in projector mode: on two lines rather than smaller than the chart's other text
    smallest = theme.font_pt if wrap and is_projector(theme) else 0.0
    room = max(room, 40.0)
    for wrapped in (False, True) if wrap else (False,):
        label.item.setTextWidth(room if wrapped else -1)
        pt: float = base
        label.setText(label.text, size=f"{pt}pt")
        while label.item.boundingRect().width() > room and pt > 0.6 * base and pt > smallest:
            pt = max(pt * 0.9, smallest)
            label.setText(label.text, size=f"{pt:.1f}pt")
        if label.item.boundingRect().width() <= room + 0.5:
            break
    if wrap:
        rect = label.item.boundingRect()
        label.setMinimumWidth(min(rect.width(), room))
        height = max(30.0, rect.height())  # pyqtgraph's title row and label: 30 px, too short for two lines
        label.setMaximumHeight(height)
        plot.layout.setRowFixedHeight(0, height)


def _style_plot(plot: pg.PlotItem, theme: Theme, title: str, x_label: str, y_label: str) -> None:
    font = QFont()
    font.setPointSize(theme.font_pt)
    plot.setTitle(plain(tr(title)), color=theme.foreground, size=f"{theme.font_pt + 2}pt")
    for name, label in (("bottom", x_label), ("left", y_label)):
        axis = plot.getAxis(name)
        axis.setLabel(tr(label), color=theme.foreground, **{"font-size": f"{theme.font_pt}pt"})
        axis.setTickFont(font)
        axis.setPen(pg.mkPen(theme.foreground, width=max(1.0, theme.line_px / 2)))
        axis.setTextPen(pg.mkPen(theme.foreground))
        axis.enableAutoSIPrefix(False)
    plot.showGrid(x=True, y=True, alpha=theme.grid_alpha)
    # pyqtgraph draws axis labels and the title a few pixels past its own edges: a margin keeps them inside
    margin = margin_px(theme)
    plot.setContentsMargins(margin, margin, margin, margin)


class ResultChart(pg.PlotWidget):
    """Base: a themed plot with a legend in its own column that redraws itself from results.

    `hidden_series` (set by the caller) are listed in the legend, faint, so a click can show them again.

    NO_MENU: gemmviz's charts (these and the hardware views) have no pyqtgraph context menu. Its "Plot Options"
    set log axes and transforms on data that are already log10 values (a wrong chart, one click away), its
    "Export..." bypasses the footer that says where the numbers come from, and building it cost a third of a
    chart's construction (every window, slide and export makes several). Pan and zoom stay."""

    pointClicked = QtCore.Signal(object)  # the Result under a clicked point
    seriesToggled = QtCore.Signal(str)  # a legend entry was clicked: show or hide that series

    # English source texts, marked with QT_TRANSLATE_NOOP where a chart sets them and translated where drawn
    title = ""
    x_label = ""
    y_label = ""
    x_label_short = ""  # the x label where the long one is wider than the plot
    y_label_short = ""  # the y label where the long one is taller than the plot
    colour_each = False  # every series its own colour (core/charts/style.colour_each): a lesson's one-kernel chart

    def __init__(self, theme: Theme = LIGHT, parent=None, axisItems=None):
        given = axisItems or {}
        axes = {side: given.get(side) or RoomyAxis(side) for side in ("left", "bottom")} | given  # each made once
        super().__init__(parent=parent, axisItems=axes, enableMenu=False)  # NO_MENU (charts/base.py)
        for side in ("top", "right"):  # hidden, yet each range change set their labels' HTML to rescale them
            self.getPlotItem().getAxis(side).enableAutoSIPrefix(False)
        repaint_whole(self)
        self.theme = theme
        self.results: list[Result] = []
        self.hidden_series: list[str] = []
        self.source_of: SourceOf = one_source
        self._legend: SeriesLegend | None = None  # made with the first results (the legend property)
        self._left_w = 0.0
        self._fitting = self._refit = False
        # a window-wide change (projector mode, the control panel) resizes a chart several times in one turn of
        # the event loop: its legend is fitted once, after them
        self._fit_timer = QtCore.QTimer(self, singleShot=True, interval=0, timeout=self.fit_legend)
        # the left axis learns its width from its tick labels only when they are first painted: fit again then
        # (the title and legend were fitted to the room beside a narrower axis, and held the plot past the edge)
        self.getPlotItem().getAxis("left").geometryChanged.connect(self._left_axis_changed)
        self.apply_theme(theme)

    @property
    def legend(self) -> SeriesLegend:
        """The series' legend, right of the plot: made the first time it is asked for."""
        if self._legend is None:
            self._legend = legend_column(self.getPlotItem())
            self._legend.toggled.connect(self.seriesToggled)
        return self._legend

    def apply_theme(self, theme: Theme) -> None:
        theme = legible(theme)
        self.theme = theme
        self.getPlotItem().clear()
        self._items: dict = {}
        self._legend_key: tuple | None = None
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
        self._max_new = max_new
        with self.legend.batch():  # its entries laid out once, not once per entry
            complete = self.draw(plot) is not False
        self.fit_legend()
        return complete

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if getattr(self, "_fit_timer", None) is not None:
            self._fit_timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if getattr(self, "_fit_pending", False):
            self.fit_legend()  # before its first paint

    def _left_axis_changed(self) -> None:
        plot = self.getPlotItem()
        width = plot.getAxis("left").width() if plot is not None else 0.0
        if abs(width - self._left_w) > 0.5:
            self._left_w = width
            if self._fitting:
                self._refit = True  # once more when this fit ends
            else:
                self.fit_legend()

    def fit_legend(self) -> None:
        """Wrap the legend into columns and shrink its text so that it fits the chart's height."""
        if getattr(self, "_legend", None) is None or getattr(self, "_fitting", True):
            return  # called by the view's own set-up, before the legend exists; or from within a fit
        if not self.isVisible():
            # off screen (a tab not shown, an export's chart not laid out yet): fitted once when shown, at the size
            # it has then. A hidden chart fitted on every redraw, first at a new widget's 640x480: a third of a
            # 4K dashboard's export, for layouts never seen
            self._fit_pending = True
            return
        self._fit_pending = False
        plot = self.getPlotItem()
        if plot is None:
            return  # closed
        self._fitting = True
        try:
            for _ in range(3):  # again while the fit itself changed the left axis's width
                self._refit = False
                learn_tick_sizes(plot)
                self._fit_legend(plot)
                if not self._refit:
                    break
        finally:
            self._fitting = False

    def _fit_legend(self, plot: pg.PlotItem) -> None:
        height = fit_legend_column(self, plot, self.legend, self.theme)
        left = plot.getAxis("left").width()
        self._fit_axis_label("left", self.y_label, self.y_label_short, height)
        self._fit_axis_label(
            "bottom",
            self.x_label,
            self.x_label_short,
            self.width() - self.legend.maximumWidth() - left - 4 * margin_px(self.theme),
        )

    def _fit_axis_label(self, name: str, label: str, short: str, room: float) -> None:
        """The axis's long label, or its short one where the long one is longer than the axis."""
        if not short:
            return
        label, short = tr(label), tr(short)
        font = QFont()
        font.setPointSize(self.theme.font_pt)
        text = label if QFontMetricsF(font).horizontalAdvance(label) <= room else short
        axis = self.getPlotItem().getAxis(name)
        if axis.labelText != text:
            axis.setLabel(text, color=self.theme.foreground, **{"font-size": f"{self.theme.font_pt}pt"})
            axis.resizeEvent()  # pyqtgraph centres a label only on a resize: the new text, placed for its length

    def reset_legend(self) -> None:
        self.legend.clear()
        self.legend.setLabelTextColor(self.theme.foreground)
        self.legend.setLabelTextSize(f"{self.theme.font_pt}pt")

    def draw(self, plot: pg.PlotItem) -> bool | None:
        raise NotImplementedError

    def pen(self, style: SeriesStyle, colour: str | None = None):
        return pg.mkPen(
            colour or self.theme.color(style.colour), width=self.theme.line_px, style=PEN_STYLES[style.dash]
        )

    def sample(self, style: SeriesStyle, line: bool = True):
        """A legend sample drawn with a series' style."""
        return LegendMark(
            pen=self.pen(style) if line else None,
            symbol=style.marker,
            symbolBrush=self.theme.color(style.colour),
            symbolPen=None,
            symbolSize=min(self.theme.symbol_px, 18),
        )

    def add_hidden_entries(self) -> None:
        """Hidden series as faint entries (a click shows them again), but not on a projector or a slide: there
        the legend lists only what is drawn."""
        if is_projector(self.theme):
            return
        for name in self.hidden_series:
            self.legend.add_entry(self.sample(style_of(name)), name, series=name, hidden=True)

    def emit_point(self, points) -> None:
        """A scatter's click handler: `points` is an array (truth-testing it raises with several points)."""
        if len(points):
            self.pointClicked.emit(points[0].data().result)


class _Tip:
    """What a chart point carries: its result, and its hover text, made when first asked for (a chart of
    100,000 points formatted 100,000 texts nobody hovered)."""

    __slots__ = ("_make", "_args", "result")

    def __init__(self, make: Callable[..., str], result: Result, *args):
        self._make, self._args, self.result = make, args, result

    @property
    def text(self) -> str:
        return self._make(*self._args)


def _tip(r: Result, source: str, baselines: Baselines | None = None) -> str:
    params = ", ".join(f"{k} {v}" for k, v in r.params.items())
    timing = tr("median {median} ms (min {min}, max {max}, n={n})").format(
        median=sig(r.median_ms), min=sig(r.min_ms), max=sig(r.max_ms), n=len(r.samples_ms)
    )  # never 5.171e+04
    rate = tr("{gflops} GFLOP/s, rel. error {error}").format(
        gflops=f"{r.gflops:,.0f}", error="—" if r.rel_error is None else format(r.rel_error, ".1e")
    )
    return (
        f"{r.variant}{f' ({params})' if params else ''}\n{r.m}×{r.n}×{r.k}\n{timing}\n{rate}"
        + "".join(f"\n{line}" for line in provenance_lines(r, baselines))
        + (f"\n{source_label(source)}" if source else "")
        + (f"\n{r.note}" if r.note else "")
    )


def provenance_lines(r: Result, baselines: Baselines | None) -> list[str]:
    """A GPU point's percentage of cuBLAS ("87% of cuBLAS 13.1") where `baselines` has cuBLAS at its size, then
    its cuBLAS version and the SM clock of its samples, or that they were not recorded (core/session/provenance)."""
    lang = language()
    lines = []
    base = baselines.of(r, "cublas") if baselines is not None and not r.variant.startswith("cublas") else None
    share = baselines.speedup(r, "cublas") if base is not None and baselines is not None else None
    if share is not None and base is not None:
        lines.append(render(provenance.pct_of_cublas(f"{100 * share:.0f}%", base.cublas_version), lang))
    return lines + [render(m, lang) for m in provenance.details(r)]


SOURCE_SUFFIXES = (
    QT_TRANSLATE_NOOP("", " (recorded)"),
    QT_TRANSLATE_NOOP("", " (published)"),
)  # core/session/workspace.py's


def source_label(source: str) -> str:
    """A session's label as a chart shows it: the workspace's English suffixes in the window's language."""
    for suffix in SOURCE_SUFFIXES:
        if source.endswith(suffix):
            return source.removesuffix(suffix) + tr(suffix)
    return source
