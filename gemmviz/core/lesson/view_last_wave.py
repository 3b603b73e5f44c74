"""The "last-wave" lesson view: gpu-cpasync-any's small-size fix, before and after, as recorded block traces (the
Hardware tab's last-wave view, the `last-wave` chart: ui/lesson/view_last_wave.py draws it). Its key: `size`, the
size N of the N³ product (1024 where left out: the size the recording ships), kept as the step's `at`. It names no series or sizes: the
cases are the registry's (core/hardware/fix_pick.py), and the footer names the recording they come from, or the
model where none is at hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gemmviz.core.hardware.fix_pick import SIZE, recorded_pick
from gemmviz.core.lesson.last_wave import footer_note, size_of
from gemmviz.core.lesson.views import CommonFields, LessonViewKind, StepFields, StepProblem, register
from gemmviz.core.messages import Message, define, msg
from gemmviz.core.problem import Problem
from gemmviz.core.session.results import Result

NAME = "last-wave"


def check(d: Mapping, common: CommonFields) -> StepFields:
    if common.series or common.sizes:
        raise StepProblem(
            "series" if common.series else "sizes",
            "a last-wave step draws gpu-cpasync-any before and after the small-size fix: it names no series or "
            "sizes; its size is `size`, e.g. size = 1024",
        )
    return {"at": size_of(d.get("size", SIZE.m), "size").m}


def footnote(step, results: Sequence[Result], lang: str) -> str:
    at = step.at or SIZE.m
    return footer_note(Problem(at, at, at), results, lang)


define(
    "lesson.source.quoted_traces",
    en="Quoted: block traces recorded on {gpu}, {date}",
    zh="引用：线程块轨迹，录制于 {gpu}，{date}",
)


def heading(step, results: Sequence[Result]) -> Message | None:
    """The slide's header where the view draws the shipped recording's traces (not the lesson's session): that
    recording's GPU and date, so the header does not name the session's GPU over another GPU's figures."""
    at = step.at or SIZE.m
    pick = recorded_pick(Problem(at, at, at), results)
    if pick is None or pick.gpu_short is None:
        return None
    return msg("lesson.source.quoted_traces", gpu=pick.gpu_short, date=pick.origin[1])


register(LessonViewKind(NAME, ("size",), check, footnote=footnote, heading=heading))
