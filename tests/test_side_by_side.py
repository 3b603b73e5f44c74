"""Two kernels' blocks side by side in lockstep (issue 31): naive vs tiled, TILE 16 vs 32, as a lesson view
("side", its `animation` naming a `versus`) and in the Tiling tab (its "beside" menu); their counters are
each kernel's own, and both reach the store together."""

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from gemmviz.core.lesson_views import AnimationState, lesson_view
from gemmviz.core.lessons import LessonError, lesson_session, parse_lesson, shipped_lessons
from gemmviz.core.lockstep import follower_step
from gemmviz.core.problem import Problem
from gemmviz.core.schedule import block_schedule
from gemmviz.ui.lesson.render import render_slide
from gemmviz.ui.tiling.side import SideBySide, pair_schedules, pair_states
from gemmviz.ui.tiling.view import TilingPanel
from tests.overlap import problems

P = Problem(64, 64, 64)
SIDE = """title = "L"
[[step]]
title = "Side"
text = "Naive and tiled."
view = "side"
animation = {{ variant = "gpu-naive", mnk = "64", tile = 16{versus} }}
"""


@pytest.mark.parametrize("pair", [("gpu-naive", 16, "gpu-tiled", 16), ("gpu-tiled", 16, "gpu-tiled", 32)])
def test_lockstep_never_runs_ahead_and_ends_together(pair):
    v1, t1, v2, t2 = pair
    a, b = block_schedule(v1, P, t1), block_schedule(v2, P, t2)
    lead, follow = (a, b) if len(a.steps) >= len(b.steps) else (b, a)
    last = -1
    for i, step in enumerate(lead.steps):
        j = follower_step(lead, follow, i)
        assert j >= last  # the follower only moves on
        last = j
        if step.kind != "store":
            assert follow.steps[j].k_done <= max(step.k_done, follow.steps[0].k_done)
    assert follow.steps[follower_step(lead, follow, len(lead.steps) - 1)].kind == "store"
    # at the end, each block did K multiply-adds per element of its C tile, from its own loads
    for s in (lead, follow):
        assert s.steps[-1].total.fmas == s.steps[-1].c.count * P.k


def test_a_side_step_is_parsed_and_checked():
    step = parse_lesson(SIDE.format(versus=', versus = { variant = "gpu-tiled", tile = 16 }'), "side").steps[0]
    assert step.view == "side" and step.animation.versus == ("gpu-tiled", 16)
    assert "animation" in lesson_view("side").keys
    with pytest.raises(LessonError, match="versus"):
        parse_lesson(SIDE.format(versus=""), "side")
    with pytest.raises(LessonError, match="tile 7"):
        parse_lesson(SIDE.format(versus=', versus = { variant = "gpu-tiled", tile = 7 }'), "side")
    with pytest.raises(LessonError, match="side-by-side"):
        parse_lesson(SIDE.format(versus=', versus = { variant = "gpu-tiled" }').replace('"side"', '"animation"'), "x")


def _side_lesson():
    lesson = shipped_lessons()["seed000"]
    steps = list(lesson.steps)
    anim = AnimationState("gpu-naive", P, 16, 0, (0, 0), "and", ("gpu-tiled", 16))
    steps[0] = replace(steps[0], view="side", animation=anim, text="Naive and tiled, side by side.")
    return replace(lesson, steps=tuple(steps))


def test_the_side_view_follows_one_frame_with_each_kernels_counters(qtbot):
    lesson = _side_lesson()
    a = lesson.steps[0].animation
    first, second = pair_schedules(a)
    widget = SideBySide(first, second)
    qtbot.addWidget(widget)
    from gemmviz.ui.lesson.views import frame_state

    state = frame_state(lesson.steps[0])
    assert state.schedule == second  # the tiled block has more steps: it leads
    for i in range(len(second.steps)):
        widget.set_state(replace(state, step=i))
        left, right = widget.left.state, widget.right.state
        assert left.schedule is first and right.schedule is second and right.step == i
        assert left.schedule.steps[left.step].total.global_loads >= right.schedule.steps[i].total.global_loads
    assert pair_states(first, second, replace(state, step=len(second.steps) - 1))[0].step == len(first.steps) - 1


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_a_side_slide_draws_both_blocks(qapp, size):
    lesson = _side_lesson()
    w, h = size
    image = QImage(w, h, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    texts = render_slide(painter, w, h, lesson, 0, lesson_session(lesson), True, frame=6)
    painter.end()
    assert problems(texts, QRectF(0, 0, w, h)) == []


def test_the_tiling_tab_puts_a_second_kernel_beside_in_lockstep(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 600)
    panel.show()
    panel.set_problem(P, tile=16, block=16, variant="gpu-tiled")
    assert not panel.beside_view.isVisible()
    panel.beside_combo.setCurrentIndex(panel.beside_combo.findData("gpu-naive"))
    assert panel.beside_view.isVisible() and panel.beside_schedule.variant == "gpu-naive"
    for i in range(len(panel.schedule.steps)):
        panel.go(i)
        other = panel.beside_view.state
        assert other.schedule is panel.beside_schedule
        assert other.step == follower_step(panel.schedule, panel.beside_schedule, i)
    assert other.schedule.steps[other.step].kind == "store"
    panel.beside_combo.setCurrentIndex(0)
    assert not panel.beside_view.isVisible() and panel.beside_schedule is None
