"""The lesson's "code" view: the animation and, beside it, its kernel's code, the lines of the step shown
highlighted (both `__syncthreads()` in turn at the barriers). The step's `animation` table picks the kernel,
size, tile, block and the frame it opens on, as for an "animation" step; . and , step its frames."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from gemmviz.core.lessons import Step
from gemmviz.ui.lesson.views import (
    AnimationView,
    LessonViewUi,
    Text,
    ViewContext,
    _is_vector,
    _VectorBackground,
    frame_state,
    register_ui,
)
from gemmviz.ui.tiling.code import AnimationWithCode, paint_with_code
from gemmviz.ui.tiling.render import Background


@register_ui("code")
class CodeStepView(LessonViewUi):
    def hint(self, step: Step) -> str:
        return AnimationView().hint(step)

    def widget(self, ctx: ViewContext) -> QWidget:
        widget = AnimationWithCode(ctx.theme)
        widget.setMinimumSize(0, 0)
        widget.set_state(frame_state(ctx.step, ctx.frame))
        return widget

    def paint(self, painter: QPainter, rect: QRect, ctx: ViewContext) -> list[Text]:
        background = _VectorBackground(painter) if _is_vector(painter) else Background()
        return paint_with_code(painter, QRectF(rect), frame_state(ctx.step, ctx.frame), ctx.theme, background)
