"""The drawing of a lesson's "gap" step (issue 34): the waterfall of the recorded gap between two kernels, the
step's two series or the best FP32 rung against cuBLAS, in the lesson's language ("what the last 5% is")."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from gemmviz.ui.lesson.views import LessonViewUi, Text, ViewContext, register_ui


def gap_view(ctx: ViewContext):
    from gemmviz.ui.hardware.gap import GapView

    view = GapView(ctx.theme, ctx.lang)
    if len(ctx.step.series) == 2:
        view.select(*(ref.text for ref in ctx.step.series))
    return view


@register_ui("gap")
class GapStepView(LessonViewUi):
    def widget(self, ctx: ViewContext) -> QWidget:
        view = gap_view(ctx)
        for combo in (view.a_combo, view.b_combo):  # the step says which two: no picking on a slide
            combo.hide()
        return view

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        texts: list[Text] = []
        view = gap_view(ctx)
        try:
            painter.save()
            view.chart.draw(painter, QRectF(rect), texts)
            painter.restore()
        finally:
            view.deleteLater()
        return texts
