"""The LessonView: a lesson given step by step in the window, full size.

The words, header and footer are drawn by ui/lesson/render.py, the same code as the slide export; the view
below them is a live widget (a chart with hover, or the animation, which P plays). Views are built the
first time a step is shown and kept, so going back and forth costs only a repaint. Keys are caught by an
application event filter while the view is on screen, so they work whichever child has the focus and
before the window's own shortcuts (Space, ←, →, Esc) see them.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeGuard

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from gemmviz.core.lesson.lessons import (
    NO_DATA,
    Lesson,
    LessonSource,
    lacking_figures,
    live_source,
    step_jobs,
    step_results,
)
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.follow import WorkspaceFollower
from gemmviz.ui.i18n import speaking
from gemmviz.ui.lesson.deck import LessonDeck, LessonKeys
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
from gemmviz.ui.tiling.widgets import TilingView

if TYPE_CHECKING:
    from gemmviz.ui.tiling.render import FrameState


class _FrameView(Protocol):
    def set_state(self, state: FrameState) -> None: ...


def _follows_frames(widget: object) -> TypeGuard[_FrameView]:
    """A view that draws the deck's animation frame (the animation, the code beside it, two kernels side by side)."""
    return isinstance(widget, TilingView) or callable(getattr(widget, "set_state", None))


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
        deck: LessonDeck | None = None,
        *,
        workspace: Workspace | None = None,
        run_jobs: Callable[[list], bool] | None = None,
    ):
        super().__init__(parent)
        self.lesson = lesson
        self.deck = deck or LessonDeck(lesson, self)  # the step, its frame, the clock: shared with a presenter
        self.replay = replay or NO_DATA
        self.live: LessonSource | None = None
        self.live_gpu = live_gpu  # this machine's GPU, if it has one: run steps can measure live
        self.projector, self.dark = projector, dark
        self._look_actions: tuple = ()  # the window's projector and dark actions, while it follows them
        self.run_jobs = run_jobs  # the window's: callable(list[Job]) -> bool (started?)
        self.workspace = workspace  # this run's results (its live ones) come from it, by its events
        self.status = ""
        self.shown = 0  # the step whose view is on screen (the deck may be ahead of it in a burst of keys)
        self.texts: list[Text] = []
        self.views: dict[int, QWidget | None] = {}
        self._views_size: tuple[int, int, bool, bool] | None = None
        self.keys = LessonKeys(self, self.key)
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
        self.deck.moved.connect(self._moved)
        self.deck.frameChanged.connect(self._frame_changed)
        self.deck.runRequested.connect(self.run_step)
        self.deck.blankChanged.connect(self._blank_changed)
        self.deck.left.connect(self.left)
        self.follower: WorkspaceFollower | None = None
        if workspace is not None:  # the live figures follow the workspace's live results, a run's as they come
            self.follower = WorkspaceFollower(self, workspace, self._take_live, follow_shown=False)
            self.follower.connect(workspace.events.results_added, self._on_results_added)
            self.follower.connect(workspace.events.live_cleared, self._on_live_cleared)
            self._take_live(rebuild=False)
        self.go(self.deck.index)

    @property
    def index(self) -> int:
        return self.deck.index

    @property
    def timer(self) -> QTimer:
        """The animation playing (P): the deck's, so that both windows show the same frame."""
        return self.deck.timer

    # ---- data ------------------------------------------------------------------------------------
    def source(self, index: int | None = None) -> LessonSource:
        """Live results where this run measured the step's series, else the replayed session."""
        step = self.lesson.steps[self.index if index is None else index]
        if self.live is not None and step.series and step_results(step, list(self.live.results)):
            return self.live
        return self.replay

    def set_lesson(self, lesson: Lesson) -> None:
        """Go on with `lesson`, the same lesson in another language (its steps and animations are the same): the
        step, the frame, a playing animation and the live figures stay; its words and views are drawn anew."""
        self.lesson = self.deck.lesson = lesson
        self._drop_views()
        self.status = self._default_status()
        self._place_view()
        self.update()

    def set_live_results(self, results: list, gpu: str) -> None:
        date = _dt.date.today().isoformat()
        self.live = live_source([r for r in results if r.backend != "cpu" or r.valid], gpu, date)
        self._drop_views()
        self.go(self.index)

    def _on_results_added(self, _results: list) -> None:
        if self.follower is not None:
            self.follower.changed(appended=True)  # on screen: redrawn a few times a second while a run streams

    def _on_live_cleared(self) -> None:
        if self.follower is not None:
            self.follower.changed()

    def _take_live(self, rebuild: bool = True) -> None:
        """The workspace's live results as this lesson's live source (on a machine whose GPU can measure), its
        views rebuilt where they changed."""
        gpu, ws = self.live_gpu, self.workspace
        results = [r for r in ws.live if r.backend != "cpu" or r.valid] if gpu and ws is not None else []
        held = [] if self.live is None else list(self.live.results)
        if list(map(id, results)) == list(map(id, held)):
            return
        if not results or gpu is None:
            self.live = None
            if rebuild:
                self._drop_views()
                self.go(self.index)
        elif rebuild:
            self.set_live_results(results, gpu)
        else:
            self.live = live_source(results, gpu, _dt.date.today().isoformat())

    # ---- steps -----------------------------------------------------------------------------------
    def go(self, index: int) -> None:
        self.deck.go(index)
        self._show_view()

    def _moved(self, _index: int) -> None:
        """The deck moved (a key in either window): the words repaint when the event loop next paints; the
        view is built once the keys already queued are done."""
        old = self.views.get(self.shown)
        if old is not None and old is not self.views.get(self.index):
            old.hide()
        self.status = self._default_status()
        self.update()
        self.stepChanged.emit(self.index)
        self.settle.start()

    def _frame_changed(self) -> None:
        view = self.views.get(self.index)
        frame = self.deck.frame
        if _follows_frames(view) and frame is not None and self.shown == self.index:
            view.set_state(frame)

    def _show_view(self) -> None:
        self.settle.stop()
        self._place_view()
        self.prefetch.start()

    def key(self, key) -> None:
        """A lesson key from this window: the deck acts on it. Step keys move the step at once and the view is
        built when the queued keys are done: a burst of them (a clicker held down, 2,000 mashed keys) builds
        one view, not one per step passed."""
        self.deck.key(key)

    def _default_status(self) -> str:
        with speaking(self.lesson.lang):  # a line of the slide: in the lesson's language, as its words are
            return self._status_words()

    def _status_words(self) -> str:
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
        self._place_view()  # the views were built for the old look: rebuilt at the new one, on the deck's frame
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

    def _blank_changed(self) -> None:
        """B or W: the screen black or white, the step's view hidden under it; again (or a move): the slide."""
        widget = self.views.get(self.shown)
        if widget is not None:
            widget.setVisible(self.deck.blank is None)
        self.update()

    def _place_view(self) -> None:
        self.shown = self.index
        widget = self._view(self.index)
        if widget is None:
            return
        _slide, lay = self._layout()
        widget.setGeometry(lay.view.toAlignedRect())
        widget.setVisible(self.deck.blank is None)
        frame = self.deck.frame
        if _follows_frames(widget) and frame is not None:
            widget.set_state(frame)  # a view kept from an earlier visit shows the deck's frame, not its old one

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_view()

    def paintEvent(self, _event) -> None:
        if self.deck.blank is not None:  # B or W: nothing of the slide on the screen
            painter = QPainter(self)
            painter.fillRect(
                self.rect(), QColor(Qt.GlobalColor.black if self.deck.blank == "black" else Qt.GlobalColor.white)
            )
            painter.end()
            self.texts = []
            return
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
        self.deck.toggle_play()

    def run_step(self) -> None:
        step = self.lesson.steps[self.index]
        if not (step.run and self.live_gpu and self.run_jobs is not None):
            return
        jobs = step_jobs(step)
        if jobs and self.run_jobs(jobs):
            with speaking(self.lesson.lang):
                self.set_status(tr("Measuring {n} job(s) on {gpu}…").format(n=len(jobs), gpu=self.live_gpu))

    def set_status(self, text: str) -> None:
        self.status = text
        self.update()

    def on_progress(self, done: int, total: int, label: str, _seconds_left: float = -1) -> None:
        with speaking(self.lesson.lang):
            self.set_status(
                tr("Measuring {done}/{total}: {label}").format(done=done, total=total, label=label)
                if done < total
                else ""
            )

    def showEvent(self, event) -> None:
        super().showEvent(event)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.keys)

    def hideEvent(self, event) -> None:
        self.deck.timer.stop()
        self.prefetch.stop()
        self.settle.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.keys)
        super().hideEvent(event)
