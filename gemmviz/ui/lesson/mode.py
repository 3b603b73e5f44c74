"""Lesson mode: how the main window enters and leaves a lesson (the Lesson menu, `gemmviz --lesson NAME`, a
lesson file opened), the presenter's window beside it, and the lesson's language switched with the window's.
The window is reached only through LessonHost; the lesson on screen is ui/lesson/lesson_view.LessonView.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication, SignalInstance
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from gemmviz.core.lesson.lessons import (
    Lesson,
    LessonError,
    all_shipped_lessons,
    find_lesson,
    lesson_gaps,
    lesson_session,
)
from gemmviz.core.session.workspace import Workspace
from gemmviz.ui import fonts
from gemmviz.ui.lesson.lesson_view import LessonView
from gemmviz.ui.status import show_normal_within_screen
from gemmviz.ui.text import Words, tr

if TYPE_CHECKING:
    from gemmviz.core.measure.bench import Job
    from gemmviz.ui.lesson.presenter import PresenterWindow


DEFAULT_LESSON = "seed000"  # the presenter view opens it where no lesson is shown


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
            show_normal_within_screen(host.window())  # fitted into the screen it is on
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
