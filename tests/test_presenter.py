"""The presenter view (issue 31): a second window with the current slide, the next, the notes, the clock and
"step i of n", over one lesson state shared with the projected window. Keys in either window move both;
animation frames step inside a slide; closing either window ends lesson mode; the projected window shows the
slide alone (no menu bar, no status bar) and keeps the menus' shortcuts."""

import re
from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import shipped_lessons
from gemmviz.ui.lesson import mode
from gemmviz.ui.lesson import presenter as presenter_module
from gemmviz.ui.lesson.deck import lesson_key
from gemmviz.ui.lesson.presenter import clock_text
from gemmviz.ui.tiling.widgets import TilingView
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

LESSONS = shipped_lessons()
SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    # a laptop and a projector (the offscreen platform has one screen: tests of one screen undo this)
    monkeypatch.setattr(presenter_module, "one_screen", lambda: False)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend(delay_s=0.01, available=False)}
    w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    yield w
    w.close()


def _lesson_with_notes():
    """seed000 with notes of its own on each step, so a test can tell which step's notes are shown."""
    lesson = LESSONS["seed000"]
    steps = tuple(replace(s, notes=f"Say this at step {i + 1}.") for i, s in enumerate(lesson.steps))
    return replace(lesson, steps=steps)


def _present(qtbot, w, lesson, size):
    assert mode.open_presenter(w, lesson)
    p = w.lesson_presenter
    p.resize(*size)
    w.resize(*size)
    qtbot.waitExposed(p)
    for pane in (p.current, p.next):
        pane.draw_slide()
    return p


def _settled(view):
    view._show_view()
    QApplication.processEvents()


def _non_blank(image) -> bool:
    """Drew a slide: more than two colours on a grid of points over it (one row can fall between drawings)."""
    points = [(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)]
    return len({QColor(image.pixel(x, y)).name() for x, y in points}) > 2


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_presenter_shows_slide_next_notes_clock_and_step(qtbot, window, size):
    lesson = _lesson_with_notes()
    p = _present(qtbot, window, lesson, size)
    view = window.lesson_view
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()  # the slide alone
    assert window.isFullScreen()
    texts = p.texts()
    assert texts["step"] == f"step 1 of {len(lesson.steps)}" and texts["notes"] == "Say this at step 1."
    assert re.fullmatch(r"\d\d:\d\d", texts["clock"])
    assert _non_blank(p.current.image) and _non_blank(p.next.image)
    assert p.current.image.height() <= p.current.height() * p.current.devicePixelRatioF()
    # both panes inside the window, side by side; the notes and the key help readable on a laptop
    for widget in (p.current, p.next, p.notes, p.help_label, p.clock_label, p.reset_button):
        geo = widget.geometry()
        assert p.rect().contains(geo), widget
    assert p.current.width() > p.next.width()
    assert p.notes.font().pixelSize() >= 18 and p.clock_label.font().pixelSize() >= 26
    assert p.help_label.height() >= p.help_label.heightForWidth(p.help_label.width()) - 1  # no line cut
    # the last step: nothing next
    view.go(len(lesson.steps) - 1)
    assert p.next.what is None and p.texts()["step"] == f"step {len(lesson.steps)} of {len(lesson.steps)}"


def test_keys_in_either_window_move_both(qtbot, window):
    lesson = _lesson_with_notes()
    p = _present(qtbot, window, lesson, (1280, 720))
    view = window.lesson_view
    QTest.keyClick(p, Qt.Key.Key_Right)  # in the presenter's window
    assert view.index == 1 and p.texts()["step"].startswith("step 2 ") and "step 2." in p.texts()["notes"]
    QTest.keyClick(p.notes, Qt.Key.Key_PageDown)  # its notes pane does not keep the clicker's key
    assert view.index == 2
    QTest.keyClick(view, Qt.Key.Key_Left)  # in the projected window
    assert p.texts()["step"].startswith("step 2 ") and view.index == 1
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert p.texts()["step"].startswith("step 3 ")
    p.current.draw_slide()
    assert p.current.what[1] == 2 and p.next.what[1] == 3


def test_animation_frames_step_inside_a_slide_in_both_windows(qtbot, window):
    lesson = _lesson_with_notes()
    p = _present(qtbot, window, lesson, (1280, 720))
    view = window.lesson_view
    index = next(i for i, s in enumerate(lesson.steps) if s.animation is not None)
    view.go(index)
    _settled(view)
    anim = view.views[index]
    assert isinstance(anim, TilingView)
    start = anim.state.step
    QTest.keyClick(p, Qt.Key.Key_Period)  # one frame on, from the presenter's window
    assert view.index == index and anim.state.step == start + 1
    assert p.texts()["frame"].startswith(f"animation frame {start + 2} of ")
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)  # Shift+→ in the projected one
    assert view.index == index and anim.state.step == start + 2
    QTest.keyClick(view, Qt.Key.Key_Comma)
    QTest.keyClick(p, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    assert view.index == index and anim.state.step == start
    p.current.draw_slide()
    assert p.current.what[-1] == start  # the presenter's slide drawn at the deck's frame
    view.go(index + 1)
    view.go(index)  # back on the slide: it opens on its named frame again
    _settled(view)
    assert view.views[index].state.step == lesson.steps[index].animation.step


def test_a_step_may_open_on_a_named_frame(qtbot, window):
    lesson = LESSONS["seed000"]
    index = next(i for i, s in enumerate(lesson.steps) if s.animation is not None)
    anim = replace(lesson.steps[index].animation, step=3)
    steps = list(lesson.steps)
    steps[index] = replace(steps[index], animation=anim)
    lesson = replace(lesson, steps=tuple(steps))
    assert window.start_lesson(lesson)
    view = window.lesson_view
    view.go(index)
    _settled(view)
    assert view.views[index].state.step == 3 and view.deck.frame.step == 3


def test_the_clock_runs_and_resets(qtbot, window):
    p = _present(qtbot, window, _lesson_with_notes(), (1280, 720))
    deck = window.lesson_view.deck
    deck.clock.restart()
    qtbot.waitUntil(lambda: deck.elapsed_s() >= 1, timeout=30_000)
    qtbot.waitUntil(lambda: p.texts()["clock"] != "00:00", timeout=30_000)
    p.reset_button.click()
    assert p.texts()["clock"] == "00:00" and deck.elapsed_s() == 0
    QTest.keyClick(p, Qt.Key.Key_T)
    assert deck.elapsed_s() == 0
    assert clock_text(75) == "01:15" and clock_text(3723) == "1:02:03"


@pytest.mark.parametrize("closing", ["presenter", "esc-presenter", "esc-projected", "main"])
def test_closing_either_window_ends_lesson_mode_cleanly(qtbot, window, closing):
    before = window.centralWidget()
    p = _present(qtbot, window, _lesson_with_notes(), (1280, 720))
    view = window.lesson_view
    if closing == "presenter":
        p.close()
    elif closing == "esc-presenter":
        QTest.keyClick(p, Qt.Key.Key_Escape)
    elif closing == "esc-projected":
        QTest.keyClick(view, Qt.Key.Key_Escape)
    else:
        window.close()
    assert window.lesson_view is None and window.lesson_presenter is None and not p.isVisible()
    if closing != "main":
        assert window.centralWidget() is before and window.menuBar().isVisible()
        assert window.statusBar().isVisible()
        assert not window.isFullScreen()
        assert mode.open_presenter(window, LESSONS["seed001"])  # and a lesson starts again
        assert window.lesson_presenter.texts()["step"] == f"step 1 of {len(LESSONS['seed001'].steps)}"


def test_shortcuts_work_without_the_menu_bar(qtbot, window):
    assert window.start_lesson(LESSONS["seed000"])
    assert not window.menuBar().isVisible()
    assert window.projector_action in window.actions() and window.fullscreen_action in window.actions()
    window.leave_lesson()
    assert window.projector_action not in window.actions() and window.menuBar().isVisible()


def test_the_lesson_menu_opens_the_presenter(qtbot, window):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Lesson")
    action = next(a for a in menu.actions() if "Presenter" in a.text())
    action.trigger()
    assert window.lesson_view is not None and window.lesson_presenter is not None
    assert window.lesson_view.lesson.name == mode.DEFAULT_LESSON


def test_lesson_keys_read_shift_arrows_as_frames():
    shift, none = Qt.KeyboardModifier.ShiftModifier, Qt.KeyboardModifier.NoModifier
    assert lesson_key(Qt.Key.Key_Right, shift) == Qt.Key.Key_Period
    assert lesson_key(Qt.Key.Key_Left, shift) == Qt.Key.Key_Comma
    assert lesson_key(Qt.Key.Key_Right, none) == Qt.Key.Key_Right
    assert lesson_key(Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier) is None  # Ctrl+P stays the window's
    assert lesson_key(Qt.Key.Key_A, none) is None
