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
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeGuard

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QAction, QColor, QPainter
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QWidget

from gemmviz.core.lesson.lessons import (
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
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui import fonts
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
from gemmviz.ui.text import Words, tr
from gemmviz.ui.tiling.view import TilingView

if TYPE_CHECKING:
    from gemmviz.core.measure.bench import Job
    from gemmviz.ui.lesson.presenter import PresenterWindow
    from gemmviz.ui.tiling.render import FrameState


class _FrameView(Protocol):
    def set_state(self, state: FrameState) -> None: ...


def _follows_frames(widget: object) -> TypeGuard[_FrameView]:
    """A view that draws the deck's animation frame (the animation, the code beside it, two kernels side by side)."""
    return isinstance(widget, TilingView) or callable(getattr(widget, "set_state", None))


DEFAULT_LESSON = "seed000"  # the presenter view opens it where no lesson is shown


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


# ---- the main window's side: through LessonHost, the one interface lesson mode has to the window -------------
class LessonHost(Protocol):
    """What lesson mode asks of the window it runs in, and nothing else (ui/window.MainWindow is one; mypy holds it
    to this): the workspace, the window's language and look, its run, a place for the lesson on screen, and the
    window as a top-level widget (its screen and full-screen state: the projected window is the room's)."""

    lang: str  # the window's language ("en", "zh")
    words: Words  # its words, set again when the language changes (the Lesson menu binds its own)
    workspace: Workspace  # the live results a lesson's run steps show

    @property
    def lesson_mode(self) -> LessonMode: ...  # this module's LessonMode, which the window holds

    # ---- its menus, messages and look
    def add_menu(self) -> QMenu: ...  # a new menu at the end of the menu bar
    def show_error(self, title: str, text: str, details: str = "") -> None: ...
    def show_status(self, text: str, ms: int) -> None: ...
    def look(self) -> tuple[bool, bool]: ...  # (projector type, dark theme) as chosen
    def look_actions(self) -> tuple[QAction, QAction]: ...  # the projector and dark-theme toggles
    def set_projector(self, on: bool, dark: bool | None = None) -> None: ...

    # ---- its run
    def run_jobs(self, jobs: list[Job]) -> bool: ...  # started?
    @property
    def run_progress(self) -> SignalInstance: ...  # (done, total, label, seconds left)

    # ---- the lesson on screen
    def show_lesson(self, view: QWidget) -> None: ...  # in the tabs' place, no menu or status bar (keys kept)
    def hide_lesson(self) -> None: ...  # the tabs back
    def lesson_ended(
        self, projected: bool
    ) -> None: ...  # what waited for it (the replay); `projected`: the room saw it

    # ---- the window as a top-level widget: its screen and full-screen state (the projected window is the room's)
    def window(self) -> QWidget: ...


class LessonMode:
    """The window's lesson mode: the LessonView shown in the tabs' place while a lesson is up, the presenter's
    window beside it. The window creates it and holds it (`MainWindow.lesson_mode`); nothing else sets attributes
    on the window."""

    def __init__(self, host: LessonHost) -> None:
        self.host = host
        self.view: LessonView | None = None
        self.presenter: PresenterWindow | None = None  # the presenter's window, while one is open
        self.presenter_action: QAction | None = None  # Lesson ▸ Presenter view (add_menu)
        self.was_fullscreen = True  # the window's state before the presenter's window made it full screen
        self.alone = False  # one screen (or a mirrored projector): the presenter's window waits behind N
        self.set_projector = False  # the presenter's window turned projector type on: off again when it goes

    @property
    def active(self) -> bool:
        return self.view is not None


def speak(host: LessonHost, lang: str) -> None:
    """The window speaks `lang` now: a shipped lesson on screen goes on in its `lang` version at the same step and
    frame (a lesson of the teacher's own stays as it is written), and the presenter's window sets its words
    again. The windows stay where and as they are."""
    mode = host.lesson_mode
    view = mode.view
    if view is None:
        return
    lesson = view.lesson
    if lesson.folder is None and lesson.lang != lang:
        try:
            other = find_lesson(lesson.name, lang)
        except LessonError:
            other = None  # no version in this language: it stays in its own, whole
        if other is not None and [s.animation for s in other.steps] == [s.animation for s in lesson.steps]:
            view.set_lesson(other)
    if mode.presenter is not None:
        mode.presenter.retranslate()


def add_menu(host: LessonHost) -> None:
    """The Lesson menu: one entry per shipped lesson and language, and a lesson file of the teacher's own."""
    menu = host.add_menu()
    words = host.words  # set again when the window's language changes
    words.bind(menu.setTitle, lambda: QCoreApplication.translate("Lesson", "&Lesson"))
    try:
        lessons = [x for by_lang in all_shipped_lessons().values() for x in by_lang.values()]
    except LessonError as exc:
        lessons = []
        menu.addAction(f"(shipped lessons unreadable: {exc})").setEnabled(False)
    for lesson in lessons:
        entry = menu.addAction("", _starter(host, lesson))
        words.bind(entry.setText, _entry_words(lesson))
    menu.addSeparator()
    words.bind(
        menu.addAction("", lambda: open_lesson_dialog(host)).setText,
        lambda: QCoreApplication.translate("Lesson", "Open lesson file…"),
    )
    mode = host.lesson_mode
    action = mode.presenter_action = menu.addAction("", lambda: open_presenter(host))
    words.bind(action.setText, lambda: QCoreApplication.translate("Lesson", "&Presenter view (laptop screen)"))
    action.setShortcut("Ctrl+Shift+L")


def _starter(host: LessonHost, lesson: Lesson) -> Callable[[], object]:
    return lambda: start(host, lesson)


def _entry_words(lesson: Lesson) -> Callable[[], str]:
    """A Lesson menu entry's words: its title and its steps, in the window's language of the moment."""
    steps = len(lesson.steps)
    return lambda: "{} ({})".format(lesson.title, QCoreApplication.translate("Lesson", "{0} steps").format(steps))


def open_presenter(host: LessonHost, lesson: Lesson | None = None) -> bool:
    """The presenter's window beside the lesson shown (the first shipped lesson, in the window's language, if
    none is); the projected window goes full screen, on a second screen where there is one."""
    mode = host.lesson_mode
    if mode.view is None:
        if lesson is None:
            try:
                lesson = find_lesson(DEFAULT_LESSON, host.lang)
            except LessonError as exc:
                host.show_error(tr("Cannot open the lesson"), str(exc))
                return False
        if not start(host, lesson):
            return False
    if mode.presenter is not None:
        mode.presenter.raise_()
        return True
    from gemmviz.ui.lesson.presenter import PresenterWindow, one_screen, screens

    view = mode.view
    assert view is not None  # (started above)
    projector, _dark = host.look()
    mode.set_projector = not projector
    if mode.set_projector:  # a projected slide is in projector type, whatever came before (normal type again after)
        host.set_projector(True)
        view.set_look(True, view.dark)
    presenter = PresenterWindow(view.deck, view)
    mode.presenter = presenter
    view.deck.notesRequested.connect(lambda: _show_presenter(host, toggle=True))
    view.deck.helpRequested.connect(lambda: _show_presenter(host))
    projected, laptop = screens()
    mode.alone = one_screen()
    window = host.window()
    mode.was_fullscreen = window.isFullScreen()
    handle = window.windowHandle()
    if not mode.alone and handle is not None:
        handle.setScreen(projected)
        window.move(projected.geometry().topLeft())
    window.showFullScreen()
    presenter.setGeometry(laptop.availableGeometry())
    if mode.alone:  # the room sees this screen: the slide alone, the notes behind N
        window.activateWindow()
        view.setFocus()
    else:
        _show_presenter(host)
    return True


def _show_presenter(host: LessonHost, toggle: bool = False) -> None:
    """The presenter's window on top (N, F1): on one screen, N again hides it and the slide is alone again."""
    presenter = host.lesson_mode.presenter
    if presenter is None:
        return
    if toggle and host.lesson_mode.alone and presenter.isVisible():
        presenter.hide()
        host.window().activateWindow()
        return
    presenter.show()
    presenter.raise_()
    presenter.activateWindow()


def dialog_parent(host: LessonHost) -> QWidget:
    """Where a dialog opens while a lesson is given: on the presenter's screen, never over the projected slide."""
    presenter = host.lesson_mode.presenter
    return presenter if presenter is not None and presenter.isVisible() else host.window()


def open_lesson_dialog(host: LessonHost) -> None:
    path, _ = QFileDialog.getOpenFileName(host.window(), tr("Open a lesson"), "", tr("Lessons (*.toml)"))
    if path:
        open_lesson(host, path)


def open_lesson(host: LessonHost, name_or_path: str) -> bool:
    """Start a lesson by name or path; a bad file gets an error dialog naming file and line."""
    try:
        lesson = find_lesson(name_or_path)
    except LessonError as exc:
        host.show_error(tr("Cannot open the lesson"), str(exc))
        return False
    return start(host, lesson)


def start(host: LessonHost, lesson: Lesson) -> bool:
    """The lesson in the tabs' place (the control panel goes with them)."""
    try:
        replay = lesson_session(lesson)
    except LessonError as exc:
        host.show_error(tr("Cannot open the lesson's session"), str(exc))
        return False
    mode = host.lesson_mode
    if mode.view is not None:
        leave(host)
    ws = host.workspace
    gpu = ws.device_gpu.get("name") if ws.gpu_available else None
    projector, dark = host.look()
    view = LessonView(
        lesson,
        replay,
        projector,
        dark,
        gpu,
        workspace=ws,  # the live figures follow its live results (ui/follow.py)
        run_jobs=host.run_jobs,
    )
    host.run_progress.connect(view.on_progress)
    view.left.connect(lambda: leave(host))
    view.deck.languageRequested.connect(lambda: switch_language(host))
    view.follow_look(*host.look_actions())  # Ctrl+P restyles the lesson shown
    mode.view = view
    host.show_lesson(view)
    view.show()  # now, not on the next event-loop turn: the keys work from the first press
    view.go(0)
    view.setFocus()
    fonts.warn_missing(host.show_status, fonts.lesson_text(lesson), str(lesson.path or lesson.name))
    gaps = lesson_gaps(lesson, replay)
    if gaps:  # said, not a dialog in front of the class: the slide of each step says it too
        host.show_status(
            tr("This lesson's session lacks {n} of its figures or views: {first}").format(n=len(gaps), first=gaps[0]),
            15000,
        )
    return True


def switch_language(host: LessonHost) -> None:
    """L in a lesson: the window's other language (English ↔ 中文), chosen as View ▸ Language chooses it; the
    lesson goes on at its step and frame, on the screens it is on (speak), without ending it to reach a menu."""
    from gemmviz.ui import i18n

    i18n.choose(host.window(), i18n.next_language(host.lang))


def fit_on_screen(window: QWidget) -> None:
    """A full-screen window about to be shown normal again, whose normal size is larger than its screen (the
    size it was restored with, 1500×900, on a 1280×720 projector), would come back cut by the screen's edges:
    its normal geometry is fitted into that screen first (and it is maximised there)."""
    screen = window.screen()
    if screen is None:
        return
    room = screen.availableGeometry()
    normal = window.normalGeometry()
    if room.contains(normal):
        window.showNormal()
        return
    size = normal.size().boundedTo(room.size())
    x = min(max(normal.x(), room.left()), room.right() + 1 - size.width())
    y = min(max(normal.y(), room.top()), room.bottom() + 1 - size.height())
    window.showNormal()
    window.setGeometry(x, y, size.width(), size.height())
    window.showMaximized()


def leave(host: LessonHost) -> None:
    """Back to the normal window, as it was (fitted into the screen it is on, where it was larger)."""
    mode = host.lesson_mode
    view = mode.view
    if view is None:
        return
    view.deck.ended = True  # the presenter's window closing below does not end the lesson a second time
    view.deck.timer.stop()
    presenter, mode.presenter = mode.presenter, None
    if presenter is not None:
        presenter.close()
        presenter.deleteLater()
        if not mode.was_fullscreen:
            fit_on_screen(host.window())  # shown normal, fitted into the screen it is on
        if mode.set_projector:
            mode.set_projector = False
            host.set_projector(False)
    host.run_progress.disconnect(view.on_progress)
    if view.follower is not None:
        view.follower.unfollow()
    view.follow_look()
    host.hide_lesson()
    view.hide()
    view.deleteLater()
    mode.view = None
    host.lesson_ended(projected=presenter is not None)
