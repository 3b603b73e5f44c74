"""The last-wave step of seed001 drawn offscreen: on a 1280×720 slide in projector type (the three cases from the
shipped H100 traces, each stating its idle SM-time, every SM band as tall as the others, nothing cut or over
another), in lesson mode, in the handout, and with no recording at hand (the model's, labelled so on the charts
and the footer, the figures saying they are missing)."""

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from gemmviz.core.hardware import model_trace
from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
from gemmviz.ui.export.exporters import layout_offscreen
from gemmviz.ui.hardware.last_wave import LastWaveStack
from gemmviz.ui.lesson.render import chart_theme, has_view, make_view_widget, render_slide, slide_for, slide_layout
from tests.legibility import check
from tests.overlap import plot_texts, problems
from tests.pdf_text import page_texts, words

LESSON = shipped_lessons()["seed001"]
INDEX = [s.view for s in LESSON.steps].index("last-wave")
W, H = 1280, 720
MIN_PX_720 = 16  # the least a projected text may be at 720p (tests/checks/lesson_legible.py)


@pytest.fixture(scope="module")
def source():
    return lesson_session(LESSON)


def _slide(source) -> tuple[QImage, list]:
    image = QImage(W, H, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    try:
        texts = render_slide(painter, W, H, LESSON, INDEX, source, True)
    finally:
        painter.end()
    return image, texts


def _stack(source) -> LastWaveStack:
    """The step's view as the slide lays it out: at the size the slide gives it, in the slide's chart type."""
    slide = slide_for(LESSON, INDEX, source)
    area = slide_layout(W, H, slide, True, has_view(LESSON.steps[INDEX])).view
    widget = make_view_widget(LESSON.steps[INDEX], source, chart_theme(True, False, W, H), LESSON.lang)
    assert isinstance(widget, LastWaveStack)
    layout_offscreen(widget, int(area.width()), int(area.height()))
    return widget


def _headings(stack: LastWaveStack) -> list[str]:
    return [c.sms_plot.titleLabel.item.toPlainText() for c in stack.charts]


def test_the_slide_says_one_thing_legibly_at_720p(qapp, source):
    image, texts = _slide(source)
    assert problems(texts, QRectF(0, 0, W, H)) == []
    words_drawn = " ".join(t for t, _ in texts)
    assert "52% of SM-time idle" in words_drawn and "{{" not in words_drawn
    assert "block traces: H100, recorded 2026-12-07" in words_drawn  # the footer names the recording
    stack = _stack(source)
    try:
        assert _headings(stack) == [
            "128×128 tiles, one block each · 64 blocks — 52% of SM-time idle",
            "64×64 + split-K · 512 blocks — 4% of SM-time idle",
            "Stream-K · 528 blocks — 6% of SM-time idle",
        ]
        heights = [c.sms_plot.getViewBox().height() for c in stack.charts]
        assert max(heights) - min(heights) <= 2 and min(heights) >= 50, heights  # every case's SMs alike
        chart_texts = [t for c in stack.charts for t in plot_texts(c, stack)]
        assert problems(chart_texts, QRectF(stack.rect())) == []
        report = check(stack, MIN_PX_720)
        assert report.seen > 10 and report.all() == [], report.all()
    finally:
        stack.deleteLater()


def test_lesson_mode_shows_the_three_cases(qtbot, source):
    from gemmviz.ui.lesson.mode import LessonView

    view = LessonView(LESSON, source, True)
    qtbot.addWidget(view)
    view.resize(W, H)
    view.show()
    view.go(INDEX)
    shown = view.views[INDEX]
    assert isinstance(shown, LastWaveStack) and shown.isVisible() and len(shown.charts) == 3
    assert shown.pick.recorded_on == "NVIDIA H100 80GB HBM3, 2026-12-07"


def test_the_handout_page_has_the_picture_and_the_notes(qapp, source):
    from gemmviz.ui.lesson.handout import handout_pdf

    one = replace(LESSON, steps=(LESSON.steps[INDEX],))
    (page,) = page_texts(handout_pdf(one, source, W, H))
    assert words("52% of SM-time idle") in words(page) and words("Stream-K · 528 blocks") in words(page)
    assert words(LESSON.steps[INDEX].notes) in words(page)


def test_without_a_recording_the_slide_draws_the_model_and_says_so(qapp, source, monkeypatch):
    monkeypatch.setattr(model_trace, "recorded_sessions", lambda: [])
    image, texts = _slide(source)
    assert not image.isNull() and problems(texts, QRectF(0, 0, W, H)) == []
    drawn = " ".join(t for t, _ in texts)
    assert "n/a (no recorded block traces)" in drawn and "block traces: none recorded, the model's drawn" in drawn
    stack = _stack(source)
    try:
        assert all(h.endswith("(model)") for h in _headings(stack))
        assert {c.time_words for c in stack.charts} == {"model time (µs), not measured"}
    finally:
        stack.deleteLater()


def test_the_presenter_shows_the_step_and_its_notes(qtbot, source):
    """The presenter's panes follow the projected lesson view's deck (ui/lesson/presenter.py), as lesson mode
    opens them beside the window."""
    from PySide6.QtGui import QColor

    from gemmviz.ui.lesson.mode import LessonView
    from gemmviz.ui.lesson.presenter import PresenterWindow

    view = LessonView(LESSON, source, True)
    qtbot.addWidget(view)
    view.resize(W, H)
    p = PresenterWindow(view.deck, view)
    qtbot.addWidget(p)
    p.resize(W, H)
    view.go(INDEX)
    assert p.texts()["step"] == f"step {INDEX + 1} of {len(LESSON.steps)}"
    assert p.texts()["notes"] == LESSON.steps[INDEX].notes
    p.current.draw_slide()
    image = p.current.image
    grid = [(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)]
    assert len({QColor(image.pixel(x, y)).name() for x, y in grid}) > 2  # a slide was drawn, not a blank pane


def test_a_chinese_lesson_heads_and_names_its_charts_in_chinese(qtbot):
    """In lesson mode (the window's language English) the charts' headings and time axis are the lesson's."""
    from gemmviz.ui.lesson.mode import LessonView

    zh = shipped_lessons("zh")["seed001"]
    view = LessonView(zh, lesson_session(zh), True)
    qtbot.addWidget(view)
    view.resize(W, H)
    view.show()
    view.go(INDEX)
    stack = view.views[INDEX]
    qtbot.waitUntil(lambda: stack.charts[-1].compact is not None, timeout=10000)
    assert _headings(stack)[0] == "128×128 分块，每块一个线程块 · 64 个线程块 — 52% 的 SM 时间空闲"
    label = stack.charts[-1].sms_plot.getAxis("bottom").labelText
    assert label == "时间（微秒）"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sm_axis_marks_where_the_last_wave_ends_in_either_language(qapp, lang):
    """The 128×128 case's last wave ran on 64 of 132 SMs: its left axis says 0, 64 and 131 on the 720p slide in
    both languages (the Chinese text's taller lines leave its charts shorter, where "64" was once dropped), and
    no two of those labels' digits touch."""
    from PySide6.QtGui import QFont, QFontMetricsF

    lesson = shipped_lessons(lang)["seed001"]
    source = lesson_session(lesson)
    index = [s.view for s in lesson.steps].index("last-wave")
    area = slide_layout(W, H, slide_for(lesson, index, source), True, True).view
    stack = make_view_widget(lesson.steps[index], source, chart_theme(True, False, W, H), lesson.lang)
    assert isinstance(stack, LastWaveStack)
    layout_offscreen(stack, int(area.width()), int(area.height()))
    try:
        chart = stack.charts[0]
        axis = chart.sms_plot.getAxis("left")
        ticks = [value for value, _label in chart._sm_tick_values]
        assert [label for _v, label in chart._sm_tick_values] == ["0", "64", "131"]
        low, high = chart.sms_plot.getViewBox().viewRange()[1]
        per_sm = chart.sms_plot.getViewBox().height() / (high - low)
        digits = QFontMetricsF(axis.style.get("tickFont") or QFont()).tightBoundingRect("0123456789").height()
        assert min(b - a for a, b in zip(ticks, ticks[1:], strict=False)) * per_sm > digits
    finally:
        stack.deleteLater()
