"""The main window's side of lesson mode: all that ui/lesson/mode.LessonHost asks of the window (its menus,
messages, look and run; the lesson in the tabs' place and the tabs back), the Lesson menu filled after the first
frame, and the lesson mode the window holds. A part of MainWindow (ui/window/main.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QWidget

if TYPE_CHECKING:
    from gemmviz.core.measure.bench import Job
    from gemmviz.ui.lesson.lesson_view import LessonView
    from gemmviz.ui.lesson.mode import LessonMode
    from gemmviz.ui.run.controller import RunController
    from gemmviz.ui.status import Banner

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow


def lesson_module() -> ModuleType:
    """ui/lesson/mode.py, imported when a lesson is first touched (it loads the lesson views and the tiling
    renderer: not needed for the window's first frame)."""
    from gemmviz.ui.lesson import mode

    return mode


def _menu_actions(widget: QWidget) -> Iterator[QAction]:
    for action in widget.actions():
        menu = action.menu()
        if isinstance(menu, QMenu):
            yield from _menu_actions(menu)
        elif not action.isSeparator():
            yield action


class WindowLesson(_Window):
    """ui/lesson/mode.LessonHost, as the window gives it (ui/window/main.py holds mypy to it)."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py)
        controller: RunController
        projector_action: QAction
        dark_action: QAction
        device_label: Banner
        replay_banner: Banner
        replay_after_lesson: bool
        _lesson_mode: LessonMode | None
        _set_aside: QWidget | None
        _lesson_menu_stand_in: QMenu | None

        def start(self, jobs: list[Job]) -> None: ...
        def open_replay(self) -> None: ...

    def add_menu(self) -> QMenu:
        return self.menuBar().addMenu("")

    def show_status(self, text: str, ms: int) -> None:
        self.statusBar().showMessage(text, ms)

    def look(self) -> tuple[bool, bool]:
        return self.projector_action.isChecked(), self.dark_action.isChecked()

    def look_actions(self) -> tuple[QAction, QAction]:
        return self.projector_action, self.dark_action

    def run_jobs(self, jobs: list[Job]) -> bool:
        """Run `jobs` (a lesson's run step); whether they started."""
        self.start(jobs)
        return self.controller.busy

    @property
    def run_progress(self) -> SignalInstance:
        return self.controller.progress

    def show_lesson(self, view: QWidget) -> None:
        """`view` in the place of the tabs and banners (set aside until hide_lesson), the slide alone: no menu bar
        (its grey band at 720p) and no status bar; the menus' shortcuts (Ctrl+P, F11, Ctrl+Q …) stay, their
        actions on the window itself while the bar is hidden."""
        self._set_aside = self.takeCentralWidget()
        self._hide_bars(True)
        self.setCentralWidget(view)

    def hide_lesson(self) -> None:
        """The tabs and banners back in the lesson's place (the lesson's view is its mode's to delete)."""
        self.takeCentralWidget()  # the lesson's view: its mode hides and deletes it
        if self._set_aside is not None:
            self.setCentralWidget(self._set_aside)
        self._set_aside = None
        self._hide_bars(False)

    def lesson_ended(self, projected: bool) -> None:
        """The recorded session a lesson kept waiting is opened now. `projected`: the window was the room's screen,
        so the no-GPU and replay notices were the teacher's news, not the class's: hidden as their ✕ hides them
        (each comes back when its text changes); after a lesson in the window alone they are as before."""
        if self.replay_after_lesson:
            self.open_replay()
        if projected:
            for banner in (self.device_label, self.replay_banner):
                banner.dismiss()

    def _hide_bars(self, hidden: bool) -> None:
        actions = [a for a in _menu_actions(self.menuBar()) if not a.shortcut().isEmpty()]
        for action in actions:
            if hidden:
                self.addAction(action)
            else:
                self.removeAction(action)
        self.menuBar().setVisible(not hidden)
        self.statusBar().setVisible(not hidden)

    def start_lesson(self, chosen) -> bool:
        """Lesson mode (ui/lesson/mode.py): the LessonView replaces the central widget."""
        self.fill_lesson_menu()  # its shortcuts join the window while the menu bar is hidden
        return lesson_module().start(self, chosen)

    def leave_lesson(self) -> None:
        """Back to the normal window, as it was (ui/lesson/mode.leave)."""
        lesson_module().leave(self)

    def open_lesson(self, path: str | Path) -> bool:
        """A lesson file (File ▸ Open, a dropped .toml, `gemmviz --open`): given in lesson mode."""
        self.fill_lesson_menu()  # its shortcuts join the window while the menu bar is hidden
        return bool(lesson_module().open_lesson(self, str(path)))

    def fill_lesson_menu(self) -> None:
        """The Lesson menu made (ui/lesson/mode.add_menu: it parses the shipped lessons) in its stand-in's place."""
        stand_in = self._lesson_menu_stand_in
        if stand_in is None:
            return
        self._lesson_menu_stand_in = None
        bar = self.menuBar()
        before = set(bar.actions())
        lesson_module().add_menu(self)  # appended to the bar: moved to where the stand-in is, which goes
        for added in [a for a in bar.actions() if a not in before]:
            bar.insertAction(stand_in.menuAction(), added)
        bar.removeAction(stand_in.menuAction())
        stand_in.deleteLater()

    @property
    def lesson_mode(self) -> LessonMode:
        """The LessonView and presenter while a lesson is up (ui/lesson/mode.LessonMode), made when first asked
        for: ui/lesson/mode.py and the lesson views it imports load after the first frame, not before it."""
        mode = self.__dict__.get("_lesson_mode")
        if mode is None:
            mode = self._lesson_mode = lesson_module().LessonMode(self)
        return mode

    @property
    def lesson_view(self) -> LessonView | None:
        """The lesson on screen, if any (read-only: lesson_mode holds it)."""
        return self.lesson_mode.view

    @property
    def lesson_presenter(self):
        return self.lesson_mode.presenter

    @property
    def presenter_action(self) -> QAction | None:
        return self.lesson_mode.presenter_action
