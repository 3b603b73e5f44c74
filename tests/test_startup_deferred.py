"""The app's start (issue 35): the first frame comes before pyqtgraph, the chart tabs, the Lesson menu's entries
and the GPU probe (MainWindow(after_first_paint=True), as ui/app.run makes it); once it is out, the window is
the one a window built all at once is. Every wait is on a condition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import find_lesson
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

ROOT = Path(__file__).resolve().parents[1]
WAIT_MS = 60_000  # a loaded machine: the chart tabs and the probe come within this


@pytest.fixture
def make(qtbot, tmp_path):
    windows = []

    def make_window(**kw) -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend()}
        w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False, **kw)
        qtbot.addWidget(w)
        windows.append(w)
        return w

    yield make_window
    for w in windows:
        w.close()
        assert not w.controller.worker_thread.isRunning()


def _tabs(w: MainWindow) -> list[tuple[str, str]]:
    """Each tab's whole title (its tooltip: a narrow bar shows the short one) and its class."""
    return [(w.tabs.tabToolTip(i), type(w.tabs.widget(i)).__name__) for i in range(w.tabs.count())]


def _menus(w: MainWindow) -> list:
    def entries(menu):
        return [
            (a.text(), a.shortcut().toString(), entries(a.menu()) if a.menu() is not None else None)
            for a in menu.actions()
        ]

    return entries(w.menuBar())


def test_the_first_frame_waits_for_nothing_it_does_not_show_then_the_window_is_whole(make, qtbot):
    eager = make()
    lazy = make(after_first_paint=True)
    # before its first frame: stand-ins in the chart tabs' places, with their titles; the Lesson menu in its place
    assert not lazy.tabs_built and not any(lazy.built_tab(n) for n in ("charts", "accesses", "exercise"))
    assert [title for title, _ in _tabs(lazy)] == [title for title, _ in _tabs(eager)]
    assert [a.text() for a in lazy.menuBar().actions()] == [a.text() for a in eager.menuBar().actions()]
    assert lazy.lesson_mode.presenter_action is None
    assert not lazy.workspace.environment  # the probe is asked after the frame

    lazy.show()
    qtbot.waitUntil(lambda: lazy.painted and lazy.tabs_built, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bool(lazy.workspace.environment), timeout=WAIT_MS)
    # ChartsTab, RooflineTab, ComparePanel, AccessTab, ExerciseTab where a window built at once has them
    assert _tabs(lazy) == _tabs(eager)
    assert lazy.tabs.currentIndex() == eager.tabs.currentIndex() == 0
    assert _menus(lazy) == _menus(eager)  # the Lesson menu's entries, in its place, with their shortcuts
    assert lazy.lesson_mode.presenter_action is not None
    assert set(lazy.tab_themes) == {lazy.tabs.widget(i) for i in range(lazy.tabs.count())}  # no stand-in left
    qtbot.waitUntil(lambda: bool(eager.workspace.environment), timeout=WAIT_MS)
    # the probe's answer reaches the chart tabs as in the other window
    assert lazy.roofline_tab.ceilings_button.isEnabled() == eager.roofline_tab.ceilings_button.isEnabled()


def test_a_chart_tab_asked_for_before_the_first_frame_is_built_then(make):
    w = make(after_first_paint=True)
    assert w.charts_tab is w.tabs.widget(0)  # built on the spot, in its stand-in's place
    assert [t for _, t in _tabs(w)][:2] == ["ChartsTab", "RooflineTab"] and w.tabs_built


def test_a_lesson_given_at_start_keeps_the_chart_tabs_for_its_end(make, qtbot):
    """app.run --lesson: the lesson starts before the first frame; the chart tabs are not built behind it (a stall
    of its first slide) but when the tabs come back; its shortcuts (Ctrl+Shift+L) work while the menu bar is hidden."""
    w = make(after_first_paint=True)
    assert w.start_lesson(find_lesson("seed000", "en"))
    assert w.lesson_mode.presenter_action is not None  # the Lesson menu was filled for it
    assert w.lesson_mode.presenter_action in w.actions()  # on the window itself while the menu bar is hidden
    w.show()
    qtbot.waitUntil(lambda: w.painted and bool(w.workspace.environment), timeout=WAIT_MS)
    assert not w.tabs_built  # not built behind the slide
    w.leave_lesson()
    qtbot.waitUntil(lambda: w.tabs_built, timeout=WAIT_MS)  # the tabs are back: built now
    assert w.tabs.currentWidget() is w.charts_tab and w.tabs_built


def test_the_app_reports_its_start_up_steps_without_pyqtgraph_before_the_frame(tmp_path):
    """A fresh process: pyqtgraph is not loaded when the first frame is out, and the start-up probe
    (benchmarks/startup_time.py) reports each step in order."""
    script = """
import json, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from gemmviz.backends.cpu import CpuBackend
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend
app = QApplication([])
seen = {}
w = MainWindow({"cpu": CpuBackend(), "cuda": FakeGpuBackend()}, settings=QSettings(sys.argv[1], QSettings.Format.IniFormat),
               load_recorded_without_gpu=False, after_first_paint=True, chart_options={"antialias": True})
w.firstPainted.connect(lambda: seen.setdefault("at_first_frame", "pyqtgraph" in sys.modules))
w.controller.environmentReady.connect(lambda _e: (seen.setdefault("charts", w.tabs_built), app.quit()))
w.show()
app.exec()
import pyqtgraph
seen["antialias"] = pyqtgraph.getConfigOption("antialias")
w.close()
print(json.dumps(seen))
"""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "s.ini")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"at_first_frame": False, "charts": True, "antialias": True}

    probe = subprocess.run(
        [sys.executable, "-m", "gemmviz"],
        cwd=tmp_path,
        env={**env, "GEMMVIZ_STARTUP_PROBE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    steps = [line.split() for line in probe.stdout.splitlines() if line.split()[:1] and line[0].isalpha()]
    names = [s[0] for s in steps]
    assert names == [
        *("cli-imported", "ui-imported", "app-ready", "window-built"),  # the parts before the first frame
        *("window-shown", "charts-built", "probed", "session-shown"),
    ], probe.stdout
    times = [float(s[1]) for s in steps]
    assert times == sorted(times)
