"""The frame of the seed's bounds bug (bounds = "or", seed001 step 5): the store step drawn big, C and the rows
past its end taking most of the frame, C's overwritten cells solid red inside C and the writes past its end
hatched red under C's bottom edge, each group named with its count, no reuse figure, every text at the floor,
whole and apart; the correct kernel's frame has none of that red."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from gemmviz.core.problem import parse_problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.theme import theme_for
from gemmviz.ui.tiling.bounds_bug import WRONG_DARK, WRONG_LIGHT, bug_layout
from gemmviz.ui.tiling.render import FrameState, font_px_for, min_text_px, render_image, renderer_for
from tests.legibility import Drawn, drawn_problems


def _state(bounds: str) -> FrameState:
    s = block_schedule("gpu-tiled", parse_problem("40x40x40"), 32, (1, 1), bounds=bounds)
    return FrameState(s, len(s.steps) - 1)


def _red_in(image, rect: QRectF, red: str) -> int:
    want = QColor(red).rgb()
    return sum(
        1
        for x in range(int(rect.left()) + 1, int(rect.right()))
        for y in range(int(rect.top()) + 1, int(rect.bottom()))
        if image.pixel(x, y) == want
    )


def _bug_layout(state: FrameState, w: int, h: int, theme):
    s = state.schedule
    fp, floor = font_px_for(w, h, theme), min_text_px(w, h, theme)
    return bug_layout(w, h, s, s.steps[state.step], state.step, fp, floor, renderer_for(s.kind).shape_words(s))


@pytest.mark.parametrize("size", [(1280, 460), (1920, 800), (1240, 440), (1860, 640)])
@pytest.mark.parametrize("dark", [False, True])
def test_the_wrong_writes_are_drawn_big_in_red_inside_and_past_c(qapp, size, dark):
    theme, red = theme_for(True, dark), WRONG_DARK if dark else WRONG_LIGHT
    w, h = size
    state = _state("or")
    texts = []
    image = render_image(state, w, h, theme, texts=texts)
    lay = _bug_layout(state, w, h, theme)
    assert lay.spill is not None and lay.spill.top() == pytest.approx(lay.c.bottom())
    assert lay.spill.height() == pytest.approx(24 * lay.cell)  # index up to 63 * 40 + 39: row 63, 24 rows on
    assert lay.c.height() + lay.spill.height() >= 0.55 * h  # C and what lies past it take most of the frame
    over = QRectF(lay.c.left(), lay.c.top() + 33 * lay.cell, 24 * lay.cell, 7 * lay.cell)  # rows 33-39, cols 0-23
    assert _red_in(image, over, red) >= 0.8 * over.width() * over.height()  # C's own cells overwritten: solid red
    past = QRectF(lay.c.left() + 32 * lay.cell, lay.spill.top() + lay.cell, 8 * lay.cell, 23 * lay.cell)
    hatched = _red_in(image, past, red)  # past C's end: hatched red, not solid
    assert 0 < hatched < 0.6 * past.width() * past.height()
    words = [t for t, _box in texts]
    for label in ("64 right", "168 overwrite other cells of C", "216 past the end of C"):
        assert label in " ".join(words), words
    assert any("384 wrong writes (168 over other cells of C, 216 past its end)" in t for t in words), words
    assert not any(t.startswith("reuse:") for t in words), words  # no reuse figure for an edge block mostly outside C
    assert any("960 of this edge block's 1,024 threads are outside C" in t for t in words), words
    floor = min_text_px(w, h, theme)
    drawn = [Drawn(t, box.height(), box, "frame") for t, box in texts]
    problems = drawn_problems(drawn, QRectF(0, 0, w, h), 0)
    assert problems.all() == []
    small = [t for t, box in texts if box.height() < floor - 0.01]
    assert small == []


def test_the_correct_kernel_draws_no_wrong_write(qapp):
    state = _state("and")
    image = render_image(state, 1280, 460, theme_for(True))
    assert _red_in(image, QRectF(0, 0, 1280, 460), WRONG_LIGHT) == 0
