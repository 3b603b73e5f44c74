"""The main window's files: the File menu (open, save, recent, recorded sessions, CSV, chart and animation
exports, close and clear), files opened where their kind belongs (ui/files.READERS) from a path or a drop, and a
check opened in the Exercise tab. A part of MainWindow (ui/window/main.py)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QMimeData, QSettings
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from gemmviz.core.session.workspace import recorded_sessions
from gemmviz.ui.files import SessionFiles

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtGui import QAction

    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.exercise.tab import ExerciseTab
    from gemmviz.ui.recovery import Recovery
    from gemmviz.ui.status import Banner, Tabs
    from gemmviz.ui.text import Words

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow (its words: translate("MainWindow", …))


def _export_dialog() -> ModuleType:
    """ui/export/dialog.py, imported when File ▸ Export is first chosen (its exporters load pyqtgraph)."""
    from gemmviz.ui.export import dialog

    return dialog


def _dropped_paths(mime: QMimeData) -> list[str]:
    """The local files in a drag whose kind the window opens (none where any is of no kind: the drop is refused)."""
    from gemmviz.ui.files import reader_for

    paths = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()] if mime.hasUrls() else []
    return paths if paths and all(reader_for(p) is not None for p in paths) else []


class WindowFiles(_Window):
    """File ▸ …, paths given or dropped."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py), ui/files.FilesHost's included
        workspace: Workspace
        settings: QSettings
        replay_banner: Banner
        words: Words
        tabs: Tabs
        recovery: Recovery

        @property
        def exercise_tab(self) -> ExerciseTab: ...
        def _action(
            self, text: str | Callable[[], str], slot=None, shortcut=None, checkable: bool = False
        ) -> QAction: ...

        error_batch: list[tuple[str, str, str]] | None

        def show_error(self, title: str, text: str, details: str = "") -> None: ...
        def show_status(self, text: str, ms: int) -> None: ...
        def show_device(self) -> None: ...
        def run_settings(self) -> dict: ...
        def open_lesson(self, path: str | Path) -> bool: ...

    def _build_file_menu(self) -> None:
        action, words = self._action, self.words
        file_menu = self.menuBar().addMenu("")
        words.bind(file_menu.setTitle, lambda: QCoreApplication.translate("MainWindow", "&File"))
        self.files = files = SessionFiles(self, QMenu(self))
        words.bind(files.recent_menu.setTitle, lambda: QCoreApplication.translate("MainWindow", "Open &recent"))
        self.open_action = action(
            lambda: QCoreApplication.translate("MainWindow", "&Open session…"),
            files.open_session_dialog,
            QKeySequence.StandardKey.Open,
        )
        self.save_action = action(
            lambda: QCoreApplication.translate("MainWindow", "&Save session…"),
            self.recovery.save_dialog,
            QKeySequence.StandardKey.Save,
        )
        self.csv_action = action(
            lambda: QCoreApplication.translate("MainWindow", "Export results as &CSV…"), files.export_csv_dialog
        )
        file_menu.addMenu(files.recent_menu)
        self.recorded_menu = file_menu.addMenu("")
        words.bind(
            self.recorded_menu.setTitle,
            lambda: QCoreApplication.translate("MainWindow", "Open recorded or published session"),
        )
        for path in recorded_sessions():
            self.recorded_menu.addAction(action(path.name, lambda _=False, p=path: files.open_session(p)))
        self.export_action = action(
            lambda: QCoreApplication.translate("MainWindow", "&Export chart…"),
            lambda: _export_dialog().ExportDialog(self).open(),
            "Ctrl+E",
        )
        self.export_anim_action = action(
            lambda: QCoreApplication.translate("MainWindow", "Export &animation…"),
            lambda: _export_dialog().export_animation_dialog(self),
        )
        for a in (self.open_action, self.save_action, self.csv_action, self.export_action, self.export_anim_action):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(
            action(lambda: QCoreApplication.translate("MainWindow", "Close loaded sessions"), files.close_loaded)
        )
        file_menu.addAction(
            action(lambda: QCoreApplication.translate("MainWindow", "Clear live results"), files.clear_live)
        )
        file_menu.addSeparator()
        file_menu.addAction(
            action(lambda: QCoreApplication.translate("MainWindow", "&Quit"), self.close, QKeySequence.StandardKey.Quit)
        )

    def open_paths(self, paths: list[str]) -> bool:
        """Each file where its kind opens (ui/files.READERS); whether every one opened. The errors of several
        files are said in one dialog (three bad files stacked three dialogs, one over the other)."""
        if len(paths) < 2 or self.error_batch is not None:
            return all([self.files.open_path(path) for path in paths])
        self.error_batch = []
        try:
            opened = [self.files.open_path(path) for path in paths]
        finally:
            errors, self.error_batch = self.error_batch, None
        if len(errors) == 1:
            self.show_error(*errors[0])
        elif errors:
            title = QCoreApplication.translate("MainWindow", "{0} of {1} files could not be opened").format(
                len(errors), len(paths)
            )
            lines = "\n".join(text for _title, text, _details in errors)
            details = "\n\n".join(f"{t}: {x}\n{d}".strip() for t, x, d in errors)
            self.show_error(title, lines, details)
        return all(opened)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """A file of a kind the window opens (ui/files.READERS) may be dropped on it."""
        if _dropped_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = _dropped_paths(event.mimeData())
        if paths:
            event.acceptProposedAction()
            self.open_paths(paths)

    def open_exercise_check(self, path) -> bool:
        """File ▸ Open of FILE.check.json: the check in the Exercise tab."""
        self.tabs.setCurrentWidget(self.exercise_tab)
        try:
            return self.exercise_tab.open_check(Path(path))
        except MemoryError:  # the loaders keep a record within 1 GB; a machine short of that says so
            self.show_error(
                QCoreApplication.translate("MainWindow", "Cannot open the check"),
                QCoreApplication.translate("MainWindow", "{0}: not enough memory to open it").format(path),
            )
            return False
