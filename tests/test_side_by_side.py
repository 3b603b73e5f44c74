"""Two kernels' blocks side by side in lockstep (issue 31): naive vs tiled, TILE 16 vs 32, as a lesson view
("side", its `animation` naming a `versus`) and in the Tiling tab (its "beside" menu); their counters are
each kernel's own, and both reach the store together."""

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from gemmviz.core.lesson.lessons import LessonError, lesson_session, parse_lesson, shipped_lessons
from gemmviz.core.lesson.views import AnimationState, lesson_view
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.core.schedule.lockstep import follower_step
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


# ---- tiled vs tiled-pad (the padded kernel's own schedule kind) ------------------------------------------------
def test_the_padded_kernel_is_animated_through_the_registry_with_the_tiled_steps():
    from gemmviz.core.kernels.variants import VARIANTS
    from gemmviz.core.schedule.block import animated_variants, grid_totals

    assert animated_variants()["gpu-tiled-pad"].schedule_kind == "padded"
    edge = Problem(100, 70, 90)
    plain, pad = block_schedule("gpu-tiled", edge, 16, (6, 4)), block_schedule("gpu-tiled-pad", edge, 16, (6, 4))
    assert [(s.kind, s.total) for s in plain.steps] == [(s.kind, s.total) for s in pad.steps]
    traffic = VARIANTS["gpu-tiled-pad"].traffic(edge, {"tile": 16})
    assert grid_totals("gpu-tiled-pad", edge, 16).global_loads == traffic.global_loads


@pytest.mark.parametrize(("tile", "store_ways"), [(8, 2), (16, 2), (32, 1)])
def test_the_bank_figures_of_both_layouts(tile, store_ways):
    """Worked out from the kernel's addresses: the padded array's stores conflict two ways at TILE 8 and 16 (a warp
    stores rows of 17 words: word 32 of them shares bank 0 with word 0), none at 32; reads never conflict; the
    unpadded one never conflicts (its example, tile[ty][k] and tile[k][tx], is conflict-free)."""
    from gemmviz.core.schedule.accesses import shared_banks

    plain, pad = shared_banks(tile, 0), shared_banks(tile, 1)
    assert plain.ways("store") == plain.ways("read") == 1.0
    assert pad.ways("store") == store_ways and pad.ways("read") == 1.0
    assert (
        pad.requests == plain.requests == {"store": 2 * -(-tile * tile // 32), "read": 2 * tile * -(-tile * tile // 32)}
    )


def test_the_bank_figures_agree_with_the_recorded_accesses():
    """TILE 16 at 1024³ on the H200 (the shipped access records): the padded kernel's stores take twice their
    ideal wavefronts, its loads none beyond it; the plain kernel's neither."""
    from gemmviz.core.hardware import accesses as acc
    from gemmviz.core.schedule.accesses import shared_banks

    shipped = acc.shipped_file()
    for variant, pad in (("gpu-tiled", 0), ("gpu-tiled-pad", 1)):
        trace = next(
            t for t in shipped.traces if t.variant == variant and t.mnk == (1024,) * 3 and t.params.get("tile") == 16
        )
        total = {k: sum(b[k] for b in trace.summary) for k in trace.summary[0]}
        banks = shared_banks(16, pad)
        for op, kind in (("st", "store"), ("ld", "read")):  # compiled loads are 16-byte: compare per ideal
            waves, conflicts = total[f"shared_{op}_wavefronts"], total[f"shared_{op}_conflicts"]
            assert waves / (waves - conflicts) == banks.ways(kind), (variant, kind)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_tiled_beside_tiled_pad_as_a_slide(qapp, size):
    from gemmviz.ui.lesson.render import render_slide

    lesson = shipped_lessons()["seed000"]
    steps = list(lesson.steps)
    anim = AnimationState("gpu-tiled", Problem(100, 70, 90), 16, 0, (6, 4), "and", ("gpu-tiled-pad", 16))
    steps[0] = replace(steps[0], view="side", animation=anim, text="Tiled and padded, side by side.")
    lesson = replace(lesson, steps=tuple(steps))
    w, h = size
    image = QImage(w, h, QImage.Format.Format_ARGB32)
    for frame in (0, 1, 2):
        painter = QPainter(image)
        texts = render_slide(painter, w, h, lesson, 0, lesson_session(lesson), True, frame=frame)
        painter.end()
        words = [t for t, _ in texts]
        assert problems(texts, QRectF(0, 0, w, h)) == []
        assert "tile_A[16][17]" in words and "tile_A[16][16]" in words
        banks = [t for t in words if t.startswith("bank conflicts")]
        assert len(banks) == 2 and "2-way" in banks[1] and "2-way" not in banks[0], banks


def test_the_tiling_tab_puts_tiled_pad_beside_tiled(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 600)
    panel.show()
    panel.set_problem(Problem(100, 70, 90), tile=16, variant="gpu-tiled")
    panel.beside_combo.setCurrentIndex(panel.beside_combo.findData("gpu-tiled-pad"))
    assert panel.beside_view.isVisible() and panel.beside_schedule.variant == "gpu-tiled-pad"
    for i in range(len(panel.schedule.steps)):
        panel.go(i)
        assert panel.beside_view.state.step == i  # the same steps: in lockstep one for one


def test_the_tiling_tab_shows_the_compact_counters_of_half_a_view_while_a_kernel_is_beside(qtbot):
    """Beside another kernel each view is half the width: both draw the compact counters of the lesson's side view
    (at 1280×720 in projector type the full ones were shrunk to 11 px), the exports' frame_state() stays whole,
    and with nothing beside the full counters come back."""
    from gemmviz.ui.theme import PROJECTOR_LIGHT
    from tests.legibility import painted_texts

    panel = TilingPanel(PROJECTOR_LIGHT)
    qtbot.addWidget(panel)
    panel.resize(1250, 380)  # the tab's view area at 1280×720 in projector type
    panel.show()
    panel.set_problem(P, tile=16, variant="gpu-tiled")
    panel.source.setVisible(False)
    panel.beside_combo.setCurrentIndex(panel.beside_combo.findData("gpu-naive"))
    qtbot.waitUntil(lambda: panel.beside_view.width() > 0)

    def smallest() -> float:
        return min(
            d.px for v in (panel.view, panel.beside_view) for d in painted_texts(v) if d.text.startswith("global")
        )

    for view in (panel.view, panel.beside_view):
        view.set_state(replace(view.state, compact=False))  # the counters these half views drew before
    full = smallest()
    for i in (0, len(panel.schedule.steps) - 1):
        panel.go(i)
        assert panel.view.state.compact and panel.beside_view.state.compact
        assert not panel.frame_state().compact
    assert smallest() > full
    panel.beside_combo.setCurrentIndex(0)
    assert not panel.view.state.compact
