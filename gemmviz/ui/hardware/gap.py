"""The gap between two kernels as a waterfall: one bar per part of the time difference
(core/hardware/gap.py), in order, each starting where the one before ended, then the whole gap; the sentences go beside it
(the Hardware tab's text) or in the lesson step's words. Drawn with a painter by one function, `draw_gap`, for
the tab, the lesson's live view and its slide."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSizePolicy, QVBoxLayout, QWidget

from gemmviz.core.hardware import gap as gapcore
from gemmviz.core.messages import render
from gemmviz.ui.hardware.painted import (
    WRAP,
    Texts,
    axis,
    file_line,
    font,
    heading,
    small_pt,
    source_line,
    text,
    wrapped_height,
)
from gemmviz.ui.theme import LIGHT, Theme

LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap)
CENTER = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
WIDENS, NARROWS, OTHER, TOTAL = 3, 2, 7, 0  # palette indices: a part that widens the gap, narrows it, the rest


def _value(part_ns: float, share: float | None, lang: str) -> str:
    sign = "+" if part_ns > 0 else ""  # a minus sign comes with the figure
    return sign + render("view.gap.value", lang, {"d": part_ns / 1e3, "share": share or 0.0})


def _colour(theme: Theme, name: str, ns: float) -> QColor:
    if name == "other":
        c = QColor(theme.foreground)
        c.setAlpha(110)
        return c
    return QColor(theme.color(WIDENS if ns > 0 else NARROWS))


def draw_message(painter: QPainter, rect: QRectF, message: str, theme: Theme, texts: Texts | None = None) -> None:
    pad = theme.font_pt
    text(painter, rect.adjusted(pad, pad, -pad, -pad), WRAP, message, font(theme.font_pt), theme.foreground, texts)


def draw_gap(
    painter: QPainter,
    rect: QRectF,
    g: gapcore.Gap,
    header,
    theme: Theme = LIGHT,
    lang: str = "en",
    texts: Texts | None = None,
    fill: bool = False,
) -> float:
    """The waterfall of `g` in `rect` (with `fill`, its rows take the whole height: an export): its title and source, a row per part and the total, an axis in µs; returns
    the bottom of what it drew (the axis), so that text under it starts there."""
    fg = theme.foreground
    pt = theme.font_pt
    big, small = font(pt), font(small_pt(pt))
    pad = QFontMetricsF(big).height() * 0.4
    r = rect.adjusted(pad, pad / 2, -pad, -pad / 2)
    size = gapcore.size_text(g.a.size)  # the two kernels' size: a file may hold several
    title = render("view.gap.title", lang, {"gap": abs(g.gap_ns) / 1e6, "a": g.a.label, "b": g.b.label, "size": size})
    y = heading(painter, r, title, source_line(header, lang), pt, fg, texts) + pad / 2
    line = QFontMetricsF(big).height()
    axis_h = 2 * QFontMetricsF(small).height() + pad / 2
    # a row needs a line of the smaller type at least: where there is less room, the smallest stall reasons
    # join "other stalls" (the same measured parts, fewer bars)
    keep = 3
    while (r.bottom() - axis_h - y) / (len(g.parts) + 1) < QFontMetricsF(small).height() * 1.1 and keep > 0:
        keep -= 1
        g = gapcore.merge_stalls(g, keep)
    rows = [(p.label.text(lang), p.name, p.ns, g.share(p)) for p in g.parts]
    rows.append((render("view.gap.total", lang), "total", g.gap_ns, 1.0 if g.gap_ns else None))
    room = (r.bottom() - axis_h - y) / len(rows)
    # a long label (a stall reason) wraps onto a second line rather than take the bars' width; where two lines
    # of it do not fit a row, the labels take the smaller type (still 24 px at 1080p on a projector), then more
    # of the width
    for share, label_font in ((0.36, big), (0.36, small), (0.5, big), (0.5, small)):
        fm = QFontMetricsF(label_font)
        label_w = min(r.width() * share, max(fm.horizontalAdvance(x[0]) for x in rows) + pad)
        tallest = max(wrapped_height(painter, label_w - pad / 2, x[0], label_font) for x in rows)
        if tallest <= room:
            break
    row_h = room if fill else min(max(line * 2.0, tallest), room)
    fm = QFontMetricsF(big)
    values = [_value(ns, share, lang) for _, _, ns, share in rows]
    value_font = big if room >= fm.height() * 1.1 else small  # the figures as the labels: the bigger type if it fits
    fm = QFontMetricsF(value_font)
    value_w = max(fm.horizontalAdvance(v) for v in values) + pad
    x0, x1 = r.left() + label_w, r.right() - value_w
    ends, run = [0.0], 0.0
    for _, _, ns, _ in rows[:-1]:
        run += ns
        ends.append(run)
    lo, hi = min(ends + [g.gap_ns, 0.0]), max(ends + [g.gap_ns, 0.0])
    hi = hi if hi > lo else lo + 1.0

    def x(ns: float) -> float:
        return x0 + (ns - lo) / (hi - lo) * (x1 - x0)

    start = 0.0
    for i, (label, name, ns, _share) in enumerate(rows):
        top = y + i * row_h
        text(painter, QRectF(r.left(), top, label_w - pad / 2, row_h), RIGHT, label, label_font, fg, texts)
        a, b = (0.0, ns) if name == "total" else (start, start + ns)
        bar = QRectF(min(x(a), x(b)), top + row_h * 0.2, max(2.0, abs(x(b) - x(a))), row_h * 0.6)
        painter.fillRect(bar, QColor(theme.color(TOTAL)) if name == "total" else _colour(theme, name, ns))
        text(painter, QRectF(x1 + pad / 2, top, value_w, row_h), LEFT, values[i], value_font, fg, texts)
        if name != "total" and i + 1 < len(rows) - 1:  # a thin step down to where the next bar starts
            painter.setPen(QPen(QColor(fg), max(1.0, theme.line_px / 2), Qt.PenStyle.DotLine))
            painter.drawLine(int(x(b)), int(bar.bottom()), int(x(b)), int(top + row_h * 1.2))
        start += 0 if name == "total" else ns
    bottom = y + len(rows) * row_h
    painter.setPen(QPen(QColor(fg), max(1.0, theme.line_px / 2)))
    painter.drawLine(int(x(0.0)), int(y), int(x(0.0)), int(bottom))  # zero: where the reference kernel ends
    axis(
        painter,
        r,
        (lo / 1e3, hi / 1e3, bottom),
        lambda us: x(us * 1e3),
        render("view.gap.axis", lang, {"a": g.a.label, "b": g.b.label}),
        theme,
        texts,
    )
    return bottom + axis_h


def draw_sentences(
    painter: QPainter, rect: QRectF, g: gapcore.Gap, theme: Theme, lang: str, texts: Texts | None = None
) -> float:
    """A sentence per bar, then the measured context, wrapped from the top of `rect` in the smaller type, as many
    as fit whole (the bars' first); returns the height they took."""
    f = font(small_pt(theme.font_pt))
    gap_line = QFontMetricsF(f).height() * 0.3

    def tall(sentence: str) -> float:  # its wrapped height and the space under it
        return wrapped_height(painter, rect.width(), sentence, f) + gap_line

    every = [*(p.sentence.text(lang) for p in g.parts), *(n.text(lang) for n in g.notes)]
    lines = [(s, tall(s)) for s in every]
    if sum(h for _s, h in lines) - gap_line > rect.height():
        # lines left out are counted, never dropped unsaid: the most that fit with the count under them (none where
        # not even the count fits: nothing is drawn past the rect)
        kept = lines
        lines = []
        for shown in range(len(every) - 1, -1, -1):
            left = len(every) - shown
            count = render("view.gap.more_one" if left == 1 else "view.gap.more", lang, {"n": left})
            if sum(h for _s, h in kept[:shown]) + tall(count) - gap_line <= rect.height():
                lines = [*kept[:shown], (count, tall(count))]
                break
    y = rect.top()
    for sentence, h in lines:
        text(painter, QRectF(rect.left(), y, rect.width(), h - gap_line), WRAP, sentence, f, theme.foreground, texts)
        y += h
    return y - rect.top() - gap_line if lines else 0.0


SENTENCES_SHARE = 0.45  # of a chart with its sentences (an export), the part under the waterfall


class GapChart(QWidget):
    """The waterfall of one gap, or a sentence saying why there is none; with `sentences` (an export, which has no
    text beside it), the bars' sentences under it."""

    def __init__(self, theme: Theme = LIGHT, lang: str = "en", parent=None, sentences: bool = False):
        super().__init__(parent)
        self.theme, self.lang, self.with_sentences = theme, lang, sentences
        self.gap: gapcore.Gap | None = None
        self.header = None
        self.message = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_gap(self, g: gapcore.Gap | None, header=None, message: str = "") -> None:
        self.gap, self.header, self.message = g, header, message
        self.update()

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(self.theme.background))
        self.draw(painter, QRectF(self.rect()))
        painter.end()

    def draw(self, painter: QPainter, rect: QRectF, texts: Texts | None = None) -> None:
        if self.gap is None:
            draw_message(painter, rect, self.message, self.theme, texts)
        elif self.with_sentences:
            top = QRectF(rect.left(), rect.top(), rect.width(), rect.height() * (1 - SENTENCES_SHARE))
            used = draw_gap(painter, top, self.gap, self.header, self.theme, self.lang, texts, fill=True)
            pad = QFontMetricsF(font(self.theme.font_pt)).height() * 0.4
            # the sentences start under the axis, not under the waterfall's share: rows keep two lines' height
            # where the share is taller, and a gap between the two would read as a missing part
            below = QRectF(rect.left() + pad, used + pad, rect.width() - 2 * pad, rect.bottom() - used - pad)
            draw_sentences(painter, below, self.gap, self.theme, self.lang, texts)
        else:
            draw_gap(painter, rect, self.gap, self.header, self.theme, self.lang, texts)

    def paint_export(self, painter: QPainter) -> None:  # exporters.paint_charts: the same drawing
        self.draw(painter, QRectF(self.rect()))


class GapView(QWidget):
    """Pick two kernels of a recorded gap file (the best FP32 rung and cuBLAS first); see the waterfall.
    `changed` is emitted whenever the gap shown (or the sentence saying why there is none) changes."""

    changed = Signal()

    def __init__(self, theme: Theme = LIGHT, lang: str = "en", file: gapcore.GapFile | None = None, parent=None):
        super().__init__(parent)
        self.lang = lang
        if file is None:
            file, why = gapcore.load_shipped_gap(lang)
        else:
            why = ""
        self.file, self.why = file, why
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        pick = QHBoxLayout()
        self.a_combo, self.b_combo = QComboBox(), QComboBox()
        for combo in (self.a_combo, self.b_combo):
            # a name with its size (gpu-cpasync-any@2048×3072×4096) is elided in the box, never widening the tab
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(14)
            pick.addWidget(combo, 1)
        layout.addLayout(pick)
        self.chart = GapChart(theme, lang)
        layout.addWidget(self.chart, 1)
        labels = file.names() if file is not None else []  # "@size" where the file holds several sizes
        for combo in (self.a_combo, self.b_combo):
            combo.addItems(labels)
            combo.setEnabled(len(labels) > 1)
        pair = gapcore.default_pair(file) if file is not None else None
        if pair is not None:
            self.a_combo.setCurrentIndex(labels.index(pair[0]))
            self.b_combo.setCurrentIndex(labels.index(pair[1]))
        self.a_combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.b_combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.gap: gapcore.Gap | None = None
        self.refresh()

    def select(self, a: str, b: str) -> None:
        """Show the gap of kernel `a` against `b` (labels as the file spells them, gpu-tiled[tile=16], with "@size"
        for another than the largest where it holds several); a kernel the file lacks is said, not swapped."""
        labels = [self.a_combo.itemText(i) for i in range(self.a_combo.count())]
        if self.file is not None:  # a bare label, in a file of several sizes: the largest it has
            a, b = (self._name(x) for x in (a, b))
        lacking = next((x for x in (a, b) if x not in labels), None)
        if lacking is not None and self.file is not None:
            self.gap = None
            why = render("view.gap.not_in", self.lang, {"name": lacking, "names": ", ".join(labels)})
            self.chart.set_gap(None, self.file.header, render("view.gap.none", self.lang, {"why": why}))
            self.changed.emit()
            return
        for combo, label in ((self.a_combo, a), (self.b_combo, b)):
            combo.blockSignals(True)
            combo.setCurrentText(label)
            combo.blockSignals(False)
        self.refresh()

    def _name(self, name: str) -> str:
        if self.file is None:
            return name
        try:
            return self.file.name_of(self.file.kernel(name))
        except KeyError:
            return name

    def refresh(self) -> None:
        self.gap, message = None, ""
        if self.file is None:
            message = render("view.gap.none", self.lang, {"why": self.why})
        elif self.a_combo.currentText() == self.b_combo.currentText():
            message = render("view.gap.same", self.lang)
        else:
            try:
                a, b = (self.file.kernel(c.currentText()) for c in (self.a_combo, self.b_combo))
                # bars that cancel between close kernels, and parts too small to read: netted (core/hardware/gap.readable)
                self.gap = gapcore.readable(gapcore.decompose(a, b, self.file.header.gpu))
            except (KeyError, gapcore.GapError) as exc:
                message = render("view.gap.none", self.lang, {"why": str(exc).strip("'")})
        self.chart.set_gap(self.gap, self.file.header if self.file else None, message)
        self.changed.emit()

    def sentences(self) -> str:
        """The headline, a sentence per bar and the measured context, for the text beside the chart."""
        if self.gap is None or self.file is None:
            return self.chart.message
        return "\n\n".join([*gapcore.sentences(self.gap, self.lang), file_line(self.file.header, self.lang)])

    def apply_theme(self, theme: Theme) -> None:
        self.chart.apply_theme(theme)
