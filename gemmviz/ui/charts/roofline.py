"""The roofline chart: a GPU's ceilings as lines, the ridge point, one point per GPU result.

Picking works where points overlap (most of them, at one intensity per kernel): a click on a marker (its
drawn radius plus a few pixels) selects the point nearest in screen pixels and rings it; Tab or N cycles
through the points that overlap the selection. A point above the roof gets one short note on the chart
saying why, placed where it crosses no roof line, with leader lines to the points it explains.
`set_highlight(series)` fades every other series (the lessons use it)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore
from PySide6.QtGui import QFont

from gemmviz.core.charts.style import style_table
from gemmviz.core.hardware.roofline import Ceilings, RooflinePoint
from gemmviz.core.messages import render
from gemmviz.core.session import provenance
from gemmviz.core.session.results import Result
from gemmviz.ui.charts.axes import LegendMark, Log125Axis
from gemmviz.ui.charts.base import LIGHT, ResultChart, Theme, _Tip, plain, source_label
from gemmviz.ui.i18n import language
from gemmviz.ui.text import QT_TRANSLATE_NOOP, tr

# English source texts, drawn through tr()
ABOVE_ROOF_NOTE = QT_TRANSLATE_NOOP("", "above the roof: caches serve traffic the model counts as global")
NOTE_LINES = QT_TRANSLATE_NOOP("", "above the roof: caches serve\ntraffic the model counts as global")
SHORT_NOTE = QT_TRANSLATE_NOOP("", "above the roof:\ncaches")  # where the whole note fits nowhere
HOVER_SCALE, HIGHLIGHT_SCALE = 1.5, 1.3  # a point's marker under the mouse, and in a lesson's highlighted series
# a roofline's points are its whole message, a few on a large plot: larger than a line chart's markers (at the
# theme's 14 px they read as specks on a projected 1080p slide)
POINT_SCALE = 1.5
PICK_SLACK_PX = 5  # a click this far outside a marker's edge still picks it
CYCLE_KEYS = (QtCore.Qt.Key.Key_Tab, QtCore.Qt.Key.Key_N)


class RooflineChart(ResultChart):
    """Log-log roofline: the GPU's ceilings as lines, the ridge point, one point per GPU result."""

    title = QT_TRANSLATE_NOOP("", "Roofline")
    x_label = QT_TRANSLATE_NOOP("", "arithmetic intensity (FLOP / byte of global traffic, from the model)")
    y_label = QT_TRANSLATE_NOOP("", "GFLOP/s (measured)")
    x_label_short = QT_TRANSLATE_NOOP("", "FLOP / byte (model)")

    def __init__(self, theme: Theme = LIGHT, parent=None):
        self.ceilings: Ceilings | None = None
        self.points: list[RooflinePoint] = []
        self.highlight: set[str] = set()
        self.selected: int | None = None  # index into self.points
        self.candidates: list[int] = []  # the points overlapping the selection, nearest first
        self.above_roof_note: pg.TextItem | None = None
        self.bandwidth_label: pg.TextItem | None = None
        self._roofs: list[np.ndarray] = []  # each ceiling line drawn, as (log10 x, log10 y) vertices
        self._leader: pg.PlotDataItem | None = None  # from the note to its point
        self._xy = np.zeros((0, 2))
        self._ring = None
        axes = {"left": Log125Axis("left", compact=True), "bottom": Log125Axis("bottom", compact=True)}
        super().__init__(theme, parent, axisItems=axes)  # short ticks (1k, 100k): the plot keeps its width
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.scene().sigMouseClicked.connect(self._on_click)
        # the notes are placed once after the resizes of one event-loop turn (a search over ~10^5 spots each)
        self._place_timer = QtCore.QTimer(self, singleShot=True, interval=0, timeout=self._place_labels)
        self.getPlotItem().getViewBox().sigResized.connect(lambda _vb: self._queue_place())

    def set_highlight(self, series: Iterable[str] | None) -> None:
        """Draw these series' points full size and fade the others; None or empty: all as normal."""
        self.highlight = set(series or ())
        self.set_results(self.results)

    # ---- drawing ----------------------------------------------------------------------------------
    def draw(self, plot: pg.PlotItem) -> None:
        from gemmviz.core.hardware.roofline import roofline_points

        plot.clear()
        self._legend_key = None
        self._placed_at: tuple | None = None  # new texts: placed again
        self.reset_legend()
        by_source: dict[str, list[Result]] = defaultdict(list)
        for r in self.results:
            by_source[self.source_of(r)].append(r)
        # one call per source: a result's % of cuBLAS is against cuBLAS measured on the same machine
        self.points = [p for rs in by_source.values() for p in roofline_points(rs, self.ceilings)]
        self._xy = np.array([(math.log10(p.intensity), math.log10(p.gflops)) for p in self.points]).reshape(-1, 2)
        self.selected, self.candidates = None, []
        self._roofs, self.bandwidth_label, self._leader = [], None, None
        c = self.ceilings
        xs_all = [p.intensity for p in self.points] or [0.25, 1000]
        x_lo, x_hi = min(0.1, min(xs_all) / 2), max(1000, max(xs_all) * 2)
        ys_all = [p.gflops for p in self.points]
        fg = self.theme.foreground
        if c is not None:
            title = tr("Roofline of {device}").format(device=c.device)
            xs = np.logspace(math.log10(x_lo), math.log10(x_hi), 200)
            for value, name, style in (
                # short names, so that the legend beside the plot holds them and the series at 720p: the
                # tooltips and the explanation say which is computed and which measured
                (c.fp32_peak_gflops, tr("FP32 peak"), QtCore.Qt.PenStyle.SolidLine),
                (c.fp32_gemm_gflops, tr("cuBLAS FP32"), QtCore.Qt.PenStyle.DashLine),
                (c.tf32_gemm_gflops, tr("cuBLAS TF32"), QtCore.Qt.PenStyle.DotLine),
            ):
                if not value:
                    continue
                ys = np.minimum(c.bandwidth_gbs * xs, value) if c.bandwidth_gbs else np.full_like(xs, value)
                ys_all += [float(ys.min()), value]
                pen = pg.mkPen(fg, width=self.theme.line_px, style=style)
                plot.addItem(pg.PlotCurveItem(np.log10(xs), np.log10(ys), pen=pen))  # a line alone, no markers
                self.legend.add_entry(LegendMark(pen=pen), name)
                self._roofs.append(np.column_stack([np.log10(xs), np.log10(ys)]))
            if c.bandwidth_gbs:
                label = pg.TextItem(
                    tr("{bandwidth} GB/s (measured copy)").format(bandwidth=f"{c.bandwidth_gbs:,.0f}"),
                    color=fg,
                    anchor=(0, 0),
                    angle=0,
                )
                label.setFont(self._font())
                label.setPos(math.log10(x_lo * 1.5), math.log10(c.bandwidth_gbs * x_lo * 1.5))
                plot.addItem(label)
                self.bandwidth_label = label
            if c.ridge and c.fp32_peak_gflops:
                ridge = pg.ScatterPlotItem(
                    [math.log10(c.ridge)],
                    [math.log10(c.fp32_peak_gflops)],
                    symbol="d",
                    size=self.theme.symbol_px * 1.6,
                    brush=pg.mkBrush(fg),
                    pen=pg.mkPen(fg),
                )
                plot.addItem(ridge)
                sample = LegendMark(symbol="d", symbolBrush=fg, symbolSize=self.theme.symbol_px * 1.6)
                self.legend.add_entry(sample, tr("ridge {ridge} FLOP/B").format(ridge=f"{c.ridge:.1f}"))
        else:
            title = tr("Roofline: no ceilings measured for this GPU (run gemmviz ceilings on it)")
        plot.setTitle(plain(title), color=fg, size=f"{self.theme.font_pt + 2}pt")
        # the range before the points: pyqtgraph's auto-range, ended by setting it, measured them all first
        y_lo, y_hi = (math.log10(min(ys_all)) - 0.3, math.log10(max(ys_all)) + 0.6) if ys_all else (0, 5)
        plot.setXRange(math.log10(x_lo), math.log10(x_hi), padding=0)
        plot.setYRange(y_lo, y_hi, padding=0)
        self._draw_points(plot)
        self.add_hidden_entries()
        self._note_above_roof(plot)
        self._ring = ring = pg.ScatterPlotItem(
            size=self.theme.symbol_px * 2.4, symbol="o", brush=None, pen=pg.mkPen(fg, width=self.theme.line_px)
        )
        ring.setZValue(10)
        plot.addItem(ring)

    def _font(self) -> QFont:
        font = QFont()
        font.setPointSize(self.theme.font_pt)
        return font

    def _draw_points(self, plot: pg.PlotItem) -> None:
        groups: dict[tuple[str, str], list] = defaultdict(list)
        for p in self.points:
            groups[(self.source_of(p.result), p.result.series)].append(p)
        styles = style_table(groups)
        named = set()
        for key in sorted(groups, key=lambda k: (styles[k].marker, styles[k].colour, k)):
            source, name = key
            pts, style = groups[key], styles[key]
            faded = bool(self.highlight) and name not in self.highlight
            tips = [_Tip(self._tip, p.result, p, source) for p in pts]
            scatter = pg.ScatterPlotItem(
                np.log10([p.intensity for p in pts]),
                np.log10([p.gflops for p in pts]),
                size=POINT_SCALE * self.theme.symbol_px * (HIGHLIGHT_SCALE if self.highlight and not faded else 1.0),
                symbol=style.marker,
                brush=pg.mkBrush(self.theme.color(style.colour)),
                pen=pg.mkPen(self.theme.background),
                hoverable=True,
                data=tips,
                tip=lambda x, y, data: plain(data.text),
                hoverSize=POINT_SCALE * self.theme.symbol_px * HOVER_SCALE,
            )
            if faded:
                scatter.setOpacity(0.25)
            plot.addItem(scatter)
            if name not in named:
                named.add(name)
                self.legend.add_entry(self.sample(style, line=False), name, series=name)

    def _note_above_roof(self, plot: pg.PlotItem) -> None:
        """One note, beside the point furthest above its roof (placed by _place_labels once laid out)."""
        self.above_roof_note = None
        above = [i for i, p in enumerate(self.points) if p.cache_served]
        if not above:
            return
        i = max(above, key=lambda j: self.points[j].pct_of_roof or 0.0)
        note = pg.TextItem(tr(NOTE_LINES), color=self.theme.foreground, anchor=(0, 0))
        note.setFont(self._font())
        note.setPos(*self._xy[i])
        plot.addItem(note)
        self.above_roof_note = note
        self._note_xy = tuple(self._xy[i])
        self._place_labels()

    def fit_legend(self) -> None:
        super().fit_legend()
        self._place_labels()

    def _queue_place(self) -> None:
        timer = getattr(self, "_place_timer", None)  # None during the view's own set-up
        if timer is not None:
            timer.start()

    def _place_labels(self) -> None:
        """Put the bandwidth label by its line and the above-the-roof note by its point, each where it crosses
        no roof line and covers the fewest points, nearest to where it belongs among those; shorter texts where
        the whole one fits nowhere (a small pane), none where nothing fits (the point's tooltip says it too)."""
        plot = self.getPlotItem() if getattr(self, "_legend", None) is not None else None
        if plot is None:
            return  # the view's own set-up (nothing drawn yet), or the chart is closing
        if not self.isVisible():
            return  # placed when shown (showEvent fits the legend, then places), at the size it has then: an
            # export's chart placed its notes at a new widget's 640x480 first, 40 ms of a 4K dashboard
        vb = plot.getViewBox()
        box = vb.sceneBoundingRect()
        if box.width() <= 0 or box.height() <= 0:
            return  # not laid out yet
        o = vb.mapViewToScene(QtCore.QPointF(0, 0))
        u = vb.mapViewToScene(QtCore.QPointF(1, 1))
        # placed again only where the plot moved or was rescaled since the texts were placed (or they are new):
        # a layout calls this after each resize and legend fit, mostly with the plot where it was
        at = (box.x(), box.y(), box.width(), box.height(), o.x(), o.y(), u.x(), u.y())
        if at == getattr(self, "_placed_at", None):
            return
        self._placed_at = at
        scale = np.array([u.x() - o.x(), u.y() - o.y()])

        def to_scene(xy) -> np.ndarray:
            return np.asarray(xy, float) * scale + (o.x(), o.y())

        roofs = [_dense(to_scene(r), 2.0) for r in self._roofs]
        room = _Room(
            vb, roofs, to_scene(self._xy) if len(self._xy) else np.zeros((0, 2)), self.theme.symbol_px * 0.8 + 2
        )
        label = self.bandwidth_label
        if label is not None and roofs and self.ceilings is not None:
            line = roofs[0]
            left = line[line[:, 0] >= box.left() + box.width() * 0.1]  # by the line, towards its lower end
            bw = self.ceilings.bandwidth_gbs
            room.place(
                label, [(label.toPlainText(), None), (f"{bw:,.0f} GB/s", None)], left[0] if len(left) else line[0]
            )
        if self._leader is not None:
            self._leader.setData([], [])
        note = self.above_roof_note
        if note is not None:
            spot = to_scene(self._note_xy)
            w = box.width()
            lines = tr(NOTE_LINES)
            options = [(lines, None), (lines, w * 0.45), (lines, w * 0.3), (tr(SHORT_NOTE), None)]
            rect = room.place(note, options, spot)
            if rect is not None:
                self._draw_leader(vb, rect, spot, roofs, room.gap)

    def _draw_leader(self, vb: pg.ViewBox, rect: QtCore.QRectF, at: np.ndarray, roofs, gap: float) -> None:
        """Thin lines from the note to the points it explains: to its own point always (a note floating beside
        a point was read as the label of another), to every other point above its roof where that line crosses
        no roof line."""
        above = [j for j, p in enumerate(self.points) if p.cache_served]
        o = vb.mapViewToScene(QtCore.QPointF(0, 0))
        u = vb.mapViewToScene(QtCore.QPointF(1, 1))
        scale = np.array([u.x() - o.x(), u.y() - o.y()])
        targets = [at] + [self._xy[j] * scale + (o.x(), o.y()) for j in above]
        roof = np.concatenate(roofs) if roofs else np.zeros((0, 2))  # one distance pass over all the roof lines
        xs, ys, seen = [], [], set()
        for n, target in enumerate(targets):
            key = (round(float(target[0])), round(float(target[1])))
            if key in seen:
                continue  # the same point (or one drawn on it) once
            seen.add(key)
            start = np.array(
                [min(max(target[0], rect.left()), rect.right()), min(max(target[1], rect.top()), rect.bottom())]
            )
            length = float(np.hypot(*(start - target)))
            if length < gap:
                continue  # the note touches its marker
            end = start + (target - start) * (1 - gap / 2 / length)  # stop short of the marker
            if n and _segment_px(start, end, roof) < 3:
                continue
            for q in (vb.mapSceneToView(QtCore.QPointF(*p)) for p in (start, end)):
                xs.append(q.x())
                ys.append(q.y())
        if not xs:
            return
        if self._leader is None:
            self._leader = pg.PlotDataItem(
                pen=pg.mkPen(self.theme.foreground, width=max(1.5, self.theme.line_px / 2)), connect="pairs"
            )
            self.getPlotItem().addItem(self._leader)
        self._leader.setData(xs, ys, connect="pairs")

    @staticmethod
    def _tip(p, source: str) -> str:
        r = p.result
        roof = (
            tr("{pct}% of the roof here ({roof} GFLOP/s)").format(pct=f"{p.pct_of_roof:.0f}", roof=f"{p.roof:,.0f}")
            if p.roof
            else tr("no roof measured")
        )
        cub = (  # which cuBLAS: "87% of cuBLAS 13.1", or that the session did not record it (core/session/provenance)
            ", " + render(provenance.pct_of_cublas(f"{p.pct_of_cublas:.0f}%", p.cublas_version), language())
            if p.pct_of_cublas is not None
            else ""
        )
        above = f"\n{tr(ABOVE_ROOF_NOTE)}" if p.cache_served else ""
        head = tr("{series} at {size}").format(series=r.series, size=r.problem.label)
        figures = tr("{intensity} FLOP/byte, {gflops} GFLOP/s").format(
            intensity=f"{p.intensity:,.2f}", gflops=f"{p.gflops:,.0f}"
        )
        return f"{head}\n{figures}\n{roof}{cub}{above}" + (f"\n{source_label(source)}" if source else "")

    # ---- picking --------------------------------------------------------------------------------------
    def _screen_xy(self) -> np.ndarray:
        """The points' positions in scene pixels."""
        vb = self.getPlotItem().getViewBox()
        out = np.zeros_like(self._xy)
        for i, (x, y) in enumerate(self._xy):
            pos = vb.mapViewToScene(QtCore.QPointF(float(x), float(y)))
            out[i] = (pos.x(), pos.y())
        return out

    def pick_radius(self) -> float:
        """How far from a point's centre a click still picks it: the radius of its marker as drawn at its
        largest (hovered, or highlighted by a lesson) plus a few pixels."""
        return POINT_SCALE * self.theme.symbol_px * max(HOVER_SCALE, HIGHLIGHT_SCALE) / 2 + PICK_SLACK_PX

    def pick(self, scene_pos: QtCore.QPointF) -> Result | None:
        """Select the point nearest to `scene_pos` (within a few pixels of its marker); the points that
        overlap it become the ones Tab/N cycles through. Returns the selected result, or None."""
        if len(self._xy) == 0:
            return None
        screen = self._screen_xy()
        d = np.hypot(screen[:, 0] - scene_pos.x(), screen[:, 1] - scene_pos.y())
        nearest = int(np.argmin(d))
        if d[nearest] > self.pick_radius():
            self.select(None)
            return None
        around = np.hypot(screen[:, 0] - screen[nearest, 0], screen[:, 1] - screen[nearest, 1])
        overlapping = [int(i) for i in np.argsort(d, kind="stable") if around[i] <= 2 * self.pick_radius()]
        self.candidates = overlapping
        self.select(nearest)
        return self.points[nearest].result

    def cycle(self) -> Result | None:
        """Select the next of the overlapping points (wraps round)."""
        if len(self.candidates) < 2 or self.selected not in self.candidates:
            return None
        nxt = self.candidates[(self.candidates.index(self.selected) + 1) % len(self.candidates)]
        self.select(nxt)
        return self.points[nxt].result

    def select(self, index: int | None) -> None:
        self.selected = index
        if self._ring is None:
            return
        if index is None:
            self.candidates = []
            self._ring.setData([], [])
            return
        x, y = self._xy[index]
        self._ring.setData([x], [y])
        self.pointClicked.emit(self.points[index].result)

    def _on_click(self, event) -> None:
        # the scatter under the click has accepted it already (pyqtgraph's own point click): pick anyway
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            if self.getPlotItem().getViewBox().sceneBoundingRect().contains(event.scenePos()):
                self.pick(event.scenePos())
                self.setFocus()

    def event(self, ev) -> bool:
        # Tab would move the focus on: while points overlap the selection it cycles through them instead
        if ev.type() == QtCore.QEvent.Type.KeyPress and ev.key() in CYCLE_KEYS and len(self.candidates) > 1:
            self.cycle()
            return True
        return super().event(ev)


def _text_size(item: pg.TextItem) -> tuple[float, float]:
    r = item.textItem.boundingRect()
    return r.width(), r.height()


def _dense(line: np.ndarray, step_px: float) -> np.ndarray:
    """The polyline's vertices with points added so that no two neighbours are more than `step_px` apart."""
    if len(line) < 2:
        return line[:1]
    a, d = line[:-1], np.diff(line, axis=0)  # each segment's start and its step to the next vertex
    n = np.maximum(1, np.ceil(np.hypot(d[:, 0], d[:, 1]) / step_px).astype(int))
    seg = np.repeat(np.arange(len(d)), n)  # the segment of each added point, and its 1 .. n along it
    k = np.arange(len(seg)) - np.repeat(np.cumsum(n) - n, n) + 1
    return np.concatenate([line[:1], a[seg] + d[seg] * (k / n[seg])[:, None]])  # one pass, not a loop per segment


class _Room:
    """Where texts may go in a plot (scene pixels): inside `inner`, crossing no roof line, apart from each
    other, covering as few points as they can."""

    MAX_TRIES = 4000
    CHUNK = 128  # spots tested at once

    def __init__(self, vb: pg.ViewBox, roofs: list[np.ndarray], points: np.ndarray, gap: float):
        self.vb, self.points, self.gap = vb, points, gap
        self.inner = vb.sceneBoundingRect().adjusted(4, 4, -4, -4)
        self.roof = np.concatenate(roofs) if roofs else np.zeros((0, 2))
        self.placed: list[QtCore.QRectF] = []

    def place(self, item: pg.TextItem, options: list[tuple[str, float | None]], near) -> QtCore.QRectF | None:
        """Set `item` to the first workable of `options` ((text, wrap width or None)) at the free spot nearest
        to `near`; a later option must be nearer by two lines of text to be chosen. Hides the item where none
        fits; returns its rectangle."""
        spots = []  # (cost, x, y, w, h, rank) per spot, as arrays: ~10^5 spots, costed at once
        for rank, (text, width) in enumerate(options):
            item.setText(text)
            item.setTextWidth(-1 if width is None else max(60.0, width))
            w, h = _text_size(item)
            x, y = self._spots(w, h, near)
            dx = np.maximum(np.maximum(x - near[0], 0.0), near[0] - (x + w))
            dy = np.maximum(np.maximum(y - near[1], 0.0), near[1] - (y + h))
            n = len(x)
            spots.append((np.hypot(dx, dy) + rank * 2 * h, x, y, np.full(n, w), np.full(n, h), np.full(n, rank)))
        cost, xs, ys, ws, hs, ranks = (np.concatenate(c) for c in zip(*spots))
        order = np.argsort(cost, kind="stable")[: self.MAX_TRIES]  # nearest first, ties in the order made
        best = None
        g = self.gap * 0.75  # a marker's radius and a little: a text beside a dot's edge covers it too
        for start in range(0, len(order), self.CHUNK):
            # a chunk of spots tested at once against the roof lines and the points (a numpy pass per spot was most
            # of a placement), on the rectangles' edges as Qt computes them, so each spot is judged as before
            chunk = order[start : start + self.CHUNK]
            rects = [QtCore.QRectF(float(xs[i]), float(ys[i]), float(ws[i]), float(hs[i])) for i in chunk]
            crossed = np.asarray(_inside_each(self.roof, [r.adjusted(-3, -3, 3, 3) for r in rects]).any(axis=1))
            covers = _inside_each(self.points, [r.adjusted(-g, -g, g, g) for r in rects]).sum(axis=1)
            for j, i in enumerate(chunk):
                cost_i, rank, rect = float(cost[i]), int(ranks[i]), rects[j]
                if any(rect.intersects(p) for p in self.placed) or crossed[j]:
                    continue
                covered = int(covers[j])
                if best is None or (covered, cost_i) < best[0]:
                    best = ((covered, cost_i), rect, rank)
                if covered == 0:
                    break  # the nearest of the spots that cover nothing (sorted by cost)
            else:
                continue
            break
        item.setVisible(best is not None)
        if best is None:
            return None
        _, rect, rank = best
        text, width = options[rank]
        item.setText(text)
        item.setTextWidth(-1 if width is None else max(60.0, width))
        item.setAnchor((0, 0))
        item.setPos(self.vb.mapSceneToView(rect.topLeft()))
        self.placed.append(rect)
        return rect

    def _spots(self, w: float, h: float, near) -> tuple[np.ndarray, np.ndarray]:
        """The top-left corners (x, y) of w x h rectangles inside the room: beside `near` and on a grid over the
        whole room, x-major as the search ranks ties."""
        box = self.inner
        if w > box.width() or h > box.height():
            return np.zeros(0), np.zeros(0)
        g = self.gap
        xs = np.array([near[0] + g, near[0] - g - w, near[0] - w / 2, *np.linspace(box.left(), box.right() - w, 24)])
        ys = np.array(
            [near[1] + g, near[1] - g - h, near[1] - h / 2, *np.arange(box.top(), box.bottom() - h, max(4.0, h / 4))]
        )
        x, y = (a.ravel() for a in np.meshgrid(xs, ys, indexing="ij"))
        keep = (box.left() <= x) & (x <= box.right() - w) & (box.top() <= y) & (y <= box.bottom() - h)
        return x[keep], y[keep]


def _segment_px(start: np.ndarray, end: np.ndarray, points: np.ndarray) -> float:
    """The smallest distance from the segment start-end to a point of `points` (N x 2), in one pass: the
    segment is not densified into points against every roof point (that pairwise matrix, hundreds of times per
    layout, was most of a 4K roofline export's time)."""
    if not len(points):
        return math.inf
    d = np.asarray(end, float) - np.asarray(start, float)
    rel = points - start
    length2 = float(d @ d)
    t = np.clip(rel @ d / length2, 0.0, 1.0) if length2 > 0 else np.zeros(len(points))
    return float(np.sqrt(((rel - t[:, None] * d) ** 2).sum(axis=1)).min())


def _edges(rects: list[QtCore.QRectF]) -> tuple[np.ndarray, ...]:
    """Each rectangle's left, right, top and bottom as columns (Qt's own values, as QRectF's edges compare)."""
    return tuple(
        np.array([[f(r) for r in rects]]).T
        for f in (QtCore.QRectF.left, QtCore.QRectF.right, QtCore.QRectF.top, QtCore.QRectF.bottom)
    )


def _inside_each(xy: np.ndarray, rects: list[QtCore.QRectF]) -> np.ndarray:
    """Per rectangle (rows) and point (columns): whether the point lies inside it, edges included; only the points
    inside the rectangles' common bounds are columns (no other can be inside one)."""
    if not len(xy) or not rects:
        return np.zeros((len(rects), 0), bool)
    left, right, top, bottom = _edges(rects)
    near = (xy[:, 0] >= left.min()) & (xy[:, 0] <= right.max()) & (xy[:, 1] >= top.min()) & (xy[:, 1] <= bottom.max())
    x, y = xy[near, 0], xy[near, 1]
    return (x >= left) & (x <= right) & (y >= top) & (y <= bottom)
