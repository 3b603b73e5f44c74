"""Lesson views are a registry (issue 22): a view registered in a test, its core part (keys, checks) and its
drawing under the same name, is parsed from a lesson's TOML, drawn on a slide and shown live in lesson mode,
with no other module knowing its name; then it is unregistered."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel

from gemmviz.core.lesson import views as lesson_views
from gemmviz.core.lesson.lessons import NO_DATA, LessonError, parse_lesson
from gemmviz.core.lesson.views import LessonViewKind
from gemmviz.ui.lesson import views as ui_views
from tests.checks.lesson_views import COLOUR, LESSON, StripesUi, check_stripes, every_registered_view_has_a_drawing


@pytest.fixture
def stripes():
    lesson_views.register(LessonViewKind("stripes", ("stripes",), check_stripes))
    ui_views.register_ui("stripes")(StripesUi)
    try:
        yield
    finally:
        lesson_views.unregister("stripes")
        ui_views.unregister_ui("stripes")


def test_a_registered_view_parses_renders_and_goes(qapp, stripes):
    from gemmviz.ui.lesson.render import render_slide_image

    lesson = parse_lesson(LESSON, "x", "my.toml")
    assert lesson.steps[0].view == "stripes" and lesson.steps[0].chart == "stripes-4"
    with pytest.raises(LessonError, match=r"my.toml:6: stripes must be 1…9"):
        parse_lesson(LESSON.replace("= 4", "= 12"), "x", "my.toml")
    with pytest.raises(LessonError, match="unknown key 'stripes' in a text step"):
        parse_lesson(LESSON.replace('view = "stripes"\n', ""), "x", "my.toml")
    image = render_slide_image(640, 360, lesson, 0, NO_DATA)
    colours = {image.pixelColor(x, 250).name() for x in range(0, 640, 4)}
    assert COLOUR in colours


def test_unregistered_views_are_refused(stripes):
    lesson_views.unregister("stripes")
    with pytest.raises(LessonError, match="view must be one of"):
        parse_lesson(LESSON, "x", "my.toml")


def test_lesson_mode_shows_the_registered_views_widget(qtbot, stripes):
    from gemmviz.ui.lesson.mode import LessonView

    view = LessonView(parse_lesson(LESSON, "x", "my.toml"), None)
    qtbot.addWidget(view)
    view.resize(960, 540)
    view.show()
    view.go(0)
    shown = view.views[0]
    assert isinstance(shown, QLabel) and shown.text() == "stripes-4" and shown.isVisible()
    assert view.status == "S shows stripes"


def test_every_registered_view_has_a_drawing():
    every_registered_view_has_a_drawing()


def test_a_view_registered_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        lesson_views.register(LessonViewKind("chart"))
    with pytest.raises(ValueError, match="twice"):
        ui_views.register_ui("chart")(StripesUi)


def test_the_painter_is_left_as_found(qapp):
    """A view's paint restores what it saved: the slide's footer is drawn after it."""
    from PySide6.QtGui import QImage

    from gemmviz.core.lesson.lessons import shipped_lessons
    from gemmviz.ui.lesson.render import render_slide

    lesson = shipped_lessons()["seed000"]
    image = QImage(640, 360, QImage.Format.Format_ARGB32_Premultiplied)
    for i, step in enumerate(lesson.steps):
        if step.view in ("animation", "accesses"):
            painter = QPainter(image)
            before = painter.transform()
            render_slide(painter, 640, 360, lesson, i, NO_DATA)
            assert painter.transform() == before and not painter.hasClipping()
            painter.end()
