"""The frame of the seed's bounds bug (bounds = "or", seed001 step 5): the store's wrong writes drawn in red,
C's overwritten cells inside C and the writes past its end under C's bottom edge, with a caption counting them,
every text at the floor, whole and apart; the correct kernel's frame has none of that red."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from gemmviz.core.problem import parse_problem  # noqa: E402
from gemmviz.core.schedule import block_schedule  # noqa: E402
from gemmviz.ui.theme import theme_for  # noqa: E402
from gemmviz.ui.tiling.render import (  # noqa: E402
    WRONG_DARK,
    WRONG_LIGHT,
    FrameState,
    min_text_px,
    render_image,
    renderer_for,
)
from tests.legibility import Drawn, drawn_problems  # noqa: E402


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


@pytest.mark.parametrize("size", [(1280, 460), (1920, 800)])
@pytest.mark.parametrize("dark", [False, True])
def test_the_wrong_writes_are_drawn_in_red_inside_and_past_c(qapp, size, dark):
    theme, red = theme_for(True, dark), WRONG_DARK if dark else WRONG_LIGHT
    w, h = size
    state = _state("or")
    texts = []
    image = render_image(state, w, h, theme, texts=texts)
    lay = renderer_for("tiled").layout(w, h, state, theme)
    assert lay.spill is not None and lay.spill.top() == pytest.approx(lay.c.bottom())
    assert lay.spill.height() == pytest.approx(24 * lay.scale)  # index up to 63 * 40 + 39: row 63, 24 rows on
    assert _red_in(image, lay.spill, red) > 0  # past C's end, under its bottom edge
    assert _red_in(image, lay.c, red) > 0  # C's own cells overwritten
    assert lay.caption.top() >= lay.spill.bottom()
    words = [t for t, _box in texts]
    assert any("384 wrong writes (168 over other cells of C, 216 past its end)" in t for t in words), words
    floor = min_text_px(w, h, theme)
    drawn = [Drawn(t, box.height(), box, "frame") for t, box in texts]
    problems = drawn_problems(drawn, QRectF(0, 0, w, h), 0)
    assert problems.all() == []
    small = [t for t, box in texts if box.height() < floor - 0.01]
    assert small == []


def test_the_correct_kernel_draws_no_wrong_write(qapp):
    state = _state("and")
    image = render_image(state, 1280, 460, theme_for(True))
    lay = renderer_for("tiled").layout(1280, 460, state, theme_for(True))
    assert lay.spill is None
    assert _red_in(image, QRectF(0, 0, 1280, 460), WRONG_LIGHT) == 0
