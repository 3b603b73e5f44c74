"""Animated schedules are a registry (issue 22): a schedule kind registered in a test (how its schedule is
made, in core, and its renderer, in ui/tiling) and a variant naming it are found by the tiling tab, a lesson's
animation step and `gemmviz animate`, with no other module knowing its name; then both are unregistered."""

from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from gemmviz.core.kernels.variants import VARIANTS
from gemmviz.core.problem import Problem, ProblemError
from gemmviz.core.schedule import kinds as schedule_kinds
from gemmviz.core.schedule.block import STEP_KINDS, block_schedule, grid_and_threads, legible_problem
from gemmviz.core.schedule.kinds import ScheduleKind
from gemmviz.core.schedule.records import Counters, Schedule, Step
from gemmviz.ui.tiling import render

COLOUR = "#d41c7a"
NAME = "gpu-stripes"


def _build(variant, problem, tile, block):
    s = Schedule(variant, problem, problem, tile, tile, tile, 1, 1, block)
    if not (0 <= block[0] < s.grid[0] and 0 <= block[1] < s.grid[1]):
        raise ProblemError("outside the grid")
    for i in range(3):
        s.steps.append(Step("paint", f"stripe {i + 1} of 3", i, None, None, None, 0, Counters(), Counters()))
    return s


def _grid(variant, problem, tile):
    return (-(-problem.m // tile), -(-problem.n // tile)), (tile, tile)


class StripesRenderer(render.ScheduleRenderer):
    def draw(self, canvas, state):
        canvas.painter.fillRect(QRectF(0, 0, canvas.w, canvas.h), QColor(canvas.theme.background))
        width = canvas.w / 3
        canvas.painter.fillRect(QRectF(state.step * width, 0, width, canvas.h), QColor(COLOUR))
        if canvas.texts is not None:
            canvas.texts.append((state.schedule.steps[state.step].text, QRectF(0, 0, 10, 10)))


@pytest.fixture
def stripes():
    schedule_kinds.register(ScheduleKind("stripes", ("paint",), _build, _grid, lambda v, t: Problem(2 * t, 2 * t, t)))
    render.register_renderer("stripes")(StripesRenderer)
    try:
        with VARIANTS.scratch(replace(VARIANTS["gpu-tiled"], name=NAME, title="Stripes", schedule_kind="stripes")):
            yield
    finally:
        schedule_kinds.unregister("stripes")
        render.unregister_renderer("stripes")


def _has_colour(image) -> bool:
    return any(image.pixelColor(x, image.height() // 2).name() == COLOUR for x in range(0, image.width(), 3))


def test_core_finds_the_kind_through_the_variant(stripes):
    assert STEP_KINDS["stripes"] == ("paint",)
    assert grid_and_threads(NAME, Problem(64, 32, 16), 16) == ((4, 2), (16, 16))
    assert legible_problem(NAME, 16) == Problem(32, 32, 16)
    assert [st.kind for st in block_schedule(NAME, Problem(64, 64, 64), 16).steps] == ["paint"] * 3


def test_the_tiling_tab_draws_the_registered_kind(qtbot, stripes):
    from gemmviz.ui.tiling.view import TilingPanel

    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 500)
    panel.variant_combo.setCurrentIndex(panel.variant_combo.findData(NAME))
    assert panel.variant == NAME and panel.schedule is not None and len(panel.schedule.steps) == 3
    panel.go(2)
    assert _has_colour(panel.view.grab().toImage())
    assert not panel.message.isVisible()


def test_a_lesson_animates_the_registered_kind(qapp, stripes):
    from gemmviz.core.lesson.lessons import NO_DATA, parse_lesson
    from gemmviz.ui.lesson.render import render_slide_image

    lesson = parse_lesson(
        f'title = "L"\n[[step]]\ntitle = "S"\ntext = "Look."\nview = "animation"\n'
        f'animation = {{ variant = "{NAME}", mnk = "32", step = 1 }}\n',
        "x",
        "my.toml",
    )
    assert lesson.steps[0].animation.variant == NAME
    assert _has_colour(render_slide_image(960, 540, lesson, 0, NO_DATA))


def test_gemmviz_animate_renders_the_registered_kind(stripes, tmp_path, capsys):
    from PySide6.QtGui import QImage

    from gemmviz.cli import main

    assert main(["animate", "--variant", NAME, "--mnk", "32", "--frames", str(tmp_path), "--size", "320x180"]) == 0
    frames = sorted(tmp_path.glob("*.png"))
    assert len(frames) == 3 and _has_colour(QImage(str(frames[1])))


def test_unregistered_kinds_are_refused(stripes):
    schedule_kinds.unregister("stripes")
    with pytest.raises(ProblemError, match="no schedule kind 'stripes'"):
        block_schedule(NAME, Problem(32, 32, 32), 16)
    with pytest.raises(ValueError, match="twice"):
        schedule_kinds.register(schedule_kinds.schedule_kind("tiled"))
    with pytest.raises(ValueError, match="twice"):
        render.register_renderer("tiled")(StripesRenderer)


def test_every_animated_variant_has_a_kind_and_a_renderer():
    from gemmviz.core.schedule.block import animated_variants

    for v in animated_variants().values():
        assert render.renderer_for(schedule_kinds.schedule_kind(v.schedule_kind).name) is not None


NAMESAKES = """
import sys
from gemmviz.core.problem import ProblemError
from gemmviz.core.schedule.kinds import schedule_kind
from gemmviz.ui.tiling.render import renderer_for

for name in ("accesses", "records", "kinds"):  # core/schedule/accesses.py, ...: no kinds
    try:
        schedule_kind(name)
    except ProblemError:
        pass
for name in ("view", "frames", "layout", "captions"):  # ui/tiling/view.py, ...: no renderers
    try:
        renderer_for(name)
    except KeyError:
        pass
print(sorted(m for m in sys.modules if m in ("gemmviz.core.schedule.accesses", "gemmviz.ui.tiling.view",
                                               "gemmviz.ui.tiling.frames")))
"""


def test_a_kind_named_like_another_module_imports_nothing():
    """Kinds and renderers live in schedule/kind_NAME.py and kind_NAME.py: a kind called "view" or "accesses" is
    not looked for in the package's ordinary modules of that name."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", NAMESAKES], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
