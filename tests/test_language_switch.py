"""View ▸ Language switches the window in place and keeps every state: at each tab, in a lesson and in the
presenter's view, the state before and after a switch is the same (the tab, the window's geometry, screen and
full screen, the control panel's and each tab's choices and selections, the Exercise tab's kernel and check, the
lesson's step and frame, the presenter's window); only the words change. A lesson in Chinese is Chinese whole in
an English window."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import find_lesson
from gemmviz.ui import i18n, keep
from gemmviz.ui.charts.roofline import RooflineChart
from gemmviz.ui.fonts import install_cjk_fallback
from gemmviz.ui.lesson import mode
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

HAN = re.compile("[\u4e00-\u9fff]")
DATA = Path(__file__).parent / "data" / "exercise_tab"
TITLES = {"en": "Charts", "zh": "图表"}  # the first tab's title in each language


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    app = QApplication.instance()
    assert i18n.install(app, "en")
    install_cjk_fallback(app)
    qs = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=qs)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.sessions), timeout=10000)  # the recorded session, replayed
    try:
        yield w
    finally:
        w.recovery.ask = False
        w.close()
        i18n.install(app, "en")  # the other tests' window is English


def _window_state(w) -> dict:
    ws, ex, t = w.workspace, w.exercise_tab, w.tiling
    record = ex.record or {}
    return {
        "tab": w.tabs.currentIndex(),
        "geometry": w.geometry().getRect(),
        "screen": w.screen().name(),
        "full screen": w.isFullScreen(),
        "banners": (w.device_label.isVisibleTo(w), w.replay_banner.isVisibleTo(w)),  # one the user hid stays hidden
        "control panel": keep.capture(w.run_panel, shown=True),
        "on screen": keep.capture(w.tabs.currentWidget(), shown=True),
        "workspace": ([id(s) for s in ws.sessions], len(ws.live), sorted(ws.hidden), [id(r) for r in ws.selection]),
        "tiling": (t.variant, t.step, t.phase, keep.capture(t, shown=True)),
        "exercise": (
            ex.path,
            ex.watcher.files(),
            ex.picker.currentIndex(),
            ex.hints_shown,
            record.get("file"),
            [v["status"] for v in record.get("verdicts", [])],
            ex.source_view.toPlainText(),
            ex.source_view.highlighted,
        ),
    }


def _switch(w, lang: str) -> None:
    i18n.choose(w, lang)
    assert w.lang == lang and w.tabs.tabText(0) == TITLES[lang]


def test_switching_at_each_tab_keeps_every_state(window, tmp_path):
    w = window
    # what a user has set: the control panel, the Charts tab's choice and table rows, the animation's step, an
    # open kernel with its check and a hint in the Exercise tab
    w.run_panel.size_preset.setCurrentIndex(2)
    w.run_panel.cold_box.setChecked(True)
    charts = w.charts_tab
    charts.show_combo.setCurrentIndex(2)
    charts.table.selectRow(1)
    assert w.workspace.selection
    w.tiling.go(3)
    w.device_label.dismiss()  # the no-GPU notice, hidden (with the replay's news folded into it)
    assert not w.device_label.isVisibleTo(w) and not w.replay_banner.isVisibleTo(w)
    kernel = tmp_path / "tiled_printf.cu"
    shutil.copy(DATA / "tiled_printf.cu", kernel)
    ex = w.exercise_tab
    ex.set_file(kernel)
    assert ex.open_check(DATA / "tiled_printf.check.json")
    ex._next_hint()
    english_cause = ex.cause.text()
    lang = "en"
    for index in range(w.tabs.count()):  # a switch at each tab, to the other language
        w.tabs.setCurrentIndex(index)
        before = _window_state(w)
        lang = "zh" if lang == "en" else "en"
        _switch(w, lang)
        assert _window_state(w) == before, w.tabs.tabText(index)
    assert lang == "zh"  # seven switches: the last to Chinese
    assert HAN.search(ex.cause.text()) and HAN.search(ex.hint_button.text()) and HAN.search(ex.task.toPlainText())
    assert HAN.search(w.run_panel.run_button.text()) and HAN.search(w.tiling.play_button.text())
    _switch(w, "en")
    assert ex.cause.text() == english_cause
    # every tab let go in a switch, made again when asked for, has the choices it had and shows what it showed
    assert charts is not w.charts_tab and w.charts_tab.show_combo.currentIndex() == 2
    assert [r for r in w.charts_tab.table.selectionModel().selectedRows()][0].row() == 1
    picked = w.workspace.selection[0]
    assert f" {picked.problem.label} " in w.roofline_tab.explanation.text()  # the selection explained, as before
    assert w.access_tab.session_path == w.workspace.sessions[-1].path  # the records beside the open session


def test_a_switch_in_a_lesson_keeps_the_step_frame_full_screen_and_presenter(window, qtbot):
    w = window
    w.showFullScreen()
    qtbot.waitUntil(w.isFullScreen)
    assert mode.open_presenter(w, find_lesson("seed000", "en"))
    view, presenter = w.lesson_view, w.lesson_presenter
    qtbot.waitExposed(presenter)
    view.go(4)  # an animation
    view.deck.step_frame(1)
    view.deck.step_frame(1)

    def state():
        deck = view.deck
        return {
            "step": deck.index,
            "frame": deck.frame.step,
            "full screen": w.isFullScreen(),
            "screen": w.screen().name(),
            "geometry": w.geometry().getRect(),
            "presenter": (w.lesson_presenter, presenter.isVisible(), presenter.screen().name(), presenter.geometry()),
            "view": w.lesson_view,
        }

    before = state()
    assert before["frame"] == view.deck.opening_frame(4).step + 2 and view.lesson.lang == "en"
    for lang in ("zh", "en"):
        i18n.choose(w, lang)
        assert state() == before
        assert view.lesson.lang == lang and view.deck.lesson is view.lesson  # the lesson's own version, in lang
        assert bool(HAN.search(view.lesson.steps[4].title)) == (lang == "zh")
        assert bool(HAN.search(presenter.now_label.text())) == (lang == "zh")
        assert bool(HAN.search(presenter.step_label.text())) == (lang == "zh")
    view.deck.leave()


def test_a_chinese_lesson_is_chinese_whole_in_an_english_window(window, qtbot, monkeypatch):
    from gemmviz.ui.text import spoken_language
    from gemmviz.ui.tiling import block

    spoken = []
    words = block.caption_words
    monkeypatch.setattr(
        block, "caption_words", lambda step, lang=None: (spoken.append(lang or spoken_language()), words(step, lang))[1]
    )
    w = window
    assert w.lang == "en" and w.start_lesson(find_lesson("seed000", "zh"))
    view = w.lesson_view
    view.go(0)  # the animation
    view._show_view()
    view.grab()  # paints the slide's words and its animation's
    drawn = [text for text, _box in view.texts]  # header, title, words, footer, status
    assert len(drawn) >= 5 and [t for t in drawn if re.search(r"[a-z]{3}", t) and not HAN.search(t)] == []
    assert spoken and set(spoken) == {"zh"}  # the animation's captions, drawn in the lesson's language
    view.go(10)  # the roofline: its labels are placed once the chart has its size (a timer)
    view._show_view()
    view.grab()
    chart = next(c for c in view.findChildren(RooflineChart) if c.isVisibleTo(view))
    qtbot.waitUntil(lambda: not chart._place_timer.isActive())
    english = [t for t in _chart_texts(chart) if re.search(r"[a-z]{4}", t) and not HAN.search(t)]
    assert english == []  # names aside (gpu-naive, cuBLAS FP32), every word of the chart is Chinese
    assert w.tabs.tabText(0) == "Charts"  # the window stays English
    view.deck.leave()


def _chart_texts(chart) -> list[str]:
    """The words a chart draws: title, axis labels, notes (legend entries are series names)."""
    import pyqtgraph as pg

    out = [re.sub(r"<[^>]+>", " ", chart.getPlotItem().titleLabel.text)]
    for item in chart.scene().items():
        if isinstance(item, pg.TextItem):
            out.append(item.toPlainText())
        elif isinstance(item, pg.AxisItem):
            out.append(item.labelText)
    return [t for t in out if t.strip()]


TWO_SCREENS = """
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

app = QApplication([])
from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import find_lesson
from gemmviz.ui import i18n
from gemmviz.ui.charts.roofline import RooflineChart
from gemmviz.ui.lesson import mode
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

assert [s.name() for s in app.screens()] == ["laptop", "projector"]
i18n.install(app, "en")
qs = QSettings(SETTINGS, QSettings.Format.IniFormat)
w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=qs,
               load_recorded_without_gpu=False)
w.show()
assert mode.open_presenter(w, find_lesson("seed000", "en"))
p, v = w.lesson_presenter, w.lesson_view
v.go(4)
v.deck.step_frame(1)
app.processEvents()
state = lambda: (w.screen().name(), w.isFullScreen(), w.geometry().getRect(), p.screen().name(),
                 p.geometry().getRect(), p.isVisible(), v.deck.index, v.deck.frame.step)
before = state()
assert before[:2] == ("projector", True) and before[3] == "laptop", before
i18n.choose(w, "zh")
app.processEvents()
assert state() == before and v.lesson.lang == "zh" and w.lesson_presenter is p, (state(), before)
v.deck.leave()
w.recovery.ask = False
w.close()
print("kept", before)
"""


def test_on_two_screens_the_projector_keeps_its_slide(tmp_path):
    """The lecture hall: the slide full screen on the projector, the presenter's window on the laptop; a switch
    leaves both where they are (offscreen with two screens: its own process, as a platform is per process)."""
    import json
    import os
    import subprocess
    import sys

    screens = [
        {"name": "laptop", "x": 0, "y": 0, "width": 1920, "height": 1080},
        {"name": "projector", "x": 1920, "y": 0, "width": 1280, "height": 720},
    ]
    config = tmp_path / "screens.json"
    config.write_text(
        json.dumps({"screens": [{**s, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1} for s in screens]})
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    script = f"SETTINGS = {str(tmp_path / 'settings.ini')!r}\n" + TWO_SCREENS
    root = Path(__file__).parent.parent
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "kept ('projector', True" in done.stdout, done.stderr[-2000:]


def test_a_check_under_way_goes_on_through_a_switch(qtbot, tmp_path, monkeypatch):
    """The Exercise tab switched while its check runs: the same check goes on (its worker, its kernel), and says
    how it ended in the new language."""
    import sys

    import gemmviz.backends.exercise as ex
    from gemmviz.ui.exercise.tab import ExerciseTab

    def slow_probe(folder, cancel):
        ex.run_child([sys.executable, "-c", "import time; time.sleep(60)"], 60, cancel)
        return None, "never"

    monkeypatch.setattr(ex, "gpu_arch", slow_probe)
    app = QApplication.instance()
    tab = ExerciseTab("en")
    qtbot.addWidget(tab)
    kernel = tmp_path / "tiled_printf.cu"
    shutil.copy(DATA / "tiled_printf.cu", kernel)
    tab.set_file(kernel)
    tab.start_check()
    worker = tab.worker
    qtbot.waitUntil(lambda: "looking for a GPU" in tab.progress.text(), timeout=10_000)
    try:
        assert i18n.install(app, "zh")
        tab.set_language("zh")
        assert tab.worker is worker and tab.path == kernel and HAN.search(tab.check_button.text())
        tab.cancel_button.click()
        qtbot.waitUntil(lambda: tab.worker is None, timeout=10_000)
        assert HAN.search(tab.progress.text())  # "check cancelled", in Chinese
    finally:
        tab.shutdown()
        i18n.install(app, "en")


L_KEY_AND_LEAVE = """
from PySide6.QtCore import QEvent, QSettings, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

app = QApplication([])
from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import find_lesson
from gemmviz.ui import i18n
from gemmviz.ui.lesson import mode
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

i18n.install(app, "en")
qs = QSettings(SETTINGS, QSettings.Format.IniFormat)
w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=qs,
               load_recorded_without_gpu=False)
w.show()
assert mode.open_presenter(w, find_lesson("seed000-20min", "en"))
p, v = w.lesson_presenter, w.lesson_view
v.go(3)
v.deck.step_frame(2)
app.processEvents()
state = lambda: (w.screen().name(), w.isFullScreen(), p.screen().name(), p.isVisible(), v.deck.index,
                 v.deck.frame.step)
before = state()
for lang in ("zh", "en"):  # L on the presenter's window, as the teacher presses it
    app.sendEvent(p, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_L, Qt.KeyboardModifier.NoModifier))
    app.processEvents()
    assert (w.lang, v.lesson.lang, state()) == (lang, lang, before), (w.lang, v.lesson.lang, state(), before)
v.deck.leave()
app.processEvents()
room = w.screen().availableGeometry()
assert room.contains(w.normalGeometry()), (w.screen().name(), room, w.normalGeometry())
w.recovery.ask = False
w.close()
print("fits", w.screen().name(), before)
"""


def test_l_switches_a_presented_lesson_and_the_window_then_fits_the_projector(tmp_path):
    """L in the presenter's window: English ↔ 中文 with the step, its frame and both screens kept; Esc after
    `gemmviz --presenter` leaves the window on the 1280×720 projector, fitted into it, not 1500×900 and cut."""
    import json
    import os
    import subprocess
    import sys

    screens = [
        {"name": "laptop", "x": 0, "y": 0, "width": 1920, "height": 1080},
        {"name": "projector", "x": 1920, "y": 0, "width": 1280, "height": 720},
    ]
    config = tmp_path / "screens.json"
    config.write_text(
        json.dumps({"screens": [{**s, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1} for s in screens]})
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
    script = f"SETTINGS = {str(tmp_path / 'settings.ini')!r}\n" + L_KEY_AND_LEAVE
    root = Path(__file__).parent.parent
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "fits projector" in done.stdout, done.stderr[-2000:]


def _menu_texts(menu_bar) -> list[str]:
    """Every menu's title and every action's text, submenus included, in the order they are shown."""
    texts: list[str] = []

    def walk(menu) -> None:
        texts.append(menu.title())
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu())
            elif action.text():
                texts.append(action.text())

    for action in menu_bar.actions():
        if action.menu() is not None:
            walk(action.menu())
    return texts


def test_every_menu_item_the_catalogue_translates_is_said_again_after_a_switch(window):
    """A window string marked and translated as CONTRIBUTING says is set again when the language changes (bound
    to the window's `Words`): an item set once with tr() would stay English in a Chinese window, which the
    catalogue check (test_i18n) cannot see."""
    import xml.etree.ElementTree as ET

    from gemmviz.core.paths import asset_path

    root = ET.fromstring(asset_path("i18n", "gemmviz_zh_CN.ts").read_text(encoding="utf-8"))
    zh = {m.findtext("source"): m.findtext("translation") for m in root.iter("message")}
    english = _menu_texts(window.menuBar())
    _switch(window, "zh")
    chinese = _menu_texts(window.menuBar())
    assert len(chinese) == len(english)
    stale = [en for en, now in zip(english, chinese) if zh.get(en) and now == en]
    assert stale == [], f"still English after a switch to Chinese (bind them with words.bind): {stale}"
