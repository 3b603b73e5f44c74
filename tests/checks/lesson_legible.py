"""Legibility of a lesson on a projector, in the window and on the exported slide (tests/test_lesson_legible.py
runs it over every shipped lesson; tests/test_additions.py over a scratch one)."""

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from gemmviz.ui.lesson.mode import LessonView
from gemmviz.ui.lesson.render import render_slide
from tests.legibility import check, drawn_problems, spied
from tests.lesson_checks import check_step_words, step_problems
from tests.overlap import problems

SIZES = {"720p": ((1280, 720), 16), "1080p": ((1920, 1080), 24)}


def window_steps_are_legible(qtbot, lesson, source, size: str) -> None:
    """Every step in lesson mode at `size` in projector type: no text too small, cut or over another."""
    (w, h), min_px = SIZES[size]
    view = LessonView(lesson, source, True)
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
    assert found == [], found


def exported_slides_are_legible(lesson, source, size: str) -> None:
    """Every slide as exported at `size` in projector type: no text too small or cut, none over another."""
    (w, h), min_px = SIZES[size]
    found, laid = [], []
    for i in range(len(lesson.steps)):
        texts = spied(lambda i=i: laid.append(_slide(w, h, lesson, i, source)), f"slide {i + 1}")
        assert texts, "the slide drew no text"
        # where a view's texts land is checked in the window (the same drawing); here their size and cuts
        found += drawn_problems(texts, None, min_px, overlaps=False).all()
        # and the slide's own layout (the texts render_slide reports: none over another, none off the slide), the
        # check tests/test_lesson_ui.py makes of the slides in normal type, on this same drawing
        found += [f"slide {i + 1}: {p}" for p in problems(laid[-1], QRectF(0, 0, w, h))]
    assert found == [], found


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
