"""The Hopper frame: renders offscreen at 720p and 1080p, in the normal and projector themes, for every kind of
step, with every text inside the frame and no two texts overlapping; the TMA copy moves a whole tile."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from gemmviz.core.kernels.hopper_model import WGMMA
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.core.schedule.kind_hopper import HOPPER_KINDS, hopper_schedule
from gemmviz.ui.theme import LIGHT, PROJECTOR_LIGHT
from gemmviz.ui.tiling.kind_hopper import draw_hopper
from tests.overlap import problems


def render(s, step, t, theme, w, h):
    font_px = max(11.0, theme.font_pt * 1.35 * min(w / 1920, h / 1080) ** 0.5 * 1.4)  # as render_frame
    image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.background))
    painter = QPainter(image)
    texts = []
    draw_hopper(painter, QRectF(0, 0, w, h), s, step, t, theme, font_px, texts)
    painter.end()
    return image, texts


SCHEDULES = {
    "default": lambda: block_schedule("gpu-wgmma-tf32", Problem(512, 512, 512), None, (1, 2)),
    "bm128-6-stages": lambda: hopper_schedule(
        "gpu-wgmma-tf32", Problem(500, 300, 250), (3, 2), {**WGMMA, "BM": 128, "STAGES": 6, "CLUSTER": 2}
    ),  # fmt: skip
}


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("theme", [LIGHT, PROJECTOR_LIGHT], ids=["light", "projector"])
@pytest.mark.parametrize("which", list(SCHEDULES))
def test_frames_fit_without_overlaps(qapp, size, theme, which):
    s = SCHEDULES[which]()
    first = {}
    for i, st in enumerate(s.steps):
        first.setdefault((st.kind, st.blocked), i)
    assert {kind for kind, _ in first} == set(HOPPER_KINDS)
    for i in sorted(first.values()):
        image, texts = render(s, i, 0.5, theme, *size)
        assert texts and not image.isNull()
        assert problems(texts, QRectF(0, 0, *size)) == [], (which, s.steps[i].kind)
        shown = " ".join(text for text, _ in texts)
        assert f"step {i + 1}/{len(s.steps)}" in shown and "mbarrier wait" in shown


def test_the_tma_copy_moves_and_lands(qapp):
    s = SCHEDULES["default"]()
    i = next(i for i, st in enumerate(s.steps) if st.kind == "tma")
    mid, _ = render(s, i, 0.5, LIGHT, 1280, 720)
    end, _ = render(s, i, 1.0, LIGHT, 1280, 720)
    again, _ = render(s, i, 0.5, LIGHT, 1280, 720)
    assert mid != end  # the tiles are on their way at t = 0.5, in the stage at t = 1
    assert mid == again  # a pure function of (schedule, step, t)


def test_slot_states_are_drawn_differently(qapp):
    s = SCHEDULES["default"]()
    i = next(i for i, st in enumerate(s.steps) if st.kind == "wgmma")
    texts = " ".join(t for t, _ in render(s, i, 1.0, LIGHT, 1920, 1080)[1])
    assert "consuming k1" in texts and "loading k2" in texts and "stage 3" in texts
    assert "wgmma on stage 0" in texts and "producer: 1 thread" in texts


def test_the_mbarrier_waits_are_counted_in_singular_and_plural(qapp):
    s = SCHEDULES["default"]()
    said = {}
    for i, st in enumerate(s.steps):
        n = st.total.barrier_waits
        if n in (1, 2) and n not in said:
            _image, texts = render(s, i, 1.0, PROJECTOR_LIGHT, 1920, 1080)
            said[n] = next(t for t, _ in texts if "mbarrier" in t)
    assert "· 1 mbarrier wait ·" in said[1].replace("  ", " "), said
    assert "· 2 mbarrier waits ·" in said[2].replace("  ", " "), said


def test_each_stage_names_its_a_and_b_tiles_at_the_floor(qapp):
    """The stage's tiles are two bars named A and B (to scale they were slivers of a few pixels), or none."""
    s = SCHEDULES["default"]()
    _image, texts = render(s, 8, 1.0, PROJECTOR_LIGHT, 1920, 1080)
    letters = [box for t, box in texts if t in ("A", "B")]  # the matrices' names are whole here ("A 512×512")
    assert len(letters) == 2 * s.stages
    assert min(box.height() for box in letters) >= 16
