"""Checks of one lesson step on screen shared by tests/test_lesson_ui.py (normal type) and
tests/test_lesson_legible.py (projector type, which walks the same LessonView at the same sizes once for both
its legibility and these layout checks: the walk, building every step's chart, is the cost)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from gemmviz.ui.accesses.canvas import AccessCanvas
from gemmviz.ui.hardware.gap import GapView
from gemmviz.ui.lesson.seed_table import TableView
from gemmviz.ui.tiling.code import AnimationWithCode
from gemmviz.ui.tiling.side import SideBySide
from gemmviz.ui.tiling.widgets import TilingView
from tests.legibility import paint_alone
from tests.overlap import plot_texts, problems


def step_problems(view) -> list[str]:
    """Texts of the step shown that overlap, leave the window or lie over the step's view."""
    for _ in range(3):  # let the chart lay itself out at its size, as the event loop does before painting
        QApplication.processEvents()
    paint_alone(view)  # runs its paintEvent, which records the texts drawn (its views are checked on their own)
    child = view.views.get(view.index)
    texts = list(view.texts)
    bounds = QRectF(view.rect())
    bad = []
    if child is not None:
        area = QRectF(child.geometry())
        if not bounds.contains(area):
            bad.append(f"view {area.getRect()} outside the window")
        bad += [f"text over the view: {t!r}" for t, r in view.texts if r.intersects(area)]
        if isinstance(child, TableView):  # painted: it reports its texts, in its own coordinates
            child.grab()
            assert child.texts, "the table drew nothing"
            texts += [(t, r.translated(child.geometry().topLeft().toPointF())) for t, r in child.texts]
        # painted, not plotted: the access views size their text to fit; the animations' texts (alone, beside
        # their code, two side by side) are checked where they are painted (tests/test_lesson_legible.py)
        elif isinstance(child, GapView):  # painted: its chart reports the texts it draws, in its own coordinates
            chart, drawn = child.chart, []
            image = QImage(max(1, chart.width()), max(1, chart.height()), QImage.Format.Format_ARGB32)
            painter = QPainter(image)
            try:
                chart.draw(painter, QRectF(chart.rect()), drawn)
            finally:
                painter.end()
            assert drawn, "the gap view drew nothing"
            origin = chart.mapTo(view, chart.rect().topLeft()).toPointF()
            texts += [(t, r.translated(origin)) for t, r in drawn]
        elif isinstance(child, pg.GraphicsView):
            texts += plot_texts(child, view)
        elif not isinstance(child, (TilingView, AccessCanvas, AnimationWithCode, SideBySide)):
            charts = child.findChildren(pg.GraphicsView)  # charts in a widget of their own (the last wave's three)
            assert charts, f"{type(child).__name__} holds no chart whose texts could be checked"
            for chart in charts:
                texts += plot_texts(chart, view)
    return bad + problems(texts, bounds)


# a slide's header and footer in the lesson's language, whatever the window's: step, data line, replayed session
SLIDE_WORDS = {
    "en": ("step {i} / {n}", "Data: NVIDIA H200, 2026-12-02, replayed · gemmviz", "Replayed: recorded on NVIDIA H200, 2026-12-02"),
    "zh": ("第 {i} / {n} 步", "数据：NVIDIA H200，2026-12-02，回放 · gemmviz", "回放：录制于 NVIDIA H200，2026-12-02"),
}  # fmt: skip
# the header of a step whose view draws the shipped block traces (another GPU's recording), not the session's
QUOTED_TRACES = {
    "en": "Quoted: block traces recorded on H100, 2026-12-07",
    "zh": "引用：线程块轨迹，录制于 H100，2026-12-07",
}


def check_step_words(view, lesson, i: int) -> None:
    """The header, title and footer of step `i` (0-based) as the window shows it, in the lesson's language, every
    placeholder filled."""
    words = [t for t, _ in view.texts]
    step_of, data, replayed = SLIDE_WORDS[lesson.lang]
    assert step_of.format(i=i + 1, n=len(lesson.steps)) in words and lesson.steps[i].title in words
    assert any(t.startswith(data) for t in words)
    assert (QUOTED_TRACES[lesson.lang] if lesson.steps[i].view == "last-wave" else replayed) in words
    assert not any("{{" in t for t in words)  # every placeholder filled (a figure, or n/a)
