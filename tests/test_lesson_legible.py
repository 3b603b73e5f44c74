"""Issue 20: every step of every shipped lesson, in English and Chinese, legible from the back of a room at
1280×720 and 1920×1080 in projector type: in the window (the lesson view and the live view it embeds) and on
the exported slide. No text under the projector's size (24 px at 1080p, 16 px at 720p), none cut, none over
another (tests/test_lesson_ui.py checks the slides' own layout). Texts are caught as they are painted (tests/legibility.py)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
from gemmviz.ui.lesson.mode import LessonView
from gemmviz.ui.lesson.render import render_slide
from tests.legibility import check, drawn_problems, spied
from tests.lesson_checks import check_step_words, step_problems
from tests.overlap import problems

SIZES = {"720p": ((1280, 720), 16), "1080p": ((1920, 1080), 24)}
LESSONS = {lang: shipped_lessons(lang) for lang in ("en", "zh")}
CASES = [(lang, name) for lang, lessons in LESSONS.items() for name in sorted(lessons)]


@pytest.fixture(scope="module")
def sources():
    return {(lang, name): lesson_session(LESSONS[lang][name]) for lang, name in CASES}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(("lang", "name"), CASES)
def test_every_step_in_the_window_is_legible_on_a_projector(qtbot, sources, lang, name, size):
    lesson = LESSONS[lang][name]
    (w, h), min_px = SIZES[size]
    view = LessonView(lesson, sources[lang, name], True)
    qtbot.addWidget(view)
    view.resize(w, h)
    view.show()
    qtbot.waitExposed(view)
    found = []
    for i in range(len(lesson.steps)):
        view.go(i)
        for _ in range(3):  # the step's view lays itself out at its size, as before painting
            QApplication.processEvents()
        report = check(view, min_px)
        assert report.seen >= 4, (i, report.seen)  # at least the header's three texts and the title
        found += [f"step {i + 1}: {p}" for p in report.all()]
        # and the layout: the checks tests/test_lesson_ui.py makes in normal type, on this same walk
        found += [f"step {i + 1}: {p}" for p in step_problems(view)]
        check_step_words(view, lesson, i)
    assert found == []


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(("lang", "name"), CASES)
def test_every_exported_slide_is_legible(qtbot, sources, lang, name, size):
    lesson = LESSONS[lang][name]
    (w, h), min_px = SIZES[size]
    found, laid = [], []
    for i in range(len(lesson.steps)):
        texts = spied(lambda i=i: laid.append(_slide(w, h, lesson, i, sources[lang, name])), f"slide {i + 1}")
        assert texts, "the slide drew no text"
        # where a view's texts land is checked in the window (the same drawing); here their size and cuts
        found += drawn_problems(texts, None, min_px, overlaps=False).all()
        # and the slide's own layout (the texts render_slide reports: none over another, none off the slide), the
        # check tests/test_lesson_ui.py makes of the slides in normal type, on this same drawing
        found += [f"slide {i + 1}: {p}" for p in problems(laid[-1], QRectF(0, 0, w, h))]
    assert found == []


def _slide(w: int, h: int, lesson, i: int, source) -> list:
    """What render_slide_image draws (a slide as exported, in projector type), returning the texts it laid out."""
    image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        return render_slide(painter, w, h, lesson, i, source, True)
    finally:
        painter.end()
