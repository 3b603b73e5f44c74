"""Lesson views are a registry (issue 22): a view registered in a test, its core part (keys, checks) and its
drawing under the same name, is parsed from a lesson's TOML, drawn on a slide and shown live in lesson mode,
with no other module knowing its name; then it is unregistered."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QLabel

from gemmviz.core.lesson import views as lesson_views
from gemmviz.core.lesson.lessons import NO_DATA, LessonError, parse_lesson
from gemmviz.core.lesson.views import LessonViewKind, StepProblem
from gemmviz.ui.lesson import views as ui_views

COLOUR = "#12ab34"


def _check(d, _common):
    stripes = d.get("stripes", 3)
    if not isinstance(stripes, int) or not 1 <= stripes <= 9:
        raise StepProblem("stripes", "stripes must be 1…9")
    return {"chart": f"stripes-{stripes}"}  # a view keeps what it needs in the step's fields


class StripesUi(ui_views.LessonViewUi):
    def hint(self, _step):
        return "S shows stripes"

    def widget(self, ctx):
        label = QLabel(ctx.step.chart)
        label.setObjectName("stripes")
        return label

    def paint(self, painter, rect, ctx):
        n = int(ctx.step.chart.split("-")[1])
        for i in range(n):
            painter.fillRect(
                QRectF(rect.left() + i * rect.width() / n, rect.top(), rect.width() / (2 * n), rect.height()),
                QColor(COLOUR),
            )
        painter.drawText(QRectF(rect), Qt.AlignmentFlag.AlignCenter, ctx.step.chart)
        return [(ctx.step.chart, QRectF(rect))]


@pytest.fixture
def stripes():
    lesson_views.register(LessonViewKind("stripes", ("stripes",), _check))
    ui_views.register_ui("stripes")(StripesUi)
    try:
        yield
    finally:
        lesson_views.unregister("stripes")
        ui_views.unregister_ui("stripes")


LESSON = 'title = "L"\n[[step]]\ntitle = "Stripes"\ntext = "Look."\nview = "stripes"\nstripes = 4\n'


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
    """Each view's drawing, found as a lesson finds it (its module imported on first use), so the answer does not
    depend on which tests ran before and imported it (issue 35)."""
    for name in lesson_views.view_names():
        assert ui_views.ui_view(name) is not None, name


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
