"""A lesson view made in a test ("stripes": a core part and a drawing) and the check every registered view meets."""

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from gemmviz.core.lesson import views as lesson_views
from gemmviz.core.lesson.views import StepProblem
from gemmviz.ui.lesson import views as ui_views

COLOUR = "#12ab34"


def check_stripes(d, _common):
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


LESSON = 'title = "L"\n[[step]]\ntitle = "Stripes"\ntext = "Look."\nview = "stripes"\nstripes = 4\n'


def every_registered_view_has_a_drawing():
    """Each view's drawing, found as a lesson finds it (its module imported on first use), so the answer does not
    depend on which tests ran before and imported it (issue 35)."""
    for name in lesson_views.view_names():
        assert ui_views.ui_view(name) is not None, name
