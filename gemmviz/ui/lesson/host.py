"""What lesson mode asks of the window it runs in: this interface and nothing else (ui/lesson/mode.py takes a
`LessonHost`; ui/window.MainWindow is one). The window keeps its insides to itself; a lesson sees the workspace,
the window's language and look, its run, a place for the lesson on screen, and the window as a top-level widget
(its screen and full-screen state: the projected window is the room's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from gemmviz.core.session.workspace import Workspace
from gemmviz.ui.text import Words

if TYPE_CHECKING:
    from gemmviz.core.measure.bench import Job
    from gemmviz.ui.lesson.mode import LessonMode


class LessonHost(Protocol):
    """The window a lesson is given in."""

    lang: str  # the window's language ("en", "zh")
    words: Words  # its words, set again when the language changes (the Lesson menu binds its own)
    workspace: Workspace  # the live results a lesson's run steps show

    @property
    def lesson_mode(self) -> LessonMode: ...

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
