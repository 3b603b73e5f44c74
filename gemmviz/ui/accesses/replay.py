"""The recorded accesses of one block replayed beside its schedule: for each step of the schedule the
tiling animation plays, the cells of A, B (and C at the store) the block's warps really read or wrote on the
GPU, coloured by warp, inside the outline of what the model says the step reads (core/schedule/accesses.py).

draw_replay is a pure function of a painter, a rectangle and the replayed steps (the widget, the export and a
lesson can all call it); AccessReplay is a self-contained widget: kernel, block, step, Export.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QSlider, QVBoxLayout, QWidget

from gemmviz.core.hardware import accesses as acc
from gemmviz.core.schedule.accesses import A, B, C, ReplayStep, replay
from gemmviz.core.schedule.records import Schedule
from gemmviz.ui.accesses.export import export_drawing
from gemmviz.ui.accesses.panels import BAD, GOOD, faded, font_px, put_text, screen_font_px, text_height, view_font
from gemmviz.ui.accesses.views import footer
from gemmviz.ui.text import tr
from gemmviz.ui.theme import PROJECTOR_LIGHT, Theme
from gemmviz.ui.tiling.captions import caption_words

REPLAYED = ("gpu-naive", "gpu-tiled")  # the recorded kernels the schedule model covers
K_WINDOW_STEPS = 4  # the k-slices of A and B drawn around the current one


def replayable(records: acc.AccessFile | None) -> list[acc.AccessTrace]:
    return [t for t in (records.traces if records else []) if t.variant in REPLAYED]


def _window(sched: Schedule, step: ReplayStep, k: int) -> tuple[int, int]:
    """The k range drawn: K_WINDOW_STEPS slices of the schedule's k step, the current one in it."""
    width = min(k, K_WINDOW_STEPS * sched.bk)
    s = sched.steps[step.step]
    k_now = s.a.c0 if s.a is not None else 0
    start = max(0, min(k - width, k_now - (K_WINDOW_STEPS // 2) * sched.bk))
    return start, start + width


def _grid(p: QPainter, rect: QRectF, rows: int, cols: int, theme: Theme) -> None:
    p.setPen(QPen(faded(theme.foreground, 60), 1))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect)
    if rows * cols <= 64 * 64:
        cw, ch = rect.width() / cols, rect.height() / rows
        for c in range(1, cols):
            p.drawLine(QPointF(rect.left() + c * cw, rect.top()), QPointF(rect.left() + c * cw, rect.bottom()))
        for r in range(1, rows):
            p.drawLine(QPointF(rect.left(), rect.top() + r * ch), QPointF(rect.right(), rect.top() + r * ch))


def _cells(
    p: QPainter,
    rect: QRectF,
    cells: np.ndarray,
    r0: int,
    c0: int,
    rows: int,
    cols: int,
    theme: Theme,
    earlier: bool = False,
) -> None:
    cw, ch = rect.width() / cols, rect.height() / rows
    p.setPen(Qt.PenStyle.NoPen)
    for r, c, warp in cells:
        if r0 <= r < r0 + rows and c0 <= c < c0 + cols:
            color = faded(theme.foreground, 40) if earlier else faded(theme.color(int(warp)), 220)
            p.setBrush(color)
            p.drawRect(QRectF(rect.left() + (c - c0) * cw, rect.top() + (r - r0) * ch, cw, ch))


def _outline(p: QPainter, rect: QRectF, region, r0: int, c0: int, rows: int, cols: int, theme: Theme) -> None:
    if region is None or region.count == 0:
        return
    cw, ch = rect.width() / cols, rect.height() / rows
    left, right = max(region.c0, c0), min(region.c1, c0 + cols)
    top, bottom = max(region.r0, r0), min(region.r1, r0 + rows)
    if right <= left or bottom <= top:
        return
    p.setPen(QPen(QColor(theme.foreground), theme.line_px))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(
        QRectF(rect.left() + (left - c0) * cw, rect.top() + (top - r0) * ch, (right - left) * cw, (bottom - top) * ch)
    )


def replay_texts(trace: acc.AccessTrace, sched: Schedule, steps: list[ReplayStep], index: int, theme: Theme):
    """(title, the step as the schedule says it, the verdict and its colour, the legend) of step `index`."""
    step = steps[index]
    s = sched.steps[step.step]
    title = tr("{0}: block ({1}, {2}), step {3} of {4}").format(
        trace.label.split(" at ")[0], sched.block[1], sched.block[0], index + 1, len(steps)
    )
    stores = step.kind == "store"
    recorded, model = f"{step.recorded:,}", f"{step.model:,}"
    if step.recorded == step.model:
        text = tr("recorded {0} stores = the model's {1}") if stores else tr("recorded {0} loads = the model's {1}")
        verdict, color = text.format(recorded, model), GOOD
    elif not step.complete:
        text = (
            tr("{0} of the model's {1} stores kept in detail (the shipped file keeps each block's first requests)")
            if stores
            else tr("{0} of the model's {1} loads kept in detail (the shipped file keeps each block's first requests)")
        )
        verdict, color = text.format(recorded, model), theme.foreground
    else:
        text = tr("recorded {0} stores, the model says {1}") if stores else tr("recorded {0} loads, the model says {1}")
        verdict, color = text.format(recorded, model), BAD
    legend = tr("cells: what the warps read on the GPU, one colour a warp; outline: the model's step")
    return title, caption_words(s), verdict, color, legend  # the caption in the window's language, not s.text's English


def _replay_fit(rect: QRectF, texts, px: float, floor: float) -> tuple[float, list[float]]:
    """The largest type from px down to floor at which the texts, wrapped, leave the picture at least 5 lines
    of type; the type and each text's height."""
    title, step_text, verdict, _color, legend = texts
    size = px
    while True:
        w = rect.width() - 2 * size
        heights = [
            text_height(title, size * 1.1, True, w),
            text_height(step_text, size, False, w),
            text_height(verdict, size, True, w),
            text_height(legend, size, False, w),
        ]
        picture = rect.height() - sum(heights) - size * 1.6
        if (float("inf") not in heights and picture >= size * 5) or size <= floor:
            return size, [size * 1.4 if h == float("inf") else h for h in heights]
        size = max(floor, size - 1)


def draw_replay(
    p: QPainter,
    rect: QRectF,
    trace: acc.AccessTrace,
    sched: Schedule,
    steps: list[ReplayStep],
    index: int,
    theme: Theme,
    px: float | None = None,
    floor: float | None = None,
) -> None:
    """One step: B's k-slices above C, A's to its left (the GEMM picture), the cells the block's warps recorded in
    this step in their warp's colour (earlier steps' faint), the model's region for the step outlined; below,
    the step as the schedule says it and the recorded count beside the model's. The type is `px` (the 1080p
    layout's by default), down to `floor` where the texts, wrapped, would leave the picture too little room."""
    px = px or font_px(theme, rect)
    p.fillRect(rect, QColor(theme.background))
    index = max(0, min(index, len(steps) - 1))
    step = steps[index]
    s = sched.steps[step.step]
    run = sched.run_problem
    (r0, r1), (c0, c1) = sched.rows, sched.cols
    bm, bn = max(1, r1 - r0), max(1, c1 - c0)
    k0, k1 = _window(sched, step, run.k)
    kw = max(1, k1 - k0)
    texts = replay_texts(trace, sched, steps, index, theme)
    title, step_text, verdict, color, legend = texts
    px, (title_h, step_h, verdict_h, legend_h) = _replay_fit(rect, texts, px, px if floor is None else floor)
    left, width = rect.left() + px, rect.width() - 2 * px
    y = rect.top() + px * 0.4
    put_text(p, QRectF(left, y, width, title_h), title, px * 1.1, theme.foreground, bold=True, wrap=True)
    y += title_h
    bottom = rect.bottom() - px * 0.4 - step_h - verdict_h - legend_h
    label = QFontMetricsF(view_font(px, True)).horizontalAdvance("W") + px * 0.4  # room for "A" left of A
    area = QRectF(left + label, y + px * 0.5, width - label, max(1.0, bottom - y - px * 0.9))
    cell = min(area.width() / (kw + bn), area.height() / (kw + bm))
    ox = area.left() + (area.width() - cell * (kw + bn)) / 2
    b_rect = QRectF(ox + kw * cell, area.top(), bn * cell, kw * cell)
    a_rect = QRectF(ox, area.top() + kw * cell, kw * cell, bm * cell)
    c_rect = QRectF(ox + kw * cell, area.top() + kw * cell, bn * cell, bm * cell)
    earlier = [st for st in steps if st.step < step.step]
    for m, box, (rr, cc, nr, nc) in (
        (A, a_rect, (r0, k0, bm, kw)),
        (B, b_rect, (k0, c0, kw, bn)),
        (C, c_rect, (r0, c0, bm, bn)),
    ):
        _grid(p, box, nr, nc, theme)
        for st in earlier[-K_WINDOW_STEPS * 4 :]:
            if m in st.cells:
                _cells(p, box, st.cells[m], rr, cc, nr, nc, theme, earlier=True)
        if m in step.cells:
            _cells(p, box, step.cells[m], rr, cc, nr, nc, theme)
    _outline(p, a_rect, s.a, r0, k0, bm, kw, theme)
    _outline(p, b_rect, s.b, k0, c0, kw, bn, theme)
    _outline(p, c_rect, s.c, r0, c0, bm, bn, theme)
    line_h = QFontMetricsF(view_font(px, True)).height()
    for name, box in (("A", a_rect), ("B", b_rect), ("C", c_rect)):
        at = QRectF(box.left() - label, box.top(), label - px * 0.2, line_h)
        put_text(p, at, name, px, theme.foreground, bold=True, align=Qt.AlignmentFlag.AlignRight)
    y = bottom
    y += put_text(p, QRectF(left, y, width, step_h), step_text, px, theme.foreground, wrap=True)
    y += put_text(p, QRectF(left, y, width, verdict_h), verdict, px, color, bold=True, wrap=True)
    put_text(p, QRectF(left, y, width, legend_h), legend, px, theme.foreground, wrap=True)


def export_replay(
    trace: acc.AccessTrace,
    path: str | os.PathLike,
    step: int = 0,
    slot: int = 0,
    width: int = 1920,
    height: int = 1080,
    theme: Theme = PROJECTOR_LIGHT,
    records: acc.AccessFile | None = None,
) -> Path:
    """One replayed step in the registered chart format its path's suffix names (PNG, SVG, ...), through the
    chart formats' writers, as a chart is exported."""
    sched, steps = replay(trace, slot)
    text = footer(records) if records else ""
    return export_drawing(
        lambda p, r: draw_replay(p, r, trace, sched, steps, step, theme), path, width, height, theme, text
    )


class _Canvas(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.state: tuple[acc.AccessTrace, Schedule, list[ReplayStep], int] | None = None
        self.theme = PROJECTOR_LIGHT
        self.setMinimumSize(320, 180)

    def paintEvent(self, _event) -> None:
        if self.state is None:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        px, floor = screen_font_px(self.theme, self.window().height())
        trace, sched, steps, index = self.state
        draw_replay(p, QRectF(self.rect()), trace, sched, steps, index, self.theme, px, floor)
        p.end()


class AccessReplay(QWidget):
    """A self-contained panel: a recorded kernel (naive or tiled), its interior or edge block, a step slider."""

    def __init__(self, parent=None, records: acc.AccessFile | None = None):
        super().__init__(parent)
        self.records = records if records is not None else acc.shipped_file()
        self.canvas = _Canvas(self)
        self.kernel, self.block = QComboBox(self), QComboBox(self)
        self.block.addItem(self.tr("interior block"), 0)
        self.block.addItem(self.tr("edge block"), 1)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.info = QLabel(self)
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setWordWrap(True)  # a long footer wraps: it never asks the window for more than the screen
        self.info.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        for combo in (self.kernel, self.block):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
        row = QHBoxLayout()
        # the kernel's whole name before a long slider: "gpu-naive [block 16]" read "gpu-naive [block 1" at 720p
        for w, stretch in ((self.kernel, 2), (self.block, 0), (self.slider, 3), (self.export_button, 0)):
            row.addWidget(w, stretch)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.info)
        self.kernel.currentIndexChanged.connect(self._load)
        self.block.currentIndexChanged.connect(self._load)
        self.slider.valueChanged.connect(self._step)
        self.export_button.clicked.connect(self._export)
        self.set_records(self.records)

    def set_records(self, records: acc.AccessFile | None) -> None:
        self.records = records
        self.kernel.blockSignals(True)
        self.kernel.clear()
        for t in replayable(records):
            self.kernel.addItem(t.label, t)
        self.kernel.blockSignals(False)
        self._load()

    def _load(self) -> None:
        trace = self.kernel.currentData()
        if trace is None:
            self.canvas.state = None
            self.info.setText(self.tr("no recorded accesses of a kernel the schedule model covers"))
            self.canvas.update()
            return
        slot = min(self.block.currentData() or 0, len(trace.blocks) - 1)
        sched, steps = replay(trace, slot)
        self.canvas.state = (trace, sched, steps, 0)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(steps) - 1)
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        self.info.setText(footer(self.records) if self.records else "")
        self.canvas.update()

    def _step(self, value: int) -> None:
        if self.canvas.state is not None:
            trace, sched, steps, _ = self.canvas.state
            self.canvas.state = (trace, sched, steps, value)
            self.canvas.update()

    def _export(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        if self.canvas.state is None:
            return
        from gemmviz.core import export_formats

        filters = export_formats.file_filter(export_formats.CHART, tr)  # every registered chart format
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export step"), "replay.png", filters)
        if path:
            trace, _sched, _steps, step = self.canvas.state
            try:
                export_replay(
                    trace, path, step, self.block.currentData() or 0, theme=self.canvas.theme, records=self.records
                )
            except Exception as exc:  # an unwritable file: said, never raised into Qt
                QMessageBox.warning(self, self.tr("Export failed"), str(exc))


def export_replay_gif(
    trace: acc.AccessTrace,
    path: str | os.PathLike,
    slot: int = 0,
    width: int = 960,
    height: int = 540,
    theme: Theme = PROJECTOR_LIGHT,
    records: acc.AccessFile | None = None,
    steps_per_second: float = 2.0,
) -> int:
    """The replay as an animated GIF, one frame a step, streamed to the file (the animation's GIF writer);
    returns the number of frames. A failed export leaves no file and any previous one as it was."""
    from PySide6.QtGui import QImage

    from gemmviz.core import fileio
    from gemmviz.ui.export.exporters import (
        ExportError,
        check_size,
        check_target,
        footer_height,
        paint_footer,
        scale_for,
    )
    from gemmviz.ui.tiling.frames import TimedFrame, write_gif

    try:
        import PIL  # noqa: F401
    except ImportError:
        raise ExportError("GIF export needs Pillow (pip install pillow)") from None
    check_size(width, height)
    target = check_target(path, (".gif",))
    sched, steps = replay(trace, slot)
    text = footer(records) if records else ""
    scale = scale_for(width, height)
    logical = QRectF(0, 0, width / scale, height / scale)
    foot = footer_height(theme)

    def frames():
        for i in range(len(steps)):
            image = QImage(width, height, QImage.Format.Format_RGB32)
            image.fill(QColor(theme.background))
            p = QPainter(image)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.scale(scale, scale)
            draw_replay(p, logical.adjusted(0, 0, 0, -foot), trace, sched, steps, i, theme)
            paint_footer(p, text, QRectF(0, logical.height() - foot, logical.width(), foot), theme)
            p.end()
            yield TimedFrame(image, round(1000 / steps_per_second))

    with fileio.atomic_file(target) as f:
        return write_gif(frames(), f)
