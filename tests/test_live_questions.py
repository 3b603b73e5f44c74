"""Issue 44, live questions: "what about 1000×1000?" in the Tiling tab in at most three actions (click the size
menu, type the size, Enter), the tile kept."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gemmviz.core.problem import Problem
from gemmviz.ui.tiling.view import TilingPanel
from gemmviz.ui.tiling.widgets import is_text_entry


def _type_size(qtbot, panel, text):
    """The three actions: a click into the size menu's field, the size typed, Enter."""
    field = panel.size_combo.lineEdit()
    QTest.mouseClick(field, Qt.MouseButton.LeftButton)
    field.selectAll()
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)


def test_any_size_typed_into_the_tiling_tab_keeps_the_kernel_and_tile(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_problem(Problem(64, 64, 64), tile=32, variant="gpu-tiled")
    _type_size(qtbot, panel, "1000")
    assert panel.problem == Problem(1000, 1000, 1000)
    assert panel.tiles["gpu-tiled"] == 32 and panel.tile_combo.currentData() == 32 and panel.variant == "gpu-tiled"
    assert panel.block_y.maximum() == 31  # 1000 / 32 rounded up: 32 blocks a side, the edge one partly outside
    _type_size(qtbot, panel, "1000x800x600")
    assert panel.problem == Problem(1000, 800, 600) and panel.tiles["gpu-tiled"] == 32
    _type_size(qtbot, panel, "100×70×90")  # as the menu writes sizes
    assert panel.problem == Problem(100, 70, 90)
    _type_size(qtbot, panel, "big")  # a typo: said, the animation kept
    assert panel.problem == Problem(100, 70, 90) and panel.message.isVisibleTo(panel)
    assert is_text_entry(panel.size_combo)  # the arrows and Space stay the field's while typing
    _type_size(qtbot, panel, panel.size_combo.itemText(0))  # a menu entry's words pick it
    assert panel.size_combo.currentIndex() == 0


def test_the_tile_sizes_slide_draws_each_tile_in_its_colour_on_a_labelled_log_axis(qapp):
    """Issue 44: seed000's "Tile size: 8, 16 or 32" drew three lines of one green, told apart by their markers
    only, on a log axis labelled at 5,000 and 10,000 alone (it read as linear)."""
    import math

    import pyqtgraph as pg

    from gemmviz.core.lesson.lessons import all_shipped_lessons, lesson_session
    from gemmviz.ui.charts.axes import ticks_125
    from gemmviz.ui.export.exporters import layout_offscreen
    from gemmviz.ui.lesson.render import chart_theme
    from gemmviz.ui.lesson.views import ViewContext, ui_view

    for lang in ("en", "zh"):
        lesson = all_shipped_lessons()["seed000-20min"][lang]
        step = next(s for s in lesson.steps if len({r.variant for r in s.series}) == 1 and len(s.series) == 3)
        chart = ui_view("chart").widget(ViewContext(step, lesson_session(lesson), chart_theme(True, False, 1280, 720)))
        layout_offscreen(chart, 1200, 480)
        curves = [i for i in chart.getPlotItem().items if isinstance(i, pg.PlotCurveItem)]
        assert len(curves) == 3 and len({c.opts["pen"].color().name() for c in curves}) == 3
        low, high = chart.getPlotItem().getViewBox().viewRange()[1]
        labelled = ticks_125(low, high, 10**6)
        assert len(labelled) >= 3 and all(round(10**v) in (1000, 2000, 5000, 10000, 20000) for v in labelled)
        assert math.isclose(10 ** labelled[0], 2000)
        chart.hide()
        chart.deleteLater()


def test_1000_beside_the_sweeps_1024_is_a_hollow_mark_not_the_same_dot(qapp):
    """Issue 44: the Charts tab drew the 1000³ and 1024³ points on top of each other. 1000³ is off the sweep's
    line: its marker is hollow, ringed in the series' colour; the sweep's are filled."""
    import pyqtgraph as pg

    from gemmviz.core.session.results import Result
    from gemmviz.ui.export.exporters import make_chart
    from gemmviz.ui.theme import LIGHT

    results = [
        Result("gpu-tiled", {"tile": 16}, n, n, n, "cuda", "fp32", True, samples_ms=[2 * n**3 / 8e12 * 1e3])
        for n in (512, 1000, 1024, 2048)
    ]
    chart = make_chart("gflops", results, LIGHT)
    (scatter,) = [i for i in chart.getPlotItem().items if isinstance(i, pg.ScatterPlotItem)]
    fills = {round(10 ** p.pos().x()): p.brush().color().name() for p in scatter.points()}
    background = LIGHT.background.lower()
    assert fills[1000] == background and fills[1024] != background and fills[1024] == fills[512]
    # and the legend says what a hollow marker means, and which size it is (the window's screenshots showed them
    # unexplained, then as "a size off the line", leaving a class asking which dot was which)
    assert "hollow: 1000³" in chart.legend.names
    chart.deleteLater()
    sweep = make_chart("gflops", [r for r in results if r.m != 1000], LIGHT)
    assert not any(n.startswith("hollow") for n in sweep.legend.names)  # none drawn, none explained
    sweep.deleteLater()
    shapes = [(2000, 3000, 1000), (2048, 3072, 4096), (257, 383, 200)]
    odd = [Result("gpu-tiled", {"tile": 16}, m, n, k, "cuda", "fp32", True, samples_ms=[1.0]) for m, n, k in shapes]
    three = make_chart("gflops", results + odd[:1], LIGHT)
    assert "hollow: 1000³ and 2000×3000×1000" in three.legend.names  # in size order
    three.deleteLater()
    many = make_chart("gflops", results + odd, LIGHT)
    assert "hollow: 257×383×200 and 3 other sizes" in many.legend.names  # the smallest named
    many.deleteLater()
