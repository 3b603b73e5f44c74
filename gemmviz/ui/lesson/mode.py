"""Lesson mode: the full-window LessonView that gives a lesson step by step, and how the main window enters
and leaves it (the Lesson menu, `gemmviz --lesson NAME`).

The words, header and footer are drawn by ui/lesson/render.py, the same code as the slide export; the view
below them is a live widget (a chart with hover, or the animation, which P plays). Views are built the
first time a step is shown and kept, so going back and forth costs only a repaint. Keys are caught by an
application event filter while the view is on screen, so they work whichever child has the focus and
before the window's own shortcuts (Space, ←, →, Esc) see them.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPainter
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget

from gemmviz.core.lessons import (
    NO_DATA,
    Lesson,
    LessonError,
    LessonSource,
    all_shipped_lessons,
    find_lesson,
    lacking_figures,
    lesson_gaps,
    lesson_session,
    live_source,
    step_jobs,
    step_results,
)
from gemmviz.ui import fonts
from gemmviz.ui.lesson.render import (
    Text,
    chart_theme,
    draw_slide_text,
    has_view,
    make_view_widget,
    slide_for,
    slide_layout,
)
from gemmviz.ui.lesson.views import ui_view
from gemmviz.ui.text import tr
from gemmviz.ui.tiling.view import TilingView

NEXT = {Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_PageDown}
BACK = {Qt.Key.Key_Left, Qt.Key.Key_PageUp}
KEYS = NEXT | BACK | {Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Escape, Qt.Key.Key_P, Qt.Key.Key_R}
STEPS_PER_SECOND = 2.0


class _Keys(QObject):
    """Application-wide filter: the lesson's keys, for any widget inside the lesson's window."""

    def __init__(self, view: LessonView):
        super().__init__(view)
        self.view = view

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) or not isinstance(obj, QWidget):
            return False
        if obj.window() is not self.view.window() or not self.view.isVisible():
            return False
        if (
            not isinstance(event, QKeyEvent)
            or event.key() not in KEYS
            or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        ):
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the key comes to us as a KeyPress instead of firing a window shortcut
            return True
        self.view.key(event.key())
        return True


class LessonView(QWidget):
    """One step at a time: header, title, text, one view, footer. Emits `left` when Esc leaves the lesson."""

    left = Signal()
    stepChanged = Signal(int)

    def __init__(
        self,
        lesson: Lesson,
        replay: LessonSource | None,
        projector: bool = False,
        dark: bool = False,
        live_gpu: str | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.lesson = lesson
        self.replay = replay or NO_DATA
        self.live: LessonSource | None = None
        self.live_gpu = live_gpu  # this machine's GPU, if it has one: run steps can measure live
        self.projector, self.dark = projector, dark
        self._look_actions: tuple = ()  # the window's projector and dark actions, while it follows them
        self.run_jobs = None  # set by the window: callable(list[Job]) -> bool (started?)
        self.live_results = None  # set by the window: callable() -> this run's results
        self.status = ""
        self.index = 0
        self.texts: list[Text] = []
        self.views: dict[int, QWidget | None] = {}
        self._views_size = None
        self.timer = QTimer(self)
        self.timer.setInterval(16)
        self.timer.timeout.connect(self._tick)
        self.keys = _Keys(self)
        # the next step's view is built while the teacher talks, so the key press only shows it
        self.prefetch = QTimer(self)
        self.prefetch.setSingleShot(True)
        self.prefetch.setInterval(30)
        self.prefetch.timeout.connect(lambda: self._view(min(self.index + 1, len(self.lesson.steps) - 1)))
        # a step key's view, once every key already queued has moved the step (Qt runs a 0 ms timer after them)
        self.settle = QTimer(self)
        self.settle.setSingleShot(True)
        self.settle.setInterval(0)
        self.settle.timeout.connect(self._show_view)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(640, 360)
        self.go(0)

    # ---- data ------------------------------------------------------------------------------------
    def source(self, index: int | None = None) -> LessonSource:
        """Live results where this run measured the step's series, else the replayed session."""
        step = self.lesson.steps[self.index if index is None else index]
        if self.live is not None and step.series and step_results(step, list(self.live.results)):
            return self.live
        return self.replay

    def set_live_results(self, results: list, gpu: str) -> None:
        date = _dt.date.today().isoformat()
        self.live = live_source([r for r in results if r.backend != "cpu" or r.valid], gpu, date)
        self._drop_views()
        self.go(self.index)

    # ---- steps -----------------------------------------------------------------------------------
    def go(self, index: int) -> None:
        self._move(index)
        self._show_view()

    def _move(self, index: int) -> None:
        """The step changes (its words repaint when the event loop next paints); its view is not built yet."""
        self.timer.stop()
        old = self.views.get(self.index)
        self.index = max(0, min(index, len(self.lesson.steps) - 1))
        if old is not None and old is not self.views.get(self.index):
            old.hide()
        self.status = self._default_status()
        self.update()
        self.stepChanged.emit(self.index)

    def _show_view(self) -> None:
        self.settle.stop()
        self._place_view()
        self.prefetch.start()

    def key(self, key) -> None:
        """Step keys move the step at once and build its view when the queued keys are done: a burst of them
        (a clicker held down, 2,000 mashed keys) builds one view, not one per step passed."""
        last = len(self.lesson.steps) - 1
        step = {Qt.Key.Key_Home: 0, Qt.Key.Key_End: last}.get(key)
        if key in NEXT or key in BACK or step is not None:
            self._move(step if step is not None else self.index + (1 if key in NEXT else -1))
            self.settle.start()
            return
        if key == Qt.Key.Key_Escape:
            self.timer.stop()
            self.left.emit()
            return
        if self.settle.isActive():
            self._show_view()  # P and R act on the step's view
        if key == Qt.Key.Key_P:
            self.toggle_play()
        elif key == Qt.Key.Key_R:
            self.run_step()

    def _default_status(self) -> str:
        step = self.lesson.steps[self.index]
        hint = ui_view(step.view).hint(step)
        if not hint and step.run and self.live_gpu and self.run_jobs is not None:
            hint = tr("R measures these kernels live on {gpu}").format(gpu=self.live_gpu)
        lacking = lacking_figures(step, self.source(), self.lesson.lang)
        if lacking:  # an "n/a" in the words: the teacher sees why on the slide, before a student asks
            gap = tr("{n} figure(s) not in this session: n/a").format(n=len(lacking))
            return f"{gap} · {hint}" if hint else gap
        return hint

    def follow_look(self, projector_action=None, dark_action=None) -> None:
        """Take the look from the window's projector and dark-theme actions as they toggle (none: stop)."""
        for action in self._look_actions:
            action.toggled.disconnect(self._look_toggled)
        self._look_actions = tuple(a for a in (projector_action, dark_action) if a is not None)
        for action in self._look_actions:
            action.toggled.connect(self._look_toggled)

    def _look_toggled(self, _checked: bool) -> None:
        projector, dark = (a.isChecked() for a in self._look_actions)
        self.set_look(projector, dark)

    def set_look(self, projector: bool, dark: bool) -> None:
        """Projector type or the dark theme, at once, on the step shown: its words and its live view are
        drawn again in the new look (an animation keeps its frame, and plays on if it was playing)."""
        if (projector, dark) == (self.projector, self.dark):
            return
        self.projector, self.dark = projector, dark
        old = self.views.get(self.index)
        frame = old.state if isinstance(old, TilingView) else None
        self._place_view()  # the views were built for the old look: rebuilt at the new one
        new = self.views.get(self.index)
        if frame is not None and isinstance(new, TilingView):
            new.set_state(frame)
        self.repaint()  # now, before the restyle of the window behind the lesson runs

    # ---- the view under the words ----------------------------------------------------------------
    def _layout(self):
        slide = slide_for(self.lesson, self.index, self.source(), self.status)
        step = self.lesson.steps[self.index]
        return slide, slide_layout(self.width(), self.height(), slide, self.projector, has_view(step))

    def _drop_views(self) -> None:
        for widget in self.views.values():
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        self.views = {}

    def _view(self, index: int) -> QWidget | None:
        size = (self.width(), self.height(), self.projector, self.dark)
        if size != self._views_size:  # fonts and lines follow the window's size: rebuild at the new one
            self._drop_views()
            self._views_size = size
        if index not in self.views:
            theme = chart_theme(self.projector, self.dark, self.width(), self.height())
            widget = make_view_widget(self.lesson.steps[index], self.source(index), theme, self.lesson.lang)
            if widget is not None:
                widget.setParent(self)
            self.views[index] = widget
        return self.views[index]

    def _place_view(self) -> None:
        widget = self._view(self.index)
        if widget is None:
            return
        _slide, lay = self._layout()
        widget.setGeometry(lay.view.toAlignedRect())
        widget.show()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_view()

    def paintEvent(self, _event) -> None:
        slide, lay = self._layout()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        from gemmviz.ui.theme import theme_for

        self.texts = draw_slide_text(
            painter, self.width(), self.height(), slide, theme_for(self.projector, self.dark), lay
        )
        painter.end()

    # ---- animation and live runs -----------------------------------------------------------------
    def toggle_play(self) -> None:
        view = self.views.get(self.index)
        if not isinstance(view, TilingView) or view.state is None:
            return
        if self.timer.isActive():
            self.timer.stop()
            return
        state = view.state
        if state.step >= len(state.schedule.steps) - 1:
            view.set_state(replace(state, step=0, phase=1.0))
        self.timer.start()

    def _tick(self) -> None:
        view = self.views.get(self.index)
        if not isinstance(view, TilingView) or view.state is None:
            self.timer.stop()
            return
        s = view.state
        phase = s.phase + self.timer.interval() / 1000 * STEPS_PER_SECOND
        if phase >= 1.0 and s.phase >= 1.0:  # a finished step: move on to the next, starting its glide
            if s.step >= len(s.schedule.steps) - 1:
                self.timer.stop()
                return
            view.set_state(replace(s, step=s.step + 1, phase=0.0))
        else:
            view.set_state(replace(s, phase=min(1.0, phase)))

    def run_step(self) -> None:
        step = self.lesson.steps[self.index]
        if not (step.run and self.live_gpu and self.run_jobs is not None):
            return
        jobs = step_jobs(step)
        if jobs and self.run_jobs(jobs):
            self.set_status(tr("Measuring {n} job(s) on {gpu}…").format(n=len(jobs), gpu=self.live_gpu))

    def set_status(self, text: str) -> None:
        self.status = text
        self.update()

    def on_finished(self, _results=None, _cancelled: bool = False) -> None:
        if self.live_results is not None and self.live_gpu:
            self.set_live_results(self.live_results(), self.live_gpu)

    def on_progress(self, done: int, total: int, label: str, _seconds_left: float = -1) -> None:
        self.set_status(
            tr("Measuring {done}/{total}: {label}").format(done=done, total=total, label=label) if done < total else ""
        )

    def showEvent(self, event) -> None:
        super().showEvent(event)
        QApplication.instance().installEventFilter(self.keys)

    def hideEvent(self, event) -> None:
        self.timer.stop()
        self.prefetch.stop()
        self.settle.stop()
        QApplication.instance().removeEventFilter(self.keys)
        super().hideEvent(event)


# ---- the main window's side ----------------------------------------------------------------------------
def add_menu(window) -> None:
    """The Lesson menu: one entry per shipped lesson and language, and a lesson file of the teacher's own."""
    menu = window.menuBar().addMenu(QCoreApplication.translate("Lesson", "&Lesson"))
    try:
        lessons = [x for by_lang in all_shipped_lessons().values() for x in by_lang.values()]
    except LessonError as exc:
        lessons = []
        menu.addAction(f"(shipped lessons unreadable: {exc})").setEnabled(False)
    for lesson in lessons:
        steps = QCoreApplication.translate("Lesson", "{0} steps").format(len(lesson.steps))
        menu.addAction(f"{lesson.title} ({steps})", lambda _=False, x=lesson: start(window, x))
    menu.addSeparator()
    menu.addAction(QCoreApplication.translate("Lesson", "Open lesson file…"), lambda: open_lesson_dialog(window))


def open_lesson_dialog(window) -> None:
    path, _ = QFileDialog.getOpenFileName(window, tr("Open a lesson"), "", tr("Lessons (*.toml)"))
    if path:
        open_lesson(window, path)


def open_lesson(window, name_or_path: str) -> bool:
    """Start a lesson by name or path; a bad file gets an error dialog naming file and line."""
    try:
        lesson = find_lesson(name_or_path)
    except LessonError as exc:
        window.show_error(tr("Cannot open the lesson"), str(exc))
        return False
    return start(window, lesson)


def start(window, lesson: Lesson) -> bool:
    """Swap the window's central widget for a LessonView (the control panel goes with it)."""
    try:
        replay = lesson_session(lesson)
    except LessonError as exc:
        window.show_error(tr("Cannot open the lesson's session"), str(exc))
        return False
    if getattr(window, "lesson_view", None) is not None:
        leave(window)
    ws = window.workspace
    gpu = ws.device_gpu.get("name") if ws.gpu_available else None
    view = LessonView(lesson, replay, window.projector_action.isChecked(), window.dark_action.isChecked(), gpu)
    view.run_jobs = lambda jobs: (window.start(jobs), window.controller.busy)[1]
    c = window.controller
    c.progress.connect(view.on_progress)
    view.live_results = lambda: list(ws.live)
    c.finished.connect(view.on_finished)
    view.left.connect(lambda: leave(window))
    view.follow_look(window.projector_action, window.dark_action)  # Ctrl+P restyles the lesson shown
    window.lesson_saved_central = window.takeCentralWidget()
    window.lesson_view = view
    window.setCentralWidget(view)
    view.show()  # now, not on the next event-loop turn: the keys work from the first press
    view.go(0)
    view.setFocus()
    fonts.warn_missing(window, fonts.lesson_text(lesson), lesson.path or lesson.name)  # never silent boxes
    gaps = lesson_gaps(lesson, replay)
    if gaps:  # said, not a dialog in front of the class: the slide of each step says it too
        window.statusBar().showMessage(
            tr("This lesson's session lacks {n} of its figures or views: {first}").format(n=len(gaps), first=gaps[0]),
            15000,
        )
    return True


def leave(window) -> None:
    """Back to the normal window, as it was."""
    view = getattr(window, "lesson_view", None)
    if view is None:
        return
    c = window.controller
    c.progress.disconnect(view.on_progress)
    c.finished.disconnect(view.on_finished)
    view.follow_look()
    window.takeCentralWidget()
    view.hide()
    view.deleteLater()
    window.lesson_view = None
    window.setCentralWidget(window.lesson_saved_central)
    window.lesson_saved_central = None
    if window.replay_after_lesson:
        window.open_replay()
