"""The animation's static labels at a projector's sizes (issue 20): global memory's name is always shown (at
the frame's floor or larger, never cut), each matrix named (its letter where its size would reach the next
name), and no two labels over each other; the views the window gives the Tiling tab at 1280×720 and 1920×1080."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF

from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule, legible_problem
from gemmviz.ui.theme import theme_for
from gemmviz.ui.tiling.render import FrameState, min_text_px, render_image
from tests.legibility import drawn_problems, spied

VIEWS = [(1250, 380), (1900, 560)]  # about what the window's Tiling tab gives the frame, projector type
KERNELS = {"gpu-naive": 16, "gpu-tiled": 16, "gpu-blocktile2d": None}


@pytest.mark.parametrize("size", VIEWS)
@pytest.mark.parametrize("variant", list(KERNELS))
@pytest.mark.parametrize("problem", ["legible", Problem(256, 256, 256), Problem(100, 70, 90)])
def test_global_memory_and_the_matrices_are_named_legibly(qapp, size, variant, problem):
    tile = KERNELS[variant]
    p = legible_problem(variant, tile) if problem == "legible" else problem
    s = block_schedule(variant, p, tile)
    w, h = size
    theme = theme_for(True)
    drawn = spied(lambda: render_image(FrameState(s, 0), w, h, theme), "frame")  # each text with its size
    words = [d.text for d in drawn]
    assert any(t in ("global memory (HBM)", "global memory") for t in words), words
    for letter in "ABC":
        assert any(t == letter or t.startswith(f"{letter}  (") for t in words), (letter, words)
    assert drawn_problems(drawn, QRectF(0, 0, w, h), min_text_px(w, h, theme)).all() == []


def test_a_heading_of_the_counters_heads_its_own_column():
    """In two columns along the bottom, 'this block so far:' (a bold line) never ends the first column under the
    kernel's name and size: it moves to the top of the second, over the counts it heads."""
    from gemmviz.ui.tiling.layout import column_lines

    lines = ["gpu-tiled", "64³ · TILE 16", "block (0, 0)", "bank conflicts: none", "this block so far:"]
    lines += ["global loads 512", "shared loads 0", "multiply-adds 0", "global stores 0", "reuse: none yet"]
    bold = [True, False, False, False, True, False, False, False, False, True]
    first, second = column_lines(lines, 2, bold)
    assert first == lines[:4] and second[0] == "this block so far:" and second[1:] == lines[5:]
    assert column_lines(lines, 2) == [lines[:5], lines[5:]]  # without weights: halves, as before
    assert column_lines(lines, 1, bold) == [lines]
    assert column_lines(lines, 2, [True] * len(lines)) == [lines[:5], lines[5:]]  # every line bold: no heading


def _render_seed000_zh_slide(title: str) -> None:
    """Draw seed000's Chinese slide of that title at 1280×720 in projector type, as a projected lesson does."""
    from PySide6.QtGui import QImage, QPainter

    from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
    from gemmviz.ui.lesson.render import render_slide
    from gemmviz.ui.tiling import layout

    # fitted afresh: a slide another test file drew first in this process left its layout cached, and the spies on
    # the fitting saw nothing (the order of files on a worker decides it: it failed in CI, not here)
    layout._LAYOUTS.clear()
    lesson = shipped_lessons("zh")["seed000"]
    index = [s.title for s in lesson.steps].index(title)
    image = QImage(1280, 720, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    try:
        render_slide(painter, 1280, 720, lesson, index, lesson_session(lesson), True)
    finally:
        painter.end()


def test_global_memory_is_named_on_bs_row_clear_of_the_zoom_line(qapp, monkeypatch):
    """seed000's edge-block slide in Chinese at 720p: global memory's name sits on B's row (at the frame's floor
    where its own size does not fit there), not on A's row, where the zoomed block's dashed line runs to C."""
    from gemmviz.ui.tiling import background

    seen = []
    real = background.background_labels
    monkeypatch.setattr(background, "background_labels", lambda s, lay: seen.append(real(s, lay)) or seen[-1])
    _render_seed000_zh_slide("边缘线程块的零填充")
    labels = {text: (at, px) for at, text, px, _bold in seen[-1]}
    (gm_at, gm_px), (b_at, _) = labels["全局内存"], labels["B"]
    assert gm_at.y() == b_at.y() and gm_at.x() > b_at.x() and gm_px >= 16  # the projected floor at 720p


def test_the_counters_go_along_the_bottom_only_where_the_matrices_keep_half_their_size(qapp, monkeypatch):
    """seed000's Chinese code slide at 720p: two columns of counters along the bottom set them at 23 px instead of
    18.5, and drew A, B and C at a third of their size, thumbnails from the back of a room. One column stays
    where its smallest type is still what a projector needs there; the matrices keep their size."""
    from gemmviz.ui.tiling import layout

    fits, chosen = [], []
    real_fit, real_layout = layout._fit, layout.fit_layout
    monkeypatch.setattr(layout, "_fit", lambda *a, **k: fits.append(real_fit(*a, **k)) or fits[-1])
    monkeypatch.setattr(layout, "fit_layout", lambda *a, **k: chosen.append((a, real_layout(*a, **k))) or chosen[-1][1])
    _render_seed000_zh_slide("核函数代码：两个屏障")
    (one, _), (two, _) = fits[-2:]
    args, lay = chosen[-1]
    floors = args[6]
    assert one.text_columns == 1 and two.text_columns == 2 and two.scale < layout.PICTURE_KEPT * one.scale
    assert lay is one and layout.SMALLEST * one.font_px >= floors.legible_px >= 15.5  # 24 px at 1080p, scaled


@pytest.mark.parametrize(
    "tile, line",
    [
        (32, "bank conflicts: none (none unpadded either: nothing to fix)"),  # padding has nothing to remove
        (16, "bank conflicts: stores 2-way (none unpadded: the padding adds them)"),  # rows of 17 words
    ],
)
def test_the_padded_kernel_says_whether_padding_had_anything_to_fix(qapp, tile, line):
    """The padded and the unpadded kernel both said "bank conflicts: none" at TILE 32, and nothing said why one
    would pad; the padded one now says what the tile has unpadded (the kernel's own addresses, worked out as the
    recorded accesses are summarised): none either at TILE 32, and none at TILE 16, where the pad adds a 2-way one. Beside the unpadded kernel, which says its own, the figures alone."""
    from gemmviz.ui.tiling.block import counter_texts

    s = block_schedule("gpu-tiled-pad", Problem(64, 64, 64), tile)
    assert line in [text for text, _bold in counter_texts(s, 0, (0, 0), lang="en")]
    beside = [text for text, _bold in counter_texts(s, 0, (0, 0), compact=True, lang="en")]
    assert not any("nothing to fix" in text for text in beside)
