"""The drawing of the "last-wave" lesson view (core/lesson/view_last_wave.py): the three cases of the small-size fix
one above the other on one time axis, each headed by its case and stating its idle SM-time (ui/hardware/last_wave.
LastWaveStack, the `last-wave` chart's widget, drawn as it is), from the recorded traces where the lesson's results
or the package hold them, else the model's, labelled so on its charts and on the slide's footer."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gemmviz.core.hardware.fix_pick import SIZE, Pick, pick_cases, recorded_pick
from gemmviz.core.problem import Problem
from gemmviz.ui.lesson.views import LessonViewUi, ViewContext, register_ui


def step_pick(ctx: ViewContext) -> Pick:
    """The cases the step shows: recorded (the lesson's results, else the shipped recording), else the model's."""
    at = ctx.step.at or SIZE.m
    p = Problem(at, at, at)
    results = list(ctx.source.results)
    return recorded_pick(p, results) or pick_cases(p, results)


@register_ui("last-wave")
class LastWaveStepView(LessonViewUi):
    def widget(self, ctx: ViewContext) -> QWidget:
        from gemmviz.ui.hardware.last_wave import LastWaveStack

        return LastWaveStack(step_pick(ctx), ctx.theme, one_line=True)
