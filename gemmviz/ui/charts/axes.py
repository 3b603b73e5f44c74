"""Axes and legend shared by the charts: log axes that tick at 1-2-5 values, size ticks at powers of two, and
a legend that sits in its own column right of the plot, wraps into columns and shrinks its text to fit the
chart's height (so it never covers data and is never clipped), and toggles a series on click."""

from __future__ import annotations

import math
from contextlib import contextmanager

import pyqtgraph as pg
from pyqtgraph.graphicsItems.GraphicsWidget import GraphicsWidget
from pyqtgraph.graphicsItems.GraphicsWidgetAnchor import GraphicsWidgetAnchor
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from gemmviz.ui.text import plain, tr


def ticks_125(lo: float, hi: float, max_ticks: int) -> list[float]:
    """Tick values (log10 of 1-2-5 numbers) between log10 values `lo` and `hi`, at most `max_ticks` of them:
    1, 2, 5 per decade if they fit, else 1 per decade, else every second (third, ...) decade."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return []
    first, last = math.floor(lo) - 1, math.ceil(hi) + 1
    for mantissas, every in (((1, 2, 5), 1), ((1,), 1), ((1,), 2), ((1,), 3), ((1,), 5), ((1,), 10)):
        values = [e + math.log10(m) for e in range(first, last + 1) if e % every == 0 for m in mantissas]
        values = [v for v in values if lo - 1e-9 <= v <= hi + 1e-9]
        if len(values) <= max(2, max_ticks):
            return values
    return values


def number_label(x: float, suffix: str = "", compact: bool = False) -> str:
    """A 1-2-5 value as people write it: 0.05, 0.5, 2, 50, 1,000, 20,000; `compact`: 1k, 20k, 1M (a narrow
    axis)."""
    if compact and x >= 1000:
        for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if x >= div:
                return f"{x / div:g}{unit}{suffix}"
    if x >= 1:
        return f"{x:,.0f}{suffix}"
    return f"{x:.{max(0, -math.floor(math.log10(x) + 1e-9))}f}{suffix}"


class RoomyAxis(pg.AxisItem):
    """pyqtgraph reserves 0.8 of the axis label's height and nudges the label 5 px outwards, so at projector
    sizes the label's box overlaps the tick labels: reserve its whole height plus the nudge."""

    NUDGE = 5

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # no SI prefix on gemmviz's axes (their labels name their units), from the start: each range change
        # during a chart's set-up set the label's HTML again to rescale it
        self.enableAutoSIPrefix(False)

    def _extra(self) -> float:
        if self.label is None or not self.label.isVisible():
            return 0.0
        return self.label.boundingRect().height() * 0.2 + self.NUDGE + 2

    def _updateHeight(self):
        super()._updateHeight()
        if self.fixedHeight is None and self.isVisible():
            h = self.maximumHeight() + self._extra()
            self.setMaximumHeight(h)
            self.setMinimumHeight(h)

    def _updateWidth(self):
        super()._updateWidth()
        if self.fixedWidth is None and self.isVisible():
            w = self.maximumWidth() + self._extra()
            self.setMaximumWidth(w)
            self.setMinimumWidth(w)


class Log125Axis(RoomyAxis):
    """An axis over log10 values whose ticks fall on 1-2-5 numbers, labelled with `suffix` (e.g. "×"), as short
    numbers (1k, 1M) where `compact`. Where only some decades are labelled, the 2s and 5s between them (or the
    decades) are unlabelled minor ticks."""

    def __init__(self, orientation: str, suffix: str = "", compact: bool = False, **kwargs):
        super().__init__(orientation, **kwargs)
        self.suffix = suffix
        self.compact = compact

    def tickValues(self, minVal, maxVal, size):
        font = self.style.get("tickFont") or QtGui.QFont()
        metrics = QtGui.QFontMetricsF(font)
        # a label needs about 1.6 line heights vertically; horizontally the widest label and a gap
        if self.orientation in ("left", "right"):
            need = metrics.height() * 1.6
        else:
            lo, hi = math.floor(minVal), math.ceil(maxVal)
            widest = max(metrics.horizontalAdvance(self._label(10.0**v)) for v in range(lo, hi + 1))
            need = widest + metrics.height() * 0.6
        major = ticks_125(minVal, maxVal, int(size // need))
        minor = [v for v in ticks_125(minVal, maxVal, 10**6) if all(abs(v - m) > 1e-9 for m in major)]
        return [(1.0, major), (0.5, minor)]

    def _label(self, x: float) -> str:
        return number_label(x, self.suffix, self.compact)

    def tickStrings(self, values, scale, spacing):
        if spacing < 1.0:  # the minor ticks: unlabelled
            return ["" for _ in values]
        return [self._label(10**v) for v in values]


def size_ticks(sizes: list[float], max_ticks: int = 7) -> list[list[tuple[float, str]]]:
    """Ticks at powers of two (in log10 coordinates) covering the sizes: 256, 512, 1k, 2k, … (at most
    `max_ticks`, taking every second, third, … power where more would not fit)."""
    if not sizes:
        return [[]]
    # a cube root's rounding (255.99999999999991 for 256³) must not start the ticks at 128: with every second
    # power taken, 128, 512, 2k … left 256 unticked
    lo, hi = math.floor(math.log2(min(sizes)) + 1e-9), math.ceil(math.log2(max(sizes)) - 1e-9)
    every = max(1, math.ceil((hi - lo + 1) / max(1, max_ticks)))
    major = [
        (math.log10(2**e), f"{2**e // 1024}k" if e >= 10 else str(2**e))
        for e in range(lo, hi + 1)
        if (e - lo) % every == 0
    ]
    return [major, []]


class SizeAxis(RoomyAxis):
    """A size axis (log10 coordinates) ticked at powers of two, as many as its width holds."""

    def __init__(self, orientation: str = "bottom", **kwargs):
        super().__init__(orientation, **kwargs)
        self.sizes: list[float] = []

    LABEL_OVERHANG = 48  # px a tick label may reach past the axis's ends

    def boundingRect(self):
        """The first size (256) sits at the axis's left end: its label reaches past it, and pyqtgraph hides a
        label outside the axis's box (with a grid, the view's box): the main charts had no 256 tick."""
        rect = super().boundingRect()
        return rect.adjusted(-self.LABEL_OVERHANG, 0, self.LABEL_OVERHANG, 0)

    def set_sizes(self, sizes: list[float]) -> None:
        self.sizes = list(sizes)
        self.picture = None
        self.update()

    def tickValues(self, minVal, maxVal, size):
        return [(1.0, [v for v, _ in self._ticks(size)[0]])]

    def tickStrings(self, values, scale, spacing):
        powers = [2 ** round(math.log2(10**v)) for v in values]
        return [f"{p // 1024}k" if p >= 1024 else str(p) for p in powers]

    def _ticks(self, size: float) -> list[list[tuple[float, str]]]:
        font = self.style.get("tickFont")
        pt = font.pointSizeF() if font is not None and font.pointSizeF() > 0 else 10
        label_px = pt * 96 / 72 * 2.6  # "512" plus a gap
        return size_ticks(self.sizes, min(7, int(size // label_px)))


def wrap_words(text: str, width_of, width: float) -> list[str]:
    """`text` in lines no wider than `width` (as `width_of` measures), broken at spaces, a parenthesis starting
    a line of its own where that is enough ("gpu-naive" / "(block 16)"); a word wider than `width` keeps
    a line to itself."""
    if width_of(text) <= width:
        return [text]
    head, sep, tail = text.rpartition(" (")
    if sep and width_of(head) <= width and width_of("(" + tail) <= width:
        return [head, "(" + tail]
    lines: list[str] = []
    for word in text.split(" "):
        if lines and width_of(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


class LegendMark:
    """What a legend sample draws (the options _Sample.paint reads: a line's pen, a marker's symbol, size, pen
    and brush) without a plot item: a PlotDataItem made only to be a legend's sample cost 2.4 ms (its curve,
    scatter and signals), a third of a chart's legend."""

    __slots__ = ("opts",)

    def __init__(self, pen=None, symbol=None, symbolBrush=None, symbolPen=None, symbolSize: float = 10):
        self.opts = {
            "pen": pen,
            "symbol": symbol,
            "symbolBrush": symbolBrush,
            "symbolPen": symbolPen,
            "symbolSize": symbolSize,
        }


class _Sample(pg.ItemSample):
    """A legend sample: a short piece of the series' line with its marker in the middle, sized to the label's
    row (pyqtgraph's own is a fixed 20 px box and draws the marker of an empty item in a default colour).
    A click goes to the legend (which toggles the series); a hidden series' sample is faint."""

    def __init__(self, item, hidden: bool = False):
        super().__init__(item)
        self.hidden = hidden
        self.box = QtCore.QSizeF(20, 20)
        if hidden:
            self.setOpacity(0.3)

    def set_height(self, h: float) -> None:
        self.box = QtCore.QSizeF(round(h * 1.6), h)
        self.setFixedWidth(self.box.width())
        self.setFixedHeight(h)
        self.update()

    def boundingRect(self):
        return QtCore.QRectF(QtCore.QPointF(0, 0), self.box)

    def paint(self, p, *args):
        opts = self.item.opts
        w, h = self.box.width(), self.box.height()
        p.setRenderHint(p.RenderHint.Antialiasing)
        if isinstance(self.item, pg.BarGraphItem):
            p.setPen(pg.mkPen(opts.get("pen")))
            p.setBrush(pg.mkBrush(opts.get("brush")))
            p.drawRect(QtCore.QRectF(w * 0.2, h * 0.1, w * 0.6, h * 0.8))
            return
        if isinstance(self.item, pg.ScatterPlotItem):
            symbol, size, pen, brush = opts["symbol"], opts["size"], opts["pen"], opts["brush"]
        else:
            if opts.get("pen") is not None:
                p.setPen(pg.mkPen(opts["pen"]))
                p.drawLine(QtCore.QPointF(0, h / 2), QtCore.QPointF(w, h / 2))
            symbol, size, pen, brush = opts.get("symbol"), opts["symbolSize"], opts["symbolPen"], opts["symbolBrush"]
        if symbol is not None:
            p.translate(w / 2, h / 2)
            drawSymbol(p, symbol, min(size, h * 0.9), pg.mkPen(pen), pg.mkBrush(brush))

    def mouseClickEvent(self, event):
        event.ignore()


class _EntryLabel(pg.LabelItem):
    """A legend entry's label, its text set once when made: pyqtgraph's LabelItem set a blank text and laid it out
    first, and turned it to the angle 0 it has."""

    def __init__(self, text: str, **opts):
        GraphicsWidget.__init__(self)
        GraphicsWidgetAnchor.__init__(self)
        self.item = QtWidgets.QGraphicsTextItem(self)
        self.item.document().setDocumentMargin(1)  # rows as tall as their text, not 8 px more
        self.opts = {"color": None, "justify": "center", **opts}
        self._sizeHint: dict = {}
        self.angle = 0
        self.setText(text)


_SCRATCH: list[QtWidgets.QGraphicsTextItem] = []


def _scratch_text() -> QtWidgets.QGraphicsTextItem:
    """A text item in no scene, with a legend label's document margin, to measure a label's HTML without
    setting it (and laying out its label)."""
    if not _SCRATCH:
        item = QtWidgets.QGraphicsTextItem()
        item.document().setDocumentMargin(1)
        _SCRATCH.append(item)
    return _SCRATCH[0]


class SeriesLegend(pg.LegendItem):
    """Entries (sample, label) stacked from the top, each a compact row with the sample beside its label on the
    same centre line, wrapping into columns (filled top to bottom) only when the height needs it. The legend
    is exactly as big as its entries, so the layout it sits in never spreads them over its height. A click
    on an entry that names a series emits `toggled(series)`."""

    toggled = QtCore.Signal(str)
    ROW_GAP = 2  # px between rows
    COLUMN_GAP = 16  # px between columns
    _batch = 0  # inside `batch()`: entries are laid out once, at its end
    _stale = False
    _entries = 0  # counts changes of the entries (clear, add_entry): a fit of the same entries is remembered
    # the last fit's arguments and entries, and the state it left: the same fit again is skipped
    _fitted: tuple | None = None
    # the entries' full names measured per text size (_measure): (the entries' count of changes, {size: (h, w)})
    _measured: tuple[int, dict[str, tuple[float, float]]] = (-1, {})

    def __init__(self):
        super().__init__(horSpacing=6, verSpacing=self.ROW_GAP)
        self.entry_series: list[str | None] = []
        self.entry_hidden: list[bool] = []
        self.names: list[str] = []  # the entries' full names (a label may show them wrapped)
        self.capacity: int | None = None  # how many entries fit (set by fit); the rest are summed up in `more`
        self.more = pg.LabelItem("", justify="left")
        self.more.setParentItem(self)
        self.more.setVisible(False)
        self.setFlag(self.GraphicsItemFlag.ItemClipsChildrenToShape, False)
        policy = QtWidgets.QSizePolicy.Policy.Fixed
        self.setSizePolicy(policy, policy)

    @contextmanager
    def batch(self):
        """Add (or clear) many entries, laid out once at the end: a relayout per entry measured every label
        again (459 relayouts in one dashboard export, quadratic in the entries)."""
        self._batch += 1
        try:
            yield self
        finally:
            self._batch -= 1
            if self._batch == 0 and self._stale:
                self._relayout()

    def _relayout_now(self) -> None:
        if self._batch:
            self._stale = True
        else:
            self._relayout()

    def clear(self) -> None:
        grid = self.layout
        for i in range(grid.count() - 1, -1, -1):
            grid.removeAt(i)
        for sample, label in self.items:
            for item in (sample, label):
                item.close()
                if item.scene():  # PySide keeps closed items in the scene otherwise (pyqtgraph does the same)
                    item.scene().removeItem(item)
        self.items: list = []
        self.entry_series = []
        self.entry_hidden = []
        self.names = []
        self._entries += 1
        self._relayout_now()

    def add_entry(self, item, name: str, series: str | None = None, hidden: bool = False) -> None:
        """An entry labelled `name` (plain text; escaped here); `series` makes it a toggle."""
        # pyqtgraph's addItem, with the label's text set once: its label set the name, then the margin below
        # needed it set again (two HTML layouts per entry)
        label = _EntryLabel(
            plain(name), color=self.opts["labelTextColor"], justify="left", size=self.opts["labelTextSize"]
        )
        sample = _Sample(item, hidden)
        sample.sigClicked.connect(self.sigSampleClicked)
        self.items.append((sample, label))
        self.updateSize()
        self.entry_series.append(series)
        self.entry_hidden.append(hidden)
        self.names.append(name)
        self._entries += 1
        if hidden:
            label.setOpacity(0.45)
        self._relayout_now()

    def setColumnCount(self, columnCount):
        self.columnCount = max(1, columnCount)
        self._relayout()

    def _addItemToLayout(self, sample, label):
        return  # _relayout places every entry (pyqtgraph's own placement fills rows first)

    def shown(self) -> list[int]:
        """The entries shown: all, or where they do not fit, first the series drawn (the seed's kernels come
        first), then the entries that are no series (lines, sources), then hidden series, leaving a row for
        "+k more"; in their own order."""
        return self._shown(self.capacity)

    def _shown(self, capacity: int | None) -> list[int]:
        n = len(self.items)
        if capacity is None or n <= capacity:
            return list(range(n))
        drawn = [i for i, s in enumerate(self.entry_series) if s is not None and not self.entry_hidden[i]]
        fixed = [i for i, s in enumerate(self.entry_series) if s is None]
        hidden = [i for i, s in enumerate(self.entry_series) if s is not None and self.entry_hidden[i]]
        return sorted((drawn + fixed + hidden)[: max(0, capacity - 1)])

    def _relayout(self) -> None:
        """Entries column by column, top to bottom, each row centred on its sample; then fix the legend's size
        to its content."""
        self._stale = False
        grid = self.layout
        for i in range(grid.count() - 1, -1, -1):
            grid.removeAt(i)
        shown = self.shown()
        slots = len(shown) + (len(shown) < len(self.items))
        rows = max(1, -(-slots // max(1, self.columnCount)))
        self.rowCount = rows
        centre = QtCore.Qt.AlignmentFlag.AlignVCenter
        left = centre | QtCore.Qt.AlignmentFlag.AlignLeft
        if self.items:
            text_h = min(label.item.boundingRect().height() for _, label in self.items)  # one line (some wrap)
            for sample, _ in self.items:
                sample.set_height(self.sample_height(text_h))
        for i, (sample, label) in enumerate(self.items):
            sample.setVisible(i in shown)
            label.setVisible(i in shown)
        for slot, i in enumerate(shown):
            sample, label = self.items[i]
            row, col = slot % rows, 2 * (slot // rows)
            grid.addItem(sample, row, col, alignment=centre | QtCore.Qt.AlignmentFlag.AlignHCenter)
            grid.addItem(label, row, col + 1, alignment=left)
        self.more.setVisible(len(shown) < len(self.items))
        if self.more.isVisible():
            self._set_more(len(self.items) - len(shown))
            slot = len(shown)
            grid.addItem(self.more, slot % rows, 2 * (slot // rows) + 1, alignment=left)
        for col in range(1, 2 * max(1, self.columnCount) - 1, 2):
            grid.setColumnSpacing(col, self.COLUMN_GAP)
        self.updateSize()

    def _set_more(self, n: int) -> None:
        """The entry "+n more", in the labels' colour and size."""
        self.more.item.document().setDocumentMargin(1)
        self.more.setText(
            tr("+{n} more").format(n=n), color=self.opts["labelTextColor"], size=self.opts["labelTextSize"]
        )

    @staticmethod
    def sample_height(text_h: float) -> float:
        return max(8.0, round(text_h * 0.8))

    def updateSize(self) -> None:
        if self._batch:  # pyqtgraph's addItem asks after each entry: once, at the batch's end (_relayout)
            self._stale = True
            return
        if not self.items:
            size = QtCore.QSizeF(0, 0)
        else:
            self.layout.invalidate()
            size = self.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize)
        self.setMinimumSize(size)
        self.setMaximumSize(size)
        self.resize(size)
        self.updateGeometry()

    def entry_at(self, pos: QtCore.QPointF) -> str | None:
        for (sample, label), series in zip(self.items, self.entry_series):
            if sample.geometry().united(label.geometry()).contains(pos):
                return series
        return None

    def mouseClickEvent(self, event):
        series = self.entry_at(event.pos())
        if series is not None and event.button() == QtCore.Qt.MouseButton.LeftButton:
            event.accept()
            self.toggled.emit(series)

    def mouseDragEvent(self, event):
        event.ignore()  # the legend stays in its column

    def hoverEvent(self, event):
        return

    def fit(
        self, font_pt: float, height_px: float, max_width_px: float, min_factor: float = 0.5, across: bool = False
    ) -> None:
        """Choose the text size (down to `min_factor` of `font_pt`: 1 keeps it as large as the axes' text, as
        a projector needs) and the number of columns (the fewest, or with `across` the most) so that every entry
        fits `height_px` and `max_width_px`;
        where even the smallest text does not, names are wrapped to the width (never cut) and the entries
        that do not fit the height are summed up as "+k more" (hidden series first, then lines and sources)."""
        n = len(self.items)
        if n == 0:
            return
        # a chart fits again on every resize and axis change, most often into the same room: the same entries
        # fitted the same way come out the same (the legend as that fit left it), so that fit is not redone
        key = (font_pt, height_px, max_width_px, min_factor, across, self._entries)
        if self._fitted is not None and self._fitted == (key, self._fit_state()):
            return
        self._fit(font_pt, height_px, max_width_px, min_factor, across)
        self._fitted = (key, self._fit_state())

    def _fit_state(self) -> tuple:
        return (
            self.columnCount,
            self.capacity,
            self.opts.get("labelTextSize"),
            tuple(label.text for _, label in self.items),
            self.maximumWidth(),
            self.maximumHeight(),
        )

    def _fit(
        self, font_pt: float, height_px: float, max_width_px: float, min_factor: float = 0.5, across: bool = False
    ) -> None:
        n = len(self.items)
        for factor in [f for f in (1.0, 0.85, 0.7, 0.6, 0.5) if f >= min_factor] or [1.0]:
            text_h, widest = self._measure(font_pt * factor)  # their full names (a narrower fit wrapped them)
            row_h = max(text_h, self.sample_height(text_h)) + self.ROW_GAP
            sample_w = self._sample_width(text_h)
            entry_w = widest + sample_w + self.COLUMN_GAP
            rows = max(1, int((height_px + self.ROW_GAP) // max(row_h, 1)))
            columns = -(-n // rows)
            if columns * entry_w <= max_width_px:
                break
        fit_columns = max(1, int((max_width_px + self.COLUMN_GAP) // entry_w))
        if across:  # a legend below a plot: as many entries side by side as its width holds
            columns = min(n, fit_columns)
            rows = -(-n // columns)
        text_w = max_width_px - sample_w - self.COLUMN_GAP if entry_w > max_width_px else None
        self._wrap(font_pt * factor, text_w, resized=self._set_text_pt(font_pt * factor))
        if text_w is not None:  # names on two lines or more: one column, as many entries as its height holds
            columns = fit_columns = 1
        self.columnCount = min(columns, fit_columns)
        self.capacity = None if columns <= fit_columns else rows * fit_columns
        self._relayout()
        if text_w is not None and self.maximumWidth() > max_width_px:  # the label's font measures a little wider
            self._wrap(font_pt * factor, text_w - (self.maximumWidth() - max_width_px) - 2)
            self._relayout()
        # the estimate of a row's height can be a pixel short, and wrapped names take more than one: give up
        # entries until the legend really fits
        if self.maximumHeight() > height_px and (self.capacity or n) > 1:
            self._shrink_to(height_px, self.capacity or n)

    def _shrink_to(self, height_px: float, start: int) -> None:
        """The most entries that fit `height_px`, one row (per column) fewer at a time from `start`, the last of
        them "+k more"; found by galloping and bisection (each try lays every entry out: a row at a time took up
        to 15 tries per fit, most of a 4K dashboard's export), down to one entry at least."""
        step = self.columnCount
        last = max(1, -(-(start - 1) // step))  # tries start - k * step for k = 1 .. last (the last is <= 1)

        def fits(k: int) -> bool:
            self.capacity = start - k * step
            self._relayout()
            return self.maximumHeight() <= height_px

        # the fewest rows given up that fit, as the entries' heights predict it (no layout per try), then laid out
        # twice to check it: one row fewer given up does not fit, and it does (left laid out as it is)
        self._set_more(len(self.items) - max(0, start - step - 1))  # its height as it will be (its text: any count)
        k = next((k for k in range(1, last + 1) if self._height_for(start - k * step) <= height_px), last)
        if (k == 1 or not fits(k - 1)) and fits(k):
            return
        # the fewest rows given up that fit lie in [lo, hi] (hi = last when none fits): galloping from one row
        # (usually enough: the estimate is a pixel short), then bisection
        lo, hi, k = 1, last, 1
        while not fits(k):
            lo = k + 1
            if k >= last:
                lo = last
                break
            k = min(2 * k, last)
        else:
            hi = k
        while lo < hi:
            mid = (lo + hi) // 2
            if fits(mid):
                hi = mid
            else:
                lo = mid + 1
        if self.capacity != start - lo * step:
            fits(lo)

    def _height_for(self, capacity: int) -> float:
        """The height _relayout would give the legend showing `capacity` entries (the last of them "+k more") in
        its columns, its labels as they are: each row as tall as its tallest label or sample, the rows' gaps and
        the layout's margins (a prediction: the search above checks it)."""
        shown = self._shown(capacity)
        more = len(shown) < len(self.items)
        rows = max(1, -(-(len(shown) + more) // max(1, self.columnCount)))
        sample_h = self.sample_height(min(label.item.boundingRect().height() for _, label in self.items))
        heights = [0.0] * rows
        for slot, i in enumerate(shown):
            heights[slot % rows] = max(heights[slot % rows], self.items[i][1].itemRect().height(), sample_h)
        if more:
            slot = len(shown) % rows
            heights[slot] = max(heights[slot], self.more.itemRect().height())
        _, top, _, bottom = self.layout.getContentsMargins()
        return top + bottom + sum(heights) + self.layout.verticalSpacing() * (rows - 1)

    def full_width(self, pt: float) -> float:
        """The width of one column of entries with their full names at `pt` points."""
        if not self.items:
            return 0.0
        font = QtGui.QFont()
        font.setPointSizeF(pt)
        metrics = QtGui.QFontMetricsF(font)
        widest = max(metrics.horizontalAdvance(name) for name in self.names)
        return widest + self._sample_width(metrics.height()) + self.COLUMN_GAP + 4

    def _sample_width(self, text_h: float) -> float:
        """A sample's width and the gap to its label, for labels `text_h` tall."""
        return round(self.sample_height(text_h) * 1.6) + self.layout.horizontalSpacing()

    def _measure(self, pt: float) -> tuple[float, float]:
        """The height and width of the tallest and the widest entry's full name at `pt` points, as its label
        would show it, measured in a scratch text item with the label's HTML and margin: a fit tried each text
        size by setting every label's HTML and laying it out (twice a fit: the names, then wrapped again). Kept
        for the legend's entries as they are (a chart fits again at each resize)."""
        size = f"{pt:.1f}pt"
        if self._measured[0] != self._entries:
            self._measured = (self._entries, {})
        by_size = self._measured[1]
        if size not in by_size:
            item = _scratch_text()
            boxes = []
            for name in self.names:
                item.setHtml(f"<span style='font-size: {size}'>{plain(name)}</span>")
                boxes.append(item.boundingRect())
            by_size[size] = (max(r.height() for r in boxes), max(r.width() for r in boxes))
        return by_size[size]

    def _wrap(self, pt: float, width: float | None, resized: bool = False) -> None:
        """Every label its full name, or where `width` is given and the name is wider, the name on as many
        lines as it takes (never cut: a legend is never clipped); `resized`: the text size changed, every label
        set again."""
        font = QtGui.QFont()
        font.setPointSizeF(pt)
        metrics = QtGui.QFontMetricsF(font)
        for (_, label), name in zip(self.items, self.names):
            lines = [name] if width is None else wrap_words(name, metrics.horizontalAdvance, width)
            shown = "<br>".join(plain(line) for line in lines)
            if resized or label.text != shown:
                label.setText(shown)

    def _set_text_pt(self, pt: float) -> bool:
        """The labels' text size (set in each label's HTML when its text is next set: _wrap); whether it changed."""
        size = f"{pt:.1f}pt"
        now = self.opts.get("labelTextSize") or ""
        if now == size or (now.endswith("pt") and f"{float(now[:-2]):.1f}pt" == size):
            return False  # the same size ("20pt" as reset_legend writes it): every label's HTML set again for nothing
        self.opts["labelTextSize"] = size
        for _, label in self.items:
            label.setAttr("size", size)
        return True
