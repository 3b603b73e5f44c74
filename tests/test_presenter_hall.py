"""Issue 44: the presenter view in a lecture hall. The projected slide in projector type; the keys lecturers
expect (B / W blank the screen, a number and Enter jump, ← comes back to a step as it ended, F1 or ? lists the
keys); one screen or a mirrored projector gets the slide alone, the notes behind N; no dialog or banner on the
projector."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import shipped_lessons
from gemmviz.ui.lesson import mode
from gemmviz.ui.lesson import presenter as presenter_module
from gemmviz.ui.lesson.deck import KEYS, key_help, lesson_key
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

LESSON = shipped_lessons()["seed000-20min"]


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(presenter_module, "one_screen", lambda: False)  # a laptop and a projector
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    backends = {"cpu": CpuBackend(), "cuda": FakeGpuBackend(delay_s=0.01, available=False)}
    w = MainWindow(backends=backends, settings=settings, load_recorded_without_gpu=False)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: bool(w.workspace.environment), timeout=10000)
    yield w
    w.close()


def _present(qtbot, w):
    assert mode.open_presenter(w, LESSON)
    p = w.lesson_presenter
    p.resize(1280, 720)
    w.resize(1280, 720)
    qtbot.waitExposed(p)
    return p


def _colours(widget) -> set[str]:
    image = widget.grab().toImage()
    return {QColor(image.pixel(x, y)).name() for x in range(0, image.width(), 37) for y in range(0, image.height(), 23)}


def test_a_projected_slide_is_in_projector_type(qtbot, window):
    """`gemmviz --presenter` projected body text at 17 px at 720p; --projector's is 23 px, header and footer 16."""
    assert not window.projector_action.isChecked()
    _present(qtbot, window)
    view = window.lesson_view
    assert view.projector and window.projector_action.isChecked()
    view.go(2)  # a step with a view: its words at the size a slide with a view has
    _slide, lay = view._layout()
    assert round(lay.body_px) >= 22 and lay.small_px >= 16
    window.leave_lesson()
    assert not window.projector_action.isChecked()  # the teacher's own type again


def test_b_and_w_blank_the_projected_screen_and_only_it(qtbot, window):
    p = _present(qtbot, window)
    view = window.lesson_view
    view.go(2)
    QTest.keyClick(p, Qt.Key.Key_B)
    assert view.deck.blank == "black" and _colours(view) == {"#000000"}
    assert "black" in p.texts()["state"]
    assert all(not w.isVisible() for w in view.views.values() if w is not None)  # the view is under it too
    QTest.keyClick(view, Qt.Key.Key_B)
    assert view.deck.blank is None and len(_colours(view)) > 2 and p.texts()["state"] == ""
    QTest.keyClick(view, Qt.Key.Key_W)
    assert _colours(view) == {"#ffffff"}
    QTest.keyClick(p, Qt.Key.Key_Right)  # a step key shows the screen again, on the next step
    assert view.deck.blank is None and view.index == 3


def test_a_step_number_and_enter_jump_to_it(qtbot, window):
    p = _present(qtbot, window)
    view = window.lesson_view
    for key in (Qt.Key.Key_1, Qt.Key.Key_2):
        QTest.keyClick(p, key)
    assert view.index == 0 and "12" in p.texts()["state"]
    QTest.keyClick(p, Qt.Key.Key_Return)
    assert view.index == 11 and p.texts()["step"].startswith("step 12 ") and p.texts()["state"] == ""
    QTest.keyClick(view, Qt.Key.Key_3, Qt.KeyboardModifier.KeypadModifier)  # the number pad, in the other window
    QTest.keyClick(view, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert view.index == 2
    QTest.keyClick(p, Qt.Key.Key_9)
    QTest.keyClick(p, Qt.Key.Key_9)
    QTest.keyClick(p, Qt.Key.Key_Return)  # no step 99: nothing moves
    assert view.index == 2
    QTest.keyClick(p, Qt.Key.Key_4)
    QTest.keyClick(p, Qt.Key.Key_Escape)  # Esc forgets the number; the lesson goes on
    assert window.lesson_view is view and p.texts()["state"] == ""


def test_back_shows_the_step_as_it_ended(qtbot, window):
    p = _present(qtbot, window)
    view = window.lesson_view
    index = next(i for i, s in enumerate(LESSON.steps) if s.animation is not None and i > 0)
    view.go(index + 1)
    QTest.keyClick(p, Qt.Key.Key_Left)
    frame = view.deck.frame
    assert view.index == index and frame.step == len(frame.schedule.steps) - 1
    view._show_view()
    assert view.views[index].state.step == frame.step  # the projected animation too
    p.current.draw_slide()
    assert p.current.what[-1] == frame.step  # and the presenter's Now
    view.go(index + 1)
    QTest.keyClick(p, Qt.Key.Key_Home)  # Home and a jump open a step as it begins
    QTest.keyClick(p, Qt.Key.Key_End)
    assert view.deck.frame is None or view.deck.frame.step == LESSON.steps[-1].animation.step


def test_f1_or_question_mark_lists_every_key(qtbot, window):
    p = _present(qtbot, window)
    QTest.keyClick(p, Qt.Key.Key_F1)
    shown = p.texts()["help"]
    assert shown and p.help.isVisible() and not p.notes.isVisible()
    for keys, what in key_help():
        assert keys in shown and what in shown
    QTest.keyClick(window.lesson_view, Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier)
    assert not p.help.isVisible() and p.notes.isVisible()
    assert lesson_key(Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier) == Qt.Key.Key_Question
    named = " ".join(keys for keys, _ in key_help())
    for key in (Qt.Key.Key_B, Qt.Key.Key_W, Qt.Key.Key_N, Qt.Key.Key_P, Qt.Key.Key_R, Qt.Key.Key_T, Qt.Key.Key_F1):
        assert key in KEYS and key.name.removeprefix("Key_") in named


def test_one_screen_shows_the_slide_alone_and_the_notes_behind_n(qtbot, window, monkeypatch):
    monkeypatch.setattr(presenter_module, "one_screen", lambda: True)  # one screen, or a mirrored projector
    assert mode.open_presenter(window, LESSON)
    p, view = window.lesson_presenter, window.lesson_view
    assert window.isFullScreen() and not p.isVisible()
    QTest.keyClick(view, Qt.Key.Key_N)
    assert p.isVisible()
    QTest.keyClick(p, Qt.Key.Key_Right)  # the keys work in it
    assert view.index == 1
    QTest.keyClick(p, Qt.Key.Key_N)
    assert not p.isVisible() and window.lesson_view is view  # hidden, not closed: the lesson goes on
    QTest.keyClick(view, Qt.Key.Key_F1)  # the keys' help brings it up too
    assert p.isVisible() and p.help.isVisible()


def test_one_screen_is_what_a_mirrored_projector_looks_like():
    assert presenter_module.one_screen()  # the offscreen platform: one screen


def test_no_dialog_and_no_banner_reaches_the_projector(qtbot, window):
    p = _present(qtbot, window)
    window.show_error("Cannot run", "a test error")
    assert window.last_error.parent() is p
    window.last_error.close()
    assert "No CUDA GPU" in window.device_label.text()
    QTest.keyClick(p, Qt.Key.Key_Escape)  # the teacher leaves the lesson to use a tab, on the projector
    assert window.lesson_view is None and not window.device_label.isVisible()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def test_the_keys_help_fits_its_pane_without_scrolling(qtbot, window, size):
    p = _present(qtbot, window)
    p.resize(*size)
    p.toggle_help()
    qtbot.waitUntil(lambda: p.help.isVisible())
    p.help.document().adjustSize()
    assert p.help.verticalScrollBar().maximum() == 0, size
    assert p.help.font().pixelSize() >= 14


def test_the_replay_notice_stays_off_the_projector_and_comes_back_after_a_lesson_in_the_window(qtbot, window):
    """The replayed session's notice (without a GPU, the device line names it: "No CUDA GPU: replaying NVIDIA
    H200 …") is the teacher's news: after a presented lesson (the window on the projector) it stays hidden, the
    replay opened as the lesson ends included; it comes back when its news changes, and after a lesson given in
    the window alone it is there as before."""
    window.replay_after_lesson = True  # no GPU: the recorded session opens as the lesson ends
    p = _present(qtbot, window)
    assert not window.device_label.isVisible()  # set aside with the tabs while the slide is up
    QTest.keyClick(p, Qt.Key.Key_Escape)
    assert window.lesson_view is None and window.workspace.replay is not None
    qtbot.waitUntil(window.tabs.isVisible)  # the tabs and banners back in the window (shown on the next turn)
    words = window.device_label.text()
    assert words == "No CUDA GPU: replaying NVIDIA H200, 2026-12-02; new CPU runs are live"
    assert window.replay_banner.folded and "replay" in window.replay_banner.text()  # its news is in that line
    assert not window.replay_banner.isVisible() and not window.device_label.isVisible()
    window.show_device()  # the same session shown again: still the teacher's, hidden
    assert not window.device_label.isVisible()
    window.device_label.set_text(words + " ")  # (the same words: spaces do not count)
    assert not window.device_label.isVisible()
    window.device_label.set_text("No CUDA GPU: replaying another GPU; new CPU runs are live")  # other news
    assert window.device_label.isVisible()
    window.show_device()
    assert mode.start(window, LESSON)  # a lesson in the window alone: nothing was projected
    assert not window.device_label.isVisible()
    mode.leave(window)
    qtbot.waitUntil(window.tabs.isVisible)
    assert window.device_label.isVisible() and window.device_label.text() == words
    assert not window.replay_banner.isVisible()  # one line, not two


def test_the_projector_is_not_the_x_screen_listed_beside_the_monitors(tmp_path):
    """X with RandR monitors lists the whole X screen (laptop and projector together) as a screen too: the
    slide goes to the projector, not to that; a mirrored projector (same place and size) is still one screen."""
    import json
    import os
    import subprocess
    import sys

    def chosen(screens: list[dict]) -> str:
        config = tmp_path / "screens.json"
        config.write_text(json.dumps({"screens": [{**s, "logicalDpi": 96, "dpr": 1} for s in screens]}))
        script = (
            "from PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
            "from gemmviz.ui.lesson.presenter import one_screen, screens\n"
            "projected, laptop = screens()\nprint(projected.name(), laptop.name(), one_screen())\n"
        )
        env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}"}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split("\n")[-2]

    laptop = {"name": "laptop", "x": 0, "y": 0, "width": 1920, "height": 1080}
    whole = {"name": "screen", "x": 0, "y": 0, "width": 3200, "height": 1080}
    projector = {"name": "projector", "x": 1920, "y": 0, "width": 1280, "height": 720}
    assert chosen([laptop, whole, projector]) == "projector laptop False"
    assert chosen([laptop, {**laptop, "name": "mirror"}]) == "mirror laptop True"
