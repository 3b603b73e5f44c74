"""The window at a projector's sizes: it fits 1280x720 and 1920x1080 in normal and projector mode on every tab,
no text of a widget or of the animation overlaps another or leaves the window, the control panel can be hidden,
projector mode hides it and leaving it restores the fonts, and the presenter keys work after a click in a
spin box."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QRectF, QSettings, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QWidget

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.problem import Problem
from gemmviz.core.schedule.block import block_schedule
from gemmviz.ui.theme import LIGHT, PROJECTOR_LIGHT
from gemmviz.ui.tiling.block import counter_texts
from gemmviz.ui.tiling.layout import fit_layout, thread_cell
from gemmviz.ui.tiling.render import Background, FrameState, font_px_for, render_image
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend
from tests.overlap import plot_texts, problems, widget_texts

SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)},
        settings=settings,
        load_recorded_without_gpu=True,
    )  # no GPU: the recorded H200 session is replayed
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment) and bool(w.workspace.sessions), timeout=10000)
    yield w
    w.set_projector(False)
    w.close()


def test_minimum_size_fits_720p(shared_window):
    # the module's window (normal type, the Charts tab, the replayed session, no GPU): a window of its own cost
    # 1.5-4 s to build for one size hint
    hint = shared_window.minimumSizeHint()
    assert hint.width() <= 1280 and hint.height() <= 720, hint


@pytest.fixture(scope="module")
def module_window(qapp, tmp_path_factory):
    """One window for the 16 looks of test_every_tab_fits_without_overlaps (as tests/test_legibility.py keeps
    one): each sets the type, size and tab it checks and `shared_window` puts the type back; building a window
    and drawing the replayed session took 1 to 2 s of each."""
    settings = QSettings(str(tmp_path_factory.mktemp("layout") / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=settings)
    w.show()
    for _ in range(200000):  # the recorded session, replayed
        if w.workspace.environment and w.workspace.sessions:
            break
        QApplication.processEvents()
    assert w.workspace.sessions
    w.hide()
    yield w
    w.close()
    w.deleteLater()


@pytest.fixture
def shared_window(module_window, qtbot):
    """The module's window, shown for one test on the Charts tab in normal type, hidden after it."""
    w = module_window
    w.tabs.setCurrentWidget(w.charts_tab)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.set_projector(False)  # projector type sets the application's font
    w.hide()


@pytest.mark.parametrize("size", SIZES, ids=["720p", "1080p"])
@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("tab", ["charts_tab", "roofline_tab", "tiling", "compare"])
def test_every_tab_fits_without_overlaps(shared_window, qtbot, size, projector, tab):
    window = shared_window
    window.set_projector(projector)
    window.resize(*size)
    window.tabs.setCurrentWidget(getattr(window, tab))
    window.refresh()
    qtbot.waitUntil(lambda: not window.charts_tab.refresh_pending, timeout=10000)
    QApplication.processEvents()
    assert window.width() <= size[0] and window.height() <= size[1]
    texts = widget_texts(window)
    import pyqtgraph as pg

    for plot in window.findChildren(pg.GraphicsView):
        if plot.isVisibleTo(window) and plot.width() > 0:
            texts += plot_texts(plot, window)
    bad = problems(texts, QRectF(0, 0, window.width(), window.height()))
    assert bad == [], "\n".join(bad[:10])


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_720p_with_the_control_panel_open_cuts_off_no_tab_and_no_panel_label(shared_window, qtbot, projector):
    """1280×720 with the control panel open, in projector type too: the window stays on the screen (the Hardware,
    Tiling and Accesses tabs made it 1,320 to 1,440 px wide: the tabs now scroll sideways in their own pane), every
    tab's title is inside the part shown and whole (the short titles and smaller type where the whole titles do
    not fit, never below 3/4 of projector type, the whole title its tooltip; all seven were cut to "Cha…"), and the run panel is never wider than its pane (its check boxes' words wrap, a long
    variant title is cut with …): "flush L2 before each sample (cold)" and the M, N, K fields were cut at its edge."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    from gemmviz.ui.run.panel import CheckLabel

    w = shared_window
    w.set_projector(projector)
    w.resize(1280, 720)
    w.set_controls_visible(True)
    panel = w.run_panel
    pane = panel.parentWidget()  # the run panel's scroll area's viewport
    shown = w.tabs_scroll.viewport()
    for name in ("charts_tab", "roofline_tab", "hardware_tab", "tiling", "compare", "access_tab", "exercise_tab"):
        w.tabs.setCurrentWidget(getattr(w, name))
        qtbot.waitUntil(lambda: not w.charts_tab.refresh_pending and not w.projector_pending.isActive())
        QApplication.processEvents()
        assert w.width() <= 1280 and w.minimumSizeHint().width() <= 1280, name
        bar = w.tabs.tabBar()
        at = bar.mapTo(shown, QPoint(0, 0))
        metrics = QFontMetrics(bar.font())
        for i in range(w.tabs.count()):
            assert shown.rect().adjusted(0, 0, 1, 1).contains(bar.tabRect(i).translated(at)), (name, w.tabs.tabText(i))
            assert w.tabs.tabText(i) != "" and w.tabs.tabToolTip(i) != ""  # the whole title where a short one shows
            # no title cut with …: the whole or the short one, each in the tab's width (at most 3/4 of the type)
            assert bar.tabRect(i).width() >= metrics.horizontalAdvance(w.tabs.tabText(i)), (name, w.tabs.tabText(i))
        assert bar.font().pointSizeF() >= min(QApplication.font().pointSizeF(), 0.75 * PROJECTOR_LIGHT.font_pt)
        assert panel.minimumSizeHint().width() <= pane.width() and panel.width() <= pane.width(), name
    labels = {label.box: label for label in panel.findChildren(CheckLabel)}
    cold = labels[panel.cold_box]
    assert cold.text() == panel.cold_box.accessibleName() != "" and cold.wordWrap()
    was = panel.cold_box.isChecked()
    QTest.mouseClick(cold, Qt.MouseButton.LeftButton)  # the words tick the box, as a check box's own text does
    assert panel.cold_box.isChecked() is not was
    panel.cold_box.setChecked(was)


def test_control_panel_hides_with_ctrl_b_and_in_projector_mode_and_fonts_come_back(window, qtbot):
    base = QApplication.instance().font().pointSize()
    assert window.controls.isVisibleTo(window)
    window.controls_action.trigger()  # Ctrl+B
    assert not window.controls.isVisibleTo(window) and not window.controls_wanted
    window.controls_action.trigger()
    window.set_projector(True)
    assert not window.controls.isVisibleTo(window) and window.controls_wanted  # hidden, the choice kept
    window.set_projector(False)
    assert window.controls.isVisibleTo(window)
    assert window.device_label.label.font().pointSize() == base  # the banner, with its own style sheet too
    assert {w.font().pointSize() for w in window.findChildren(QWidget) if w.isVisibleTo(window)} <= {base, -1}
    window.set_controls_visible(False, remember=True)
    window._save_settings()
    assert window.settings.value("window/controls", type=bool) is False


def test_ctrl_p_keeps_the_show_choice_coalesces_presses_and_restyles_other_tabs_when_opened(window, qtbot, monkeypatch):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent

    charts = window.charts_tab
    charts.show_combo.setCurrentText("all four")
    calls = []
    real = window.set_projector
    monkeypatch.setattr(window, "set_projector", lambda *a: (calls.append(a), real(*a)))
    target = window.focusWidget() or window
    for _ in range(21):  # a held or mashed Ctrl+P: the presses arrive together
        for kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            QApplication.postEvent(target, QKeyEvent(kind, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier))
    qtbot.waitUntil(lambda: window.projector_action.isChecked() and not window.projector_pending.isActive())
    assert calls == [(True, False)]  # 21 presses, one restyle, in the state the last press left
    assert charts.show_combo.currentData() == "all four"  # kept (it used to jump to GFLOP/s)
    # named for what it draws: two charts in projector type in a window under 1080 rows
    assert charts.show_combo.currentText() == ("two charts" if charts.short() else "all four")
    assert charts.gflops_chart.theme.font_pt >= 12 and charts.gflops_chart.theme.line_px >= 3
    roofline = window.roofline_tab.chart
    assert roofline.theme.font_pt < 20  # not on screen: restyled when opened, not on every Ctrl+P
    window.tabs.setCurrentWidget(window.roofline_tab)
    assert roofline.theme.font_pt >= 20 and roofline.theme.line_px >= 3
    window.projector_action.trigger()
    qtbot.waitUntil(lambda: window.applied_view == (False, False))
    assert roofline.theme.font_pt < 20 and charts.show_combo.currentData() == "all four"
    window.tabs.setCurrentWidget(charts)  # restyled when opened: four charts again, named so
    assert charts.show_combo.currentText() == "all four" and charts.table.isVisible()


def test_banner_is_one_line_and_can_be_dismissed(window):
    banner = window.device_label
    assert banner.isVisibleTo(window) and "No CUDA GPU" in banner.text()
    assert banner.label.height() < 2.2 * banner.label.fontMetrics().height()
    banner.close_button.click()
    assert not banner.isVisibleTo(window)


def test_no_gpu_banner_is_projector_sized_and_says_what_runs_first_at_720p(window, qtbot):
    # the notice has a style sheet, which froze its font at 9 pt when the projector's 20 pt came; and it named the
    # reason first, so at 1280x720 what a class can still do was cut off after PyCUDA's install hint
    window.resize(1280, 690)
    window.set_projector(True)
    qtbot.waitUntil(lambda: window.applied_view == (True, False))
    label = window.device_label.label
    assert label.font().pointSizeF() == window.theme.font_pt >= 20
    qtbot.waitUntil(lambda: not window.controls.isVisible() and label.width() > 1100)  # the panel gone, laid out
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
    shown = label.text()
    # one line whole (the replay banner folded into it): no GPU here, whose recording is replayed, what runs live.
    # The notice and the replay's banner took two lines, the first cut after the menu path and the reason lost
    assert shown == label.full_text == "No CUDA GPU: replaying NVIDIA H200, 2026-12-02; new CPU runs are live"
    assert not window.replay_banner.isVisible()
    tip = label.toolTip()  # the menu path and the reason, whole in the tooltip
    assert "File ▸ Open recorded or published session" in tip and "Why: " in tip
    window.set_projector(False)
    qtbot.waitUntil(lambda: window.applied_view == (False, False))
    assert label.font().pointSizeF() < 20  # and back with the window's type


def test_presenter_keys_work_after_a_click_in_a_spin_box(window, qtbot):
    t = window.tiling
    window.tabs.setCurrentWidget(t)
    qtbot.mouseClick(t.thread_y, Qt.MouseButton.LeftButton)
    t.thread_y.setFocus()
    assert QApplication.focusWidget() in (t.thread_y, t.thread_y.lineEdit())
    t.go(0)
    for key, expected in (
        (Qt.Key.Key_Right, 1),
        (Qt.Key.Key_PageDown, 2),
        (Qt.Key.Key_Left, 1),
        (Qt.Key.Key_End, len(t.schedule.steps) - 1),
        (Qt.Key.Key_Home, 0),
    ):
        qtbot.keyClick(QApplication.focusWidget(), key)
        assert t.step == expected, key
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert t.timer.isActive()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert not t.timer.isActive()
    before = t.step
    window.run_panel.sweep_edit.setFocus()  # a text field keeps its keys
    qtbot.keyClick(window.run_panel.sweep_edit, Qt.Key.Key_Right)
    assert t.step == before


SCHEDULES = [("gpu-tiled", Problem(1024, 1024, 1024), 16), ("gpu-naive", Problem(1024, 1024, 1024), 16),
             ("gpu-blocktile2d", Problem(1024, 1024, 1024), None), ("gpu-tiled", Problem(100, 70, 90), 16)]  # fmt: skip


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)], ids=["720p", "1080p", "4k"])
@pytest.mark.parametrize("theme", [LIGHT, PROJECTOR_LIGHT], ids=["light", "projector"])
@pytest.mark.parametrize("variant,problem,tile", SCHEDULES)
def test_animation_frames_have_no_text_overlap_and_a_big_thread_cell(qapp, size, theme, variant, problem, tile):
    w, h = size
    s = block_schedule(variant, problem, tile, (1, 2))
    scaled = theme.scaled(min(w / 1920, h / 1080))
    thread = (5, 9) if s.bm // s.tm > 9 else (1, 2)
    background = Background()  # drawn once, as an animation's frames share it (its texts are recorded each frame)
    for i in range(min(len(s.steps), 6)):
        for phase in (0.5, 1.0):
            texts = []
            render_image(FrameState(s, i, phase, thread), w, h, scaled, background, texts=texts)
            assert texts and problems(texts, QRectF(0, 0, w, h)) == [], (i, phase)
    lay = fit_layout(w, h, s, font_px_for(w, h, scaled), [t for t, _b in counter_texts(s, 0, thread)])
    cell = thread_cell(lay, s, thread)
    assert cell is not None and min(cell.width(), cell.height()) >= 12 * h / 720 - 0.01


def test_tab_titles_are_cut_longest_first():
    from gemmviz.ui.status import fair_cap

    assert fair_cap([100, 120, 300, 280], 1000) is None  # all whole
    cap = fair_cap([100, 120, 300, 280], 600)
    assert cap is not None and 100 + 120 + 2 * cap <= 600 and cap >= 180  # the short ones stay whole
    assert sum(min(w, fair_cap([110, 110, 110], 300)) for w in (110, 110, 110)) <= 300
