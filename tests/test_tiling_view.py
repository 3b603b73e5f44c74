import json

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings

from gemmviz.cli import main
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.tiling.render import FrameState, render_image
from gemmviz.ui.tiling.view import TilingPanel


def distinct_colours(image, step=7):
    return {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}


def test_frames_render_offscreen_and_are_not_blank(qapp):
    s = block_schedule("gpu-tiled", Problem(100, 70, 90), 16, (2, 1))
    for i in range(len(s.steps)):
        image = render_image(FrameState(s, i, 1.0, (4, 5)), 640, 360)
        assert (image.width(), image.height()) == (640, 360)
        assert len(distinct_colours(image)) > 5


def test_load_step_moves_the_tile(qapp):
    s = block_schedule("gpu-tiled", Problem(64, 64, 64), 16)
    start = render_image(FrameState(s, 0, 0.1), 640, 360)
    middle = render_image(FrameState(s, 0, 0.5), 640, 360)
    assert start != middle


def test_stepping_to_a_frame_from_anywhere_gives_the_same_image(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.set_problem(Problem(48, 40, 56), tile=16)
    panel.thread_y.setValue(3)
    panel.go(7)
    direct = render_image(panel.frame_state(), 480, 300)
    panel.go(0)
    panel.go(11)
    panel.go(7)
    again = render_image(panel.frame_state(), 480, 300)
    assert direct == again
    last = len(panel.schedule.steps) - 1
    panel.go(last)
    for _ in range(last - 7):
        panel.back_button.click()
    assert panel.step == 7 and render_image(panel.frame_state(), 480, 300) == direct
    panel.slider.setValue(2)
    panel.slider.setValue(7)
    assert render_image(panel.frame_state(), 480, 300) == direct


def test_source_line_follows_the_step(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.set_problem(Problem(32, 32, 32), tile=16)
    lines = panel.source.toPlainText().splitlines()
    kinds = {}
    for i, step in enumerate(panel.schedule.steps[:5]):
        panel.go(i)
        kinds[step.kind] = lines[panel.highlighted_line - 1]
    assert "tile_A[threadIdx.y][threadIdx.x] =" in kinds["load"]
    assert "__syncthreads" in kinds["sync"] and "__syncthreads" in kinds["sync2"]
    assert "sum +=" in kinds["compute"]
    panel.go(len(panel.schedule.steps) - 1)
    assert "C[row * N + col] = sum" in lines[panel.highlighted_line - 1]


def test_play_advances_and_stops_at_the_end(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.set_problem(Problem(16, 16, 32), tile=16)
    panel.speed_spin.setValue(60)
    panel.toggle_play()
    qtbot.waitUntil(lambda: not panel.timer.isActive(), timeout=30_000)
    assert panel.step == len(panel.schedule.steps) - 1


def test_bad_block_or_tile_is_explained_not_crashed(qtbot):
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.set_problem(Problem(8, 8, 8), tile=12)
    assert "not supported" in panel.message.text()
    panel.set_problem(Problem(8, 8, 8), tile=32)  # tile larger than the matrix is fine
    assert panel.message.text() == "" and panel.schedule.grid == (1, 1)


def test_window_animation_follows_controls_and_results(qtbot, tmp_path):
    from gemmviz.backends.cpu import CpuBackend
    from gemmviz.core.session.results import Result
    from gemmviz.ui.run.panel import CUSTOM
    from gemmviz.ui.window import MainWindow
    from tests.fakes import FakeGpuBackend

    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend()},
        QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
        load_recorded_without_gpu=False,
    )
    qtbot.addWidget(w)
    p = w.run_panel
    t = w.tiling
    assert t.size_combo.currentData() == "legible" and t.problem == Problem(64, 64, 64)  # 4×4 blocks of 16
    p.size_preset.setCurrentText(CUSTOM)
    p.m_edit.setText("40"), p.n_edit.setText("50"), p.k_edit.setText("60")
    p.m_edit.editingFinished.emit()
    assert t.benchmark == Problem(40, 50, 60) and t.problem == Problem(64, 64, 64)  # the legible size stays
    t.size_combo.setCurrentIndex(t.size_combo.findData("benchmark"))
    assert t.problem == Problem(40, 50, 60) and "40×50×60" in t.size_combo.currentText()
    r = Result("gpu-tiled", {"tile": 32}, 100, 80, 60, "cuda", "fp32", True, samples_ms=[1.0])
    w.show_animation(r)
    assert w.tabs.currentWidget() is t and t.schedule.tile == 32 and t.problem == Problem(100, 80, 60)
    assert t.tile_combo.currentData() == 32
    t.size_combo.setCurrentIndex(t.size_combo.findData("legible"))
    assert t.problem == Problem(128, 128, 128)  # 4×4 blocks of 32
    w.close()


def test_the_tabs_tile_menu_keeps_the_legible_size(qtbot):
    """Choosing tile 8/16/32 in the tab (no need for the hidden control panel) animates a size legible with
    that tile: 4×4 blocks and 4 K-steps, never the benchmark's 1024³."""
    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel._set_benchmark(Problem(1024, 1024, 1024))
    assert [panel.tile_combo.itemData(i) for i in range(panel.tile_combo.count())] == [8, 16, 32]
    for tile in (8, 16, 32):
        panel.tile_combo.setCurrentIndex(panel.tile_combo.findData(tile))
        assert panel.schedule.tile == tile and panel.problem == Problem(4 * tile, 4 * tile, 4 * tile)
        assert panel.schedule.grid == (4, 4) and panel.message.text() == ""
    panel.variant_combo.setCurrentIndex(panel.variant_combo.findData("gpu-naive"))
    assert panel.tile_label.text() == "block" and panel.tile_combo.isEnabled()
    panel.variant_combo.setCurrentIndex(panel.variant_combo.findData("gpu-wgmma-tf32"))
    assert not panel.tile_combo.isEnabled() and panel.schedule.grid == (2, 4) and panel.problem.m == panel.problem.n
    panel.size_combo.setCurrentIndex(panel.size_combo.findData("100x70x90"))
    assert panel.problem == Problem(100, 70, 90) and panel.schedule is not None


def test_cli_model_json_matches_the_formula(capsys):
    assert main(["model", "--variant", "gpu-tiled", "--mnk", "1000x1000x1000", "--tile", "16", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["global_loads"] == 63 * 1000 * 1000 * 2
    assert out["intensity_flop_per_byte"] == pytest.approx(2e9 / (4 * (126e6 + 1e6)))


def test_cli_animate_writes_a_frame_per_step_and_the_glides(tmp_path, capsys):
    from gemmviz.ui.tiling.frames import MOVE_FRAMES

    assert (
        main(["animate", "--mnk", "40x40x40", "--tile", "16", "--frames", str(tmp_path / "f"), "--size", "320x180"])
        == 0
    )
    files = sorted((tmp_path / "f").glob("frame_*.png"))
    steps = block_schedule("gpu-tiled", Problem(40, 40, 40), 16).steps
    assert len(steps) == 13 and len(files) == 13 + MOVE_FRAMES * sum(s.kind == "load" for s in steps)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["animate", "--mnk", "64", "--tile", "0", "--frames", "x"], "not supported"),
        (["animate", "--mnk", "64", "--tile", "12", "--frames", "x"], "not supported"),
        (["animate", "--mnk", "64", "--size", "100000x10", "--frames", "x"], "out of range"),
        (["animate", "--mnk", "64", "--block", "9,9", "--frames", "x"], "outside the grid"),
        (["animate", "--mnk", "0", "--frames", "x"], "at least 1"),
        (["model", "--mnk", "64", "--variant", "cublas", "--tile", "16"], "no tile"),
    ],
)
def test_cli_animation_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # "--frames x" names a folder in the working directory: a folder of this test's
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err, (code, err)


@pytest.mark.parametrize("size", [Problem(1024, 1024, 1024), Problem(100, 70, 90)])
def test_every_animated_variant_can_be_chosen_in_the_tab(qtbot, size):
    """The kernel menu lists every animated variant (the Hopper kernel included); choosing each one shows its
    own schedule, never an exception or the previous kernel's frames."""
    from gemmviz.core.schedule.block import animated_variants

    panel = TilingPanel()
    qtbot.addWidget(panel)
    panel.set_problem(size, tile=16)
    names = [panel.variant_combo.itemData(i) for i in range(panel.variant_combo.count())]
    assert names == list(animated_variants()) and "gpu-wgmma-tf32" in names
    for i, name in enumerate(names):
        panel.variant_combo.setCurrentIndex(i)
        assert panel.message.text() == "", name
        assert panel.schedule.variant == name and panel.view.state.schedule is panel.schedule
        gy, gx = panel.schedule.grid
        assert (panel.block_y.maximum(), panel.block_x.maximum()) == (gy - 1, gx - 1)
        panel.block_y.setValue(gy - 1), panel.block_x.setValue(gx - 1)  # the corner block, ragged edges included
        assert panel.schedule.block == (gy - 1, gx - 1) and panel.message.text() == ""
        panel.go(len(panel.schedule.steps) // 2)
        assert len(distinct_colours(render_image(panel.frame_state(), 640, 360))) > 5


def test_code_panel_type_fits_its_width(qtbot):
    """The kernel's code at a projector's 20 pt where 60 columns fit, smaller (not below 7 pt) where they do
    not: a 470 px panel showed about 20 characters of each line."""
    from PySide6.QtGui import QFontMetricsF

    from gemmviz.ui.export.exporters import layout_offscreen
    from gemmviz.ui.tiling.widgets import CODE_COLUMNS, CodeView

    view = CodeView()
    qtbot.addWidget(view)
    view.setPlainText("x" * 200)
    view.set_max_pt(20)
    for width, narrow in ((470, True), (2400, False)):
        layout_offscreen(view, width, 300)
        pt = view.font().pointSizeF()
        assert 7 <= pt <= 20 and (pt < 20) == narrow
        if narrow:
            assert QFontMetricsF(view.font()).horizontalAdvance("x" * CODE_COLUMNS) <= view.viewport().width()
    view.hide()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_the_zoomed_blocks_name_is_as_large_as_the_tiles_names(qtbot, size, projector):
    """Issue 20: "block of C: a cell per thread" was set at 0.8 of the type and shrunk to A's width (19 px at
    1080p projector); it is as large as the shared tiles' names now, on two lines where one does not fit, in
    the view and clear of every other text, in the tab at 720p and 1080p, normal and projector."""
    from PySide6.QtCore import QRectF

    from gemmviz.ui.theme import theme_for
    from tests.overlap import problems

    panel = TilingPanel(theme_for(projector))
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    panel.set_theme(theme_for(projector))
    panel.go(2)
    view = panel.view
    texts = []
    render_image(panel.frame_state(), view.width(), view.height(), theme_for(projector), texts=texts)
    assert problems(texts, QRectF(0, 0, view.width(), view.height())) == []
    words = "".join(t for t, _box in texts)
    assert "block of C:" in words and "a cell per thread" in words
    name = [
        box.height() for t, box in texts if t in ("block of C:", "a cell per thread", "block of C: a cell per thread")
    ]
    tile_label = next(box.height() for t, box in texts if t.startswith("tile_A["))
    assert name and min(name) >= tile_label - 0.5


def test_threads_outside_c_are_greyed_out_at_an_edge_block(qapp):
    """Issue 31: at an edge block of 100×70×90, TILE 32, the zoomed block's threads past M and N are grey (they
    load zeros and store nothing); at an interior block none is."""
    from PySide6.QtGui import QColor

    from gemmviz.core.schedule.block import block_schedule
    from gemmviz.ui.theme import theme_for
    from gemmviz.ui.tiling.frames import frame_image
    from gemmviz.ui.tiling.layout import inset_window
    from gemmviz.ui.tiling.render import FrameState, renderer_for

    theme = theme_for(True, False)

    def inset_pixel(block, fx, fy):
        s = block_schedule("gpu-tiled", Problem(100, 70, 90), 32, block)
        state = FrameState(s, 2)
        lay = renderer_for(s.kind).layout(1280, 600, state, theme)
        assert inset_window(lay, s, (0, 0)) == (0, 0)
        box = lay.inset
        image = frame_image(state, 1280, 600, theme)
        return QColor(image.pixel(int(box.left() + fx * box.width()), int(box.top() + fy * box.height())))

    edge = inset_pixel((3, 2), 0.9, 0.9)  # a thread of row ≥ 100 and column ≥ 70
    inside = inset_pixel((0, 0), 0.9, 0.9)
    assert edge.saturation() < 40 and edge.lightness() < 170, edge.name()  # grey
    assert inside.saturation() > 40, inside.name()  # C's colour


def test_the_frame_speaks_the_language_the_tab_is_given(qtbot):
    """The window passes its language to the Tiling tab (ui/tabs.py) and again after a switch: the frame's
    counters and caption (core messages) are drawn in it, whatever catalogue is installed."""
    import re

    from gemmviz.ui.theme import LIGHT

    panel = TilingPanel(LIGHT, lang="zh")
    qtbot.addWidget(panel)
    panel.go(2)

    def words() -> str:
        texts: list = []
        render_image(panel.frame_state(), 1280, 600, LIGHT, texts=texts)
        return " ".join(text for text, _box in texts)

    assert "这个线程块到目前为止" in words() and panel.frame_state().lang == "zh"
    panel.set_language("en")
    english = words()
    assert "this block so far:" in english and not re.search("[\u4e00-\u9fff]", english)
