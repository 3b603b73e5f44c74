"""The window's tabs come from one registry (ui/tabs.py): a tab registered there is built by the window in its
place and at its time, titled in the window's language, themed, rebuilt or retranslated by a language switch,
and stopped when the window closes; nothing else in the window names it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QLabel, QWidget

from gemmviz.backends.cpu import CpuBackend
from gemmviz.ui import tabs
from gemmviz.ui.tabs import TABS, TabContext, TabEntry
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

WAIT_MS = 20_000


def _window(tmp_path, **kw) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}
    return MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False, **kw)


class Scratch(QLabel):
    """A tab of the test's own: it records what the window asked of it."""

    made: list[str] = []

    def __init__(self, ctx: TabContext) -> None:
        super().__init__(f"scratch in {ctx.lang}")
        self.lang, self.themes, self.stopped = ctx.lang, [], []
        Scratch.made.append(ctx.lang)


@pytest.fixture
def scratch_tab():
    Scratch.made = []
    entry = TabEntry(
        "scratch",
        lambda: QCoreApplication.translate("MainWindow", "Charts") + " 2",
        35,  # between Hardware (30) and Tiling (40)
        Scratch,
        apply_theme=lambda tab, theme: tab.themes.append(theme.name),
        stop=lambda tab, wait_ms: tab.stopped.append(wait_ms),
    )
    with TABS.scratch(entry):
        yield entry


def test_the_window_builds_its_tabs_from_the_registry_in_order(tmp_path, qtbot):
    w = _window(tmp_path)
    qtbot.addWidget(w)
    names = [entry.name for entry in tabs.ordered()]
    assert names == ["charts", "roofline", "hardware", "tiling", "compare", "accesses", "exercise"]
    assert [w.tabs.tabToolTip(i) for i in range(w.tabs.count())] == [e.title() for e in tabs.ordered()]
    assert w.built_tab("hardware") is None  # "opened": not before it is opened or asked for
    assert w.tabs.widget(2) is not None and w.hardware_tab is w.tabs.widget(2) is w.built_tab("hardware")


def test_a_registered_tab_is_built_themed_rebuilt_in_a_new_language_and_stopped(tmp_path, qtbot, scratch_tab):
    w = _window(tmp_path, after_first_paint=True)
    qtbot.addWidget(w)
    index = [e.name for e in tabs.ordered()].index("scratch")
    assert w.tabs.tabToolTip(index) == "Charts 2" and Scratch.made == []  # its place and title, built after the frame
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: w.tabs_built, timeout=WAIT_MS)
    tab = w.tab("scratch")
    assert isinstance(tab, Scratch) and w.tabs.widget(index) is tab and Scratch.made == ["en"]

    w.tabs.setCurrentIndex(index)
    w.set_projector(True)
    assert tab.themes[-1] == "projector-light"  # the tab on screen restyled in the window's theme

    w.set_language("zh")
    assert tab.stopped == [None] and w.tabs.tabToolTip(index) == "图表 2"  # let go; its title in Chinese
    again = w.built_tab("scratch")  # on screen: made again at once, in Chinese, still current
    assert isinstance(again, Scratch) and again is not tab and again.lang == "zh" and Scratch.made == ["en", "zh"]
    assert w.tabs.currentWidget() is again and again.themes[-1] == "projector-light"

    w.set_language("en")
    w.set_projector(False)
    third = w.built_tab("scratch")
    assert isinstance(third, Scratch) and third.lang == "en"
    w.shutdown()
    assert third.stopped == [None]


def test_a_tab_asked_for_by_name_before_the_first_frame_brings_the_others_with_it(tmp_path, qtbot):
    w = _window(tmp_path, after_first_paint=True)
    qtbot.addWidget(w)
    assert not w.tabs_built
    assert isinstance(w.tab("roofline"), QWidget)
    assert w.tabs_built and w.built_tab("hardware") is None  # every "first_paint" tab, not the "opened" one
