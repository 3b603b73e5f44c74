"""The kernel's code beside the animation (issue 31): the `#define` of the tile animated, every line whole
(the bounds checks wrap, never cut), the lines of each step highlighted as the animation reaches it (both
`__syncthreads()` in turn), in the Tiling tab's pane and in the lesson's "code" view at projector size."""

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from gemmviz.core.kernels.code import kernel_listing
from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
from gemmviz.core.lesson.views import lesson_view, view_names
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import animated_variants, block_schedule
from gemmviz.ui.lesson.render import render_slide
from gemmviz.ui.tiling.code import code_layout, code_px, draw_code, listing_for
from gemmviz.ui.tiling.render import FrameState
from gemmviz.ui.tiling.view import TilingPanel
from tests.overlap import problems

BOUNDS = ("(row < M && a_col < K) ?", "(b_row < K && col < N) ?", "if (row < M && col < N) {")


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("tile", [8, 16, 32])
def test_the_listing_defines_the_tile_animated_and_marks_each_step(tile, compact):
    listing = kernel_listing("gpu-tiled", tile, compact)
    text = "\n".join(listing.lines)
    assert f"#define TILE {tile}" in listing.lines and listing.lines.count("#define TILE 16") == (tile == 16)
    assert "gemmviz:step" not in text and all(b in text for b in BOUNDS)
    lines = {kind: [listing.lines[i].split("//")[0].strip() for i in listing.lines_of(kind)] for kind in listing.steps}
    assert lines["sync"] == ["__syncthreads();"] and lines["sync2"] == ["__syncthreads();"]
    assert listing.lines_of("sync") != listing.lines_of("sync2")
    assert [x.split("=")[0].strip() for x in lines["load"] if x.startswith("tile_")] == [
        "tile_A[threadIdx.y][threadIdx.x]",
        "tile_B[threadIdx.y][threadIdx.x]",
    ]
    assert lines["store"] == ["C[row * N + col] = sum;"]
    assert kernel_listing("gpu-tiled-pad", 32, compact).defines["PAD"] == 1


def test_every_animated_kernel_has_a_listing_with_its_steps():
    for name, v in animated_variants().items():
        tile = v.param_defaults.get(v.schedule_param) if v.schedule_param else None
        listing = kernel_listing(name, tile, compact=True)
        schedule_kinds = {s.kind for s in block_schedule(name, Problem(128, 128, 128), tile).steps}
        assert schedule_kinds <= set(listing.steps), name


def test_the_tab_pane_shows_the_tile_picked_and_both_barriers_in_turn(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.set_problem(Problem(100, 70, 90), tile=32)
    text = panel.source.toPlainText()
    assert "#define TILE 32" in text and "#define TILE 16" not in text
    assert all(b in text for b in BOUNDS)
    lines = text.splitlines()
    seen = {}
    for i, step in enumerate(panel.schedule.steps):
        panel.go(i)
        seen.setdefault(step.kind, [lines[n - 1].strip() for n in panel.highlighted_lines])
    assert seen["sync"] == ["__syncthreads();  // tiles ready"]
    assert seen["sync2"] == ["__syncthreads();  // tiles consumed"]
    assert len(seen["load"]) == 3 and seen["store"] == ["C[row * N + col] = sum;"]
    panel.set_problem(Problem(100, 70, 90), tile=8)
    assert "#define TILE 8" in panel.source.toPlainText()


def _state(tile=32, step=0):
    schedule = block_schedule("gpu-tiled", Problem(64, 64, 64), tile)
    return FrameState(schedule, step)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_the_code_fits_its_pane_whole_and_large(qapp, size):
    """At projector size, in half a slide's view: every line drawn inside the pane, none cut, the type at least
    MIN of the slide's height."""
    from gemmviz.ui.lesson.render import chart_theme

    w, h = size
    theme = chart_theme(True, False, w, h)
    rect = QRectF(0, 0, w * 0.5, h * 0.68)
    image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_ARGB32)
    for step in range(4):
        painter = QPainter(image)
        texts = draw_code(painter, rect, _state(step=step), theme)
        painter.end()
        assert problems(texts, rect) == []
        drawn = "".join(t for t, _ in texts)
        assert all(b.replace(" ", "") in drawn.replace(" ", "") for b in BOUNDS)
    lay = code_layout(
        listing_for(_state()), rect.width() - 2 * max(4.0, 0.02 * rect.width()), rect.height(), code_px(theme)
    )
    assert lay.px >= 0.0205 * h, lay.px  # 14.8 px at 720p, 22 px at 1080p


def test_code_is_a_lesson_view_kind_drawn_on_a_slide(qapp):
    assert "code" in view_names() and "animation" in lesson_view("code").keys
    lesson = shipped_lessons()["seed000"]
    index = next(i for i, s in enumerate(lesson.steps) if s.animation and s.animation.variant == "gpu-tiled")
    steps = list(lesson.steps)
    steps[index] = replace(steps[index], view="code", animation=replace(steps[index].animation, tile=32))
    lesson = replace(lesson, steps=tuple(steps))
    source = lesson_session(lesson)
    for w, h in ((1280, 720), (1920, 1080)):
        image = QImage(w, h, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        texts = render_slide(painter, w, h, lesson, index, source, True, frame=1)
        painter.end()
        words = [t for t, _ in texts]
        assert "#define TILE 32" in words and problems(texts, QRectF(0, 0, w, h)) == []


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_a_short_pane_keeps_the_projector_type_and_follows_the_highlighted_line(qapp, size):
    """A pane too short for the whole listing at the projector's type (24 px at 1080p, 16 at 720p): the type stays,
    the #define TILE stays on top, and the rows shown follow the step: the store's bounds check at the store,
    each barrier at its step; every text inside the pane, none cut."""
    from gemmviz.ui.lesson.render import chart_theme
    from gemmviz.ui.tiling.code import GAP_MARK, code_min_px

    w, h = size
    theme = chart_theme(True, False, w, h)
    rect = QRectF(0, 0, w * 0.5, h * 0.4)
    image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_ARGB32)
    state = _state()
    for step, kind in enumerate(s.kind for s in state.schedule.steps):
        painter = QPainter(image)
        texts = draw_code(painter, rect, FrameState(state.schedule, step), theme)
        painter.end()
        assert problems(texts, rect) == []
        words = [t.strip() for t, _ in texts]
        assert words[0].startswith("#define TILE") and GAP_MARK in words
        listing = listing_for(FrameState(state.schedule, step))
        lit = [listing.lines[i].strip() for i in listing.lines_of(kind)]
        drawn = " ".join(words).replace(" ", "")
        assert all(line.replace(" ", "")[:20] in drawn for line in lit), (kind, lit)
    assert min(b.height() for _t, b in texts) >= code_min_px(theme) * 1.1
